"""Forward-backward for linear-chain CRFs: log Z, token and transition marginals.

The kernel works in probability space with per-position scaling (the scaled
forward-backward of Rabiner 1989), after shifting every score block by its
maximum, so it needs ``O(T L)`` exponentials instead of ``O(T L^2)``: with
``a_i`` the forward vectors normalized to sum 1 and ``c_i`` their scales,
``log Z = sum_i log c_i + log sum_l a_{T-1}[l] exp(end[l]) + shifts``. The
inner loops are plain multiply-adds over contiguous rows.

Scores follow :mod:`chaintag.decoding.viterbi`: ``start``, emissions
``E[i, l]``, transitions ``[prev, cur]``, ``end``. References: Lafferty et
al. (2001); Rabiner (1989), s. V.A (scaling).
"""

from __future__ import annotations

import numpy as np
from .._jit import njit


ROW_SUM_TOLERANCE = 1e-6
"""A row of marginals of the scaled pass may differ from 1 by this much; beyond it (an underflow), the
sentence is computed again in log space."""


@njit(cache=True)
def forward_backward_kernel(emissions, transitions, start, end, pe, pt, alpha, beta, scale, marginals,
                            pair_sum):
    """Marginals of one sentence; returns ``log Z``.

    Parameters
    ----------
    emissions : float64 array, shape (n_tokens, n_labels)
    transitions : float64 array, shape (n_labels, n_labels), ``[prev, cur]``
    start, end : float64 arrays, shape (n_labels,)
    pe, alpha, beta, marginals : float64 work/output arrays, shape (>= n_tokens, n_labels)
        ``marginals[i, l]`` receives ``P(y_i = l | x)``.
    pt : float64 work array, shape (n_labels, n_labels)
    scale : float64 work array, shape (>= n_tokens,)
    pair_sum : float64 array, shape (n_labels, n_labels)
        Receives ``sum_i P(y_{i-1} = l', y_i = l | x)`` (overwritten).

    Returns
    -------
    float
        ``log Z(x)``.

    Notes
    -----
    The scaled pass is exact while the exponentials of the shifted scores do not underflow. Scores
    that span more than about 700 nats (real-valued attributes of large values, weights grown
    large) can make a forward vector, ``Z`` or a backward vector vanish: then the sentence is
    computed again in log space (:func:`log_forward_backward`, ``O(T L^2)`` exponentials), which
    gives the same quantities. So the result of every other sentence is unchanged bit for bit.
    """
    ok, log_z = _scaled_forward_backward(emissions, transitions, start, end, pe, pt, alpha, beta, scale,
                                         marginals, pair_sum)
    if ok:
        return log_z
    return log_forward_backward(emissions, transitions, start, end, alpha, beta, marginals, pair_sum)


@njit(cache=True)
def _scaled_forward_backward(emissions, transitions, start, end, pe, pt, alpha, beta, scale, marginals,
                             pair_sum):
    n_tokens, n_labels = emissions.shape
    for a in range(n_labels):
        for b in range(n_labels):
            pair_sum[a, b] = 0.0
    if n_tokens == 0:
        return True, 0.0
    shift = 0.0
    for i in range(n_tokens):
        m = emissions[i, 0]
        for j in range(1, n_labels):
            if emissions[i, j] > m:
                m = emissions[i, j]
        shift += m
        for j in range(n_labels):
            pe[i, j] = np.exp(emissions[i, j] - m)
    mt = transitions[0, 0]
    for a in range(n_labels):
        for b in range(n_labels):
            if transitions[a, b] > mt:
                mt = transitions[a, b]
    for a in range(n_labels):
        for b in range(n_labels):
            pt[a, b] = np.exp(transitions[a, b] - mt)
    shift += (n_tokens - 1) * mt
    ms = start[0]
    me = end[0]
    for j in range(1, n_labels):
        if start[j] > ms:
            ms = start[j]
        if end[j] > me:
            me = end[j]
    shift += ms + me
    # forward, normalized per position
    c = 0.0
    for j in range(n_labels):
        alpha[0, j] = np.exp(start[j] - ms) * pe[0, j]
        c += alpha[0, j]
    if not (c > 0.0 and c < np.inf):
        return False, 0.0
    scale[0] = c
    for j in range(n_labels):
        alpha[0, j] /= c
    for i in range(1, n_tokens):
        for j in range(n_labels):
            alpha[i, j] = 0.0
        for a in range(n_labels):
            aa = alpha[i - 1, a]
            for j in range(n_labels):
                alpha[i, j] += aa * pt[a, j]
        c = 0.0
        for j in range(n_labels):
            alpha[i, j] *= pe[i, j]
            c += alpha[i, j]
        if not (c > 0.0 and c < np.inf):
            return False, 0.0
        scale[i] = c
        for j in range(n_labels):
            alpha[i, j] /= c
    last = n_tokens - 1
    z = 0.0
    for j in range(n_labels):
        beta[last, j] = np.exp(end[j] - me)
        z += alpha[last, j] * beta[last, j]
    if not (z > 0.0 and z < np.inf):
        return False, 0.0
    log_z = np.log(z) + shift
    for i in range(n_tokens):
        log_z += np.log(scale[i])
    if not np.isfinite(log_z):  # a shift of -inf (every transition forbidden): NaN
        return False, 0.0
    # backward with the same scales
    for i in range(last - 1, -1, -1):
        inv = 1.0 / scale[i + 1]
        for j in range(n_labels):
            pe[i + 1, j] *= beta[i + 1, j]  # pe[i+1] now holds pe * beta (used again below)
        for a in range(n_labels):
            acc = 0.0
            for j in range(n_labels):
                acc += pt[a, j] * pe[i + 1, j]
            beta[i, a] = acc * inv
    inv_z = 1.0 / z
    for i in range(n_tokens):
        total = 0.0
        for j in range(n_labels):
            marginals[i, j] = alpha[i, j] * beta[i, j] * inv_z
            total += marginals[i, j]
        if not abs(total - 1.0) <= ROW_SUM_TOLERANCE:  # a backward vector vanished (or NaN)
            return False, 0.0
    # transition marginals summed over positions: a_{i-1}[l'] pt[l', l] pe[i, l] beta[i, l] / (c_i z)
    for i in range(1, n_tokens):
        coef = inv_z / scale[i]
        for a in range(n_labels):
            aa = alpha[i - 1, a] * coef
            for j in range(n_labels):
                pair_sum[a, j] += aa * pt[a, j] * pe[i, j]
    return True, log_z


@njit(cache=True, inline="always")
def _log_add(x, y):
    """``log(exp(x) + exp(y))`` (``-inf`` terms allowed)."""
    if x == -np.inf:
        return y
    if y == -np.inf:
        return x
    if x > y:
        return x + np.log1p(np.exp(y - x))
    return y + np.log1p(np.exp(x - y))


@njit(cache=True)
def log_forward_backward(emissions, transitions, start, end, la, lb, marginals, pair_sum):
    """:func:`forward_backward_kernel` in log space, for the sentences whose scores underflow its scaled pass.

    Parameters
    ----------
    emissions, transitions, start, end, marginals, pair_sum :
        As :func:`forward_backward_kernel`.
    la, lb : float64 work arrays, shape (>= n_tokens, n_labels)
        Receive the log forward and log backward scores.

    Returns
    -------
    float
        ``log Z(x)`` (``-inf`` when no label sequence has a finite score; the marginals are then 0).
    """
    n_tokens, n_labels = emissions.shape
    for a in range(n_labels):
        for b in range(n_labels):
            pair_sum[a, b] = 0.0
    if n_tokens == 0:
        return 0.0
    for j in range(n_labels):
        la[0, j] = start[j] + emissions[0, j]
    for i in range(1, n_tokens):
        for j in range(n_labels):
            acc = -np.inf
            for a in range(n_labels):
                acc = _log_add(acc, la[i - 1, a] + transitions[a, j])
            la[i, j] = acc + emissions[i, j]
    last = n_tokens - 1
    log_z = -np.inf
    for j in range(n_labels):
        lb[last, j] = end[j]
        log_z = _log_add(log_z, la[last, j] + end[j])
    for i in range(last - 1, -1, -1):
        for a in range(n_labels):
            acc = -np.inf
            for j in range(n_labels):
                acc = _log_add(acc, transitions[a, j] + emissions[i + 1, j] + lb[i + 1, j])
            lb[i, a] = acc
    finite = log_z > -np.inf
    for i in range(n_tokens):
        for j in range(n_labels):
            marginals[i, j] = np.exp(la[i, j] + lb[i, j] - log_z) if finite else 0.0
    if finite:
        for i in range(1, n_tokens):
            for a in range(n_labels):
                for j in range(n_labels):
                    pair_sum[a, j] += np.exp(la[i - 1, a] + transitions[a, j] + emissions[i, j] + lb[i, j] - log_z)
    return log_z


def forward_backward(emissions, transitions, start=None, end=None):
    """``log Z`` and token marginals of one sentence (compiled).

    Parameters
    ----------
    emissions : array_like, shape (n_tokens, n_labels)
    transitions : array_like, shape (n_labels, n_labels), ``[prev, cur]``
    start, end : array_like, shape (n_labels,), optional

    Returns
    -------
    log_z : float
    marginals : float64 array, shape (n_tokens, n_labels)
        ``P(y_i = l | x)``; each row sums to 1.
    pair_marginals : float64 array, shape (n_labels, n_labels)
        ``sum_i P(y_{i-1} = l', y_i = l | x)`` over positions ``i >= 1``.

    Examples
    --------
    >>> import numpy as np
    >>> log_z, marg, _ = forward_backward(np.zeros((2, 2)), np.zeros((2, 2)))
    >>> round(float(np.exp(log_z)), 6), marg.tolist()
    (4.0, [[0.5, 0.5], [0.5, 0.5]])
    """
    E = np.ascontiguousarray(emissions, dtype=np.float64)
    T, L = E.shape
    U = np.ascontiguousarray(transitions, dtype=np.float64)
    s = np.zeros(L) if start is None else np.ascontiguousarray(start, dtype=np.float64)
    e = np.zeros(L) if end is None else np.ascontiguousarray(end, dtype=np.float64)
    n = max(T, 1)
    pe, alpha, beta, marg = (np.zeros((n, L)) for _ in range(4))
    pair = np.zeros((L, L))
    log_z = forward_backward_kernel(E, U, s, e, pe, np.zeros((L, L)), alpha, beta, np.zeros(n), marg, pair)
    return float(log_z), marg[:T].copy(), pair


def log_partition_reference(emissions, transitions, start=None, end=None):
    """Plain numpy log-space forward algorithm, kept as a test reference."""
    E = np.asarray(emissions, dtype=np.float64)
    T, L = E.shape
    U = np.asarray(transitions, dtype=np.float64)
    s = np.zeros(L) if start is None else np.asarray(start, dtype=np.float64)
    e = np.zeros(L) if end is None else np.asarray(end, dtype=np.float64)
    if T == 0:
        return 0.0
    alpha = s + E[0]
    for i in range(1, T):
        x = alpha[:, None] + U
        mx = x.max(axis=0)
        alpha = mx + np.log(np.exp(x - mx).sum(axis=0)) + E[i]
    x = alpha + e
    mx = x.max()
    return float(mx + np.log(np.exp(x - mx).sum()))
