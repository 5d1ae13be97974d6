"""Second-order (trigram) Viterbi decoding: a compiled kernel and a numpy reference.

The model (Collins 2002, s. 2.1; ALGORITHMS.md "Second order adds
``e(y_{i-2}, y_{i-1}, y_i)``") scores a label sequence ``y_0 .. y_{T-1}``
(positions from 0 here) as::

    s(x, y) = start[y_0] + sum_i E[i, y_i]
              + sum_{i >= 1} U[y_{i-1}, y_i]
              + sum_{i >= 2} V[y_{i-2}, y_{i-1}, y_i]
              + end[y_{T-1}]

``U`` is indexed ``[prev, cur]`` and ``V`` ``[prev2, prev, cur]``. The
sentence boundary is modelled by the first-order weights only: the pair
(BOS, ``y_0``) is ``start[y_0]``, (``y_{T-1}``, EOS) is ``end[y_{T-1}]``, and
there is no trigram weight reaching over a boundary (no (BOS, ``y_0``,
``y_1``) or (BOS, BOS, ``y_0``) term): ``V`` applies from the third token on.
With ``V = 0`` the model is the first-order one of :mod:`.viterbi`.

The search runs over label pairs ``(y_{i-1}, y_i)``. An optional *allowed
mask* (a tag dictionary) restricts each token to a subset of the labels; the
search then visits only allowed labels, in ``O(sum_i K_{i-2} K_{i-1} K_i)``
time, ``O(T K^3)`` with ``K`` allowed labels per token (``O(T L^3)``
unrestricted).

References
----------
M. Collins. Discriminative training methods for hidden Markov models:
theory and experiments with perceptron algorithms. EMNLP 2002.
A. Ratnaparkhi. A maximum entropy model for part-of-speech tagging. EMNLP 1996
(the tag dictionary).
"""

from __future__ import annotations

import numpy as np
from .._jit import njit


@njit(cache=True)
def viterbi2_kernel(emissions, transitions, transitions2, start, end, cand, n_cand, path, delta, back):
    """Best second-order path of one sentence, written into ``path``; returns its score.

    Parameters
    ----------
    emissions : float64 array, shape (n_tokens, n_labels)
    transitions : float64 array, shape (n_labels, n_labels), ``[prev, cur]``
    transitions2 : float64 array, shape (n_labels, n_labels, n_labels), ``[prev2, prev, cur]``
    start, end : float64 arrays, shape (n_labels,)
    cand : int32 array, shape (>= n_tokens, n_labels)
        ``cand[i, :n_cand[i]]`` are the labels allowed at token ``i``, in
        increasing order (``0 .. n_labels-1`` for an unrestricted token).
    n_cand : int32 array, shape (>= n_tokens,)
        Number of allowed labels of each token, each at least 1.
    path : int32 array, shape (>= n_tokens,)
        Receives the label ids.
    delta : float64 work array, shape (>= n_tokens, n_labels, n_labels)
        ``delta[i, a, b]``: best score of a prefix ending with labels
        ``cand[i-1, a], cand[i, b]`` (indices into the allowed lists).
    back : int32 work array, shape (>= n_tokens, n_labels, n_labels)
        ``back[i, a, b]``: index into ``cand[i-2]`` of the best third label.

    Returns
    -------
    float
        Score of the best path.

    Notes
    -----
    Ties go to the lower label index: among equally good paths the one
    chosen has the lowest last label, then the lowest last-but-one label, and
    so on backwards (the rule of the first-order kernel), because candidate
    lists are visited in increasing order with strict comparisons.
    """
    n_tokens = emissions.shape[0]
    n_labels = emissions.shape[1]
    if n_tokens == 0:
        return 0.0
    if n_tokens == 1:
        best = -np.inf
        arg = 0
        for b in range(n_cand[0]):
            lb = cand[0, b]
            v = start[lb] + emissions[0, lb] + end[lb]
            if b == 0 or v > best:
                best = v
                arg = lb
        path[0] = arg
        return best
    # position 1: a pair (y_0, y_1), no trigram yet
    for a in range(n_cand[0]):
        la = cand[0, a]
        d = start[la] + emissions[0, la]
        for b in range(n_cand[1]):
            lb = cand[1, b]
            delta[1, a, b] = d + transitions[la, lb] + emissions[1, lb]
    for i in range(2, n_tokens):
        kc = n_cand[i - 2]
        ka = n_cand[i - 1]
        kb = n_cand[i]
        full = kb == n_labels  # cand[i] is 0 .. L-1: contiguous rows of V
        for a in range(ka):
            la = cand[i - 1, a]
            # c = 0 initializes; strict '>' in increasing c keeps the lowest index on ties
            lc = cand[i - 2, 0]
            d = delta[i - 1, 0, a]
            if full:
                for b in range(kb):
                    delta[i, a, b] = d + transitions2[lc, la, b]
                    back[i, a, b] = 0
            else:
                for b in range(kb):
                    delta[i, a, b] = d + transitions2[lc, la, cand[i, b]]
                    back[i, a, b] = 0
            for c in range(1, kc):
                lc = cand[i - 2, c]
                d = delta[i - 1, c, a]
                if full:
                    for b in range(kb):
                        v = d + transitions2[lc, la, b]
                        if v > delta[i, a, b]:
                            delta[i, a, b] = v
                            back[i, a, b] = c
                else:
                    for b in range(kb):
                        v = d + transitions2[lc, la, cand[i, b]]
                        if v > delta[i, a, b]:
                            delta[i, a, b] = v
                            back[i, a, b] = c
            for b in range(kb):
                lb = cand[i, b]
                delta[i, a, b] += transitions[la, lb] + emissions[i, lb]
    last = n_tokens - 1
    best = -np.inf
    best_a = 0
    best_b = 0
    first = True
    # last label outermost: the lowest last label wins ties, then the lowest previous one
    for b in range(n_cand[last]):
        lb = cand[last, b]
        for a in range(n_cand[last - 1]):
            v = delta[last, a, b] + end[lb]
            if first or v > best:
                best = v
                best_a = a
                best_b = b
                first = False
    a = best_a
    b = best_b
    path[last] = cand[last, b]
    path[last - 1] = cand[last - 1, a]
    for i in range(last, 1, -1):
        c = back[i, a, b]
        path[i - 2] = cand[i - 2, c]
        b = a
        a = c
    return best


@njit(cache=True)
def mask_candidates(mask, cand, n_cand):
    """Fill ``cand``/``n_cand`` (see :func:`viterbi2_kernel`) from a boolean mask (n_tokens, n_labels)."""
    for i in range(mask.shape[0]):
        k = 0
        for j in range(mask.shape[1]):
            if mask[i, j]:
                cand[i, k] = j
                k += 1
        n_cand[i] = k


def _prepare(emissions, transitions, transitions2, start, end, mask, asarray):
    E = asarray(emissions, dtype=np.float64)
    if E.ndim != 2:
        raise ValueError(f"emissions must be 2-D (n_tokens, n_labels), got shape {E.shape}")
    n_tokens, n_labels = E.shape
    U = asarray(transitions, dtype=np.float64)
    V = asarray(transitions2, dtype=np.float64)
    if U.shape != (n_labels, n_labels):
        raise ValueError(f"transitions must have shape {(n_labels, n_labels)}, got {U.shape}")
    if V.shape != (n_labels, n_labels, n_labels):
        raise ValueError(f"transitions2 must have shape {(n_labels,) * 3}, got {V.shape}")
    s = np.zeros(n_labels) if start is None else asarray(start, dtype=np.float64)
    e = np.zeros(n_labels) if end is None else asarray(end, dtype=np.float64)
    if mask is None:
        m = np.ones((n_tokens, n_labels), dtype=np.bool_)
    else:
        m = np.ascontiguousarray(mask, dtype=np.bool_)
        if m.shape != E.shape:
            raise ValueError(f"mask must have the shape of emissions {E.shape}, got {m.shape}")
        empty = np.flatnonzero(~m.any(axis=1))
        if len(empty):
            raise ValueError(f"mask allows no label at token {int(empty[0])}")
    return E, U, V, s, e, m


def viterbi2(emissions, transitions, transitions2, start=None, end=None, mask=None):
    """Best label sequence of one sentence under a second-order model (compiled).

    Parameters
    ----------
    emissions : array_like, shape (n_tokens, n_labels)
        Emission scores ``E[i, l]`` (unnormalized, any real values).
    transitions : array_like, shape (n_labels, n_labels)
        First-order transition scores, ``[prev, cur]``.
    transitions2 : array_like, shape (n_labels, n_labels, n_labels)
        Second-order scores ``V[prev2, prev, cur]``, from the third token on.
    start, end : array_like, shape (n_labels,), optional
        Scores of the first and last label (zeros when omitted).
    mask : array_like of bool, shape (n_tokens, n_labels), optional
        Labels allowed at each token (a tag dictionary); every token must
        allow at least one. Default: all labels everywhere.

    Returns
    -------
    path : int32 array, shape (n_tokens,)
        Only allowed labels.
    score : float
        The best score among the allowed paths.

    Raises
    ------
    ValueError
        On inconsistent shapes, or a mask row with no allowed label.

    Notes
    -----
    ``O(T K^3)`` for ``K`` allowed labels per token. Ties: see
    :func:`viterbi2_kernel` (lowest label index, from the last token backwards).

    Examples
    --------
    >>> import numpy as np
    >>> E = np.zeros((3, 2)); V = np.zeros((2, 2, 2)); V[0, 0, 1] = 1.0
    >>> path, score = viterbi2(E, np.zeros((2, 2)), V)
    >>> path.tolist(), score
    ([0, 0, 1], 1.0)
    """
    E, U, V, s, e, m = _prepare(emissions, transitions, transitions2, start, end, mask,
                                np.ascontiguousarray)
    n_tokens, n_labels = E.shape
    path = np.zeros(n_tokens, dtype=np.int32)
    if n_tokens == 0:
        return path, 0.0
    cand = np.zeros((n_tokens, n_labels), dtype=np.int32)
    n_cand = np.zeros(n_tokens, dtype=np.int32)
    mask_candidates(m, cand, n_cand)
    delta = np.empty((n_tokens, n_labels, n_labels))
    back = np.zeros((n_tokens, n_labels, n_labels), dtype=np.int32)
    score = viterbi2_kernel(E, U, V, s, e, cand, n_cand, path, delta, back)
    return path, float(score)


def viterbi2_reference(emissions, transitions, transitions2, start=None, end=None, mask=None):
    """Plain numpy second-order Viterbi over all label pairs, kept as a test reference.

    Same contract and tie-breaking as :func:`viterbi2`; disallowed labels
    get ``-inf`` instead of being skipped.
    """
    E, U, V, s, e, m = _prepare(emissions, transitions, transitions2, start, end, mask, np.asarray)
    n_tokens, n_labels = E.shape
    if n_tokens == 0:
        return np.zeros(0, dtype=np.int32), 0.0
    E = np.where(m, E, -np.inf)
    path = np.zeros(n_tokens, dtype=np.int32)
    if n_tokens == 1:
        final = s + E[0] + e
        path[0] = int(np.argmax(final))
        return path, float(final[path[0]])
    # delta[a, b]: best prefix ending (y_{i-1} = a, y_i = b)
    delta = (s + E[0])[:, None] + U + E[1][None, :]
    back = np.zeros((n_tokens, n_labels, n_labels), dtype=np.int64)
    for i in range(2, n_tokens):
        cand = delta[:, :, None] + V  # (prev2, prev, cur)
        back[i] = np.argmax(cand, axis=0)  # first maximum: the lowest prev2
        best = np.take_along_axis(cand, back[i][None], axis=0)[0]
        delta = best + U + E[i][None, :]
    final = delta + e[None, :]
    # flattened in (cur, prev) order: the first maximum has the lowest last label, then prev
    k = int(np.argmax(final.T.ravel()))
    b, a = divmod(k, n_labels)
    score = float(final[a, b])
    path[-1], path[-2] = b, a
    for i in range(n_tokens - 1, 1, -1):
        c = int(back[i, a, b])
        path[i - 2] = c
        a, b = c, a
    return path, score


def path_score2(emissions, transitions, transitions2, start, end, path) -> float:
    """Score ``s(x, y)`` of a given label sequence under the second-order model (for tests and oracles)."""
    E = np.asarray(emissions, dtype=np.float64)
    path = np.asarray(path, dtype=np.int64)
    n = len(path)
    if n == 0:
        return 0.0
    score = float(start[path[0]]) + float(E[np.arange(n), path].sum()) + float(end[path[-1]])
    for i in range(1, n):
        score += float(transitions[path[i - 1], path[i]])
    for i in range(2, n):
        score += float(transitions2[path[i - 2], path[i - 1], path[i]])
    return score
