"""Compiled epochs of MIRA and N-best MIRA (Crammer & Singer 2003; McDonald et al. 2005).

For a candidate ``z`` with feature difference ``d = Phi(x, y*) - Phi(x, z)``,
loss ``l`` (Hamming distance, or its square root) and margin
``m = w . d``, 1-best MIRA takes ``tau = min(C, max(0, (l - m) / ||d||^2))``
and ``w += tau d``. N-best MIRA solves the joint problem over the n best
candidates, ``max_a sum_k a_k b_k - ||sum_k a_k d_k||^2 / 2`` with
``b_k = l_k - m_k`` and ``0 <= a_k <= C``, by Hildreth's coordinate ascent;
or, as a variant, applies the 1-best step to each candidate in turn.

Difference vectors are built sparsely from the entries that
:func:`chaintag.learners.path_kernels.path_difference` lists (the features
every learner enumerates; attributes with values give ``+v`` / ``-v``): a
dense scratch vector collects the entries, the list of touched indices gives the sparse form, and the touched
entries are reset afterwards, so a step costs time proportional to the
features it touches. Averaging is lazy as for the perceptron.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from ..decoding.nbest import astar_nbest_retry, astar_workspace
from ..decoding.scoring import max_sentence_length, sentence_emissions
from ..decoding.viterbi import viterbi_kernel
from .path_kernels import difference_capacity, path_difference
from .perceptron_kernels import hamming


@njit(cache=True)
def _touch(scratch, listed, touched, n, f, value):
    if not listed[f]:
        listed[f] = True
        touched[n] = f
        n += 1
    scratch[f] += value
    return n


@njit(cache=True)
def feature_difference(c, t0, t1, path, n_labels, scratch, listed, touched, out_idx, out_val):
    """Sparse ``Phi(x, y*) - Phi(x, z)`` of the sentence ``t0:t1`` of the corpus ``c``; returns its length.

    ``path`` holds ``z`` (indexed from 0); ``c`` has ``gold`` and ``gold_feat``, and entries
    with values contribute ``+v`` / ``-v``. The entries come from
    :func:`chaintag.learners.path_kernels.path_difference` (listed first into ``out_idx`` /
    ``out_val``, which need its capacity) and are summed per weight in that order. The result
    is written to ``out_idx[:k]`` / ``out_val[:k]`` with distinct indices and non-zero values;
    ``scratch`` and ``listed`` are left all zero / False.
    """
    n_raw = path_difference(c, t0, t1, path, n_labels, out_idx, out_val)
    n = 0
    for j in range(n_raw):
        n = _touch(scratch, listed, touched, n, out_idx[j], out_val[j])
    k = 0
    for j in range(n):
        f = touched[j]
        v = scratch[f]
        scratch[f] = 0.0
        listed[f] = False
        if v != 0.0:
            out_idx[k] = f
            out_val[k] = v
            k += 1
    return k


@njit(cache=True)
def hildreth(G, b, C, alpha, max_iter=200, tol=1e-10):
    """Coordinate ascent on ``max_a a.b - a.G.a / 2`` with ``0 <= a_k <= C``.

    Parameters
    ----------
    G : float64 array, shape (k, k)
        Gram matrix of the difference vectors (positive semi-definite).
    b : float64 array, shape (k,)
    C : float
        Upper bound of every ``a_k`` (``inf``: none).
    alpha : float64 array, shape (>= k,)
        Receives the solution.

    Returns
    -------
    int
        Iterations (full sweeps) used.

    References
    ----------
    C. Hildreth (1957); Y. Censor, S. Zenios. Parallel Optimization (1997),
    the algorithm as used for N-best MIRA by McDonald et al. (2005).
    """
    k = b.shape[0]
    for j in range(k):
        alpha[j] = 0.0
    it = 0
    for it in range(1, max_iter + 1):
        change = 0.0
        for j in range(k):
            if G[j, j] <= 0.0:
                continue
            grad = b[j]
            for i in range(k):
                grad -= G[j, i] * alpha[i]
            new = alpha[j] + grad / G[j, j]
            if new < 0.0:
                new = 0.0
            elif new > C:
                new = C
            change = max(change, abs(new - alpha[j]))
            alpha[j] = new
        if change < tol:
            break
    return it


@njit(cache=True)
def mira_epoch(order, c, w, u, step, n_labels, averaged, n_best, C, sqrt_loss, sequential):
    """One pass of (N-best) MIRA over the sentences in ``order``.

    Parameters
    ----------
    c : CorpusArrays
        The corpus (:class:`chaintag.decoding.scoring.CorpusArrays`) with ``gold`` and ``gold_feat``;
        with values in ``ent_val``, the emissions, difference vectors, margins, norms and Gram
        matrices read them.
    w, u : float64 arrays, shape (n_weights,)
        Weights and lazy-averaging sums (``u`` unused unless ``averaged``).
    step : int
        Steps completed before this pass.
    n_best : int
        1: the Viterbi output only; more: the n best by exact A*.
    C : float
        Clip of each step size (``inf``: none).
    sqrt_loss : bool
        Loss ``sqrt(Hamming)`` instead of ``Hamming``.
    sequential : bool
        N-best variant: the 1-best step for each wrong candidate in turn
        instead of the joint problem.

    Returns
    -------
    n_updates, n_errors, step, n_clipped
        Sentences updated, tokens wrong (best candidate), steps after the
        pass, steps whose size hit ``C``.
    """
    n_weights = w.shape[0]
    sent_ptr = c.sent_ptr
    gold = c.gold
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    delta = np.zeros((m, n_labels))
    back = np.zeros((m, n_labels), dtype=np.int32)
    paths = np.zeros((n_best, m), dtype=np.int32)
    scores = np.zeros(n_best)
    ws = astar_workspace(m, n_labels, n_best, 0)
    n_labels_sq = n_labels * n_labels
    cap = difference_capacity(c)
    scratch = np.zeros(n_weights)
    listed = np.zeros(n_weights, dtype=np.bool_)
    touched = np.zeros(cap, dtype=np.int64)
    idx = np.zeros((n_best, cap), dtype=np.int64)
    val = np.zeros((n_best, cap))
    length = np.zeros(n_best, dtype=np.int64)
    loss = np.zeros(n_best)
    G = np.zeros((n_best, n_best))
    b = np.zeros(n_best)
    alpha = np.zeros(n_best)
    n_features = c.feat_label.shape[0]
    trans = w[n_features:n_features + n_labels_sq].reshape((n_labels, n_labels))
    start = w[n_features + n_labels_sq:n_features + n_labels_sq + n_labels]
    end = w[n_features + n_labels_sq + n_labels:n_features + n_labels_sq + 2 * n_labels]
    n_updates = 0
    n_errors = 0
    n_clipped = 0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        T = t1 - t0
        if T > 0:
            sentence_emissions(c, t0, t1, w, E)
            if n_best == 1:
                viterbi_kernel(E[:T], trans, start, end, paths[0], delta, back)
                k = 1
            else:
                k, ws = astar_nbest_retry(E[:T], trans, start, end, n_best, np.inf, paths, scores, ws)
            n_errors += hamming(t0, t1, gold, paths[0])
            # the wrong candidates and their difference vectors
            nc = 0
            for r in range(k):
                h = hamming(t0, t1, gold, paths[r])
                if h == 0:
                    continue
                length[nc] = feature_difference(c, t0, t1, paths[r], n_labels, scratch, listed, touched,
                                                idx[nc], val[nc])
                loss[nc] = np.sqrt(h) if sqrt_loss else h
                nc += 1
            if nc == 0:
                step += 1
                continue
            n_updates += 1
            if sequential or nc == 1:
                for r in range(nc):
                    margin = 0.0
                    norm = 0.0
                    for j in range(length[r]):
                        margin += w[idx[r, j]] * val[r, j]
                        norm += val[r, j] * val[r, j]
                    if norm <= 0.0:
                        continue
                    tau = (loss[r] - margin) / norm
                    if tau <= 0.0:
                        continue
                    if tau >= C:
                        tau = C
                        n_clipped += 1
                    for j in range(length[r]):
                        f = idx[r, j]
                        w[f] += tau * val[r, j]
                        if averaged:
                            u[f] += step * tau * val[r, j]
            else:
                for r in range(nc):
                    margin = 0.0
                    for j in range(length[r]):
                        margin += w[idx[r, j]] * val[r, j]
                    b[r] = loss[r] - margin
                    # Gram row: scatter d_r, dot with every d_q
                    for j in range(length[r]):
                        scratch[idx[r, j]] = val[r, j]
                    for q in range(nc):
                        dot = 0.0
                        for j in range(length[q]):
                            dot += scratch[idx[q, j]] * val[q, j]
                        G[r, q] = dot
                    for j in range(length[r]):
                        scratch[idx[r, j]] = 0.0
                hildreth(G[:nc, :nc], b[:nc], C, alpha)
                for r in range(nc):
                    a = alpha[r]
                    if a == C:
                        n_clipped += 1
                    if a == 0.0:
                        continue
                    for j in range(length[r]):
                        f = idx[r, j]
                        w[f] += a * val[r, j]
                        if averaged:
                            u[f] += step * a * val[r, j]
        step += 1
    return n_updates, n_errors, step, n_clipped
