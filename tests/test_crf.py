"""CRF: gradient against finite differences, lazy L2 against dense steps, contract."""

import numpy as np
import pytest

from chaintag import CRF, CRFLBFGS
from chaintag.decoding.scoring import corpus_arrays, feature_entries
from chaintag.features.extract import AttributeExtractor
from chaintag.features.space import build_feature_index, remap_attributes
from chaintag.features.templates import resolve_templates
from chaintag.learners.crf_kernels import crf_objective

from toy_corpus import LABELS as TOY_LABELS, SENTS as TOY_SENTS  # noqa: E402

SENTS, LABELS = TOY_SENTS[:4], TOY_LABELS[:4]
FEATURES = ["w[0]", "pos[0]", "pos[-1]|pos[0]", "suf2(w[0])"]
COLS = ("word", "pos")


def corpus(space="gold"):
    labels = sorted({lab for ls in LABELS for lab in ls})
    ex = AttributeExtractor(resolve_templates(FEATURES, COLS), COLS)
    attrs = ex.fit_transform(SENTS)
    gold = np.array([labels.index(lab) for ls in LABELS for lab in ls], dtype=np.int32)
    index, keep = build_feature_index(attrs, gold, len(labels), ex.n_attributes, space=space)
    attrs = remap_attributes(attrs, ex.prune(keep))
    ent_lo, ent_n = feature_entries(attrs.attr_ids, index.feat_ptr, len(labels))
    return attrs, gold, index, ent_lo, ent_n


@pytest.mark.parametrize("space, l2", [("gold", 0.0), ("all", 0.7)])
def test_gradient_equals_central_finite_differences(space, l2):
    attrs, gold, index, ent_lo, ent_n = corpus(space)
    rng = np.random.default_rng(0)
    w = rng.normal(size=index.n_weights) * 0.5
    grad = np.zeros_like(w)
    args = (corpus_arrays(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, None, index.feat_label, gold),
            index.n_labels, l2)
    f0 = crf_objective(w, *args, grad)
    assert f0 > 0
    eps = 1e-6
    scratch = np.zeros_like(w)
    numeric = np.empty_like(w)
    for k in range(len(w)):
        wp, wm = w.copy(), w.copy()
        wp[k] += eps
        wm[k] -= eps
        numeric[k] = (crf_objective(wp, *args, scratch) - crf_objective(wm, *args, scratch)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


def sentence_grad(w, attrs, s, gold, index, ent_lo, ent_n):
    # a corpus of one sentence: pointers into the same token arrays
    sent_ptr = np.array([attrs.sent_ptr[s], attrs.sent_ptr[s + 1]], dtype=np.int64)
    g = np.zeros_like(w)
    crf_objective(w, corpus_arrays(sent_ptr, attrs.tok_ptr, ent_lo, ent_n, None, index.feat_label, gold),
                  index.n_labels, 0.0, g)
    return g


@pytest.mark.parametrize("l2", [0.0, 1.0, 30.0])
def test_lazy_l2_sgd_equals_dense_steps(l2):
    # l2=30 with lr=0.1 over 4 sentences shrinks by 0.25 per step: the scale is folded often
    model = CRF(features=FEATURES, columns=COLS, learning_rate=0.1, lr_schedule="fixed", l2=l2, averaged=False,
                shuffle=False, epochs=3, progress=False).fit(SENTS, LABELS)
    attrs, gold, index, ent_lo, ent_n = corpus()
    w = np.zeros(index.n_weights)
    for _ in range(3):
        for s in range(attrs.n_sentences):
            w = w - 0.1 * sentence_grad(w, attrs, s, gold, index, ent_lo, ent_n)
            w = w * (1 - 0.1 * l2 / attrs.n_sentences)
    np.testing.assert_allclose(model.weights_, w, rtol=1e-9, atol=1e-12)


def test_sgd_and_lbfgs_fit_the_training_data():
    sgd = CRF(features=FEATURES, columns=COLS, learning_rate=0.5, l2=0.01, epochs=40, progress=False)
    assert sgd.fit(SENTS, LABELS) is sgd
    assert sgd.predict(SENTS) == LABELS
    assert sgd.history_[-1]["loss"] < sgd.history_[0]["loss"]
    lb = CRFLBFGS(features=FEATURES, columns=COLS, l2=0.01, progress=False).fit(SENTS, LABELS)
    assert lb.predict(SENTS) == LABELS
    # L-BFGS reaches (near) the optimum: the gradient of the objective is small there
    attrs, gold, index, ent_lo, ent_n = corpus()
    g = np.zeros(index.n_weights)
    crf_objective(lb.weights_, corpus_arrays(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, None, index.feat_label,
                                             gold), index.n_labels, 0.01, g)
    assert np.abs(g).max() < 1e-3


def test_marginals_sum_to_one_and_match_prediction():
    model = CRF(features=FEATURES, columns=COLS, learning_rate=0.5, l2=0.01, epochs=30,
                progress=False).fit(SENTS, LABELS)
    marg = model.predict_marginals(SENTS)
    for m, labels in zip(marg, LABELS):
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=1e-12)
        assert [model.labels_[j] for j in m.argmax(axis=1)] == labels


def test_averaged_sgd_equals_the_mean_of_the_iterates():
    kw = dict(features=FEATURES, columns=COLS, learning_rate=0.1, lr_schedule="fixed", l2=30.0,
              shuffle=False, epochs=2, progress=False)
    model = CRF(averaged=True, **kw).fit(SENTS, LABELS)
    attrs, gold, index, ent_lo, ent_n = corpus()
    w = np.zeros(index.n_weights)
    iterates = []
    for _ in range(2):
        for s in range(attrs.n_sentences):
            w = w - 0.1 * sentence_grad(w, attrs, s, gold, index, ent_lo, ent_n)
            w = w * (1 - 0.1 * 30.0 / attrs.n_sentences)
            iterates.append(w)
    np.testing.assert_allclose(model.weights_, np.mean(iterates, axis=0), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("l1", [0.05, 0.5])
def test_lbfgs_with_l1_meets_the_optimality_conditions(l1):
    """w minimizes f(w) + l1 |w|_1 (f with its L2 part) iff, per weight, grad f + l1 sign(w) = 0 where
    w != 0 and |grad f| <= l1 where w == 0: checked on the exact gradient at the returned weights."""
    l2 = 0.1
    model = CRFLBFGS(features=FEATURES, columns=COLS, l2=l2, l1=l1, epochs=500, tol=1e-12,
                     progress=False).fit(SENTS, LABELS)
    attrs, gold, index, ent_lo, ent_n = corpus()
    w = model.weights_
    g = np.zeros(index.n_weights)
    crf_objective(w, corpus_arrays(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, None, index.feat_label, gold),
                  index.n_labels, l2, g)
    nz = w != 0
    assert nz.any() and (~nz).any()  # some weights are exactly 0, others not
    np.testing.assert_allclose(g[nz] + l1 * np.sign(w[nz]), 0.0, atol=2e-3)
    assert np.abs(g[~nz]).max() <= l1 + 2e-3
    # a stronger L1 penalty zeroes more weights
    stronger = CRFLBFGS(features=FEATURES, columns=COLS, l2=l2, l1=4 * l1, epochs=500, tol=1e-12,
                        progress=False).fit(SENTS, LABELS)
    assert (stronger.weights_ == 0).sum() > (~nz).sum()


def test_lbfgs_l1_zero_is_the_plain_l2_objective_and_negative_l1_is_refused():
    kw = dict(features=FEATURES, columns=COLS, l2=0.3, epochs=50, progress=False)
    a = CRFLBFGS(**kw).fit(SENTS, LABELS)
    b = CRFLBFGS(l1=0.0, **kw).fit(SENTS, LABELS)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    from chaintag.errors import InputError
    with pytest.raises(InputError, match="l1"):
        CRFLBFGS(l1=-1.0, **kw).fit(SENTS, LABELS)
