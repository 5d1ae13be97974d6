"""In the ``all`` feature space, the features whose weight stayed 0 are dropped after training: every
score, label, n-best list and marginal stays the same bit for bit, and the model file round-trips."""

import numpy as np
import pytest

import chaintag
from chaintag.learners import make_learner
from chaintag.learners.base import SequenceTagger
from toy_corpus import LABELS, SENTS

FEATURES = ["w[0]", "w[-1]", "w[1]", "pos[0]", "suf2(w[0])", "pos[-1]|pos[0]"]
TEST = [[("the", "DT"), ("cat", "NN"), ("barks", "VBZ")], [("a", "DT"), ("unseen", "JJ"), ("dog", "NN")],
        [("here", "RB")]]


def _fit(name, monkeypatch, drop: bool, **kw):
    with monkeypatch.context() as m:
        if not drop:
            m.setattr(SequenceTagger, "_drop_unused_features", lambda self: None)
        return make_learner(name, features=FEATURES, columns=("word", "pos"), feature_space="all",
                            epochs=3, progress=False, **kw).fit(SENTS * 3, LABELS * 3)


@pytest.mark.parametrize("name", ["perceptron", "sapo", "mira"])
def test_dropping_zero_weights_changes_no_output(name, monkeypatch, tmp_path):
    full = _fit(name, monkeypatch, drop=False)
    lean = _fit(name, monkeypatch, drop=True)
    n_full, n_lean = full.feature_index_.n_features, lean.feature_index_.n_features
    assert n_lean == int(np.count_nonzero(full.weights_[:n_full])) < n_full  # only the zeros went
    assert np.count_nonzero(lean.weights_[:n_lean]) == n_lean
    assert np.array_equal(full.weights_[n_full:], lean.weights_[n_lean:])  # transitions, start, end
    assert lean.predict(TEST) == full.predict(TEST)
    for a, b in zip(full.predict_nbest(TEST, k=4), lean.predict_nbest(TEST, k=4)):
        assert a == b  # labels and scores, exactly
    for a, b in zip(full.predict_marginals(TEST), lean.predict_marginals(TEST)):
        assert np.array_equal(a, b)
    path = tmp_path / "m.npz"
    lean.save(path)
    back = chaintag.load(path)
    assert np.array_equal(back.weights_, lean.weights_) and back.predict(TEST) == lean.predict(TEST)


def test_the_gold_space_keeps_every_feature(monkeypatch):
    model = make_learner("perceptron", features=FEATURES, columns=("word", "pos"), epochs=3,
                         progress=False).fit(SENTS, LABELS)
    called = []
    monkeypatch.setattr(SequenceTagger, "_drop_unused_features", lambda self: called.append(1))
    make_learner("perceptron", features=FEATURES, columns=("word", "pos"), epochs=3,
                 progress=False).fit(SENTS, LABELS)
    assert called == [] and model.feature_index_.n_features > 0
