"""Top-n decoding: exact A* with a backward-Viterbi heuristic, and beam search.

Scores follow :mod:`chaintag.decoding.viterbi` (``start``, emissions,
transitions ``[prev, cur]``, ``end``). References: Sun et al., SAPO, s. 2
(top-n search); Soong & Huang (1991) for A* with a backward Viterbi
heuristic.

A* (exact)
    A backward Viterbi pass gives ``h[i, l]``, the best score of positions
    ``i+1 .. T`` given label ``l`` at ``i`` (end score included). It is exact,
    hence admissible and consistent, so complete paths leave the queue in
    non-increasing score order: the k-th one is the k-th best sequence.
    Expansion is lazy: a popped prefix sorts its ``L`` children once and puts
    only its best child in the queue, together with a pointer to the next
    sibling, so each pop costs ``O(L log L)`` instead of ``L`` queue pushes.
    Ties: among queue entries of equal priority the deeper prefix goes first,
    then the one queued first; siblings of equal priority come in label order.
    So equal-scored paths come out in a fixed order, and a search where every
    score ties (untrained weights) costs ``O(n T L log L)``, not ``L^T``.

Beam (approximate)
    Left to right, keeping at each position at most ``beam_width`` prefixes,
    chosen by rank within their last label first (the best prefix of every
    label, then the second best of every label, ... up to ``n`` per label),
    then by score. With ``beam_width >= L`` the best path always survives, so
    the 1-best equals Viterbi; with ``beam_width >= n L`` the top-n is exact.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# --------------------------------------------------------------------- heap


@njit(cache=True, inline="always")
def _before(fa, da, sa, fb, db, sb):
    if fa != fb:
        return fa > fb
    if da != db:
        return da > db
    return sa < sb


@njit(cache=True)
def _heap_push(hf, hd, hs, hp, hr, size, f, d, s, p, r):
    i = size
    hf[i] = f
    hd[i] = d
    hs[i] = s
    hp[i] = p
    hr[i] = r
    while i > 0:
        parent = (i - 1) // 2
        if _before(hf[i], hd[i], hs[i], hf[parent], hd[parent], hs[parent]):
            hf[i], hf[parent] = hf[parent], hf[i]
            hd[i], hd[parent] = hd[parent], hd[i]
            hs[i], hs[parent] = hs[parent], hs[i]
            hp[i], hp[parent] = hp[parent], hp[i]
            hr[i], hr[parent] = hr[parent], hr[i]
            i = parent
        else:
            break
    return size + 1


@njit(cache=True)
def _heap_pop(hf, hd, hs, hp, hr, size):
    """Remove the first entry (moved to index ``size - 1``); returns the new size."""
    last = size - 1
    hf[0], hf[last] = hf[last], hf[0]
    hd[0], hd[last] = hd[last], hd[0]
    hs[0], hs[last] = hs[last], hs[0]
    hp[0], hp[last] = hp[last], hp[0]
    hr[0], hr[last] = hr[last], hr[0]
    size = last
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        best = left
        right = left + 1
        if right < size and _before(hf[right], hd[right], hs[right], hf[left], hd[left], hs[left]):
            best = right
        if _before(hf[best], hd[best], hs[best], hf[i], hd[i], hs[i]):
            hf[i], hf[best] = hf[best], hf[i]
            hd[i], hd[best] = hd[best], hd[i]
            hs[i], hs[best] = hs[best], hs[i]
            hp[i], hp[best] = hp[best], hp[i]
            hr[i], hr[best] = hr[best], hr[i]
            i = best
        else:
            break
    return size


@njit(cache=True)
def _grow_f(a, n):
    b = np.empty(n, dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _grow_2d(a, n):
    b = np.empty((n, a.shape[1]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _sort_children(vals, order):
    """Insertion sort of label indices by value, descending; ties: lower label first."""
    n = vals.shape[0]
    for j in range(n):
        order[j] = j
    for j in range(1, n):
        o = order[j]
        v = vals[o]
        k = j - 1
        while k >= 0 and vals[order[k]] < v:
            order[k + 1] = order[k]
            k -= 1
        order[k + 1] = o


# ------------------------------------------------------------------------ A*


@njit(cache=True)
def backward_heuristic(emissions, transitions, end, h):
    """``h[i, l]``: best score of positions ``i+1..T-1`` after label ``l`` at ``i`` (end included)."""
    n_tokens, n_labels = emissions.shape
    for j in range(n_labels):
        h[n_tokens - 1, j] = end[j]
    for i in range(n_tokens - 2, -1, -1):
        for j in range(n_labels):
            best = -np.inf
            for k in range(n_labels):
                v = transitions[j, k] + emissions[i + 1, k] + h[i + 1, k]
                if v > best:
                    best = v
            h[i, j] = best


@njit(cache=True)
def astar_nbest_kernel(emissions, transitions, start, end, n, stop_gap, paths, scores):
    """Exact top-n by A*; fills ``paths[:k]`` and ``scores[:k]``, returns ``k``.

    Parameters
    ----------
    emissions : float64 array, shape (n_tokens, n_labels)
    transitions : float64 array, shape (n_labels, n_labels), ``[prev, cur]``
    start, end : float64 arrays, shape (n_labels,)
    n : int
        Number of sequences wanted.
    stop_gap : float
        Stop early once a path scores at least ``stop_gap`` below the best
        (``inf``: never). That path is not returned.
    paths : int32 array, shape (>= n, >= n_tokens)
    scores : float64 array, shape (>= n,)

    Returns
    -------
    int
        Number of sequences found, ``min(n, L^T)`` unless stopped early.
    """
    n_tokens, n_labels = emissions.shape
    if n_tokens == 0 or n <= 0:
        return 0
    h = np.empty((n_tokens, n_labels))
    backward_heuristic(emissions, transitions, end, h)
    cap_nodes = n * n_tokens + 16
    node_label = np.empty(cap_nodes, dtype=np.int32)
    node_parent = np.empty(cap_nodes, dtype=np.int32)
    node_g = np.empty(cap_nodes)
    child_order = np.empty((cap_nodes, n_labels), dtype=np.int32)
    child_f = np.empty((cap_nodes, n_labels))
    root_order = np.empty(n_labels, dtype=np.int32)
    root_f = np.empty(n_labels)
    cap_heap = 2 * cap_nodes + 16
    hf = np.empty(cap_heap)
    hd = np.empty(cap_heap, dtype=np.int32)
    hs = np.empty(cap_heap, dtype=np.int64)
    hp = np.empty(cap_heap, dtype=np.int32)
    hr = np.empty(cap_heap, dtype=np.int32)
    vals = np.empty(n_labels)
    order = np.empty(n_labels, dtype=np.int32)
    for j in range(n_labels):
        vals[j] = start[j] + emissions[0, j] + h[0, j]
    _sort_children(vals, order)
    for j in range(n_labels):
        root_order[j] = order[j]
        root_f[j] = vals[order[j]]
    size = 0
    seq = 0
    size = _heap_push(hf, hd, hs, hp, hr, size, root_f[0], 0, seq, -1, 0)
    seq += 1
    n_nodes = 0
    found = 0
    best = 0.0
    while size > 0 and found < n:
        size = _heap_pop(hf, hd, hs, hp, hr, size)
        depth = hd[size]
        parent = hp[size]
        rank = hr[size]
        # the sibling after this one joins the queue
        if rank + 1 < n_labels:
            if size + 2 > hf.shape[0]:
                m = 2 * hf.shape[0]
                hf = _grow_f(hf, m)
                hd = _grow_f(hd, m)
                hs = _grow_f(hs, m)
                hp = _grow_f(hp, m)
                hr = _grow_f(hr, m)
            if parent < 0:
                f_next = root_f[rank + 1]
            else:
                f_next = child_f[parent, rank + 1]
            size = _heap_push(hf, hd, hs, hp, hr, size, f_next, depth, seq, parent, rank + 1)
            seq += 1
        # materialize the prefix this entry stands for
        if n_nodes >= node_label.shape[0]:
            m = 2 * node_label.shape[0]
            node_label = _grow_f(node_label, m)
            node_parent = _grow_f(node_parent, m)
            node_g = _grow_f(node_g, m)
            child_order = _grow_2d(child_order, m)
            child_f = _grow_2d(child_f, m)
        x = n_nodes
        n_nodes += 1
        if parent < 0:
            lab = root_order[rank]
            g = start[lab] + emissions[0, lab]
        else:
            lab = child_order[parent, rank]
            g = node_g[parent] + transitions[node_label[parent], lab] + emissions[depth, lab]
        node_label[x] = lab
        node_parent[x] = parent
        node_g[x] = g
        if depth == n_tokens - 1:
            score = g + end[lab]
            if found == 0:
                best = score
            elif best - score >= stop_gap:
                break
            scores[found] = score
            p = x
            for i in range(n_tokens - 1, -1, -1):
                paths[found, i] = node_label[p]
                p = node_parent[p]
            found += 1
            continue
        nxt = depth + 1
        for j in range(n_labels):
            vals[j] = g + transitions[lab, j] + emissions[nxt, j] + h[nxt, j]
        _sort_children(vals, order)
        for j in range(n_labels):
            child_order[x, j] = order[j]
            child_f[x, j] = vals[order[j]]
        if size + 2 > hf.shape[0]:
            m = 2 * hf.shape[0]
            hf = _grow_f(hf, m)
            hd = _grow_f(hd, m)
            hs = _grow_f(hs, m)
            hp = _grow_f(hp, m)
            hr = _grow_f(hr, m)
        size = _heap_push(hf, hd, hs, hp, hr, size, child_f[x, 0], nxt, seq, x, 0)
        seq += 1
    return found


# ---------------------------------------------------------------------- beam


@njit(cache=True)
def beam_nbest_kernel(emissions, transitions, start, end, n, beam_width, paths, scores):
    """Approximate top-n by beam search; fills ``paths[:k]``, ``scores[:k]``, returns ``k``.

    Parameters are as for :func:`astar_nbest_kernel`, plus ``beam_width``
    (prefixes kept per position, >= 1). At most ``n`` prefixes per label are
    kept at each position (no top-n path needs more).
    """
    n_tokens, n_labels = emissions.shape
    if n_tokens == 0 or n <= 0:
        return 0
    B = max(beam_width, 1)
    per_label = min(n, B)
    # back-pointers of every kept prefix, per position
    lab = np.empty((n_tokens, B), dtype=np.int32)
    back = np.empty((n_tokens, B), dtype=np.int32)
    g = np.empty(B)
    g_new = np.empty(B)
    kept = 0
    # per label: the best `per_label` candidates (score, source prefix)
    top_s = np.empty((n_labels, per_label))
    top_p = np.empty((n_labels, per_label), dtype=np.int32)
    top_n = np.zeros(n_labels, dtype=np.int32)
    rank_vals = np.empty(n_labels)
    rank_labs = np.empty(n_labels, dtype=np.int32)
    for i in range(n_tokens):
        for j in range(n_labels):
            top_n[j] = 0
        n_src = 1 if i == 0 else kept
        for p in range(n_src):
            for j in range(n_labels):
                if i == 0:
                    v = start[j] + emissions[0, j]
                else:
                    v = g[p] + transitions[lab[i - 1, p], j] + emissions[i, j]
                c = top_n[j]
                if c == per_label and v <= top_s[j, c - 1]:
                    continue
                if c < per_label:
                    top_n[j] = c + 1
                    k = c
                else:
                    k = c - 1
                while k > 0 and top_s[j, k - 1] < v:
                    top_s[j, k] = top_s[j, k - 1]
                    top_p[j, k] = top_p[j, k - 1]
                    k -= 1
                top_s[j, k] = v
                top_p[j, k] = p
        # keep by rank within label, then by score (ties: lower label)
        new_kept = 0
        for r in range(per_label):
            m = 0
            for j in range(n_labels):
                if top_n[j] > r:
                    rank_vals[m] = top_s[j, r]
                    rank_labs[m] = j
                    m += 1
            # insertion sort of this rank's labels by score, descending, stable
            for a in range(1, m):
                v = rank_vals[a]
                jl = rank_labs[a]
                b = a - 1
                while b >= 0 and rank_vals[b] < v:
                    rank_vals[b + 1] = rank_vals[b]
                    rank_labs[b + 1] = rank_labs[b]
                    b -= 1
                rank_vals[b + 1] = v
                rank_labs[b + 1] = jl
            for a in range(m):
                if new_kept >= B:
                    break
                j = rank_labs[a]
                lab[i, new_kept] = j
                back[i, new_kept] = top_p[j, r]
                g_new[new_kept] = rank_vals[a]
                new_kept += 1
            if new_kept >= B or m == 0:
                break
        for k in range(new_kept):
            g[k] = g_new[k]
        kept = new_kept
    # finish: add end scores and pick the best n kept prefixes
    final = np.empty(kept)
    for k in range(kept):
        final[k] = g[k] + end[lab[n_tokens - 1, k]]
    order = np.argsort(-final, kind="mergesort")
    found = min(n, kept)
    for r in range(found):
        k = order[r]
        scores[r] = final[k]
        p = k
        for i in range(n_tokens - 1, -1, -1):
            paths[r, i] = lab[i, p]
            p = back[i, p]
    return found


# -------------------------------------------------------------------- public


def nbest(emissions, transitions, start=None, end=None, n=5, method="astar", beam_width=50):
    """The ``n`` best label sequences of one sentence, best first.

    Parameters
    ----------
    emissions : array_like, shape (n_tokens, n_labels)
        Emission scores (unnormalized).
    transitions : array_like, shape (n_labels, n_labels)
        Transition scores indexed ``[prev, cur]``.
    start, end : array_like, shape (n_labels,), optional
        Scores of the first and the last label (zeros when omitted).
    n : int, default 5
    method : {"astar", "beam"}
        Exact A* search, or beam search of width ``beam_width``.
    beam_width : int, default 50

    Returns
    -------
    list of (float, int32 array of shape (n_tokens,))
        Distinct paths with their scores, in non-increasing score order;
        ``min(n, n_labels ** n_tokens)`` of them for A*. Equal scores come
        in a fixed order (see the module notes).

    Raises
    ------
    ValueError
        For an unknown ``method`` or ``n < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> E = np.array([[2., 0.], [0., 1.]])
    >>> [(s, p.tolist()) for s, p in nbest(E, np.zeros((2, 2)), n=3)]
    [(3.0, [0, 1]), (2.0, [0, 0]), (1.0, [1, 1])]
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    E = np.ascontiguousarray(emissions, dtype=np.float64)
    n_tokens, n_labels = E.shape
    U = np.ascontiguousarray(transitions, dtype=np.float64)
    s = np.zeros(n_labels) if start is None else np.ascontiguousarray(start, dtype=np.float64)
    e = np.zeros(n_labels) if end is None else np.ascontiguousarray(end, dtype=np.float64)
    if n_tokens == 0:
        return [(0.0, np.zeros(0, dtype=np.int32))]
    paths = np.zeros((n, n_tokens), dtype=np.int32)
    scores = np.zeros(n)
    if method == "astar":
        k = astar_nbest_kernel(E, U, s, e, n, np.inf, paths, scores)
    elif method == "beam":
        k = beam_nbest_kernel(E, U, s, e, n, int(beam_width), paths, scores)
    else:
        raise ValueError(f"unknown search method {method!r}; expected 'astar' or 'beam'")
    return [(float(scores[i]), paths[i].copy()) for i in range(k)]
