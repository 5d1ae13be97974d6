"""python-crfsuite / sklearn-crfsuite item forms, read as python-crfsuite's ItemSequence reads them, and the
validation of API input (uneven tuples, mixed token kinds, generators) that names the sentence and token."""

from __future__ import annotations

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError
from chaintag.features.dicts import DictAttributeExtractor

Y = [["B-NP", "B-VP"], ["B-NP", "B-VP"]]


def names_of(tokens):
    """The attribute names (and values) of each token, as the extractor reads them."""
    ex = DictAttributeExtractor(real_values=True)
    attrs = ex.fit_transform([tokens])
    vals = attrs.attr_values if attrs.attr_values is not None else np.ones(len(attrs.attr_ids))
    return [{ex.attribute_name(int(a)): float(v) for a, v in zip(attrs.attr_ids[lo:hi], vals[lo:hi])}
            for lo, hi in zip(attrs.tok_ptr[:-1], attrs.tok_ptr[1:])]


def test_item_forms_give_python_crfsuite_attribute_names():
    got = names_of([
        ["w=He", "bias"],
        {"nb": {"w[-1]": "He", "n": 2.5, "deep": {"x": True, "off": False}}},
        {"bigrams": ["BOS He", "He runs"], "set": {"b", "a"}, "t": ("q",)},
        {"w": "runs", "bias": 1.0, "zero": 0, "BOS": True, "EOS": False},
    ])
    assert got == [
        {"w=He": 1.0, "bias": 1.0},
        {"nb:w[-1]=He": 1.0, "nb:n": 2.5, "nb:deep:x": 1.0},
        {"bigrams:BOS He": 1.0, "bigrams:He runs": 1.0, "set:a": 1.0, "set:b": 1.0, "t:q": 1.0},
        {"w=runs": 1.0, "bias": 1.0, "BOS": 1.0},
    ]


@pytest.mark.parametrize("form", ["list", "nested dict", "nested list"])
def test_each_form_trains_the_model_of_its_flat_dict(form, tmp_path):
    """Each form and the flat dict it stands for give the same attributes, so the same weights."""
    if form == "list":
        X = [[["w=He", "bias"], ["w=runs", "bias"]], [["w=She", "bias"], ["w=sings", "bias"]]]
        flat = [[{"w": "He", "bias": 1}, {"w": "runs", "bias": 1}], [{"w": "She", "bias": 1}, {"w": "sings", "bias": 1}]]
    elif form == "nested dict":
        X = [[{"w": "He", "nb": {"w[-1]": "BOS"}}, {"w": "runs", "nb": {"w[-1]": "He"}}],
             [{"w": "She", "nb": {"w[-1]": "BOS"}}, {"w": "sings", "nb": {"w[-1]": "She"}}]]
        flat = [[{"w": "He", "nb:w[-1]": "BOS"}, {"w": "runs", "nb:w[-1]": "He"}],
                [{"w": "She", "nb:w[-1]": "BOS"}, {"w": "sings", "nb:w[-1]": "She"}]]
    else:
        X = [[{"w": "He", "bg": ["BOS He", "He runs"]}, {"w": "runs", "bg": ["He runs"]}],
             [{"w": "She", "bg": ["BOS She"]}, {"w": "sings", "bg": ["She sings"]}]]
        flat = [[{"w": "He", "bg:BOS He": True, "bg:He runs": True}, {"w": "runs", "bg:He runs": True}],
                [{"w": "She", "bg:BOS She": True}, {"w": "sings", "bg:She sings": True}]]
    m = chaintag.StructuredPerceptron(epochs=3).fit(X, Y)
    ref = chaintag.StructuredPerceptron(epochs=3).fit(flat, Y)
    assert m.columns_ == ("<feature dict>",)
    assert m.extractor_.names == ref.extractor_.names
    assert np.array_equal(m.weights_, ref.weights_)
    assert m.predict(X) == ref.predict(flat) == Y
    m.save(tmp_path / "m.npz")
    assert chaintag.load(tmp_path / "m.npz").predict(X) == Y


def test_list_tokens_are_columns_when_columns_are_named():
    X = [[["He", "PRP"], ["runs", "VBZ"]], [["She", "PRP"], ["sings", "VBZ"]]]
    m = chaintag.StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2).fit(X, Y)
    assert m.columns_ == ("word", "pos")
    assert m.predict(X) == m.predict([[tuple(t) for t in s] for s in X])


def test_item_lists_of_other_things_are_refused():
    with pytest.raises(InputError, match=r"sentence 0, token 1: item 0 of the list of attribute names is a int"):
        chaintag.StructuredPerceptron(epochs=2).fit([[["a"], [3]]], [["O", "O"]])
    with pytest.raises(InputError, match=r"sentence 0, token 0: feature 'bg' has a value of type list holding 1.5 \(float\)"):
        chaintag.StructuredPerceptron(epochs=2).fit([[{"bg": ["a", 1.5]}]], [["O"]])


def test_a_generator_of_sentences_is_read_once():
    X = [[("He", "PRP"), ("runs", "VBZ")], [("She", "PRP"), ("sings", "VBZ")], [("It", "PRP"), ("is", "VBZ")]]
    y = Y + [["B-NP", "B-VP"]]
    ref = chaintag.StructuredPerceptron(epochs=2).fit(X, y)
    gen = chaintag.StructuredPerceptron(epochs=2).fit((s for s in X), (ls for ls in y))
    assert np.array_equal(gen.weights_, ref.weights_)
    D = [[{"w": w} for w, _ in s] for s in X]
    dref = chaintag.StructuredPerceptron(epochs=2).fit(D, y)
    dgen = chaintag.StructuredPerceptron(epochs=2).fit(iter(D), iter(y))
    assert np.array_equal(dgen.weights_, dref.weights_)
    with pytest.raises(InputError, match="3 sentences but 2 label sequences"):
        chaintag.StructuredPerceptron(epochs=2).fit((s for s in X), y[:2])


def test_uneven_tuples_are_refused_with_sentence_and_token():
    X = [[("He", "PRP"), ("runs", "VBZ")], [("She", "PRP"), ("sings",)]]
    with pytest.raises(InputError, match=r"sentence 1, token 1 has 1 column\(s\) .* the first token has 2"):
        chaintag.StructuredPerceptron(epochs=2).fit(X, Y)
    X = [[("He", "PRP"), ("runs", "VBZ", "x")], [("She", "PRP"), ("sings", "VBZ")]]
    with pytest.raises(InputError, match=r"sentence 0, token 1 has 3 column"):
        chaintag.StructuredPerceptron(epochs=2).fit(X, Y)


def test_mixed_token_kinds_are_refused_with_sentence_and_token():
    with pytest.raises(InputError, match=r"sentence 1, token 1 is a dict .* give every token in one form"):
        chaintag.StructuredPerceptron(epochs=2).fit([[("He", "PRP"), ("runs", "VBZ")],
                                                     [("She", "PRP"), {"w": "sings"}]], Y)
    with pytest.raises(InputError, match=r"sentence 1, token 0: expected a feature dict .* got tuple"):
        chaintag.StructuredPerceptron(epochs=2).fit([[{"w": "He"}, {"w": "runs"}],
                                                     [("She", "PRP"), {"w": "sings"}]], Y)


def test_non_string_column_values_are_refused():
    with pytest.raises(InputError, match=r"sentence 0, token 1, column 1: 3 is a int"):
        chaintag.StructuredPerceptron(epochs=2).fit([[("He", "PRP"), ("runs", 3)]], [["B-NP", "B-VP"]])


def test_predict_names_the_sentence_and_token():
    m = chaintag.StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2).fit(
        [[("He", "PRP"), ("runs", "VBZ")]], [["B-NP", "B-VP"]])
    with pytest.raises(InputError, match=r"sentence 1, token 1: a token is a feature dict"):
        m.predict([[("He", "PRP")], [("She", "PRP"), {"w": "x"}]])
    with pytest.raises(InputError, match=r"sentence 0, token 1: token \('runs',\) has 1 columns, expected 2"):
        m.predict([[("He", "PRP"), ("runs",)]])
    assert m.predict(s for s in [[("He", "PRP"), ("runs", "VBZ")]]) == [["B-NP", "B-VP"]]  # a generator
    d = chaintag.StructuredPerceptron(epochs=2).fit([[["w=He"], ["w=runs"]]], [["B-NP", "B-VP"]])
    assert d.predict([[["w=He"], {"w": "runs"}]]) == [["B-NP", "B-VP"]]  # both forms read the same names
    with pytest.raises(InputError, match=r"sentence 0, token 1: expected a feature dict .* got tuple"):
        d.predict([[["w=He"], ("runs",)]])


def test_neural_learner_reads_a_generator_once_and_checks_tokens_and_labels():
    pytest.importorskip("torch")
    tiny = dict(epochs=1, dropout=0.0, random_state=3, word_dim=4, hidden=4, char_encoder="none", progress=False)
    X = [[("He", "PRP"), ("runs", "VBZ")], [("She", "PRP"), ("sings", "VBZ")], [("It", "PRP"), ("is", "VBZ")]]
    y = Y + [["B-NP", "B-VP"]]
    ref = chaintag.make_learner("bilstm-crf", **tiny).fit(X, y)
    gen = chaintag.make_learner("bilstm-crf", **tiny).fit((s for s in X), iter(y))
    assert gen.predict(X) == ref.predict(X)
    with pytest.raises(InputError, match=r"sentence 1, token 1 has 1 column"):
        chaintag.make_learner("bilstm-crf", **tiny).fit([X[0], [("She", "PRP"), ("sings",)]], Y)
    with pytest.raises(InputError, match=r"sentence 0, token 1: the label 'B-V P' holds a space"):
        chaintag.make_learner("bilstm-crf", **tiny).fit(X[:2], [["B-NP", "B-V P"], ["B-NP", "O"]])


def test_serve_reads_item_forms():
    import http.client
    import json
    import threading

    from chaintag.service import make_server
    m = chaintag.StructuredPerceptron(epochs=3).fit(
        [[["w=He", "bias"], ["w=runs", "bias"]], [["w=She", "bias"], ["w=sings", "bias"]]], Y)
    srv = make_server(m, "127.0.0.1", 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        answers = []
        for body in ({"sentences": [[["w=He", "bias"], ["w=runs", "bias"]]]},
                     {"sentences": [[{"w": "He", "bias": 1}, {"nb": {"x": "y"}, "w": "runs"}]]},
                     {"sentences": [[["w=He", 3]]]}):
            conn = http.client.HTTPConnection(*srv.server_address[:2], timeout=30)
            conn.request("POST", "/tag", body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            answers.append((resp.status, json.loads(resp.read().decode())))
            conn.close()
    finally:
        srv.shutdown()
        srv.server_close()
    assert answers[0] == (200, {"labels": [["B-NP", "B-VP"]], "n_tokens": 2})
    assert answers[1] == (200, {"labels": [["B-NP", "B-VP"]], "n_tokens": 2})
    assert answers[2][0] == 400 and "lists of attribute names" in answers[2][1]["error"]
