"""MIRA: the margin constraint after a step, Hildreth against a generic QP solver."""

import numpy as np
import pytest
from scipy.optimize import minimize

from chaintag import MIRA
from chaintag.decoding.viterbi import path_score, viterbi
from chaintag.learners.mira_kernels import hildreth

from toy_corpus import LABELS as TOY_LABELS, SENTS as TOY_SENTS  # noqa: E402

SENTS, LABELS = TOY_SENTS[:4], TOY_LABELS[:4]
FEATURES = ["w[0]", "pos[0]", "pos[-1]|pos[0]", "suf2(w[0])"]
COLS = ("word", "pos")


def scores_of(model, sentence):
    """Emissions, transitions, start, end of one sentence under the model's current weights."""
    fi = model.feature_index_
    L, F = len(model.labels_), fi.n_features
    attrs = model.extractor_.transform([sentence])
    w = model.weights_
    E = np.zeros((attrs.n_tokens, L))
    for i in range(attrs.n_tokens):
        for a in attrs.attr_ids[attrs.tok_ptr[i]:attrs.tok_ptr[i + 1]]:
            for f in range(fi.feat_ptr[a], fi.feat_ptr[a + 1]):
                E[i, fi.feat_label[f]] += w[f]
    return E, w[F:F + L * L].reshape(L, L), w[F + L * L:F + L * L + L], w[F + L * L + L:]


@pytest.mark.parametrize("C", [None, 0.05])
def test_margin_constraint_holds_after_a_step_unless_clipped(C):
    # train on sentence 0 only, then take single steps on the others and check each one
    model = MIRA(features=FEATURES, columns=COLS, averaged=False, epochs=1, C=C, progress=False)
    model.fit(SENTS, LABELS)
    for s in range(len(SENTS)):
        before = model.weights_.copy()
        E, U, st, en = scores_of(model, SENTS[s])
        z, _ = viterbi(E, U, st, en)
        gold = [model.labels_.index(lab) for lab in LABELS[s]]
        loss = sum(a != b for a, b in zip(z, gold))
        # one more step on this sentence through the compiled kernel
        from chaintag.learners.base import TrainData
        from chaintag.learners.mira_kernels import mira_epoch
        from chaintag.learners.perceptron_kernels import gold_feature_ids
        attrs = model.extractor_.transform(SENTS)
        flat = np.array([model.labels_.index(lab) for ls in LABELS for lab in ls], dtype=np.int32)
        data = TrainData(attrs, flat, model.feature_index_)
        gf = gold_feature_ids(data.attrs.tok_ptr, data.ent_lo, data.ent_n, flat, model.feature_index_.feat_label)
        w = before.copy()
        from chaintag.learners.path_kernels import training_arrays
        _, _, _, clipped = mira_epoch(np.array([s], dtype=np.int64), training_arrays(data, gf), w,
                                      np.zeros(1), 0, len(model.labels_), False, 1,
                                      np.inf if C is None else C, False, False)
        model.weights_ = w
        E2, U2, st2, en2 = scores_of(model, SENTS[s])
        margin = path_score(E2, U2, st2, en2, gold) - path_score(E2, U2, st2, en2, z)
        if loss and not clipped:
            assert margin == pytest.approx(loss, abs=1e-9)  # the constraint holds with equality
        elif loss:
            assert margin < loss and not np.array_equal(w, before)
        else:
            np.testing.assert_array_equal(w, before)


def test_hildreth_equals_a_generic_qp_solver():
    rng = np.random.default_rng(0)
    for _ in range(50):
        k = int(rng.integers(1, 6))
        D = rng.normal(size=(k, 8))
        G = D @ D.T
        b = rng.normal(size=k) * 3
        for C in (np.inf, 0.3):
            alpha = np.zeros(k)
            hildreth(G, b, C, alpha, 5000, 1e-13)
            ref = minimize(lambda a: 0.5 * a @ G @ a - a @ b, np.zeros(k), jac=lambda a: G @ a - b,
                           bounds=[(0, None if C == np.inf else C)] * k, method="L-BFGS-B",
                           options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000})
            obj = lambda a: 0.5 * a @ G @ a - a @ b  # noqa: E731
            assert obj(alpha) <= obj(ref.x) + 1e-7
            assert np.all(alpha >= 0) and np.all(alpha <= C)
