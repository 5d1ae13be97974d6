"""Top-n decoding against brute-force enumeration."""

import itertools

import numpy as np
import pytest

from chaintag.decoding.nbest import nbest
from chaintag.decoding.viterbi import path_score, viterbi


def enumerate_paths(E, U, s, e):
    T, L = E.shape
    scored = [(path_score(E, U, s, e, p), p) for p in itertools.product(range(L), repeat=T)]
    scored.sort(key=lambda x: -x[0])  # stable: lexicographic among equal scores
    return scored


def problem(rng, integer):
    T, L = int(rng.integers(1, 6)), int(rng.integers(1, 5))
    if integer:
        draw = lambda *shape: rng.integers(-2, 3, size=shape).astype(float)  # noqa: E731
    else:
        draw = lambda *shape: rng.normal(size=shape)  # noqa: E731
    return draw(T, L), draw(L, L), draw(L), draw(L)


@pytest.mark.parametrize("integer", [False, True])
def test_astar_equals_brute_force(integer):
    rng = np.random.default_rng(11 + integer)
    for _ in range(200):
        E, U, s, e = problem(rng, integer)
        truth = enumerate_paths(E, U, s, e)
        n = int(rng.integers(1, len(truth) + 3))
        got = nbest(E, U, s, e, n=n)
        assert len(got) == min(n, len(truth))
        # same scores in the same (non-increasing) order
        np.testing.assert_allclose([g[0] for g in got], [t[0] for t in truth[:len(got)]], atol=1e-9)
        # distinct paths, each really scoring what is reported
        assert len({tuple(p) for _, p in got}) == len(got)
        for score, p in got:
            assert path_score(E, U, s, e, p) == pytest.approx(score, abs=1e-9)
        if not integer:  # no ties: the very same paths in the same order
            assert [tuple(p) for _, p in got] == [t[1] for t in truth[:len(got)]]
        else:  # ties: every tie group wholly inside the output holds the same paths
            cut = truth[len(got) - 1][0]
            inside = {t[1] for t in truth if t[0] > cut + 1e-9}
            assert inside <= {tuple(p) for _, p in got}


def test_n_one_is_viterbi_and_n_large_returns_all_paths():
    rng = np.random.default_rng(3)
    for _ in range(100):
        E, U, s, e = problem(rng, False)
        (score, path), = nbest(E, U, s, e, n=1)
        vpath, vscore = viterbi(E, U, s, e)
        assert score == pytest.approx(vscore) and path.tolist() == vpath.tolist()
        T, L = E.shape
        everything = nbest(E, U, s, e, n=L ** T + 5)
        assert len(everything) == L ** T
        assert len({tuple(p) for _, p in everything}) == L ** T


def test_all_ties_is_cheap_and_distinct():
    # untrained weights: every path ties; the search must not enumerate L^T prefixes
    got = nbest(np.zeros((60, 20)), np.zeros((20, 20)), n=5)
    assert len(got) == 5 and len({tuple(p) for _, p in got}) == 5
    assert all(s == 0.0 for s, _ in got)


@pytest.mark.parametrize("integer", [False, True])
def test_beam(integer):
    rng = np.random.default_rng(5 + integer)
    for _ in range(200):
        E, U, s, e = problem(rng, integer)
        T, L = E.shape
        truth = enumerate_paths(E, U, s, e)
        _, vscore = viterbi(E, U, s, e)
        for width in (1, 2, L, 3 * L):
            for n in (1, 3):
                got = nbest(E, U, s, e, n=n, method="beam", beam_width=width)
                assert got[0][0] <= vscore + 1e-9  # never above Viterbi
                scores = [g[0] for g in got]
                assert scores == sorted(scores, reverse=True)
                assert len({tuple(p) for _, p in got}) == len(got)
                for score, p in got:
                    assert path_score(E, U, s, e, p) == pytest.approx(score, abs=1e-9)
                if width >= L:
                    assert got[0][0] == pytest.approx(vscore)
                if width >= n * L:  # exact top-n
                    np.testing.assert_allclose(scores, [t[0] for t in truth[:len(got)]], atol=1e-9)
                    assert len(got) == min(n, L ** T)


def test_bad_arguments():
    with pytest.raises(ValueError):
        nbest(np.zeros((2, 2)), np.zeros((2, 2)), n=0)
    with pytest.raises(ValueError):
        nbest(np.zeros((2, 2)), np.zeros((2, 2)), method="greedy")


def test_long_sentence_grows_workspace():
    rng = np.random.default_rng(0)
    E = rng.normal(size=(500, 6))
    got = nbest(E, rng.normal(size=(6, 6)), n=50)
    assert len(got) == 50
    scores = [g[0] for g in got]
    assert scores == sorted(scores, reverse=True)
