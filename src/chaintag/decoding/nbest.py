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
    The order of a prefix's children does not depend on the prefix, only on
    its position and last label, so the next-best children of a (position,
    label) are ranked once, when first needed; a popped prefix queues just its
    best child and its own next sibling, each with an exact priority. Cost:
    one backward Viterbi pass, ``O(T L^2)``, then ``O(n T (L + n))``.
    Ties: among queue entries of equal priority the deeper prefix goes first,
    then the one queued first; siblings of equal priority come in label order.
    So equal-scored paths come out in a fixed order, and a search where every
    score ties (untrained weights) costs ``O(n T (L + n))``, not ``L^T``.

Beam (approximate)
    See :mod:`chaintag.decoding.beam`.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from .beam import beam_nbest_kernel  # noqa: F401 (part of this module's interface)
from .scoring import emission_scores, max_sentence_length, weight_views

# -------------------------------------------------------------------- queue


@njit(cache=True, inline="always")
def _before(fa, da, sa, fb, db, sb):
    """Whether queue entry a leaves the queue before entry b: higher priority, then the deeper
    prefix, then the one queued first (a strict total order: ``seq`` numbers are distinct)."""
    if fa != fb:
        return fa > fb
    if da != db:
        return da > db
    return sa < sb


@njit(cache=True, inline="always")
def _queue_push(qf, qd, qs, qp, qr, size, room, f, d, s, p, r):
    """Insert an entry into the bounded queue; returns the new size.

    The queue is sorted: index ``size - 1`` leaves first. Only ``room`` more
    entries will ever leave it (one per path still wanted), so it keeps at most
    ``room`` entries: an entry ranked below them could only leave after them,
    and entries queued later never change the order of those already queued.
    """
    if size >= room:
        if room <= 0 or not _before(f, d, s, qf[0], qd[0], qs[0]):
            return size
        # drop the last-leaving entry (index 0); slide down the entries that leave after the new one
        i = 0
        while i + 1 < size and _before(f, d, s, qf[i + 1], qd[i + 1], qs[i + 1]):
            qf[i] = qf[i + 1]
            qd[i] = qd[i + 1]
            qs[i] = qs[i + 1]
            qp[i] = qp[i + 1]
            qr[i] = qr[i + 1]
            i += 1
    else:
        i = size
        size += 1
        while i > 0 and _before(qf[i - 1], qd[i - 1], qs[i - 1], f, d, s):
            qf[i] = qf[i - 1]
            qd[i] = qd[i - 1]
            qs[i] = qs[i - 1]
            qp[i] = qp[i - 1]
            qr[i] = qr[i - 1]
            i -= 1
    qf[i] = f
    qd[i] = d
    qs[i] = s
    qp[i] = p
    qr[i] = r
    return size


@njit(cache=True, inline="always")
def _queue_trim(qf, qd, qs, qp, qr, size, room):
    """Drop the entries that can no longer leave (all but the ``room`` first-leaving ones)."""
    drop = size - room
    if drop <= 0:
        return size
    for i in range(room):
        qf[i] = qf[i + drop]
        qd[i] = qd[i + drop]
        qs[i] = qs[i + drop]
        qp[i] = qp[i + drop]
        qr[i] = qr[i + drop]
    return room


# ------------------------------------------------------------------------ A*


NEXT_UNKNOWN = -2
"""``best_next`` entry not computed yet (see :func:`backward_heuristic`)."""


@njit(cache=True)
def backward_heuristic(emissions, transitions_t, end, h, best_next, eh):
    """Backward Viterbi: ``h[i, l]`` is the best score of positions ``i+1..T-1``
    after label ``l`` at ``i`` (end score included).

    ``transitions_t`` is the transposed transition matrix (``[cur, prev]``),
    so the inner loop runs over contiguous memory; the maxima run over four
    next labels per sweep of the row (a maximum is exact in any order).
    ``eh[i, k]`` receives ``emissions[i, k] + h[i, k]`` for ``i >= 1`` (the
    value of label ``k`` at ``i`` seen from ``i - 1``, less the transition),
    which the search reuses to rank children. ``best_next[i, l]``, the label
    at ``i+1`` on the best completion (lowest index on ties), is not computed
    here: rows ``0..T-2`` are set to :data:`NEXT_UNKNOWN` and
    :func:`_best_next` finds an entry when the search first needs it (a few
    per path, against ``L`` per position here); ``best_next[T-1]`` is -1.
    """
    n_tokens, n_labels = emissions.shape
    last = n_tokens - 1
    for j in range(n_labels):
        h[last, j] = end[j]
        best_next[last, j] = -1
    for i in range(last - 1, -1, -1):
        b = eh[i + 1]
        for k in range(n_labels):
            b[k] = emissions[i + 1, k] + h[i + 1, k]
        row = h[i]
        b0 = b[0]
        t0 = transitions_t[0]
        for j in range(n_labels):
            row[j] = t0[j] + b0
            best_next[i, j] = NEXT_UNKNOWN
        k = 1
        while k + 4 <= n_labels:
            b1 = b[k]
            b2 = b[k + 1]
            b3 = b[k + 2]
            b4 = b[k + 3]
            t1 = transitions_t[k]
            t2 = transitions_t[k + 1]
            t3 = transitions_t[k + 2]
            t4 = transitions_t[k + 3]
            for j in range(n_labels):
                row[j] = max(max(row[j], t1[j] + b1), max(max(t2[j] + b2, t3[j] + b3), t4[j] + b4))
            k += 4
        while k < n_labels:
            bk = b[k]
            tk = transitions_t[k]
            for j in range(n_labels):
                row[j] = max(row[j], tk[j] + bk)
            k += 1


@njit(cache=True, inline="always")
def _best_next(i, c, transitions, eh, best_next):
    """``best_next[i, c]``, computed on first use: the first next label reaching
    ``h[i, c]`` (the same sums as :func:`backward_heuristic`: ``U[c, k] +
    eh[i + 1, k]``)."""
    lab = best_next[i, c]
    if lab == NEXT_UNKNOWN:
        row = transitions[c]
        nxt = eh[i + 1]
        top = row[0] + nxt[0]
        lab = 0
        for k in range(1, eh.shape[1]):
            v = row[k] + nxt[k]
            if v > top:
                top = v
                lab = k
        best_next[i, c] = lab
    return lab


@njit(cache=True, inline="always")
def _top_children(i, c, transitions, eh, keep, alt_val, alt_lab):
    """The ``keep`` best next labels after label ``c`` at position ``i``, ranked
    like :func:`backward_heuristic` (value descending, lower label on ties)."""
    n_labels = eh.shape[1]
    row = transitions[c]
    nxt = eh[i + 1]
    m = 0
    for k in range(n_labels):
        v = row[k] + nxt[k]
        if m == keep and v <= alt_val[i, c, m - 1]:
            continue
        if m < keep:
            m += 1
        r = m - 1
        while r > 0 and alt_val[i, c, r - 1] < v:
            alt_val[i, c, r] = alt_val[i, c, r - 1]
            alt_lab[i, c, r] = alt_lab[i, c, r - 1]
            r -= 1
        alt_val[i, c, r] = v
        alt_lab[i, c, r] = k


@njit(cache=True, inline="always")
def _second_child(i, c, transitions, eh, h, best_next, alt_val, alt_lab):
    """Best and second-best next labels after ``c`` at ``i`` (ranks 0 and 1 of
    :func:`_top_children`). The best is the backward pass's (``h[i, c]``, and
    the label from :func:`_best_next`: the same sums, first maximum); the second is the
    first label other than it that reaches the maximum of the others. The
    maximum runs in four independent chains (a maximum is exact in any
    order), which the processor overlaps; a second scan finds its label.
    """
    n_labels = eh.shape[1]
    row = transitions[c]
    nxt = eh[i + 1]
    l0 = _best_next(i, c, transitions, eh, best_next)
    m0 = -np.inf
    m1 = -np.inf
    m2 = -np.inf
    m3 = -np.inf
    k = 0
    while k + 4 <= n_labels:
        x0 = row[k] + nxt[k]
        x1 = row[k + 1] + nxt[k + 1]
        x2 = row[k + 2] + nxt[k + 2]
        x3 = row[k + 3] + nxt[k + 3]
        if k == l0:
            x0 = -np.inf
        if k + 1 == l0:
            x1 = -np.inf
        if k + 2 == l0:
            x2 = -np.inf
        if k + 3 == l0:
            x3 = -np.inf
        m0 = max(m0, x0)
        m1 = max(m1, x1)
        m2 = max(m2, x2)
        m3 = max(m3, x3)
        k += 4
    while k < n_labels:
        x0 = row[k] + nxt[k]
        if k != l0:
            m0 = max(m0, x0)
        k += 1
    m = max(max(m0, m1), max(m2, m3))
    l1 = -1
    for k in range(n_labels):
        if k != l0 and row[k] + nxt[k] == m:
            l1 = k
            break
    if l1 < 0:  # every other label scores -inf (or NaN): the first other label
        l1 = 1 if l0 == 0 else 0
        m = row[l1] + nxt[l1]
    alt_val[i, c, 0] = h[i, c]
    alt_lab[i, c, 0] = l0
    alt_val[i, c, 1] = m
    alt_lab[i, c, 1] = l1


_NODE_LABEL = 9
"""Index of ``node_label`` in the workspace tuple (its length is the node capacity)."""


@njit(cache=True)
def astar_workspace(max_tokens, n_labels, n, capacity):
    """Work arrays for :func:`astar_nbest_kernel` (allocate once, reuse per sentence).

    ``capacity`` bounds the prefixes materialized per search (0: the default
    ``2 n max_tokens + 16``); the kernel returns -1 when it is exceeded.
    """
    m = max(max_tokens, 1)
    keep = max(min(n, n_labels), 1)
    cap = capacity if capacity > 0 else 2 * n * m + 16
    q = max(n, 1)
    return (np.empty((m, n_labels)), np.empty((m, n_labels), dtype=np.int32),
            np.empty((m, n_labels, keep)), np.empty((m, n_labels, keep), dtype=np.int32),
            np.zeros((m, n_labels), dtype=np.int8), np.empty((n_labels, n_labels)),
            np.empty((m, n_labels)), np.empty(keep), np.empty(keep, dtype=np.int32),
            np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int32), np.empty(cap),
            np.empty(q), np.empty(q, dtype=np.int32), np.empty(q, dtype=np.int64),
            np.empty(q, dtype=np.int32), np.empty(q, dtype=np.int32))


@njit(cache=True)
def astar_nbest_kernel(emissions, transitions, start, end, n, stop_gap, paths, scores, ws):
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
    ws : tuple
        From :func:`astar_workspace` (sized for at least ``n_tokens`` and ``n``).

    Returns
    -------
    int
        Number of sequences found (``min(n, L^T)`` unless stopped early), or
        -1 when the workspace capacity was exceeded (grow it and retry).

    Notes
    -----
    A queue entry stands for the ``rank``-th best child of a prefix. Popping
    it queues the entry's next sibling, then follows the child's best
    completion (read from the backward pass) to the end of the sentence,
    queueing the second-best child of every prefix on the way, all with
    exact priorities; the completed path is the next best. So each path
    costs one pop, and with ``r`` paths still wanted only the ``r`` first
    entries of the queue can ever leave it: the queue is a sorted array of at
    most ``n - 1`` entries, and the last path's dive queues nothing.
    The order of a prefix's children depends only on its position and last
    label, so sibling rankings are computed once per (position, label) that
    needs them, and only up to rank ``n - 1`` (no top-n path uses a later
    child). Cost: one backward Viterbi pass, then ``O(n T (L + n))``.
    """
    n_tokens, n_labels = emissions.shape
    if n_tokens == 0 or n <= 0:
        return 0
    (h, best_next, alt_val, alt_lab, alt_done, trans_t, eh, root_val, root_lab,
     node_label, node_parent, node_g, qf, qd, qs, qp, qr) = ws
    cap = node_label.shape[0]
    keep = min(n, n_labels)
    for a in range(n_labels):
        for c in range(n_labels):
            trans_t[c, a] = transitions[a, c]
    backward_heuristic(emissions, trans_t, end, h, best_next, eh)
    for i in range(n_tokens):
        for j in range(n_labels):
            alt_done[i, j] = 0
    m = 0
    for j in range(n_labels):
        v = start[j] + emissions[0, j] + h[0, j]
        if m == keep and v <= root_val[m - 1]:
            continue
        if m < keep:
            m += 1
        r = m - 1
        while r > 0 and root_val[r - 1] < v:
            root_val[r] = root_val[r - 1]
            root_lab[r] = root_lab[r - 1]
            r -= 1
        root_val[r] = v
        root_lab[r] = j
    size = 0
    seq = 0
    size = _queue_push(qf, qd, qs, qp, qr, size, 1, root_val[0], 0, seq, -1, 0)
    seq += 1
    n_nodes = 0
    found = 0
    best = 0.0
    while size > 0 and found < n:
        size -= 1
        depth = qd[size]
        parent = qp[size]
        rank = qr[size]
        room = n - found - 1  # pops still to come after this one
        size = _queue_trim(qf, qd, qs, qp, qr, size, room)
        if parent < 0:
            lab = root_lab[rank]
            g = start[lab] + emissions[0, lab]
            if rank + 1 < keep and room > 0:
                size = _queue_push(qf, qd, qs, qp, qr, size, room, root_val[rank + 1], 0, seq, -1, rank + 1)
                seq += 1
        else:
            plab = node_label[parent]
            d = depth - 1
            if rank == 0:
                lab = _best_next(d, plab, transitions, eh, best_next)
            else:
                lab = alt_lab[d, plab, rank]
            g = node_g[parent] + transitions[plab, lab] + emissions[depth, lab]
            if rank + 1 < keep and room > 0:
                if alt_done[d, plab] < 2:
                    _top_children(d, plab, transitions, eh, keep, alt_val, alt_lab)
                    alt_done[d, plab] = 2
                size = _queue_push(qf, qd, qs, qp, qr, size, room, node_g[parent] + alt_val[d, plab, rank + 1],
                                   depth, seq, parent, rank + 1)
                seq += 1
        # dive: follow the best completion down to the last position, creating
        # its nodes and queueing each one's second-best child
        queue_children = keep > 1 and room > 0
        while depth < n_tokens - 1:
            if n_nodes >= cap:
                return -1
            x = n_nodes
            n_nodes += 1
            node_label[x] = lab
            node_parent[x] = parent
            node_g[x] = g
            if queue_children:
                if alt_done[depth, lab] == 0:
                    _second_child(depth, lab, transitions, eh, h, best_next, alt_val, alt_lab)
                    alt_done[depth, lab] = 1
                size = _queue_push(qf, qd, qs, qp, qr, size, room, g + alt_val[depth, lab, 1],
                                   depth + 1, seq, x, 1)
                seq += 1
            child = _best_next(depth, lab, transitions, eh, best_next)
            g = g + transitions[lab, child] + emissions[depth + 1, child]
            parent = x
            lab = child
            depth += 1
        score = g + end[lab]
        if found == 0:
            best = score
        elif best - score >= stop_gap:
            break
        scores[found] = score
        paths[found, depth] = lab
        p = parent
        for i in range(n_tokens - 2, -1, -1):
            paths[found, i] = node_label[p]
            p = node_parent[p]
        found += 1
    return found


def astar_nbest(emissions, transitions, start, end, n, stop_gap=np.inf):
    """Run :func:`astar_nbest_kernel` with a fresh workspace, growing it as needed.

    Returns
    -------
    paths : int32 array, shape (k, n_tokens)
    scores : float64 array, shape (k,)
    """
    n_tokens, n_labels = emissions.shape
    paths = np.zeros((n, max(n_tokens, 1)), dtype=np.int32)
    scores = np.zeros(n)
    ws = astar_workspace(n_tokens, n_labels, n, 0)
    k, _ = astar_nbest_retry(emissions, transitions, start, end, n, stop_gap, paths, scores, ws)
    return paths[:k, :n_tokens], scores[:k]


@njit(cache=True)
def astar_nbest_retry(emissions, transitions, start, end, n, stop_gap, paths, scores, ws):
    """:func:`astar_nbest_kernel`, growing the workspace when needed; returns ``(k, ws)``."""
    while True:
        k = astar_nbest_kernel(emissions, transitions, start, end, n, stop_gap, paths, scores, ws)
        if k >= 0:
            return k, ws
        ws = astar_workspace(ws[0].shape[0], emissions.shape[1], n, 2 * ws[_NODE_LABEL].shape[0])


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
        paths, scores = astar_nbest(E, U, s, e, n)
        k = len(scores)
    elif method == "beam":
        k = beam_nbest_kernel(E, U, s, e, n, int(beam_width), paths, scores)
    else:
        raise ValueError(f"unknown search method {method!r}; expected 'astar' or 'beam'")
    return [(float(scores[i]), paths[i].copy()) for i in range(k)]


@njit(cache=True)
def nbest_corpus(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, k, out_paths, out_scores,
                 out_found):
    """Top-k label sequences of every sentence of a corpus, by exact A*.

    Parameters
    ----------
    sent_ptr, tok_ptr, ent_lo, ent_n : corpus arrays (see :mod:`chaintag.decoding.scoring`)
    ent_val : float64 array, shape (n_entries,) or (0,)
        Value of every entry; empty for 0/1 attributes (:func:`chaintag.decoding.scoring.emission_scores`).
    feat_label : int32 array, shape (n_features,)
    w : float64 array, shape (n_weights,)
        Flat weights (features, transitions, start, end).
    n_labels, k : int
    out_paths : int32 array, shape (k, n_tokens)
        ``out_paths[r, t0:t1]`` receives the r-th best labels of sentence ``t0:t1``.
    out_scores : float64 array, shape (n_sentences, k)
    out_found : int32 array, shape (n_sentences,)
        Sequences found per sentence, ``min(k, L^T)``.
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    paths = np.zeros((k, m), dtype=np.int32)
    scores = np.zeros(k)
    ws = astar_workspace(m, n_labels, k, 0)
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            out_found[s] = 0
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
        ws = nbest_into(E[:t1 - t0], trans, start, end, k, s, t0, paths, scores, ws, out_paths, out_scores, out_found)


@njit(cache=True)
def nbest_into(E, trans, start, end, k, s, t0, paths, scores, ws, out_paths, out_scores, out_found):
    """Exact top-k (A*) of one sentence, written into the corpus outputs of :func:`nbest_corpus`.

    Parameters
    ----------
    E : float64 array, shape (T, n_labels)
        The sentence's emission scores.
    trans, start, end : float64 arrays
        Transition, start and end scores.
    k, s, t0 : int
        Sequences wanted, sentence index, index of its first token.
    paths, scores, ws :
        Scratch buffers and the A* workspace (see :func:`astar_workspace`).
    out_paths, out_scores, out_found :
        As in :func:`nbest_corpus`.

    Returns
    -------
    tuple
        The (possibly grown) A* workspace.
    """
    found, ws = astar_nbest_retry(E, trans, start, end, k, np.inf, paths, scores, ws)
    out_found[s] = found
    for r in range(found):
        out_scores[s, r] = scores[r]
        for i in range(E.shape[0]):
            out_paths[r, t0 + i] = paths[r, i]
    return ws
