"""Every learner through one contract: fit returns self, seeded runs repeat, a separable
toy corpus is learned, inputs are not modified, the model survives a save/load."""

import copy

import numpy as np
import pytest

import chaintag

SENTS = [
    [("the", "DT"), ("dog", "NN"), ("barks", "VBZ")],
    [("a", "DT"), ("cat", "NN"), ("sleeps", "VBZ"), ("here", "RB")],
    [("dogs", "NNS"), ("bark", "VBP")],
    [("the", "DT"), ("old", "JJ"), ("cat", "NN")],
    [("here", "RB"), ("the", "DT"), ("dog", "NN"), ("sleeps", "VBZ")],
]
LABELS = [["B-NP", "I-NP", "B-VP"], ["B-NP", "I-NP", "B-VP", "B-ADVP"], ["B-NP", "B-VP"],
          ["B-NP", "I-NP", "I-NP"], ["B-ADVP", "B-NP", "I-NP", "B-VP"]]
BASE = dict(features=["w[0]", "w[-1]", "pos[0]", "pos[-1]|pos[0]"], columns=("word", "pos"), progress=False)
SETTINGS = {
    "perceptron": dict(epochs=20),
    "sapo": dict(epochs=30, learning_rate=0.5, l2=0.1),
    "crf": dict(epochs=40, learning_rate=0.5, l2=0.01),
    "crf-lbfgs": dict(l2=0.01),
    "mira": dict(epochs=20),
    "nbest-mira": dict(epochs=20),
}


@pytest.mark.parametrize("name", sorted(chaintag.learners.LEARNERS))
def test_learner_contract(name, tmp_path):
    params = {**BASE, **SETTINGS.get(name, {})}
    sents, labels = copy.deepcopy(SENTS), copy.deepcopy(LABELS)
    a = chaintag.make_learner(name, strict=False, random_state=4, **params)
    assert a.fit(sents, labels) is a
    assert sents == SENTS and labels == LABELS
    b = chaintag.make_learner(name, strict=False, random_state=4, **params).fit(SENTS, LABELS)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert a.predict(SENTS) == LABELS
    assert a.score(SENTS, LABELS) == 100.0
    if "errors" in a.history_[-1]:
        assert a.history_[-1]["errors"] == 0
    path = tmp_path / "m.npz"
    a.save(path)
    c = chaintag.load(path)
    assert type(c) is type(a) and c.predict(SENTS) == LABELS
    np.testing.assert_array_equal(c.weights_, a.weights_)
