"""Second-order SAPO: the top-n search against enumeration, the updates against a dense reference,
the allowed label pairs, model files."""

import itertools

import numpy as np
import pytest

import chaintag
from chaintag.decoding.nbest2 import astar2_retry, astar2_workspace, pair_lists, pair_matrix
from chaintag.errors import ModelFormatError
from chaintag.io.model_file import load_model, save_model
from test_vectors import _vec_file
from toy_corpus import LABELS, SENTS


def _score(y, E, U, V, start, end):
    T = len(y)
    s = start[y[0]] + end[y[-1]] + sum(E[i, y[i]] for i in range(T))
    s += sum(U[y[i - 1], y[i]] for i in range(1, T))
    return s + sum(V[y[i - 2], y[i - 1], y[i]] for i in range(2, T))


def _valid(L, T, ok):
    return [y for y in itertools.product(range(L), repeat=T) if all(ok[y[i - 1], y[i]] for i in range(1, T))]


def test_astar_top_n_equals_enumeration():
    rng = np.random.default_rng(0)
    for _ in range(200):
        L, T, n = int(rng.integers(1, 5)), int(rng.integers(1, 6)), int(rng.integers(1, 9))
        E, U, V = rng.normal(size=(T, L)), rng.normal(size=(L, L)), rng.normal(size=(L, L, L))
        start, end = rng.normal(size=L), rng.normal(size=L)
        ok = rng.random((L, L)) < 0.6
        ok[~ok.any(axis=1), :] = True
        ok[:, ~ok.any(axis=0)] = True
        ranked = sorted(((_score(y, E, U, V, start, end), y) for y in _valid(L, T, ok)), key=lambda t: -t[0])[:n]
        paths, scores = np.zeros((n, T), dtype=np.int32), np.zeros(n)
        k, _ = astar2_retry(E, U[None], False, V, start, end, *pair_lists(ok), n, np.inf, paths, scores,
                            astar2_workspace(T, L, 1))  # room for one prefix: the search must grow it
        assert k == len(ranked)
        np.testing.assert_allclose(scores[:k], [s for s, _ in ranked], rtol=0, atol=1e-12)
        assert [tuple(p) for p in paths[:k].tolist()] == [y for _, y in ranked]


def test_position_dependent_pair_scores_equal_enumeration():
    rng = np.random.default_rng(1)
    for _ in range(100):
        L, T, n = int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 6))
        E, P, V = rng.normal(size=(T, L)), rng.normal(size=(T, L, L)), rng.normal(size=(L, L, L))
        start, end = rng.normal(size=L), rng.normal(size=L)
        ok = np.ones((L, L), dtype=bool)

        def score(y):
            s = start[y[0]] + end[y[-1]] + sum(E[i, y[i]] for i in range(T)) + sum(P[i, y[i - 1], y[i]] for i in range(1, T))
            return s + sum(V[y[i - 2], y[i - 1], y[i]] for i in range(2, T))
        ranked = sorted(((score(y), y) for y in _valid(L, T, ok)), key=lambda t: -t[0])[:n]
        paths, scores = np.zeros((n, T), dtype=np.int32), np.zeros(n)
        k, _ = astar2_retry(E, P, True, V, start, end, *pair_lists(ok), n, np.inf, paths, scores,
                            astar2_workspace(T, L, 1))
        np.testing.assert_allclose(scores[:k], [s for s, _ in ranked], rtol=0, atol=1e-12)
        assert [tuple(p) for p in paths[:k].tolist()] == [y for _, y in ranked]


def test_stop_gap_drops_the_far_candidates():
    E = np.array([[0.0, -1.0, -5.0], [0.0, -1.0, -5.0]])
    L = 3
    zeros = np.zeros(L)
    paths, scores = np.zeros((9, 2), dtype=np.int32), np.zeros(9)
    k, _ = astar2_retry(E, np.zeros((1, L, L)), False, np.zeros((L, L, L)), zeros, zeros, *pair_lists(np.ones((L, L), bool)),
                        9, 1.5, paths, scores, astar2_workspace(2, L, 4))
    # scores 0, -1, -1, -2 (gap 2 >= 1.5: stop)
    assert k == 3 and scores[:3].tolist() == [0.0, -1.0, -1.0]


def test_pair_matrix_keeps_seen_pairs_and_frees_dead_ends():
    gold = np.array([0, 1, 1, 2, 0, 1])  # sentences [0 1 1] [2 0 1]: no pair 1 -> 2 across the boundary
    ok = pair_matrix(gold, np.array([0, 3, 6]), 4)
    expected = np.zeros((4, 4), dtype=bool)
    expected[0, 1] = expected[1, 1] = expected[2, 0] = True
    expected[3, :] = True  # label 3 never seen: any successor, any predecessor
    expected[:, 3] = True
    expected[:, 2] = True  # 2 is never preceded: it may follow any label
    np.testing.assert_array_equal(ok, expected)
    assert pair_matrix(gold, np.array([0, 3, 6]), 4, restrict=False).all()


def _phi(model, attrs, s, y, values):
    """Phi(x, y) of sentence ``s`` by hand: attributes x labels (times the values), U, start, end, V."""
    index = model.feature_index_
    F, L = index.n_features, len(model.labels_)
    ptr, code = model.pair_ptr_, model.pair_code_
    phi = np.zeros(F + L * L + 2 * L + L ** 3 + len(code))
    t0 = attrs.sent_ptr[s]
    for i, lab in enumerate(y):
        tok = t0 + i
        for e in range(attrs.tok_ptr[tok], attrs.tok_ptr[tok + 1]):
            a = attrs.attr_ids[e]
            for f in range(index.feat_ptr[a], index.feat_ptr[a + 1]):
                if index.feat_label[f] == lab:
                    phi[f] += 1.0 if values is None else values[e]
    for i in range(1, len(y)):
        phi[F + y[i - 1] * L + y[i]] += 1
    phi[F + L * L + y[0]] += 1
    phi[F + L * L + L + y[-1]] += 1
    for i in range(2, len(y)):
        phi[F + L * L + 2 * L + (y[i - 2] * L + y[i - 1]) * L + y[i]] += 1
    for i in range(1, len(y) if len(code) else 0):  # pair features: attribute x (y[i-1], y[i]) seen in training
        tok = t0 + i
        for e in range(attrs.tok_ptr[tok], attrs.tok_ptr[tok + 1]):
            a = attrs.attr_ids[e]
            for j in range(ptr[a], ptr[a + 1]):
                if code[j] == y[i - 1] * L + y[i]:
                    phi[F + L * L + 2 * L + L ** 3 + j] += 1.0 if values is None else values[e]
    return phi


@pytest.mark.parametrize("space,vectors,pairs,pair_features", [
    ("gold", False, "seen", False), ("all", False, "all", False), ("gold", True, "seen", False),
    ("gold", False, "seen", True), ("all", True, "all", True)])
def test_updates_equal_a_dense_reference(tmp_path, space, vectors, pairs, pair_features):
    """With n above the number of valid sequences the top-n is all of them, so each step is exactly
    w += gamma (Phi(y*) - E_p Phi), then w *= 1 - gamma lambda / |S|, visited in file order."""
    features = ["w[0]", "pos[-1]|pos[0]"]
    if vectors:
        features = f"w[0];pos[-1]|pos[0];vec(w[0]);@clusters={_vec_file(tmp_path)}"
    sents, labels = SENTS[:4], LABELS[:4]
    lr, l2, epochs = 0.3, 0.5, 3
    model = chaintag.SecondOrderSAPO(features=features, columns=("word", "pos"), n_best=10_000, learning_rate=lr,
                                     lr_schedule="fixed", l2=l2, epochs=epochs, shuffle=False, pairs=pairs,
                                     feature_space=space, pair_features=pair_features,
                                     progress=False).fit(sents, labels)
    assert (len(model.pair_code_) > 0) == pair_features
    attrs = model.extractor_.transform([list(map(tuple, s)) for s in sents])
    values = getattr(attrs, "attr_values", None)
    assert (values is not None) == vectors
    L = len(model.labels_)
    gold = [[model.labels_.index(x) for x in ls] for ls in labels]
    w = np.zeros_like(model.weights_)
    for _ in range(epochs):
        for s, y_star in enumerate(gold):
            seqs = _valid(L, len(y_star), model.pair_allowed_)
            phis = np.array([_phi(model, attrs, s, y, values) for y in seqs])
            scores = phis @ w
            p = np.exp(scores - scores.max())
            p /= p.sum()
            w += lr * (_phi(model, attrs, s, y_star, values) - p @ phis)
            w *= 1 - lr * l2 / len(sents)
    np.testing.assert_allclose(model.weights_, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("pair_features", [False, True])
def test_tagging_follows_the_seen_pairs_and_round_trips(tmp_path, pair_features):
    tagger = chaintag.SecondOrderSAPO(features=["w[0]", "pos[0]"], columns=("word", "pos"), epochs=5,
                                      pair_features=pair_features, progress=False).fit(SENTS, LABELS)
    seen = {(a, b) for ls in LABELS for a, b in zip(ls, ls[1:])}
    out = tagger.predict([[("cow", "NN"), ("the", "DT"), ("barks", "VBZ"), ("dog", "NN")]] + SENTS)
    assert all((a, b) in seen for ls in out for a, b in zip(ls, ls[1:]))
    path = tmp_path / "m.npz"
    tagger.save(path)
    back = chaintag.load(path)
    np.testing.assert_array_equal(back.weights_, tagger.weights_)
    np.testing.assert_array_equal(back.pair_allowed_, tagger.pair_allowed_)
    np.testing.assert_array_equal(back.pair_code_, tagger.pair_code_)
    L = len(back.labels_)
    assert len(back.weights_) == back.feature_index_.n_features + L * L + 2 * L + L ** 3 + len(back.pair_code_)
    assert (len(back.pair_code_) > 0) == pair_features
    assert back.predict(SENTS) == tagger.predict(SENTS)
    meta, arrays = load_model(path)
    bads = [("pair_allowed", np.zeros_like(arrays["pair_allowed"])), ("pair_allowed", arrays["pair_allowed"][:1]),
            ("pair_allowed", None), ("pair_feature_code", None)]
    if pair_features:
        bads += [("pair_feature_code", arrays["pair_feature_code"] + len(tagger.labels_) ** 2),
                 ("pair_feature_ptr", arrays["pair_feature_ptr"][:-1])]
    for key, bad in bads:
        broken = dict(arrays)
        if bad is None:
            del broken[key]
        else:
            broken[key] = bad
        save_model(tmp_path / "bad.npz", meta, broken)
        with pytest.raises(ModelFormatError):
            chaintag.load(tmp_path / "bad.npz")


def test_nbest_scores_equal_the_weights_times_the_features(tmp_path):
    features = f"w[0];pos[-1]|pos[0];vec(w[0]);@clusters={_vec_file(tmp_path)}"
    model = chaintag.SecondOrderSAPO(features=features, columns=("word", "pos"), epochs=4, pair_features=True,
                                     progress=False).fit(SENTS, LABELS)
    test = [[("the", "DT"), ("cat", "NN"), ("barks", "VBZ"), ("here", "RB")], [("a", "DT")]]
    attrs = model.extractor_.transform(test)
    values = getattr(attrs, "attr_values", None)
    L = len(model.labels_)
    out = model.predict_nbest(test, 10_000)
    for s, cands in enumerate(out):
        valid = _valid(L, len(test[s]), model.pair_allowed_)
        assert len(cands) == len(valid)
        expected = sorted((float(_phi(model, attrs, s, y, values) @ model.weights_) for y in valid), reverse=True)
        np.testing.assert_allclose([c[1] for c in cands], expected, rtol=0, atol=1e-9)
        for labels, score, _ in cands:
            y = [model.labels_.index(x) for x in labels]
            assert score == pytest.approx(float(_phi(model, attrs, s, y, values) @ model.weights_), abs=1e-9)
        assert sum(c[2] for c in cands) == pytest.approx(1.0)
    assert [c[0][0] for c in out] == model.predict(test)
    conf = model.predict_confidence(test, 3)
    assert conf[0] == model.predict(test) and all(0 < c <= 1 for sent in conf[1] for c in sent)


def test_refusals():
    for bad in (dict(pairs="some"), dict(n_best=0), dict(l2=-1), dict(lr_schedule="cosine")):
        with pytest.raises(ValueError):
            chaintag.SecondOrderSAPO(features=["w[0]"], **bad).fit(SENTS, LABELS)
    model = chaintag.SecondOrderSAPO(features=["w[0]"], epochs=1).fit(SENTS, LABELS)
    with pytest.raises(NotImplementedError):
        model.predict_marginals(SENTS)
    with pytest.raises(NotImplementedError, match="second-order forward-backward"):
        model.predict_marginals(SENTS, constrain=True)  # constrained n-best: tests/test_constraints2.py
    with pytest.raises(ValueError):
        model.predict_nbest(SENTS, 0)


def test_settings_out_of_range_are_refused_before_training():
    for bad in (dict(pair_features="false"), dict(averaged="no"), dict(stop_ratio=0.5), dict(stop_ratio=-1),
                dict(learning_rate=float("nan")), dict(l2=float("nan")), dict(n_best=2.5)):
        with pytest.raises(ValueError, match=next(iter(bad))):
            chaintag.SecondOrderSAPO(features=["w[0]"], epochs=1, **bad).fit(SENTS, LABELS)
    for bad in (dict(stop_ratio=0.5), dict(learning_rate=float("nan")), dict(n_best=2.5)):  # first order too
        with pytest.raises(ValueError, match=next(iter(bad))):
            chaintag.SAPO(features=["w[0]"], epochs=1, **bad).fit(SENTS, LABELS)


def test_memory_estimate_counts_the_averaging_sums_and_pair_features(monkeypatch):
    plain = chaintag.SecondOrderSAPO(features=["w[0]"], epochs=1).fit(SENTS, LABELS)
    averaged = chaintag.SecondOrderSAPO(features=["w[0]"], epochs=1, averaged=True).fit(SENTS, LABELS)
    assert averaged.cost_.weight_bytes == 3 * plain.cost_.weight_bytes
    L = len(plain.labels_)
    assert plain.cost_.weight_bytes == 8 * (plain.feature_index_.n_weights + L ** 3)  # every weight, features too
    pairs = chaintag.SecondOrderSAPO(features=["w[0]"], epochs=1, pair_features=True).fit(SENTS, LABELS)
    assert len(pairs.pair_code_) > 0
    assert pairs.cost_.weight_bytes == plain.cost_.weight_bytes + 8 * len(pairs.pair_code_)
    # a limit between the trigram weights and all the weights: refused after extraction, before training
    monkeypatch.setenv("CHAINTAG_MEMORY_LIMIT_GB", str((pairs.cost_.memory_bytes - 8) / 2 ** 30))
    chaintag.SecondOrderSAPO(features=["w[0]"], epochs=1).fit(SENTS, LABELS)
    with pytest.raises(chaintag.errors.TrainingError, match="needs"):
        chaintag.SecondOrderSAPO(features=["w[0]"], epochs=1, pair_features=True).fit(SENTS, LABELS)
