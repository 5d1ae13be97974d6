"""Faults found by a user migrating from sklearn-crfsuite (feature dicts), each as a kind."""

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError

X = [[{"w": "the", "bias": 1.0}, {"w": "dog", "bias": 1.0}], [{"w": "a", "bias": 1.0}, {"w": "cat", "bias": 1.0}]]
Y = [["D", "N"], ["D", "N"]]


def test_a_flat_list_of_feature_dicts_is_named():
    """fit on a flat list of dicts (the sentence level missing) gave a bare KeyError: 0."""
    with pytest.raises(InputError, match="sentence 0 is a dict; a sentence is a list of tokens"):
        chaintag.StructuredPerceptron(epochs=1).fit([t for s in X for t in s], Y)


def test_numpy_labels_give_plain_strings():
    """Labels given as numpy arrays left numpy's str_ in labels_ and the predictions (plain str once
    the model was saved and loaded)."""
    m = chaintag.StructuredPerceptron(epochs=2).fit(X, [np.array(y) for y in Y])
    assert all(type(lab) is str for lab in m.labels_)
    assert all(type(lab) is str for sent in m.predict(X) for lab in sent)


def test_the_command_line_refuses_a_model_of_feature_dicts_plainly(tmp_path, capsys):
    """tag and eval read a column file's tuples as if they were malformed dicts, and eval's hint
    (--columns) led nowhere: no file gives feature dicts."""
    model = tmp_path / "dicts.npz"
    chaintag.StructuredPerceptron(epochs=2).fit(X, Y).save(model)
    data = tmp_path / "t.txt"
    data.write_text("the D D\ndog N N\n")
    for argv in (["tag", "--model", str(model), str(data)], ["eval", "--model", str(model), "--test", str(data)]):
        assert main(argv) == 2
        assert "the model was trained on feature dicts in Python" in capsys.readouterr().err
