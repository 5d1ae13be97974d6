"""The maximum-entropy tagger: local Viterbi against enumeration, weights against scikit-learn, contract."""

import copy
import itertools

import numpy as np
import pytest

from chaintag.decoding.viterbi import viterbi
from chaintag.learners.base import load
from chaintag.errors import InputError
from chaintag.learners.maxent import (MaxEnt, design_matrix, fold_coefficients, local_log_proba,
                                      local_marginals_kernel, local_viterbi_kernel, previous_labels,
                                      tag_corpus_local)

from toy_corpus import LABELS, SENTS  # noqa: E402
FEATURES = ["w[0]", "w[-1]", "pos[0]", "pos[-1]|pos[0]", "suf2(w[0])"]


def brute_force(E, trans, start):
    """Best path and its log-probability by enumerating every label sequence."""
    n_tokens, n_labels = E.shape
    best, best_path = -np.inf, None
    for path in itertools.product(range(n_labels), repeat=n_tokens):
        prev = [-1] + list(path[:-1])
        logp = local_log_proba(E, trans, start, prev)
        v = sum(logp[i, path[i]] for i in range(n_tokens))
        if v > best:
            best, best_path = v, list(path)
    return best_path, best


# ------------------------------------------------------------------ decoding
@pytest.mark.parametrize("seed", range(30))
def test_local_viterbi_equals_enumeration(seed):
    rng = np.random.default_rng(seed)
    n_tokens, n_labels = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    E = rng.normal(scale=2.0, size=(n_tokens, n_labels))
    trans = rng.normal(scale=2.0, size=(n_labels, n_labels))
    start = rng.normal(scale=2.0, size=n_labels)
    path = np.zeros(n_tokens, dtype=np.int32)
    delta = np.zeros((n_tokens, n_labels))
    back = np.zeros((n_tokens, n_labels), dtype=np.int32)
    score = local_viterbi_kernel(E, trans, start, path, delta, back)
    want_path, want_score = brute_force(E, trans, start)
    assert path.tolist() == want_path
    assert score == pytest.approx(want_score, abs=1e-9)


def test_local_viterbi_differs_from_global_viterbi():
    """The per-(position, previous label) normalizer changes the best path."""
    # after label 0 the mass is split over both labels, after label 1 it all
    # goes to label 0: globally 0 -> 0 scores highest, locally 1 -> 0 (0.45
    # against 0.55 * 0.5) is the most probable (the label bias of local models)
    E = np.array([[0.0, 0.0], [0.0, 0.0]])
    trans = np.array([[3.0, 3.0], [0.0, -10.0]])
    start = np.array([0.2, 0.0])
    path = np.zeros(2, dtype=np.int32)
    local_viterbi_kernel(E, trans, start, path, np.zeros((2, 2)), np.zeros((2, 2), dtype=np.int32))
    assert path.tolist() == brute_force(E, trans, start)[0] == [1, 0]
    assert viterbi(E, trans, start)[0].tolist() == [0, 0]


@pytest.mark.parametrize("seed", range(10))
def test_corpus_kernel_equals_enumeration(seed):
    """Flat arrays, several sentences (one empty): each token owns one attribute with all labels."""
    rng = np.random.default_rng(100 + seed)
    n_labels = int(rng.integers(2, 5))
    lengths = [int(x) for x in rng.integers(0, 5, size=4)]
    n_tokens = sum(lengths)
    sent_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    tok_ptr = np.arange(n_tokens + 1, dtype=np.int64)
    ent_lo = (np.arange(n_tokens) * n_labels).astype(np.int32)
    ent_n = np.full(n_tokens, n_labels, dtype=np.int16)
    feat_label = np.tile(np.arange(n_labels, dtype=np.int32), n_tokens)
    w = rng.normal(scale=2.0, size=n_tokens * n_labels + n_labels * n_labels + 2 * n_labels)
    F = n_tokens * n_labels
    trans = w[F:F + n_labels * n_labels].reshape(n_labels, n_labels)
    start = w[F + n_labels * n_labels:F + n_labels * n_labels + n_labels]
    out = np.full(n_tokens, -1, dtype=np.int32)
    total = tag_corpus_local(sent_ptr, tok_ptr, ent_lo, ent_n, np.zeros(0), feat_label, w, n_labels, out)
    want_total = 0.0
    for s in range(len(lengths)):
        t0, t1 = sent_ptr[s], sent_ptr[s + 1]
        if t1 == t0:
            continue
        E = w[:F].reshape(n_tokens, n_labels)[t0:t1]
        p, v = brute_force(E, trans, start)
        assert out[t0:t1].tolist() == p
        want_total += v
    assert total == pytest.approx(want_total, abs=1e-9)


def brute_force_marginals(E, trans, start):
    n_tokens, n_labels = E.shape
    out = np.zeros((n_tokens, n_labels))
    for path in itertools.product(range(n_labels), repeat=n_tokens):
        logp = local_log_proba(E, trans, start, [-1] + list(path[:-1]))
        p = np.exp(sum(logp[i, path[i]] for i in range(n_tokens)))
        for i, lab in enumerate(path):
            out[i, lab] += p
    return out


@pytest.mark.parametrize("seed", range(15))
def test_local_marginals_equal_enumeration(seed):
    rng = np.random.default_rng(200 + seed)
    n_tokens, n_labels = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    E = rng.normal(scale=2.0, size=(n_tokens, n_labels))
    trans = rng.normal(scale=2.0, size=(n_labels, n_labels))
    start = rng.normal(scale=2.0, size=n_labels)
    out = np.zeros((n_tokens, n_labels))
    local_marginals_kernel(E, trans, start, out)
    assert np.allclose(out, brute_force_marginals(E, trans, start), atol=1e-12)


def test_local_log_proba_rows_are_normalized():
    rng = np.random.default_rng(0)
    logp = local_log_proba(rng.normal(size=(4, 3)), rng.normal(size=(3, 3)), rng.normal(size=3), [-1, 0, 2, 3])
    assert np.allclose(np.exp(logp).sum(axis=1), 1.0)


# ------------------------------------------------------- weights vs sklearn
def refit_probabilities(model, sents, labels):
    """sklearn's predict_proba on the model's own design rows (gold previous labels)."""
    attrs = model.extractor_.transform(sents)
    label_id = {lab: k for k, lab in enumerate(model.labels_)}
    gold = np.array([label_id[lab] for ls in labels for lab in ls], dtype=np.int32)
    n_labels = len(model.labels_)
    n_attributes = len(model.feature_index_.feat_ptr) - 1
    X = design_matrix(attrs.tok_ptr, attrs.attr_ids, previous_labels(attrs.sent_ptr, gold, n_labels),
                      n_attributes, n_labels)
    clf = model._classifier().fit(X, gold)
    return clf, X, clf.predict_proba(X)


@pytest.mark.parametrize("solver", ["saga", "lbfgs"])
@pytest.mark.parametrize("C", [0.5, 20.0])
def test_stored_weights_give_sklearn_probabilities(C, solver):
    model = MaxEnt(features=FEATURES, C=C, solver=solver, max_iter=500).fit(SENTS, LABELS)
    clf, X, proba = refit_probabilities(model, SENTS, LABELS)
    assert proba.shape[1] == len(model.labels_) >= 3
    ours = np.exp(np.concatenate(model.local_log_proba(SENTS, LABELS)))
    assert np.allclose(ours, proba, atol=1e-10)


def test_binary_labels_fold_the_sigmoid_model():
    sents = [["a", "b", "a"], ["b", "b"], ["a"], ["b", "a", "a", "b"]]
    labels = [["X", "Y", "X"], ["Y", "Y"], ["X"], ["Y", "X", "Y", "Y"]]
    model = MaxEnt(features=["w[0]"], C=2.0).fit(sents, labels)
    rows = [[(tok,) for tok in s] for s in sents]
    clf, X, proba = refit_probabilities(model, rows, labels)
    assert clf.coef_.shape[0] == 1  # scikit-learn's binary (sigmoid) parametrization
    ours = np.exp(np.concatenate(model.local_log_proba(sents, labels)))
    assert np.allclose(ours, proba, atol=1e-10)


def test_intercept_in_bias_or_in_previous_labels_is_the_same_model():
    rng = np.random.default_rng(3)
    n_attributes, n_labels = 4, 3
    coef = rng.normal(size=(n_labels, n_attributes + n_labels + 1))
    intercept = rng.normal(size=n_labels)
    prev = np.array([3, 0, 2, 3, 1])
    attrs = [[0, 1], [0, 2, 3], [0], [0, 3], [0, 1, 2]]
    tok_ptr = np.concatenate([[0], np.cumsum([len(a) for a in attrs])])
    X = design_matrix(tok_ptr, np.concatenate(attrs), prev, n_attributes, n_labels).toarray()
    logits = X @ coef.T + intercept
    want = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    F = n_attributes * n_labels
    for bias in (0, None):
        w = fold_coefficients(coef, intercept, n_attributes, n_labels, bias)
        E = X[:, :n_attributes] @ w[:F].reshape(n_attributes, n_labels)
        trans = w[F:F + n_labels * n_labels].reshape(n_labels, n_labels)
        start = w[F + n_labels * n_labels:F + n_labels * n_labels + n_labels]
        assert np.allclose(local_log_proba(E, trans, start, prev), want)
        assert np.all(w[F + n_labels * n_labels + n_labels:] == 0)  # end


def test_design_matrix_layout():
    X = design_matrix(np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([2, 0]), 3, 2)
    assert X.shape == (2, 3 + 2 + 1)
    assert X.toarray().tolist() == [[1, 0, 1, 0, 0, 1], [0, 1, 0, 1, 0, 0]]
    assert previous_labels(np.array([0, 2, 2, 5]), np.array([1, 0, 1, 1, 0]), 2).tolist() == [2, 1, 2, 1, 1]


# ------------------------------------------------------------------ the estimator
def test_separable_corpus_is_tagged_perfectly():
    # "that" is D after V and C after N: only the previous label tells them apart
    sents = [["we", "see", "that", "dog"], ["dogs", "know", "that", "cat"], ["the", "dog", "that", "runs"],
             ["a", "cat", "that", "sleeps"], ["we", "see", "the", "cat"]]
    labels = [["N", "V", "D", "N"], ["N", "V", "D", "N"], ["D", "N", "C", "V"],
              ["D", "N", "C", "V"], ["N", "V", "D", "N"]]
    model = MaxEnt(features=["w[0]"], C=100.0, max_iter=1000).fit(sents, labels)
    assert model.predict(sents) == labels
    assert model.history_[0]["train_log_loss"] < 0.1


def test_chunking_toy_fits_its_training_data():
    model = MaxEnt(features=FEATURES, C=50.0, max_iter=1000).fit(SENTS, LABELS)
    assert model.predict(SENTS) == LABELS
    assert model.score(SENTS, LABELS) == 100.0


def test_fit_returns_self_and_does_not_mutate_inputs():
    sents, labels = copy.deepcopy(SENTS), copy.deepcopy(LABELS)
    model = MaxEnt(features=FEATURES)
    assert model.fit(sents, labels, dev=(sents, labels)) is model
    assert sents == SENTS and labels == LABELS
    assert model.get_params()["C"] == 1.0


@pytest.mark.parametrize("solver", ["lbfgs", "saga"])
def test_same_settings_give_same_weights(solver):
    a = MaxEnt(features=FEATURES, solver=solver, max_iter=50, random_state=1).fit(SENTS, LABELS)
    b = MaxEnt(features=FEATURES, solver=solver, max_iter=50, random_state=1).fit(SENTS, LABELS)
    assert np.array_equal(a.weights_, b.weights_)


def test_save_load_round_trip(tmp_path):
    model = MaxEnt(features=FEATURES, C=5.0).fit(SENTS, LABELS)
    path = tmp_path / "maxent.npz"
    model.save(path)
    back = load(path)
    assert type(back) is MaxEnt
    assert back.get_params() == model.get_params()
    assert np.array_equal(back.weights_, model.weights_)
    new = [[("a", "DT"), ("dog", "NN"), ("sleeps", "VBZ")], [("here", "RB")], SENTS[1]]
    assert back.predict(new) == model.predict(new)
    assert back.predict(SENTS) == model.predict(SENTS)


def test_weights_use_the_full_feature_space():
    model = MaxEnt(features=FEATURES).fit(SENTS, LABELS)
    index = model.feature_index_
    n_labels = len(model.labels_)
    n_attributes = len(index.feat_ptr) - 1
    assert index.n_features == n_attributes * n_labels
    assert len(model.weights_) == index.n_weights
    assert model.extractor_.attribute_name(0) == "bias"


def test_cut_off_drops_rare_attributes():
    full = MaxEnt(features=FEATURES, cc=0).fit(SENTS, LABELS)
    gold = MaxEnt(features=FEATURES, cc=2).fit(SENTS, LABELS)
    every = MaxEnt(features=FEATURES, cc=2, feature_space="all").fit(SENTS, LABELS)
    n = [len(m.feature_index_.feat_ptr) - 1 for m in (full, gold, every)]
    # a pair seen twice needs its attribute seen twice: gold keeps no more than all
    assert n[1] <= n[2] < n[0]
    assert gold.predict(SENTS)  # still tags


def test_history_is_one_record_with_dev_scores():
    model = MaxEnt(features=FEATURES).fit(SENTS, LABELS, dev=(SENTS[:2], LABELS[:2]))
    assert model.best_epoch_ == 1
    (rec,) = model.history_
    for key in ("seconds", "n_iter", "train_log_loss", "weight_complexity", "dev_accuracy", "dev_f1"):
        assert key in rec
    assert rec["n_iter"] >= 1 and rec["train_log_loss"] > 0
    assert rec["weight_complexity"] == pytest.approx(np.abs(model.weights_).mean())
    assert rec["dev_f1"] == model.evaluate(SENTS[:2], LABELS[:2]).f1


def test_single_label_corpus():
    model = MaxEnt(features=["w[0]"]).fit([["a", "b"], ["c"]], [["X", "X"], ["X"]])
    assert model.predict([["b", "z", "a"]]) == [["X", "X", "X"]]


def test_predict_marginals():
    model = MaxEnt(features=FEATURES).fit(SENTS, LABELS)
    margs = model.predict_marginals(SENTS + [[]])
    assert [m.shape for m in margs] == [(len(s), len(model.labels_)) for s in SENTS] + [(0, len(model.labels_))]
    for m in margs[:-1]:
        assert np.allclose(m.sum(axis=1), 1.0)
    # the first token's marginal is its local distribution after the sentence start
    first = np.exp(model.local_log_proba(SENTS[:1], LABELS[:1])[0][0])
    assert np.allclose(margs[0][0], first)


def test_checkpoints_are_refused(tmp_path):
    with pytest.raises(InputError, match="no checkpoints"):
        MaxEnt(features=FEATURES).fit(SENTS, LABELS, checkpoint_dir=tmp_path)


def test_nbest_is_not_available():
    model = MaxEnt(features=FEATURES).fit(SENTS, LABELS)
    with pytest.raises(NotImplementedError, match="locally normalized"):
        model.predict_nbest(SENTS, 3)
    with pytest.raises(NotImplementedError, match="locally normalized"):
        model.predict_confidence(SENTS)


def test_bad_hyper_parameters():
    with pytest.raises(ValueError, match="solver"):
        MaxEnt(solver="liblinear").fit(SENTS, LABELS)
    with pytest.raises(ValueError, match="C must be"):
        MaxEnt(C=0).fit(SENTS, LABELS)
