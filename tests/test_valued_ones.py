"""Attributes whose values are all 1 learn the weights of 0/1 attributes, bit for bit.

Every learner step has one compiled code path for 0/1 attributes (an empty value array) and for
attributes with values; an entry of value 1 must count exactly as a present 0/1 attribute. The
first test goes through feature dicts (numbers 1 and True against string values); the second forces
the value array to ones, so that the valued branch of every kernel runs, and compares it with the
0/1 branch.
"""

import numpy as np
import pytest

import chaintag
from chaintag.decoding.scoring import NO_VALUES, emission_scores
from toy_corpus import LABELS, SENTS

LEARNERS = [
    ("perceptron", lambda: chaintag.StructuredPerceptron(epochs=3, progress=False)),
    ("sapo", lambda: chaintag.SAPO(epochs=3, n_best=3, progress=False)),
    ("sapo-averaged-pieces", lambda: chaintag.SAPO(epochs=3, n_best=3, averaged=True, structure_reg=2.0,
                                                   progress=False)),
    ("crf", lambda: chaintag.CRF(epochs=3, progress=False)),
    ("crf-lbfgs", lambda: chaintag.CRFLBFGS(epochs=5, progress=False)),
    ("mira", lambda: chaintag.MIRA(epochs=3, progress=False)),
    ("nbest-mira", lambda: chaintag.NBestMIRA(epochs=3, n_best=3, progress=False)),
]


def plain(sents):
    """0/1 attributes from string values (``k=v``) and True."""
    return [[{"w": w, "p": p, "wp": f"{w}|{p}", "bias": True} for w, p in s] for s in sents]


def ones(sents):
    """The same attributes, each named in full and given the number 1 (or True)."""
    return [[{f"w={w}": 1, f"p={p}": 1.0, f"wp={w}|{p}": 1.0, "bias": 1} for w, p in s] for s in sents]


@pytest.mark.parametrize("name, make", LEARNERS, ids=[n for n, _ in LEARNERS])
def test_dict_values_of_one_learn_the_weights_of_0_1_attributes(name, make):
    a = make().fit(plain(SENTS), LABELS)
    b = make().fit(ones(SENTS), LABELS)
    names = [a.extractor_.attribute_name(k) for k in range(a.extractor_.n_attributes)]
    assert names == [b.extractor_.attribute_name(k) for k in range(b.extractor_.n_attributes)]
    assert np.abs(a.weights_).max() > 0
    assert a.weights_.tobytes() == b.weights_.tobytes()
    assert a.predict(plain(SENTS)) == b.predict(ones(SENTS))


def _with_unit_values(learner):
    """``learner`` whose training data carries a value array of ones (the valued code path)."""
    run = type(learner)._run_epoch
    seen = []

    def spy(self, state, data, order):
        if data.ent_val is None:
            data.ent_val = np.ones(data.ent_lo.shape[0])
        seen.append(data.ent_val.shape[0])
        return run(self, state, data, order)
    learner._run_epoch = spy.__get__(learner)
    return learner, seen


def _with_unit_objective(learner):
    """A CRF trained by L-BFGS whose objective reads a value array of ones."""
    objective = type(learner)._objective
    seen = []

    def spy(self, data):
        if data.ent_val is None:
            data.ent_val = np.ones(data.ent_lo.shape[0])
        seen.append(data.ent_val.shape[0])
        return objective(self, data)
    learner._objective = spy.__get__(learner)
    return learner, seen


@pytest.mark.parametrize("name, make", LEARNERS, ids=[n for n, _ in LEARNERS])
def test_values_all_one_take_the_valued_branch_and_give_the_same_weights(name, make):
    X = plain(SENTS)
    want = make().fit(X, LABELS)
    learner, seen = (_with_unit_objective if name == "crf-lbfgs" else _with_unit_values)(make())
    got = learner.fit(X, LABELS)
    assert seen and seen[0] > 0  # the kernels saw a (non-empty) value array
    assert np.abs(want.weights_).max() > 0
    assert want.weights_.tobytes() == got.weights_.tobytes()


def test_emission_scores_of_unit_values_are_those_of_0_1_attributes():
    model = chaintag.SAPO(epochs=2, feature_space="all", progress=False).fit(plain(SENTS), LABELS)
    attrs = model.extractor_.transform(model._rows(plain(SENTS)))
    from chaintag.decoding.scoring import feature_entries
    L = len(model.labels_)
    ent_lo, ent_n = feature_entries(attrs.attr_ids, model.feature_index_.feat_ptr, L)
    assert (ent_n == L).sum() >= 4  # full rows: the four-row sweep runs
    n_tok = attrs.n_tokens
    E0, E1 = np.zeros((n_tok, L)), np.zeros((n_tok, L))
    emission_scores(attrs.tok_ptr, ent_lo, ent_n, NO_VALUES, 0, n_tok, model.feature_index_.feat_label,
                    model.weights_, E0)
    emission_scores(attrs.tok_ptr, ent_lo, ent_n, np.ones(ent_lo.shape[0]), 0, n_tok,
                    model.feature_index_.feat_label, model.weights_, E1)
    assert np.abs(E0).max() > 0
    assert E0.tobytes() == E1.tobytes()
