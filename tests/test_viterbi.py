"""Viterbi against brute-force enumeration of all label sequences."""

import itertools

import numpy as np
import pytest

from chaintag.decoding.viterbi import path_score, viterbi, viterbi_reference


def brute_force(E, U, start, end):
    n_tokens, n_labels = E.shape
    best = -np.inf
    for path in itertools.product(range(n_labels), repeat=n_tokens):
        best = max(best, path_score(E, U, start, end, path))
    return best


def random_problem(rng, n_tokens, n_labels, integer):
    if integer:  # small integers create many ties
        draw = lambda *shape: rng.integers(-2, 3, size=shape).astype(float)  # noqa: E731
    else:
        draw = lambda *shape: rng.normal(size=shape)  # noqa: E731
    return draw(n_tokens, n_labels), draw(n_labels, n_labels), draw(n_labels), draw(n_labels)


@pytest.mark.parametrize("integer", [False, True])
def test_viterbi_matches_brute_force(integer):
    rng = np.random.default_rng(1 + integer)
    for _ in range(150):
        T = int(rng.integers(1, 6))
        L = int(rng.integers(1, 5))
        E, U, s, e = random_problem(rng, T, L, integer)
        best = brute_force(E, U, s, e)
        for decode in (viterbi, viterbi_reference):
            path, score = decode(E, U, s, e)
            assert len(path) == T
            assert score == pytest.approx(best, abs=1e-9)
            # the returned path really has the returned score
            assert path_score(E, U, s, e, path) == pytest.approx(score, abs=1e-9)


def test_compiled_and_reference_break_ties_alike():
    rng = np.random.default_rng(7)
    for _ in range(200):
        E, U, s, e = random_problem(rng, int(rng.integers(1, 7)), int(rng.integers(1, 5)), True)
        p1, s1 = viterbi(E, U, s, e)
        p2, s2 = viterbi_reference(E, U, s, e)
        assert s1 == s2
        assert p1.tolist() == p2.tolist()


def test_all_ties_choose_lowest_labels():
    path, score = viterbi(np.zeros((4, 3)), np.zeros((3, 3)))
    assert path.tolist() == [0, 0, 0, 0]
    assert score == 0.0


def test_transitions_are_indexed_prev_cur():
    # emissions favour nothing; only the transition 1 -> 0 pays
    E = np.zeros((2, 2))
    U = np.array([[0.0, 0.0], [5.0, 0.0]])
    path, score = viterbi(E, U)
    assert path.tolist() == [1, 0]
    assert score == 5.0


def test_start_and_end_scores_count():
    E = np.zeros((1, 3))
    path, score = viterbi(E, np.zeros((3, 3)), start=[0, 1, 0], end=[0, 0, 2])
    assert path.tolist() == [2]
    assert score == 2.0


def test_empty_sentence():
    path, score = viterbi(np.zeros((0, 3)), np.zeros((3, 3)))
    assert path.tolist() == [] and score == 0.0


@pytest.mark.parametrize("integer", [False, True])
def test_compiled_equals_stored_back_pointers_on_many_labels(integer):
    """Label sets past the kernel's four-label sweeps (5 to 23 labels, every remainder), ties included:
    path and score bit for bit those of the reference, which stores every back-pointer."""
    rng = np.random.default_rng(11 + integer)
    for _ in range(300):
        E, U, s, e = random_problem(rng, int(rng.integers(1, 12)), int(rng.integers(5, 24)), integer)
        if integer:  # a few forbidden transitions, as constrained decoding sets them
            U[rng.random(U.shape) < 0.1] = -np.inf
        p1, s1 = viterbi(E, U, s, e)
        p2, s2 = viterbi_reference(E, U, s, e)
        assert s1 == s2
        assert p1.tolist() == p2.tolist()
