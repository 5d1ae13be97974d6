"""MIRA and N-best MIRA epochs with real-valued attributes (Crammer & Singer 2003; McDonald et al. 2005).

The algorithm of :mod:`chaintag.learners.mira_kernels` for entries carrying a
value ``v``: ``Phi(x, y)`` adds ``v`` for an attribute of value ``v``, so the
emissions, the difference vectors ``d = Phi(x, y*) - Phi(x, z)``, their
margins ``w . d``, norms ``||d||^2`` and Gram matrices read the values. Used
only for corpora with a value other than 1; the unvalued kernels serve every
other corpus unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..decoding.nbest import astar_nbest_retry, astar_workspace
from ..decoding.scoring import find_feature, max_sentence_length
from ..decoding.valued import emission_scores_valued
from ..decoding.viterbi import viterbi_kernel
from .mira_kernels import _touch, hildreth
from .perceptron_kernels import hamming


@njit(cache=True)
def feature_difference_valued(t0, t1, gold, path, tok_ptr, ent_lo, ent_n, ent_val, gold_feat, feat_label,
                              n_labels,
                              scratch, listed, touched, out_idx, out_val):
    """:func:`chaintag.learners.mira_kernels.feature_difference` with valued entries (``ent_val``):
    an attribute of value ``v`` contributes ``+v`` / ``-v``; returns the length of the sparse result.

    ``path`` holds ``z`` (indexed from 0). The result is written to
    ``out_idx[:k]`` / ``out_val[:k]`` with distinct indices and non-zero
    values; ``scratch`` and ``listed`` are left all zero / False.
    """
    n_features = feat_label.shape[0]
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    n = 0
    T = t1 - t0
    for i in range(T):
        y = gold[t0 + i]
        z = path[i]
        if y != z:
            for e in range(tok_ptr[t0 + i], tok_ptr[t0 + i + 1]):
                fg = gold_feat[e]
                if fg >= 0:
                    n = _touch(scratch, listed, touched, n, fg, ent_val[e])
                fz = find_feature(feat_label, ent_lo[e], ent_n[e], z)
                if fz >= 0:
                    n = _touch(scratch, listed, touched, n, fz, -ent_val[e])
        if i == 0:
            if y != z:
                n = _touch(scratch, listed, touched, n, s_off + y, 1.0)
                n = _touch(scratch, listed, touched, n, s_off + z, -1.0)
        else:
            yp = gold[t0 + i - 1]
            zp = path[i - 1]
            if yp != zp or y != z:
                n = _touch(scratch, listed, touched, n, t_off + yp * n_labels + y, 1.0)
                n = _touch(scratch, listed, touched, n, t_off + zp * n_labels + z, -1.0)
    y = gold[t1 - 1]
    z = path[T - 1]
    if y != z:
        n = _touch(scratch, listed, touched, n, e_off + y, 1.0)
        n = _touch(scratch, listed, touched, n, e_off + z, -1.0)
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
def mira_epoch_valued(order, sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, gold, gold_feat, feat_label, w, u,
                      step, n_labels, averaged, n_best, C, sqrt_loss, sequential, max_entries):
    """:func:`chaintag.learners.mira_kernels.mira_epoch` with ``ent_val`` (float64, per entry): emissions,
    difference vectors, margins, norms and Gram matrices all read the values."""
    n_weights = w.shape[0]
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    delta = np.zeros((m, n_labels))
    back = np.zeros((m, n_labels), dtype=np.int32)
    paths = np.zeros((n_best, m), dtype=np.int32)
    scores = np.zeros(n_best)
    ws = astar_workspace(m, n_labels, n_best, 0)
    n_labels_sq = n_labels * n_labels
    cap = 2 * max_entries + 2 * m + 4
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
    n_features = feat_label.shape[0]
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
            emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
            if n_best == 1:
                viterbi_kernel(E[:T], trans, start, end, paths[0], delta, back)
                k = 1
            else:
                k, ws = astar_nbest_retry(E[:T], trans, start, end, n_best, np.inf, paths, scores, ws)
            n_errors += hamming(t0, t1, gold, paths[0])
            # the wrong candidates and their difference vectors
            c = 0
            for r in range(k):
                h = hamming(t0, t1, gold, paths[r])
                if h == 0:
                    continue
                length[c] = feature_difference_valued(t0, t1, gold, paths[r], tok_ptr, ent_lo, ent_n, ent_val,
                                                      gold_feat, feat_label, n_labels, scratch, listed, touched,
                                                      idx[c], val[c])
                loss[c] = np.sqrt(h) if sqrt_loss else h
                c += 1
            if c == 0:
                step += 1
                continue
            n_updates += 1
            if sequential or c == 1:
                for r in range(c):
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
                for r in range(c):
                    margin = 0.0
                    for j in range(length[r]):
                        margin += w[idx[r, j]] * val[r, j]
                    b[r] = loss[r] - margin
                    # Gram row: scatter d_r, dot with every d_q
                    for j in range(length[r]):
                        scratch[idx[r, j]] = val[r, j]
                    for q in range(c):
                        dot = 0.0
                        for j in range(length[q]):
                            dot += scratch[idx[q, j]] * val[q, j]
                        G[r, q] = dot
                    for j in range(length[r]):
                        scratch[idx[r, j]] = 0.0
                hildreth(G[:c, :c], b[:c], C, alpha)
                for r in range(c):
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
