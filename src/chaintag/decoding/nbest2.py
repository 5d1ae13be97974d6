"""Second-order (trigram) top-n search over allowed label pairs: exact A* with a backward heuristic.

The model is that of :mod:`chaintag.decoding.viterbi2` (Collins 2002, s. 2.1;
ALGORITHMS.md "Second order"): start, emissions ``E[i, y_i]``, label bigrams
``U[y_{i-1}, y_i]``, label trigrams ``V[y_{i-2}, y_{i-1}, y_i]`` from the
third token on, end. A label sequence is *valid* when each pair of
neighbouring labels is allowed by a boolean matrix ``allowed[prev, cur]``
(the pairs seen in training data, :func:`pair_matrix`; every pair for the
unrestricted model). The search is the top-n search of SAPO (Sun et al., s. 2)
lifted to label pairs:

* A backward second-order Viterbi pass gives ``h[i, a, b]``, the best score of
  positions ``i+1 .. T-1`` after labels ``a, b`` at ``i-1, i`` (end score
  included), and ``h0[b]`` for the first token. Over allowed pairs it costs
  ``O(T sum_b in(b) out(b))`` (``O(T L^3)`` unrestricted), with ``in(b)`` and
  ``out(b)`` the allowed predecessors and successors of ``b``.
* A* over prefixes, with priority ``g + h`` (exact, hence admissible): complete
  paths leave the queue in non-increasing score order. Ties: the deeper prefix
  first, then the one made first. With an exact heuristic each path costs at
  most ``T`` pops, each pushing at most ``out(b)`` children.

:func:`pair_matrix` guarantees that every label has a successor and a
predecessor, so a valid sequence of every length exists.

References
----------
X. Sun et al. Towards easier and faster sequence labeling for natural language
processing: a search-based probabilistic online learning framework (SAPO), s. 2.
F. K. Soong and E.-F. Huang. A tree-trellis based fast search for finding the
N best sentence hypotheses in continuous speech recognition. ICASSP 1991.
M. Collins. Discriminative training methods for hidden Markov models. EMNLP 2002.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from .nbest import _before


def pair_matrix(gold, sent_ptr, n_labels: int, restrict: bool = True) -> np.ndarray:
    """Allowed label pairs ``[prev, cur]``: those seen in the gold sequences (or every pair).

    A label seen with no successor (only sentence-final) may be followed by any
    label, and one with no predecessor may follow any label, so that valid
    sequences of every length exist.

    Parameters
    ----------
    gold : int array, shape (n_tokens,)
        Gold label ids.
    sent_ptr : int64 array, shape (n_sentences + 1,)
    n_labels : int
    restrict : bool, default True
        False: every pair (the unrestricted second-order model).

    Returns
    -------
    bool array, shape (n_labels, n_labels)
    """
    if not restrict:
        return np.ones((n_labels, n_labels), dtype=bool)
    gold = np.asarray(gold, dtype=np.int64)
    inner = np.ones(len(gold), dtype=bool)
    inner[np.asarray(sent_ptr[1:], dtype=np.int64) - 1] = False  # no pair across sentences
    inner = inner[:-1] if len(gold) else inner
    ok = np.zeros((n_labels, n_labels), dtype=bool)
    if len(gold) > 1:
        ok[gold[:-1][inner], gold[1:][inner]] = True
    no_successor, no_predecessor = ~ok.any(axis=1), ~ok.any(axis=0)
    ok[no_successor, :] = True
    ok[:, no_predecessor] = True
    return ok


def pair_lists(allowed: np.ndarray):
    """CSR successor and predecessor lists of an allowed-pair matrix.

    Returns
    -------
    succ_ptr : int64 array, shape (n_labels + 1,)
    succ : int32 array
        ``succ[succ_ptr[b]:succ_ptr[b+1]]``: labels allowed after ``b`` (ascending).
    pred_ptr : int64 array, shape (n_labels + 1,)
    pred : int32 array
        Labels allowed before ``b`` (ascending).
    """
    allowed = np.asarray(allowed, dtype=bool)
    succ_ptr = np.zeros(allowed.shape[0] + 1, dtype=np.int64)
    np.cumsum(allowed.sum(axis=1), out=succ_ptr[1:])
    pred_ptr = np.zeros(allowed.shape[0] + 1, dtype=np.int64)
    np.cumsum(allowed.sum(axis=0), out=pred_ptr[1:])
    succ = np.nonzero(allowed)[1].astype(np.int32)
    pred = np.nonzero(allowed.T)[1].astype(np.int32)
    return succ_ptr, succ, pred_ptr, pred


@njit(cache=True)
def backward2(E, P, positional, V, end, succ_ptr, succ, pred_ptr, pred, h, h0):
    """Backward second-order Viterbi over allowed pairs.

    Parameters
    ----------
    E : float64 array, shape (n_tokens, n_labels)
    P : float64 array, shape (n_tokens, n_labels, n_labels) or (1, n_labels, n_labels)
        Label-bigram scores ``[i, prev, cur]`` of the pair ending at token ``i``: ``U`` plus the
        scores of attributes conjoined with the pair (Sha & Pereira 2003); with ``positional``
        false, ``P[0]`` serves every token.
    positional : bool
    V : float64 array, shape (n_labels, n_labels, n_labels), ``[prev2, prev, cur]``
    end : float64 array, shape (n_labels,)
    succ_ptr, succ, pred_ptr, pred : from :func:`pair_lists`
    h : float64 work array, shape (>= n_tokens, n_labels, n_labels)
        Receives ``h[i, a, b]`` for ``i >= 1`` and allowed ``(a, b)``.
    h0 : float64 array, shape (n_labels,)
        Receives the best completion score after label ``b`` at the first token.
    """
    T = E.shape[0]
    L = E.shape[1]
    last = T - 1
    if T == 1:
        for b in range(L):
            h0[b] = end[b]
        return
    for b in range(L):
        for q in range(pred_ptr[b], pred_ptr[b + 1]):
            h[last, pred[q], b] = end[b]
    for i in range(last - 1, 0, -1):
        e = E[i + 1]
        Ui = P[i + 1] if positional else P[0]
        for b in range(L):
            lo = succ_ptr[b]
            hi = succ_ptr[b + 1]
            ub = Ui[b]
            hn = h[i + 1, b]
            for q in range(pred_ptr[b], pred_ptr[b + 1]):
                a = pred[q]
                vab = V[a, b]
                best = -np.inf
                for r in range(lo, hi):
                    c = succ[r]
                    s = ub[c] + vab[c] + e[c] + hn[c]
                    if s > best:
                        best = s
                h[i, a, b] = best
    e = E[1]
    U1 = P[1] if positional else P[0]
    for b in range(L):
        best = -np.inf
        for r in range(succ_ptr[b], succ_ptr[b + 1]):
            c = succ[r]
            s = U1[b, c] + e[c] + h[1, b, c]
            if s > best:
                best = s
        h0[b] = best


@njit(cache=True)
def astar2_workspace(max_tokens, n_labels, capacity):
    """Work arrays of :func:`astar2_kernel`: ``(h, h0, node_f, node_g, node_lab, node_parent, node_depth, heap)``.

    ``capacity`` is the number of prefixes it can hold (grown by :func:`astar2_retry`).
    """
    m = max(max_tokens, 1)
    return (np.empty((m, n_labels, n_labels)), np.empty(n_labels), np.empty(capacity), np.empty(capacity),
            np.empty(capacity, dtype=np.int32), np.empty(capacity, dtype=np.int32),
            np.empty(capacity, dtype=np.int32), np.empty(capacity, dtype=np.int32))


@njit(cache=True, inline="always")
def _first(heap, k, j, f, depth):
    """Whether the prefix in heap slot ``k`` leaves before the one in slot ``j``: higher priority
    ``f``, then the deeper, then the one made first (node ids are made in order)."""
    a = heap[k]
    b = heap[j]
    return _before(f[a], depth[a], a, f[b], depth[b], b)


@njit(cache=True, inline="always")
def _push(heap, size, node, f, depth):
    """Insert prefix ``node`` into the binary heap of ``size`` entries; returns the new size."""
    k = size
    heap[k] = node
    while k > 0:
        p = (k - 1) >> 1
        if _first(heap, k, p, f, depth):
            heap[k], heap[p] = heap[p], heap[k]
            k = p
        else:
            break
    return size + 1


@njit(cache=True)
def astar2_kernel(E, P, positional, V, start, end, succ_ptr, succ, pred_ptr, pred, n, stop_gap, paths, scores,
                  ws):
    """Exact top-n valid label sequences of one sentence by A*; returns ``k`` (or -1: grow ``ws``).

    Parameters
    ----------
    E, P, positional, V, start, end
        Scores as :func:`backward2` (``start``: float64, shape (n_labels,)).
    succ_ptr, succ, pred_ptr, pred : from :func:`pair_lists`
    n : int
        Number of sequences wanted.
    stop_gap : float
        Stop once a path scores at least ``stop_gap`` below the best (``inf``: never);
        that path is not returned.
    paths : int32 array, shape (>= n, >= n_tokens)
    scores : float64 array, shape (>= n,)
    ws : tuple from :func:`astar2_workspace`

    Returns
    -------
    int
        Sequences found (fewer than ``n`` when fewer valid ones exist), in
        non-increasing score order; -1 when the workspace ran out of room.
    """
    h, h0, node_f, node_g, node_lab, node_parent, node_depth, heap = ws
    T = E.shape[0]
    L = E.shape[1]
    if T == 0:
        return 0
    cap = node_f.shape[0]
    backward2(E, P, positional, V, end, succ_ptr, succ, pred_ptr, pred, h, h0)
    # node_g: a prefix's score; node_f: its priority g + h
    n_nodes = 0
    size = 0
    for b in range(L):
        g = start[b] + E[0, b]
        f = g + h0[b]
        if f == -np.inf:
            continue
        if n_nodes >= cap:
            return -1
        node_g[n_nodes] = g
        node_f[n_nodes] = f
        node_lab[n_nodes] = b
        node_parent[n_nodes] = -1
        node_depth[n_nodes] = 0
        size = _push(heap, size, n_nodes, node_f, node_depth)
        n_nodes += 1
    found = 0
    while size > 0 and found < n:
        top = heap[0]
        size -= 1
        heap[0] = heap[size]
        k = 0
        while True:
            l_ = 2 * k + 1
            if l_ >= size:
                break
            c_ = l_
            if l_ + 1 < size and _first(heap, l_ + 1, l_, node_f, node_depth):
                c_ = l_ + 1
            if _first(heap, c_, k, node_f, node_depth):
                heap[k], heap[c_] = heap[c_], heap[k]
                k = c_
            else:
                break
        f = node_f[top]
        i = node_depth[top]
        if found > 0 and f <= scores[0] - stop_gap:
            break
        b = node_lab[top]
        if i == T - 1:
            scores[found] = f
            node = top
            for j in range(T - 1, -1, -1):
                paths[found, j] = node_lab[node]
                node = node_parent[node]
            found += 1
            continue
        parent = node_parent[top]
        a = node_lab[parent] if i >= 1 else -1
        g = node_g[top]
        e = E[i + 1]
        ub = P[i + 1, b] if positional else P[0, b]
        for r in range(succ_ptr[b], succ_ptr[b + 1]):
            c = succ[r]
            gc = g + ub[c] + e[c]
            if i >= 1:
                gc += V[a, b, c]
            fc = gc + h[i + 1, b, c]
            if fc == -np.inf:
                continue
            if n_nodes >= cap:
                return -1
            node_g[n_nodes] = gc
            node_f[n_nodes] = fc
            node_lab[n_nodes] = c
            node_parent[n_nodes] = top
            node_depth[n_nodes] = i + 1
            size = _push(heap, size, n_nodes, node_f, node_depth)
            n_nodes += 1
    return found


@njit(cache=True)
def astar2_retry(E, P, positional, V, start, end, succ_ptr, succ, pred_ptr, pred, n, stop_gap, paths, scores, ws):
    """:func:`astar2_kernel`, growing the workspace until it fits; returns ``(k, ws)``."""
    while True:
        k = astar2_kernel(E, P, positional, V, start, end, succ_ptr, succ, pred_ptr, pred, n, stop_gap, paths,
                          scores, ws)
        if k >= 0:
            return k, ws
        ws = astar2_workspace(ws[0].shape[0], E.shape[1], 2 * ws[2].shape[0])
