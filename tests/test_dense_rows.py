"""The kernels' full-row layout (chaintag.features.dense_rows): a hand-worked layout, feature lookup in
full and partial rows against a brute-force search, emission sums against the model's layout, and the
perceptron and SAPO trained in it against the same training without it, bit for bit."""

import copy
import pickle

import numpy as np
import pytest

from chaintag import MIRA, SAPO, NBestMIRA, StructuredPerceptron
from chaintag.decoding.scoring import NO_VALUES, emission_scores, find_feature
from chaintag.features import dense_rows
from chaintag.features.dense_rows import ABSENT, FullRowMemo, full_row_threshold, row_layout
from chaintag.features.space import FeatureIndex
from chaintag.learners import base, epochs

from toy_corpus import LABELS, SENTS


def _index():
    # 4 labels; attribute 0: labels 1, 3; attribute 1: every label; attribute 2: 0, 2, 3; attribute 3: 2
    feat_ptr = np.array([0, 2, 6, 9, 10], dtype=np.int64)
    feat_label = np.array([1, 3, 0, 1, 2, 3, 0, 2, 3, 2], dtype=np.int32)
    return FeatureIndex(feat_ptr, feat_label, 4)


def test_a_hand_worked_layout():
    lay = row_layout(_index(), threshold=2)
    # attribute 0 (2 labels) and 2 (3 labels) get full rows; 1 is full already; 3 keeps its one feature
    assert lay.index.feat_ptr.tolist() == [0, 4, 8, 12, 13]
    assert lay.index.feat_label.tolist() == [ABSENT, 1, ABSENT, 3, 0, 1, 2, 3, 0, ABSENT, 2, 3, 2]
    assert lay.position.tolist() == [1, 3, 4, 5, 6, 7, 8, 10, 11, 12] and lay.position.dtype == np.int32
    w = np.arange(1.0, 10 + 16 + 8 + 1)  # 10 features, 4 x 4 transitions, 4 start, 4 end
    dense = lay.dense_weights(w)
    assert dense[:13].tolist() == [0, 1, 0, 2, 3, 4, 5, 6, 7, 0, 8, 9, 10]
    assert dense[13:].tolist() == w[10:].tolist()
    assert np.array_equal(lay.sparse_weights(dense), w)
    ent_lo = np.array([2, 0, 9, 6], dtype=np.int32)  # attributes 1, 0, 3, 2
    ent_n = np.array([4, 2, 1, 3], dtype=np.int16)
    lo, n = lay.entries(ent_lo, ent_n)
    assert lo.tolist() == [4, 0, 12, 8] and n.tolist() == [4, 4, 1, 4]
    assert lo.dtype == np.int32 and n.dtype == np.int16
    lo2, n2 = lay.entries(ent_lo, ent_n, in_place=True)  # the same, written over the arguments
    assert lo2 is ent_lo and n2 is ent_n and lo2.tolist() == lo.tolist() and n2.tolist() == n.tolist()


def test_no_layout_when_no_row_changes():
    assert row_layout(_index(), threshold=5) is None  # no partial row holds 5 features
    full = FeatureIndex(np.array([0, 3, 6]), np.array([0, 1, 2, 0, 1, 2], dtype=np.int32), 3)
    assert row_layout(full, threshold=1) is None


def test_the_threshold_rises_to_bound_the_growth(monkeypatch):
    # 100 labels, 50 attributes of 2 features: full rows would make 50 times the features
    feat_ptr = np.arange(0, 101, 2, dtype=np.int64)
    feat_label = np.tile(np.array([3, 70], dtype=np.int32), 50)
    assert row_layout(FeatureIndex(feat_ptr, feat_label, 100), threshold=2) is None
    assert full_row_threshold(22) == 4 and full_row_threshold(50) == 5 and full_row_threshold(9) == 4


def test_find_feature_in_full_and_partial_rows_against_brute_force():
    rng = np.random.default_rng(3)
    L = 7
    rows = [np.sort(rng.choice(L, size=k, replace=False)).astype(np.int32) for k in rng.integers(1, L + 1, 60)]
    feat_ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    index = FeatureIndex(feat_ptr, np.concatenate(rows), L)
    for layout in (None, row_layout(index, threshold=3)):
        idx = index if layout is None else layout.index
        for a in range(len(rows)):
            lo, hi = int(idx.feat_ptr[a]), int(idx.feat_ptr[a + 1])
            for lab in range(L):
                got = find_feature(idx.feat_label, lo, hi - lo, lab)
                want = [f for f in range(lo, hi) if idx.feat_label[f] == lab]
                assert got == (want[0] if want else -1)
                if want and layout is not None:  # the same feature as in the model's layout
                    src = find_feature(index.feat_label, int(index.feat_ptr[a]),
                                       int(index.feat_ptr[a + 1] - index.feat_ptr[a]), lab)
                    assert layout.position[src] == got


@pytest.mark.parametrize("valued", [False, True])
def test_emission_sums_are_those_of_the_model_layout_bit_for_bit(valued):
    rng = np.random.default_rng(5)
    L, n_attr = 6, 40
    rows = [np.sort(rng.choice(L, size=k, replace=False)).astype(np.int32) for k in rng.integers(1, L, n_attr)]
    feat_ptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
    index = FeatureIndex(feat_ptr, np.concatenate(rows), L)
    lay = row_layout(index, threshold=2)
    n_tok = 30
    tok_ptr = np.concatenate([[0], np.cumsum(rng.integers(1, 9, n_tok))]).astype(np.int64)
    attrs = rng.integers(0, n_attr, tok_ptr[-1])
    ent_lo = feat_ptr[attrs].astype(np.int32)
    ent_n = np.diff(feat_ptr)[attrs].astype(np.int16)
    vals = rng.normal(size=tok_ptr[-1]) if valued else NO_VALUES
    w = rng.normal(size=index.n_weights)
    a = np.zeros((n_tok, L))
    emission_scores(tok_ptr, ent_lo, ent_n, vals, 0, n_tok, index.feat_label, w, a)
    lo, n = lay.entries(ent_lo, ent_n)
    b = np.zeros((n_tok, L))
    emission_scores(tok_ptr, lo, n, vals, 0, n_tok, lay.index.feat_label, lay.dense_weights(w), b)
    assert np.array_equal(a, b)
    # and both are the plain sums, entry after entry
    ref = np.zeros((n_tok, L))
    for i in range(n_tok):
        for k in range(tok_ptr[i], tok_ptr[i + 1]):
            for f in range(ent_lo[k], ent_lo[k] + ent_n[k]):
                ref[i, index.feat_label[f]] += (vals[k] if valued else 1.0) * w[f]
    assert np.array_equal(a, ref)


def _fit(cls, monkeypatch, full: bool, sents, labels, **kw):
    with monkeypatch.context() as m:
        m.setattr(cls, "_full_rows", full)
        m.setattr(dense_rows, "full_row_threshold", lambda n_labels: 2)  # the toy rows are short
        seen = []
        init = epochs.MemorySource.__init__

        def spy(self, *a, **k):
            init(self, *a, **k)
            seen.append(self.layout)

        m.setattr(epochs.MemorySource, "__init__", spy)
        model = cls(epochs=4, progress=False, shuffle=True, random_state=2, **kw).fit(sents, labels)
    assert (seen[0] is not None) == full
    return model


TOY = dict(features=["w[0]", "w[-1]", "w[1]", "pos[0]", "pos[-1]", "pos[1]"], columns=("word", "pos"))


@pytest.mark.parametrize("cls,kw", [
    (StructuredPerceptron, {}), (StructuredPerceptron, {"averaged": False}), (StructuredPerceptron, {"cc": 2}),
    (SAPO, {}), (SAPO, {"averaged": True, "l2": 0.5}), (SAPO, {"n_best": 2, "cc": 2}),
    (MIRA, {}), (NBestMIRA, {"n_best": 3}),
])
def test_training_in_full_rows_gives_the_same_model(cls, kw, monkeypatch):
    sents, labels = SENTS * 4, LABELS * 4
    plain = _fit(cls, monkeypatch, False, sents, labels, **TOY, **kw)
    full = _fit(cls, monkeypatch, True, sents, labels, **TOY, **kw)
    assert full.weights_.shape == plain.weights_.shape
    assert np.array_equal(full.weights_, plain.weights_)
    assert [h["errors"] for h in full.history_] == [h["errors"] for h in plain.history_]
    assert full.predict(SENTS) == plain.predict(SENTS)


def test_training_with_real_values_in_full_rows(monkeypatch):
    # "first" and "last" hold 2 and 3 of the 4 labels: partial rows, made full
    sents = [[{"w": w, "pos=" + p: 1.0, "len": len(w) / 3.0, **({"first": 1.5} if i == 0 else {}),
               **({"last": -0.5} if i == len(s) - 1 else {})} for i, (w, p) in enumerate(s)] for s in SENTS * 3]
    labels = LABELS * 3
    for cls in (StructuredPerceptron, SAPO):
        plain = _fit(cls, monkeypatch, False, sents, labels)
        full = _fit(cls, monkeypatch, True, sents, labels)
        assert np.array_equal(full.weights_, plain.weights_)


def _tagger(monkeypatch):
    monkeypatch.setattr(dense_rows, "full_row_threshold", lambda n_labels: 2)
    return StructuredPerceptron(epochs=3, progress=False, **TOY).fit(SENTS * 4, LABELS * 4)


UNSEEN = [[("the", "DT"), ("cat", "NN"), ("sleeps", "VBZ")], [("here", "RB"), ("dogs", "NNS"), ("bark", "VBP")],
          [("a", "DT"), ("old", "JJ"), ("dog", "NN"), ("barks", "VBZ"), ("here", "RB")]]


def _predict(model, monkeypatch, full: bool):
    monkeypatch.setattr(base, "DECODE_MIN_TOKENS", 1 if full else 10 ** 9)
    return model.predict(UNSEEN)


def test_decoding_in_full_rows_gives_the_same_labels_and_sees_changed_weights(monkeypatch):
    model = _tagger(monkeypatch)
    rng = np.random.default_rng(11)
    for trial in range(6):
        assert row_layout(model.feature_index_) is not None
        want = _predict(model, monkeypatch, False)
        assert _predict(model, monkeypatch, True) == want
        memo = model.__dict__["_full_row_memo"]
        assert memo._state[0] is model.feature_index_ and memo._state[1] is not None
        # a change in place (no new array) is seen by the next call
        model.weights_[:] = rng.normal(size=model.weights_.shape)
    copied = copy.deepcopy(model)
    assert copied.__dict__["_full_row_memo"]._state is None
    assert pickle.loads(pickle.dumps(model)).__dict__["_full_row_memo"]._state is None
    assert _predict(copied, monkeypatch, True) == _predict(model, monkeypatch, False)


def test_the_memo_keeps_its_weights_until_they_change(monkeypatch):
    monkeypatch.setattr(dense_rows, "full_row_threshold", lambda n_labels: 2)
    memo = FullRowMemo()
    index = _index()
    w = np.arange(float(index.n_weights))
    ptr, lab, dense = memo.arrays(index, w)
    assert ptr.tolist() == [0, 4, 8, 12, 13] and dense.shape == (13 + 24,)
    assert memo.arrays(index, w)[2] is dense  # kept
    w[3] = -1.0  # in place
    assert memo.arrays(index, w)[2][5] == -1.0  # feature 3 (attribute 1, label 1) is at 5 in the layout
    other = FeatureIndex(index.feat_ptr.copy(), index.feat_label.copy(), 4)
    assert memo.arrays(other, w)[1] is not lab  # another index: its own layout
    monkeypatch.setattr(dense_rows, "full_row_threshold", lambda n_labels: 9)
    third = FeatureIndex(index.feat_ptr.copy(), index.feat_label.copy(), 4)
    ptr, lab, same = memo.arrays(third, w)  # no row changes: the model's own arrays
    assert ptr is third.feat_ptr and lab is third.feat_label and same is w


@pytest.mark.parametrize("cls,kw", [(StructuredPerceptron, {}), (SAPO, {"averaged": True}), (MIRA, {})])
@pytest.mark.parametrize("first,then", [(False, True), (True, False)])
def test_a_checkpoint_resumes_whatever_layout_wrote_it(cls, kw, first, then, monkeypatch, tmp_path):
    """A checkpoint keeps the weights in the model's layout: a run with full rows resumes one written
    without them (an earlier version) and the other way round, as an uninterrupted run ends."""
    sents, labels = SENTS * 4, LABELS * 4
    whole = _fit(cls, monkeypatch, then, sents, labels, **TOY, **kw)  # 4 epochs, uninterrupted
    with monkeypatch.context() as m:
        m.setattr(cls, "_full_rows", first)
        m.setattr(dense_rows, "full_row_threshold", lambda n_labels: 2)
        cls(epochs=2, progress=False, shuffle=True, random_state=2, **TOY, **kw).fit(
            sents, labels, checkpoint_dir=tmp_path)
    with monkeypatch.context() as m:
        m.setattr(cls, "_full_rows", then)
        m.setattr(dense_rows, "full_row_threshold", lambda n_labels: 2)
        resumed = cls(epochs=4, progress=False, shuffle=True, random_state=2, **TOY, **kw).fit(
            sents, labels, checkpoint_dir=tmp_path, resume=True)
    assert np.array_equal(resumed.weights_, whole.weights_)
    assert [h["errors"] for h in resumed.history_] == [h["errors"] for h in whole.history_]


def test_the_layout_is_built_once_the_decoded_tokens_pay_it_back(monkeypatch):
    monkeypatch.setattr(dense_rows, "full_row_threshold", lambda n_labels: 2)
    index = _index()  # 10 features: paid back after 10 / 8 tokens, so at the second call of one token
    w = np.arange(float(index.n_weights))
    memo = FullRowMemo()
    ptr, lab, same = memo.arrays(index, w, 1)
    assert ptr is index.feat_ptr and lab is index.feat_label and same is w
    ptr, lab, dense = memo.arrays(index, w, 1)
    assert ptr.tolist() == [0, 4, 8, 12, 13] and dense.shape == (13 + 24,)
    assert memo.arrays(index, w, 1)[2] is dense
    monkeypatch.setattr(dense_rows, "PAYBACK_FEATURES_PER_TOKEN", 1)
    fresh = FullRowMemo()
    assert fresh.arrays(index, w, 9)[2] is w and fresh.arrays(index, w, 1)[2] is not w  # 9 < 10 <= 9 + 1
