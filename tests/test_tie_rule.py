"""One tie rule for every decoder, checked against brute force.

Integer scores make many paths tie exactly. The rule (Viterbi's): among the
best-scoring sequences, the one with the lowest last label, then the lowest
label before it, and so on.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaintag.decoding.beam import beam_nbest_kernel
from chaintag.decoding.nbest import astar_nbest
from chaintag.decoding.viterbi import path_score, viterbi, viterbi_reference
from chaintag.learners.inference import viterbi_first


def _brute(E, U, s, e):
    """All paths sorted best first; the first is the one the tie rule picks."""
    T, L = E.shape
    paths = [np.array(p) for p in itertools.product(range(L), repeat=T)]
    scored = [(path_score(E, U, s, e, p), p) for p in paths]
    # best score first, then by the reversed path (last label first), lowest first
    scored.sort(key=lambda sp: (-sp[0], tuple(sp[1][::-1])))
    return scored


@st.composite
def _problem(draw):
    T = draw(st.integers(1, 4))
    L = draw(st.integers(1, 3))
    ints = st.integers(-1, 1)
    E = np.array(draw(st.lists(ints, min_size=T * L, max_size=T * L)), dtype=float).reshape(T, L)
    U = np.array(draw(st.lists(ints, min_size=L * L, max_size=L * L)), dtype=float).reshape(L, L)
    s = np.array(draw(st.lists(ints, min_size=L, max_size=L)), dtype=float)
    e = np.array(draw(st.lists(ints, min_size=L, max_size=L)), dtype=float)
    return E, U, s, e


@settings(max_examples=400, deadline=None)
@given(_problem())
def test_viterbi_and_beam_follow_the_rule(problem):
    E, U, s, e = problem
    T, L = E.shape
    ranked = _brute(E, U, s, e)
    want_score, want = ranked[0]
    for decode in (viterbi, viterbi_reference):
        path, score = decode(E, U, s, e)
        assert score == want_score and path.tolist() == want.tolist()
    # beam with width >= L: its first path is Viterbi's, ties included; width >= n L: exact top-n scores
    n = 3
    paths = np.zeros((n, T), dtype=np.int32)
    scores = np.zeros(n)
    k = beam_nbest_kernel(E, U, s, e, n, n * L, paths, scores)
    assert paths[0].tolist() == want.tolist()
    assert scores[:k].tolist() == [sc for sc, _ in ranked[:k]]
    k1 = beam_nbest_kernel(E, U, s, e, 1, L, paths, scores)
    assert k1 == 1 and paths[0].tolist() == want.tolist()


@settings(max_examples=400, deadline=None)
@given(_problem(), st.integers(1, 4))
def test_top_k_starts_with_the_rule_s_path(problem, k):
    E, U, s, e = problem
    T, L = E.shape
    ranked = _brute(E, U, s, e)
    a_paths, a_scores = astar_nbest(E, U, s, e, k)
    found = range(len(a_scores))
    paths = np.zeros((k, T), dtype=np.int32)
    scores = np.zeros((1, k))
    paths[:len(found)] = a_paths
    scores[0, :len(found)] = a_scores
    n_found = np.array([len(found)], dtype=np.int32)
    best, _ = viterbi(E, U, s, e)
    viterbi_first(paths, scores, n_found, best, np.array([0, T], dtype=np.int64))
    assert paths[0].tolist() == ranked[0][1].tolist()
    # still the exact top-k: the scores of the brute force, best first, and distinct paths
    assert scores[0, :len(found)].tolist() == [sc for sc, _ in ranked[:len(found)]]
    assert len({tuple(p) for p in paths[:len(found)].tolist()}) == len(found)
    for r in range(len(found)):
        assert path_score(E, U, s, e, paths[r]) == scores[0, r]


@pytest.mark.parametrize("seed", range(5))
def test_predict_nbest_confidence_and_marginals_agree_on_ties(seed):
    from chaintag import StructuredPerceptron
    sents = [["a", "b", "c"], ["b", "a"], ["c", "c", "a", "b"]]
    labels = [["X", "Y", "Z"], ["Y", "X"], ["Z", "Z", "X", "Y"]]
    model = StructuredPerceptron(features="w[0]", epochs=1, progress=False).fit(sents, labels)
    rng = np.random.default_rng(seed)
    # integer weights: many exact ties; unseen words score only transitions
    model.weights_ = rng.integers(-1, 2, size=model.weights_.shape).astype(float)
    test = [["a", "zz", "zz"], ["zz", "zz", "zz", "zz"], ["b"], ["c", "a", "zz"]] * 2
    tagged = model.predict(test)
    assert [c[0][0] for c in model.predict_nbest(test, 1)] == tagged
    assert [c[0][0] for c in model.predict_nbest(test, 4)] == tagged
    assert model.predict_confidence(test, 3)[0] == tagged
    # the --marginals column is written beside predict()'s labels: check they are a best path
    for sent, labs, cands in zip(test, tagged, model.predict_nbest(test, 2)):
        assert cands[0][1] >= max(sc for _, sc, _ in cands)
