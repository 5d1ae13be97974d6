"""Python data given to fit: every bad sentence, token or label gets one InputError naming where it is."""

from __future__ import annotations

import pytest

import chaintag


@pytest.mark.parametrize("name", ["perceptron", "sapo", "crf"])
@pytest.mark.parametrize("sentences, labels, message", [
    ([["a", "b"]], [["A", None]], "sentence 0, token 1: the label is missing (None)"),
    ([["a", "b"]], [["A", float("nan")]], "sentence 0, token 1: the label is nan (of type float)"),
    ([["a", "b"]], [[("X",), "Y"]], "sentence 0, token 0: the label is ('X',) (of type tuple)"),
    ([["a", "b"]], [["X", ["Y"]]], "sentence 0, token 1: the label is ['Y'] (of type list)"),
    ([["a", "b"]], ["XY"], "the labels of sentence 0 are a string ('XY')"),
    ([["the", None, "barks"]], [["DT", "NN", "VBZ"]], "sentence 0, token 1: the token is None"),
    ([[1, 2]], [["A", "B"]], "sentence 0, token 0: the token is 1 (of type int)"),
    ([["a"], None], [["A"], ["B"]], "sentence 1 is None"),
    ([[b"ab"]], [["X"]], "sentence 0, token 0: the token b'ab' is bytes"),
])
def test_bad_python_data_gets_one_error_naming_sentence_and_token(name, sentences, labels, message):
    """Missing labels became classes named 'None' / 'nan', a string of labels one label per character,
    and a None or int token a bare TypeError; integer labels are read as strings."""
    with pytest.raises(chaintag.InputError) as err:
        chaintag.make_learner(name, epochs=1, progress=False).fit(sentences, labels)
    assert message in str(err.value)


def test_integer_labels_are_read_as_strings():
    m = chaintag.make_learner("perceptron", epochs=5, progress=False).fit([["the", "dog"]] * 3, [[1, 2]] * 3)
    assert m.labels_ == ["1", "2"] and m.predict([["the", "dog"]]) == [["1", "2"]]


def test_train_names_what_it_takes():
    """chaintag.train with data held in Python said 'stat: path should be string ... not tuple'; a
    misspelt setting named only the learner's parameters."""
    with pytest.raises(chaintag.InputError, match="train: expected a file or a dataset reference .* not a tuple"):
        chaintag.train(([["a"]], [["A"]]))
    with pytest.raises(chaintag.InputError, match=r"dev: expected a file .*chaintag\.make_learner"):
        chaintag.train("x.txt", dev=([["a"]], [["A"]]))
    with pytest.raises(chaintag.InputError, match=r"has no parameter devv \(did you mean dev\?\)"):
        chaintag.train("conll2000:train", algorithm="perceptron", devv="x.txt")
