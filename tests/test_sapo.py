"""SAPO: reduction to the perceptron, lazy L2 against a dense reference, contract."""

import numpy as np
import pytest

from chaintag import SAPO, StructuredPerceptron
from chaintag.decoding.nbest import nbest

from toy_corpus import LABELS, SENTS  # noqa: E402
FEATURES = ["w[0]", "w[-1]", "pos[0]", "pos[-1]|pos[0]", "suf2(w[0])"]
COLS = ("word", "pos")


def test_n1_lr1_no_l2_is_the_perceptron():
    sapo = SAPO(features=FEATURES, columns=COLS, n_best=1, learning_rate=1.0, lr_schedule="fixed",
                l2=0.0, shuffle=False, epochs=4, progress=False).fit(SENTS, LABELS)
    perc = StructuredPerceptron(features=FEATURES, columns=COLS, averaged=False, epochs=4,
                                progress=False).fit(SENTS, LABELS)
    np.testing.assert_array_equal(sapo.weights_, perc.weights_)
    assert [h["updates"] for h in sapo.history_] == [h["updates"] for h in perc.history_]


def dense_reference(model, n_best, lr, l2, epochs, order, snapshots=None):
    """Plain numpy SAPO on the model's own features: dense updates, dense L2 step."""
    ex, fi = model.extractor_, model.feature_index_
    L, F = len(model.labels_), fi.n_features
    attrs = ex.transform(SENTS)
    gold = [[model.labels_.index(lab) for lab in ls] for ls in LABELS]
    w = np.zeros(fi.n_weights)

    def phi(s, path):
        v = np.zeros(fi.n_weights)
        t0 = attrs.sent_ptr[s]
        for i, y in enumerate(path):
            for a in attrs.attr_ids[attrs.tok_ptr[t0 + i]:attrs.tok_ptr[t0 + i + 1]]:
                for f in range(fi.feat_ptr[a], fi.feat_ptr[a + 1]):
                    if fi.feat_label[f] == y:
                        v[f] += 1
            v[F + L * L + y] += 1 if i == 0 else 0
            if i > 0:
                v[F + path[i - 1] * L + y] += 1
        v[F + L * L + L + path[-1]] += 1
        return v

    for _ in range(epochs):
        for s in order:
            t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
            E = np.zeros((t1 - t0, L))
            for i in range(t0, t1):
                for a in attrs.attr_ids[attrs.tok_ptr[i]:attrs.tok_ptr[i + 1]]:
                    for f in range(fi.feat_ptr[a], fi.feat_ptr[a + 1]):
                        E[i - t0, fi.feat_label[f]] += w[f]
            U = w[F:F + L * L].reshape(L, L)
            top = nbest(E, U, w[F + L * L:F + L * L + L], w[F + L * L + L:], n=n_best)
            scores = np.array([sc for sc, _ in top])
            p = np.exp(scores - scores.max())
            p /= p.sum()
            step = phi(s, gold[s])
            for pk, (_, path) in zip(p, top):
                step -= pk * phi(s, list(path))
            w = w + lr * step
            w = w * (1 - lr * l2 / len(SENTS))
            if snapshots is not None:
                snapshots.append(w.copy())
    return w


@pytest.mark.parametrize("l2, n_best", [(0.0, 3), (1.0, 3), (4.0, 2)])
def test_lazy_scaled_l2_equals_dense_steps(l2, n_best):
    # l2=4 with lr=0.5 over 5 sentences shrinks by 0.6 per step: sigma is folded
    # back into the weights many times within the run
    kw = dict(features=FEATURES, columns=COLS, n_best=n_best, learning_rate=0.5,
              lr_schedule="fixed", l2=l2, shuffle=False, epochs=3, progress=False)
    model = SAPO(**kw).fit(SENTS, LABELS)
    ref = dense_reference(model, n_best, 0.5, l2, 3, range(len(SENTS)))
    np.testing.assert_allclose(model.weights_, ref, rtol=1e-9, atol=1e-12)


def test_sapo_contract():
    kw = dict(features=FEATURES, columns=COLS, epochs=30, learning_rate=0.5, l2=0.1, progress=False)
    a = SAPO(random_state=1, **kw)
    assert a.fit(SENTS, LABELS) is a
    b = SAPO(random_state=1, **kw).fit(SENTS, LABELS)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert a.history_[-1]["errors"] == 0  # separable toy corpus
    assert a.predict(SENTS) == LABELS
    assert all(h["loss"] >= 0 for h in a.history_)
    assert a.history_[-1]["loss"] < a.history_[0]["loss"]


def test_beam_search_variant_and_options():
    model = SAPO(features=FEATURES, columns=COLS, search="beam", beam_width=4, epochs=20,
                 learning_rate=0.5, l2_per_pass=True, stop_ratio=20, progress=False)
    model.fit(SENTS, LABELS)
    assert model.predict(SENTS) == LABELS


def test_invalid_settings_are_refused():
    for bad in (dict(search="dfs"), dict(n_best=0), dict(learning_rate=0), dict(lr_schedule="cosine"),
                dict(learning_rate=1.0, l2=10.0)):
        with pytest.raises(ValueError):
            SAPO(features=FEATURES, columns=COLS, progress=False, **bad).fit(SENTS, LABELS)


def test_averaged_sapo_at_n1_is_the_averaged_perceptron():
    sapo = SAPO(features=FEATURES, columns=COLS, n_best=1, learning_rate=1.0, lr_schedule="fixed",
                l2=0.0, shuffle=False, averaged=True, epochs=4, progress=False).fit(SENTS, LABELS)
    perc = StructuredPerceptron(features=FEATURES, columns=COLS, averaged=True, epochs=4,
                                progress=False).fit(SENTS, LABELS)
    np.testing.assert_allclose(sapo.weights_, perc.weights_, rtol=0, atol=1e-12)


def test_averaged_sapo_with_l2_equals_naive_average():
    # strong L2 (shrink 0.6 per step) folds the scale many times within the run
    kw = dict(features=FEATURES, columns=COLS, n_best=3, learning_rate=0.5, lr_schedule="fixed",
              l2=4.0, shuffle=False, epochs=3, progress=False)
    model = SAPO(averaged=True, **kw).fit(SENTS, LABELS)
    snapshots = []
    dense_reference(model, 3, 0.5, 4.0, 3, range(len(SENTS)), snapshots)
    np.testing.assert_allclose(model.weights_, np.mean(snapshots, axis=0), rtol=1e-9, atol=1e-12)
    plain = SAPO(**kw).fit(SENTS, LABELS)
    np.testing.assert_allclose(plain.weights_, snapshots[-1], rtol=1e-9, atol=1e-12)


def test_structure_regularization_runs_and_is_seeded():
    kw = dict(features=FEATURES, columns=COLS, structure_reg=1.5, epochs=5, progress=False)
    a = SAPO(**kw).fit(SENTS, LABELS)
    b = SAPO(**kw).fit(SENTS, LABELS)
    c = SAPO(random_state=9, **kw).fit(SENTS, LABELS)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert not np.array_equal(a.weights_, c.weights_)
    with pytest.raises(ValueError):
        SAPO(features=FEATURES, columns=COLS, structure_reg=0.5, progress=False).fit(SENTS, LABELS)
