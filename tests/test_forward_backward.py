"""Forward-backward against brute-force sums over all label sequences."""

import itertools

import numpy as np
import pytest

from chaintag.decoding.forward_backward import forward_backward, log_partition_reference
from chaintag.decoding.viterbi import path_score


def brute(E, U, s, e):
    T, L = E.shape
    paths = list(itertools.product(range(L), repeat=T))
    scores = np.array([path_score(E, U, s, e, p) for p in paths])
    m = scores.max()
    w = np.exp(scores - m)
    Z = w.sum()
    marg = np.zeros((T, L))
    pair = np.zeros((L, L))
    for p, wi in zip(paths, w):
        for i, lab in enumerate(p):
            marg[i, lab] += wi / Z
            if i:
                pair[p[i - 1], lab] += wi / Z
    return m + np.log(Z), marg, pair


def random_chain(rng, spread, min_labels):
    """A random sentence of 1-5 tokens and ``min_labels``-4 labels: (T, L, E, U, start, end), scores of scale ``spread``."""
    T, L = int(rng.integers(1, 6)), int(rng.integers(min_labels, 5))
    E, U = rng.normal(size=(T, L)) * spread, rng.normal(size=(L, L)) * spread
    return T, L, E, U, rng.normal(size=L) * spread, rng.normal(size=L) * spread


@pytest.mark.parametrize("spread", [1.0, 30.0])
def test_log_z_and_marginals_equal_brute_force(spread):
    rng = np.random.default_rng(int(spread))
    for _ in range(150):
        T, L, E, U, s, e = random_chain(rng, spread, min_labels=1)
        log_z, marg, pair = forward_backward(E, U, s, e)
        ref_z, ref_marg, ref_pair = brute(E, U, s, e)
        assert log_z == pytest.approx(ref_z, rel=1e-10, abs=1e-9)
        assert log_partition_reference(E, U, s, e) == pytest.approx(ref_z, rel=1e-10, abs=1e-9)
        np.testing.assert_allclose(marg, ref_marg, atol=1e-9)
        np.testing.assert_allclose(pair, ref_pair, atol=1e-9)
        np.testing.assert_allclose(marg.sum(axis=1), 1.0, atol=1e-12)
        # pair marginals sum to one per position
        assert pair.sum() == pytest.approx(T - 1)


def test_long_sentence_does_not_overflow():
    rng = np.random.default_rng(0)
    E = rng.normal(size=(5000, 5)) * 50
    log_z, marg, _ = forward_backward(E, rng.normal(size=(5, 5)) * 50)
    assert np.isfinite(log_z) and np.all(np.isfinite(marg))
    np.testing.assert_allclose(marg.sum(axis=1), 1.0, atol=1e-9)


@pytest.mark.parametrize("spread", [1e3, 1e5])
def test_scores_past_the_exponents_range_are_computed_in_log_space(spread):
    """Scores spanning more than ~700 nats underflow the scaled pass (a forward vector, Z or a backward
    vector vanishes): the sentence is computed again in log space, and agrees with brute force."""
    from chaintag.decoding import forward_backward as fb
    rng = np.random.default_rng(int(np.log10(spread)))
    fell_back = 0
    for _ in range(120):
        T, L, E, U, s, e = random_chain(rng, spread, min_labels=2)
        log_z, marg, pair = forward_backward(E, U, s, e)
        ref_z, ref_marg, ref_pair = brute(E, U, s, e)
        assert np.isfinite(log_z) and log_z == pytest.approx(ref_z, rel=1e-12)
        np.testing.assert_allclose(marg, ref_marg, atol=1e-9)
        np.testing.assert_allclose(pair, ref_pair, atol=1e-9)
        n = max(T, 1)
        ok, _ = fb._scaled_forward_backward(E, U, s, e, np.zeros((n, L)), np.zeros((L, L)), np.zeros((n, L)),
                                            np.zeros((n, L)), np.zeros(n), np.zeros((n, L)), np.zeros((L, L)))
        fell_back += not ok
    assert fell_back > 10  # the case is exercised


def test_the_log_space_pass_equals_brute_force_and_the_scaled_pass_where_both_hold():
    from chaintag.decoding.forward_backward import log_forward_backward
    rng = np.random.default_rng(4)
    for _ in range(100):
        T, L = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        E, U = rng.normal(size=(T, L)) * 3, rng.normal(size=(L, L)) * 3
        s, e = rng.normal(size=L), rng.normal(size=L)
        if rng.random() < 0.3:  # forbidden transitions, as constrained decoding gives
            U[rng.integers(L), rng.integers(L)] = -np.inf
        n = max(T, 1)
        marg, pair = np.zeros((n, L)), np.zeros((L, L))
        log_z = log_forward_backward(E, U, s, e, np.zeros((n, L)), np.zeros((n, L)), marg, pair)
        scaled_z, scaled_marg, scaled_pair = forward_backward(E, U, s, e)
        if T > 1 and L == 1 and U[0, 0] == -np.inf:  # no sequence has a finite score
            assert log_z == scaled_z == -np.inf and not marg.any() and not scaled_marg.any()
            continue
        ref_z, ref_marg, ref_pair = brute(E, U, s, e)
        assert log_z == pytest.approx(ref_z, rel=1e-10, abs=1e-9)
        assert scaled_z == pytest.approx(ref_z, rel=1e-10, abs=1e-9)
        np.testing.assert_allclose(marg[:T], ref_marg, atol=1e-9)
        np.testing.assert_allclose(pair, ref_pair, atol=1e-9)
        np.testing.assert_allclose(scaled_marg, marg[:T], atol=1e-9)


def test_no_sequence_with_a_finite_score_gives_zero_marginals():
    from chaintag.decoding.forward_backward import log_forward_backward
    E = np.zeros((2, 2))
    U = np.full((2, 2), -np.inf)
    log_z, marg, pair = forward_backward(E, U)
    assert log_z == -np.inf and not marg.any() and not pair.any()
    m2, p2 = np.zeros((2, 2)), np.zeros((2, 2))
    assert log_forward_backward(E, U, np.zeros(2), np.zeros(2), np.zeros((2, 2)), np.zeros((2, 2)), m2, p2) == -np.inf
