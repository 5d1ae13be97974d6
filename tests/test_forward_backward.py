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


@pytest.mark.parametrize("spread", [1.0, 30.0])
def test_log_z_and_marginals_equal_brute_force(spread):
    rng = np.random.default_rng(int(spread))
    for _ in range(150):
        T, L = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        E, U = rng.normal(size=(T, L)) * spread, rng.normal(size=(L, L)) * spread
        s, e = rng.normal(size=L) * spread, rng.normal(size=L) * spread
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
