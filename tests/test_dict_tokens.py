"""Feature-dict tokens (sklearn-crfsuite style input) and scikit-learn interoperability."""

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError
from chaintag.learners import LEARNERS
from chaintag.learners.sklearn_compat import sequence_scorer
from toy_corpus import LABELS, SENTS


def as_dicts(sents, extra=None):
    out = []
    for s in sents:
        toks = []
        for i, (w, p) in enumerate(s):
            d = {"bias": 1.0, "word": w, "pos": p}
            if extra:
                d.update(extra(s, i))
            toks.append(d)
        out.append(toks)
    return out


def _weights_by_name(model, rename):
    out = {}
    ptr = model.feature_index_.feat_ptr
    for a in range(len(ptr) - 1):
        name = rename(model.extractor_.attribute_name(a))
        for f in range(ptr[a], ptr[a + 1]):
            out[(name, model.labels_[model.feature_index_.feat_label[f]])] = model.weights_[f]
    return out


@pytest.mark.parametrize("name", ["perceptron", "mira", "crf-lbfgs"])
def test_dicts_learn_the_same_model_as_templates(name):
    """{"bias": 1, "w": word, "p": pos} carries the attributes of the templates w[0];pos[0] (plus their bias)."""
    kw = {"epochs": 3} if name != "crf-lbfgs" else {}
    tmpl = chaintag.make_learner(name, features="w[0];pos[0]", columns=("word", "pos"), **kw).fit(SENTS, LABELS)
    dic = chaintag.make_learner(name, **kw).fit(as_dicts(SENTS), LABELS)
    a = _weights_by_name(tmpl, lambda n: n.replace("[0]", ""))
    b = _weights_by_name(dic, lambda n: n)
    assert set(a) == set(b) and len(a) > 10
    np.testing.assert_allclose([b[k] for k in a], [a[k] for k in a], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(dic.transitions_.values, tmpl.transitions_.values, rtol=1e-9, atol=1e-9)
    assert dic.predict(as_dicts(SENTS)) == tmpl.predict(SENTS)


def test_value_rules():
    # True and 1 are the same present attribute; False, 0 and a missing key are the same absence
    X1 = as_dicts(SENTS, lambda s, i: {"first": i == 0, "one": 1})
    X2 = as_dicts(SENTS, lambda s, i: {"first": 1.0, "one": True} if i == 0 else {"first": 0, "one": 1.0})
    m1 = chaintag.StructuredPerceptron(epochs=3).fit(X1, LABELS)
    m2 = chaintag.StructuredPerceptron(epochs=3).fit(X2, LABELS)
    assert m1.extractor_.names == m2.extractor_.names
    np.testing.assert_array_equal(m1.weights_, m2.weights_)
    assert "first" in m1.extractor_.names and "word=dog" in m1.extractor_.names
    assert not any(n.startswith("first=") for n in m1.extractor_.names)


@pytest.mark.parametrize("name", sorted(set(LEARNERS) - {"perceptron", "maxent", "crf", "crf-lbfgs", "mira",
                                                          "nbest-mira", "sapo"}))
def test_real_values_are_refused_not_misread(name):
    X = as_dicts(SENTS, lambda s, i: {"len": len(s[i][0]) / 3})
    neural = getattr(LEARNERS[name], "learns_representation", False)  # embeds the token columns itself
    if neural:
        pytest.importorskip("torch")
    learner = chaintag.make_learner(name)
    if name in ("perceptron2", "sapo2") or neural:  # no feature-dict input at all
        with pytest.raises(InputError, match="feature dict"):
            learner.fit(X, LABELS)
    else:
        with pytest.raises(InputError, match="real value"):
            learner.fit(X, LABELS)


def test_dict_and_column_tokens_are_never_mixed_up(tmp_path):
    cols = chaintag.StructuredPerceptron(features="w[0]", epochs=1).fit(SENTS, LABELS)
    with pytest.raises(InputError, match="feature dict"):
        cols.predict(as_dicts(SENTS))
    dic = chaintag.StructuredPerceptron(epochs=2).fit(as_dicts(SENTS), LABELS)
    with pytest.raises(InputError, match="expected a feature dict"):
        dic.predict(SENTS)
    # the perceptron and max-ent read real values; a learner whose kernels do not refuses them at prediction too
    # the linear learners read real values; the second-order perceptron takes no feature dicts at all
    with pytest.raises(InputError, match="feature dict"):
        chaintag.SecondOrderPerceptron().fit(as_dicts(SENTS, lambda s, i: {"x": 0.5}), LABELS)
    with pytest.raises(InputError, match="type list"):
        chaintag.StructuredPerceptron().fit([[{"x": [1]}]], [["A"]])
    path = tmp_path / "d.npz"
    dic.save(path)
    again = chaintag.load(path)
    assert again.predict(as_dicts(SENTS)) == dic.predict(as_dicts(SENTS))
    np.testing.assert_array_equal(again.weights_, dic.weights_)
    # constrained decoding and n-best work on dict tokens too
    assert again.predict_nbest(as_dicts(SENTS[:1]), 2, constrain=True)[0][0][0] == \
        dic.predict(as_dicts(SENTS[:1]), constrain=True)[0]


def test_sklearn_clone_grid_search_and_cross_val_score():
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

    X, y = as_dicts(SENTS) * 2, LABELS * 2
    est = chaintag.StructuredPerceptron(epochs=2, random_state=3)
    c = clone(est)
    assert c is not est and c.get_params() == est.get_params()
    scorer = sequence_scorer("f1")
    cv = KFold(2)
    got = cross_val_score(est, X, y, cv=cv, scoring=scorer)
    want = []
    for tr, te in cv.split(X):
        m = clone(est).fit([X[i] for i in tr], [y[i] for i in tr])
        want.append(m.evaluate([X[i] for i in te], [y[i] for i in te]).f1)
    np.testing.assert_allclose(got, want)
    grid = GridSearchCV(est, {"epochs": [1, 4]}, cv=cv, scoring=scorer).fit(X, y)
    assert grid.best_params_["epochs"] in (1, 4)
    assert grid.best_estimator_.predict(X[:1])[0] and len(grid.cv_results_["mean_test_score"]) == 2
    with pytest.raises(ValueError):
        sequence_scorer("bleu")


# ------------------------------------------------------------------ real values: a dense reference


def _valued(sents):
    """Feature dicts with real values (word length, a position feature) besides strings."""
    return [[{"w": w, "p": p, "len": len(w) / 4.0, "pos": (i + 1) / len(s) - 0.5, "bias": 1.0}
             for i, (w, p) in enumerate(s)] for s in sents]


def _dense(model, X):
    """Dense (n_tokens, n_attributes) value matrix of each sentence, read from the dicts by name."""
    index = {n: a for a, n in enumerate(model.extractor_.names)}
    out = []
    for sent in X:
        m = np.zeros((len(sent), len(index)))
        for i, tok in enumerate(sent):
            for k, v in tok.items():
                name = f"{k}={v}" if isinstance(v, str) else k
                if name in index and v != 0:
                    m[i, index[name]] = 1.0 if isinstance(v, str) else float(v)
        out.append(m)
    return out


def _reference_perceptron(model, X, labels, epochs, averaged):
    """Collins's perceptron in dense numpy (Viterbi reference, explicit average over every step)."""
    from chaintag.decoding.viterbi import viterbi_reference

    L = len(model.labels_)
    A = model.extractor_.n_attributes
    mask = np.zeros((A, L), dtype=bool)
    ptr, lab = model.feature_index_.feat_ptr, model.feature_index_.feat_label
    for a in range(A):
        mask[a, lab[ptr[a]:ptr[a + 1]]] = True
    W, U, S, E = np.zeros((A, L)), np.zeros((L, L)), np.zeros(L), np.zeros(L)
    sums = [np.zeros_like(x) for x in (W, U, S, E)]
    steps = 0
    ix = {x: j for j, x in enumerate(model.labels_)}
    onehot = np.eye(L)
    for _ in range(epochs):
        for Xs, ys in zip(_dense(model, X), labels):
            y = np.array([ix[v] for v in ys])
            z, _ = viterbi_reference(Xs @ W, U, S, E)
            if (z != y).any():
                W += (Xs.T @ (onehot[y] - onehot[z])) * mask
                for a, b in zip(y[:-1], y[1:]):
                    U[a, b] += 1
                for a, b in zip(z[:-1], z[1:]):
                    U[a, b] -= 1
                S[y[0]] += 1
                S[z[0]] -= 1
                E[y[-1]] += 1
                E[z[-1]] -= 1
            steps += 1
            for acc, cur in zip(sums, (W, U, S, E)):
                acc += cur
    if averaged:
        W, U, S, E = (acc / steps for acc in sums)
    return W, U, S, E


def _model_dense(model):
    L = len(model.labels_)
    A = model.extractor_.n_attributes
    F = model.feature_index_.n_features
    W = np.zeros((A, L))
    ptr, lab = model.feature_index_.feat_ptr, model.feature_index_.feat_label
    for a in range(A):
        for f in range(ptr[a], ptr[a + 1]):
            W[a, lab[f]] = model.weights_[f]
    w = model.weights_
    return W, w[F:F + L * L].reshape(L, L), w[F + L * L:F + L * L + L], w[F + L * L + L:F + L * L + 2 * L]


@pytest.mark.parametrize("averaged", [False, True])
def test_real_valued_perceptron_equals_a_dense_reference(averaged):
    from chaintag.decoding.forward_backward import forward_backward
    from chaintag.decoding.viterbi import path_score, viterbi_reference

    X = _valued(SENTS)
    model = chaintag.StructuredPerceptron(epochs=3, averaged=averaged).fit(X, LABELS)
    ref = _reference_perceptron(model, X, LABELS, 3, averaged)
    for got, want in zip(_model_dense(model), ref):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    j = model.extractor_.names.index("len")
    assert np.abs(ref[0][j]).max() > 0  # the real-valued attribute was learned
    # Viterbi, n-best scores and marginals read the values too
    W, U, S, E = ref
    pred, nbest, marg = model.predict(X), model.predict_nbest(X, 3), model.predict_marginals(X)
    for s, Xs in enumerate(_dense(model, X)):
        z, score = viterbi_reference(Xs @ W, U, S, E)
        assert pred[s] == [model.labels_[k] for k in z]
        assert nbest[s][0][1] == pytest.approx(score, abs=1e-9)
        for labs, sc, _ in nbest[s]:
            ids = np.array([model.labels_.index(x) for x in labs])
            assert sc == pytest.approx(path_score(Xs @ W, U, S, E, ids), abs=1e-9)
        np.testing.assert_allclose(marg[s], forward_backward(Xs @ W, U, S, E)[1], atol=1e-9)


def test_real_values_round_trip_dev_and_refusals(tmp_path):
    X = _valued(SENTS)
    model = chaintag.StructuredPerceptron(epochs=2).fit(X, LABELS, dev=(X, LABELS))
    assert max(h["dev_score"] for h in model.history_) == model.score(X, LABELS)
    model.save(tmp_path / "v.npz")
    again = chaintag.load(tmp_path / "v.npz")
    assert again.predict(X) == model.predict(X)
    np.testing.assert_array_equal(again.weights_, model.weights_)
    with pytest.raises(NotImplementedError, match="real-valued"):
        model.predict(X, constrain=True)


def test_real_valued_maxent_equals_a_dense_reference():
    """The max-ent tagger's design matrix carries the values, and its local probabilities, Viterbi and
    marginals equal a dense numpy computation (softmax of X W + U[prev])."""
    from scipy.special import log_softmax

    from chaintag.learners.maxent import design_matrix, previous_labels

    X = _valued(SENTS)
    model = chaintag.MaxEnt(C=10.0).fit(X, LABELS)
    L = len(model.labels_)
    A = model.extractor_.n_attributes
    F = model.feature_index_.n_features
    W = model.weights_[:F].reshape(A, L)
    U = model.weights_[F:F + L * L].reshape(L, L)
    S = model.weights_[F + L * L:F + L * L + L]
    j = model.extractor_.names.index("len")
    assert np.abs(W[j]).max() > 0
    ix = {x: k for k, x in enumerate(model.labels_)}
    # what the solver is given: the values in the attribute columns, 1 in the previous-label column
    attrs = model.extractor_.transform(X)
    gold = np.array([ix[v] for ls in LABELS for v in ls])
    prev = previous_labels(attrs.sent_ptr, gold, L)
    M = design_matrix(attrs.tok_ptr, attrs.attr_ids, prev, A, L, attrs.attr_values).toarray()
    np.testing.assert_array_equal(M[:, :A], np.vstack(_dense(model, X)))
    np.testing.assert_array_equal(M[np.arange(len(gold)), A + prev], 1.0)
    got = model.local_log_proba(X, LABELS)
    for Xs, ys, lp in zip(_dense(model, X), LABELS, got):
        prev = [None] + [ix[v] for v in ys[:-1]]
        scores = np.stack([Xs[i] @ W + (S if p is None else U[p]) for i, p in enumerate(prev)])
        np.testing.assert_allclose(lp, log_softmax(scores, axis=1), atol=1e-9)
    # decoding: brute force over label sequences of the product of local probabilities
    import itertools
    pred = model.predict(X)
    marg = model.predict_marginals(X)
    for s, Xs in enumerate(_dense(model, X)):
        T = len(Xs)
        best, total = None, np.zeros((T, L))
        norm = 0.0
        for path in itertools.product(range(L), repeat=T):
            lp = sum(log_softmax(Xs[i] @ W + (S if i == 0 else U[path[i - 1]]))[path[i]] for i in range(T))
            if best is None or lp > best[0]:
                best = (lp, path)
            for i, lab in enumerate(path):
                total[i, lab] += np.exp(lp)
            norm += np.exp(lp)
        assert pred[s] == [model.labels_[k] for k in best[1]]
        np.testing.assert_allclose(marg[s], total / norm, atol=1e-9)


def _crf_arrays(model, X, labels):
    from chaintag.decoding.scoring import feature_entries
    attrs = model.extractor_.transform(X)
    ent_lo, ent_n = feature_entries(attrs.attr_ids, model.feature_index_.feat_ptr, len(model.labels_))
    ix = {x: k for k, x in enumerate(model.labels_)}
    gold = np.array([ix[v] for ls in labels for v in ls], dtype=np.int32)
    return attrs, ent_lo, ent_n, gold


def test_real_valued_crf_objective_and_gradient_equal_a_dense_reference():
    from chaintag.decoding.forward_backward import log_partition_reference
    from chaintag.decoding.viterbi import path_score
    from chaintag.decoding.scoring import corpus_arrays
    from chaintag.learners.crf_kernels import crf_objective

    X = _valued(SENTS)
    model = chaintag.CRFLBFGS(epochs=3).fit(X, LABELS)
    attrs, ent_lo, ent_n, gold = _crf_arrays(model, X, LABELS)
    L, fl = len(model.labels_), model.feature_index_.feat_label
    rng = np.random.default_rng(0)
    w = rng.normal(size=model.feature_index_.n_weights)
    l2 = 0.7

    def objective(w):
        grad = np.zeros_like(w)
        v = crf_objective(w, corpus_arrays(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, attrs.attr_values, fl, gold),
                          L, l2, grad)
        return v, grad

    model.weights_ = w
    W, U, S, E = _model_dense(model)
    ix = {x: k for k, x in enumerate(model.labels_)}
    want = 0.5 * l2 * w @ w
    for Xs, ys in zip(_dense(model, X), LABELS):
        want += log_partition_reference(Xs @ W, U, S, E) - path_score(Xs @ W, U, S, E, [ix[v] for v in ys])
    value, grad = objective(w)
    assert value == pytest.approx(want, rel=1e-10)
    h = 1e-6
    for f in rng.choice(len(w), size=25, replace=False):
        d = np.zeros_like(w)
        d[f] = h
        assert grad[f] == pytest.approx((objective(w + d)[0] - objective(w - d)[0]) / (2 * h), abs=1e-5)


def test_real_valued_crf_sgd_step_follows_the_gradient():
    """One SGD step from zero weights, fixed rate, no penalty: w = rate * (Phi(x, y*) - E[Phi(x, y)])."""
    from chaintag.decoding.scoring import corpus_arrays
    from chaintag.learners.crf_kernels import crf_objective

    X, Y = _valued(SENTS[:1]), LABELS[:1]
    sgd = chaintag.CRF(epochs=1, averaged=False, l2=0.0, lr_schedule="fixed", learning_rate=0.5,
                       shuffle=False).fit(X, Y)
    attrs, ent_lo, ent_n, gold = _crf_arrays(sgd, X, Y)
    grad = np.zeros(sgd.feature_index_.n_weights)
    crf_objective(np.zeros_like(grad), corpus_arrays(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, attrs.attr_values,
                                                     sgd.feature_index_.feat_label, gold), len(sgd.labels_), 0.0, grad)
    np.testing.assert_allclose(sgd.weights_, -0.5 * grad, atol=1e-12)
    assert "len" in sgd.extractor_.names


def _phi(model, Xs, path):
    """Flat feature vector Phi(x, path) (features, transitions, start, end), values included."""
    L = len(model.labels_)
    F = model.feature_index_.n_features
    ptr, lab = model.feature_index_.feat_ptr, model.feature_index_.feat_label
    phi = np.zeros(model.feature_index_.n_weights)
    for i, y in enumerate(path):
        for a in np.flatnonzero(Xs[i]):
            hit = np.flatnonzero(lab[ptr[a]:ptr[a + 1]] == y)
            if len(hit):
                phi[ptr[a] + hit[0]] += Xs[i, a]
        if i:
            phi[F + path[i - 1] * L + y] += 1
    phi[F + L * L + path[0]] += 1
    phi[F + L * L + L + path[-1]] += 1
    return phi


@pytest.mark.parametrize("n_best", [1, 2])
def test_real_valued_mira_equals_a_dense_reference(n_best):
    """(N-best) MIRA with real values against a dense reference: brute-force n best, difference vectors
    with the values, margins, norms, Gram matrix and Hildreth's solver on it, lazy averaging made explicit."""
    import itertools

    from chaintag.learners.mira_kernels import hildreth

    X = _valued(SENTS)
    C = 0.5
    model = chaintag.NBestMIRA(n_best=n_best, epochs=2, C=C).fit(X, LABELS)
    ix = {x: k for k, x in enumerate(model.labels_)}
    L = len(model.labels_)
    w = np.zeros(model.feature_index_.n_weights)
    total, steps = np.zeros_like(w), 0
    dense = _dense(model, X)
    for _ in range(2):
        for Xs, ys in zip(dense, LABELS):
            y = [ix[v] for v in ys]
            ranked = sorted(itertools.product(range(L), repeat=len(y)), key=lambda p: -(w @ _phi(model, Xs, p)))
            cands = [p for p in ranked[:n_best] if list(p) != y]
            ds = [_phi(model, Xs, y) - _phi(model, Xs, p) for p in cands]
            losses = [sum(a != b for a, b in zip(p, y)) for p in cands]
            if ds:
                b = np.array([lo - w @ d for lo, d in zip(losses, ds)])
                G = np.array([[d1 @ d2 for d2 in ds] for d1 in ds])
                alpha = np.zeros(len(ds))
                if len(ds) == 1:
                    alpha[0] = min(C, max(0.0, b[0] / G[0, 0]))
                else:
                    hildreth(G, b, C, alpha)
                for a_, d in zip(alpha, ds):
                    w = w + a_ * d
            steps += 1
            total += w
    np.testing.assert_allclose(model.weights_, total / steps, rtol=1e-9, atol=1e-9)
    j = model.extractor_.names.index("len")
    assert np.abs(_model_dense(model)[0][j]).max() > 0


@pytest.mark.parametrize("space", ["gold", "all"])
def test_real_valued_sapo_equals_a_dense_reference(space):
    """SAPO with n at least the number of label sequences (the exact distribution), no penalty, a fixed
    rate, no shuffling: each step is w += rate (Phi(x, y*) - sum_y P(y | x) Phi(x, y)), computed densely
    (the "all" space: every attribute's row is full, the update's direct-index path)."""
    import itertools

    from scipy.special import softmax

    sents, labs = SENTS[:3], LABELS[:3]
    X = _valued(sents)
    n_labels = len({v for ls in labs for v in ls})
    n = n_labels ** max(len(s) for s in sents)
    model = chaintag.SAPO(n_best=n, epochs=2, l2=0.0, lr_schedule="fixed", learning_rate=0.3, shuffle=False,
                          averaged=False, feature_space=space).fit(X, labs)
    assert (np.diff(model.feature_index_.feat_ptr) == n_labels).all() == (space == "all")
    ix = {x: k for k, x in enumerate(model.labels_)}
    w = np.zeros(model.feature_index_.n_weights)
    for _ in range(2):
        for Xs, ys in zip(_dense(model, X), labs):
            paths = list(itertools.product(range(len(model.labels_)), repeat=len(ys)))
            phis = np.array([_phi(model, Xs, p) for p in paths])
            p = softmax(phis @ w)
            w = w + 0.3 * (_phi(model, Xs, [ix[v] for v in ys]) - p @ phis)
    np.testing.assert_allclose(model.weights_, w, rtol=1e-9, atol=1e-12)
    j = model.extractor_.names.index("len")
    assert np.abs(_model_dense(model)[0][j]).max() > 0


def test_a_checkpoint_knows_the_real_values(tmp_path):
    X = _valued(SENTS)
    chaintag.StructuredPerceptron(epochs=1).fit(X, LABELS, checkpoint_dir=tmp_path)
    resumed = chaintag.StructuredPerceptron(epochs=2).fit(X, LABELS, checkpoint_dir=tmp_path, resume=True)
    assert resumed.history_[0]["epoch"] == 1 and len(resumed.history_) == 2
    other = [[dict(t, len=t["len"] + 1.0) for t in s] for s in X]
    with pytest.raises(InputError, match="other training data"):
        chaintag.StructuredPerceptron(epochs=2).fit(other, LABELS, checkpoint_dir=tmp_path, resume=True)
