"""First-order Viterbi decoding: a compiled kernel and a numpy reference.

Scores follow ALGORITHMS.md: ``s(x, y) = start[y_1] + sum_i E[i, y_i]
+ sum_{i>1} U[y_{i-1}, y_i] + end[y_T]``; transitions are indexed
``[prev, cur]``. Reference: Viterbi (1967); Collins (2002), s. 2.1.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit


@njit(cache=True)
def viterbi_kernel(emissions, transitions, start, end, path, delta, back):
    """Best path of one sentence, written into ``path``; returns its score.

    Parameters
    ----------
    emissions : float64 array, shape (n_tokens, n_labels)
    transitions : float64 array, shape (n_labels, n_labels), ``[prev, cur]``
    start, end : float64 arrays, shape (n_labels,)
    path : int32 array, shape (>= n_tokens,)
        Receives the label ids.
    delta : float64 work array, shape (>= n_tokens, n_labels)
        Receives the best prefix scores ``delta[i, l]`` (emission of ``i`` included).
    back : int32 array, shape (>= n_tokens, n_labels)
        Not used (kept so that the callers' work arrays stay valid arguments).

    Returns
    -------
    float
        Score of the best path.

    Notes
    -----
    ``O(T L^2)``. Ties go to the lower label index, both for back-pointers and
    for the final label. The forward pass keeps only the maxima; the
    back-pointer of each position on the best path is found again from
    ``delta`` during the backtrace (``O(T L)``), with the same sums, so the
    path and score are those of the textbook recursion with stored
    back-pointers, bit for bit.
    """
    n_tokens, n_labels = emissions.shape
    if n_tokens == 0:
        return 0.0
    for j in range(n_labels):
        delta[0, j] = start[j] + emissions[0, j]
    for i in range(1, n_tokens):
        # forward pass: maxima only (no back-pointers), prev-major over contiguous rows of
        # ``transitions``, four previous labels per sweep of the row (a maximum is exact in any order)
        row = delta[i]
        prev = delta[i - 1]
        d0 = prev[0]
        t0 = transitions[0]
        for j in range(n_labels):
            row[j] = d0 + t0[j]
        k = 1
        while k + 4 <= n_labels:
            d1 = prev[k]
            d2 = prev[k + 1]
            d3 = prev[k + 2]
            d4 = prev[k + 3]
            t1 = transitions[k]
            t2 = transitions[k + 1]
            t3 = transitions[k + 2]
            t4 = transitions[k + 3]
            for j in range(n_labels):
                row[j] = max(max(row[j], d1 + t1[j]), max(max(d2 + t2[j], d3 + t3[j]), d4 + t4[j]))
            k += 4
        while k < n_labels:
            dk = prev[k]
            tk = transitions[k]
            for j in range(n_labels):
                row[j] = max(row[j], dk + tk[j])
            k += 1
        for j in range(n_labels):
            row[j] += emissions[i, j]
    last = n_tokens - 1
    best = delta[last, 0] + end[0]
    arg = 0
    for j in range(1, n_labels):
        v = delta[last, j] + end[j]
        if v > best:
            best = v
            arg = j
    path[last] = arg
    # back-pointers of the best path only: the lowest previous label reaching the maximum
    for i in range(last, 0, -1):
        j = path[i]
        b = delta[i - 1, 0] + transitions[0, j]
        a = 0
        for k in range(1, n_labels):
            v = delta[i - 1, k] + transitions[k, j]
            if v > b:
                b = v
                a = k
        path[i - 1] = a
    return best


def viterbi(emissions, transitions, start=None, end=None):
    """Best label sequence of one sentence (compiled).

    Parameters
    ----------
    emissions : array_like, shape (n_tokens, n_labels)
        Emission scores ``E[i, l]`` (unnormalized, any real values).
    transitions : array_like, shape (n_labels, n_labels)
        Transition scores indexed ``[prev, cur]``.
    start, end : array_like, shape (n_labels,), optional
        Scores of the first and last label (zeros when omitted).

    Returns
    -------
    path : int32 array, shape (n_tokens,)
    score : float

    Examples
    --------
    >>> import numpy as np
    >>> E = np.array([[1., 0.], [0., 1.], [1., 0.]])
    >>> path, score = viterbi(E, np.zeros((2, 2)))
    >>> path.tolist(), score
    ([0, 1, 0], 3.0)
    """
    E = np.ascontiguousarray(emissions, dtype=np.float64)
    n_tokens, n_labels = E.shape
    U = np.ascontiguousarray(transitions, dtype=np.float64)
    s = np.zeros(n_labels) if start is None else np.ascontiguousarray(start, dtype=np.float64)
    e = np.zeros(n_labels) if end is None else np.ascontiguousarray(end, dtype=np.float64)
    path = np.zeros(n_tokens, dtype=np.int32)
    delta = np.empty((n_tokens, n_labels))
    back = np.zeros((n_tokens, n_labels), dtype=np.int32)
    score = viterbi_kernel(E, U, s, e, path, delta, back)
    return path, float(score)


def viterbi_reference(emissions, transitions, start=None, end=None):
    """Plain numpy Viterbi, kept as a test reference; same contract as :func:`viterbi`."""
    E = np.asarray(emissions, dtype=np.float64)
    n_tokens, n_labels = E.shape
    U = np.asarray(transitions, dtype=np.float64)
    s = np.zeros(n_labels) if start is None else np.asarray(start, dtype=np.float64)
    e = np.zeros(n_labels) if end is None else np.asarray(end, dtype=np.float64)
    if n_tokens == 0:
        return np.zeros(0, dtype=np.int32), 0.0
    delta = s + E[0]
    back = np.zeros((n_tokens, n_labels), dtype=np.int32)
    for i in range(1, n_tokens):
        cand = delta[:, None] + U  # (prev, cur)
        back[i] = np.argmax(cand, axis=0)
        delta = cand[back[i], np.arange(n_labels)] + E[i]
    final = delta + e
    path = np.zeros(n_tokens, dtype=np.int32)
    path[-1] = int(np.argmax(final))
    for i in range(n_tokens - 1, 0, -1):
        path[i - 1] = back[i, path[i]]
    return path, float(final[path[-1]])


def path_score(emissions, transitions, start, end, path) -> float:
    """Score of a given label sequence (for tests and oracles)."""
    E = np.asarray(emissions, dtype=np.float64)
    path = np.asarray(path)
    if len(path) == 0:
        return 0.0
    score = start[path[0]] + E[np.arange(len(path)), path].sum() + end[path[-1]]
    score += sum(transitions[path[i - 1], path[i]] for i in range(1, len(path)))
    return float(score)
