"""Approximate top-n decoding by beam search.

Left to right, keeping at each position at most ``beam_width`` prefixes,
chosen by rank within their last label first (the best prefix of every
label, then the second best of every label, ... up to ``n`` per label), then
by score. With ``beam_width >= L`` the best path always survives, so the
1-best equals Viterbi; with ``beam_width >= n L`` the top-n is exact. SAPO
(Sun et al., s. 2) used a beam of 50.

Ties are broken as Viterbi breaks them (:func:`chaintag.decoding.viterbi.
viterbi_kernel`): among prefixes giving a label the same score, the one of the
best rank, then of the lowest last label, is extended; among complete paths
of equal score, the one of the best rank, then of the lowest last label, comes
first. With ``beam_width >= L`` the first path is then Viterbi's path, also
when several paths tie (the additions are made in the same order as Viterbi's,
so exact ties stay ties).
"""

from __future__ import annotations

import numpy as np
from .._jit import njit


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
    # tie key of every kept prefix: rank * n_labels + last label (lower goes first)
    key = np.zeros(B, dtype=np.int64)
    key_new = np.zeros(B, dtype=np.int64)
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
                kp = 0 if i == 0 else key[p]
                c = top_n[j]
                if c == per_label and (v < top_s[j, c - 1] or (
                        v == top_s[j, c - 1] and kp >= key[top_p[j, c - 1]])):
                    continue
                if c < per_label:
                    top_n[j] = c + 1
                    k = c
                else:
                    k = c - 1
                while k > 0 and (top_s[j, k - 1] < v or (
                        i > 0 and top_s[j, k - 1] == v and key[top_p[j, k - 1]] > kp)):
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
                key_new[new_kept] = r * n_labels + j
                new_kept += 1
            if new_kept >= B or m == 0:
                break
        for k in range(new_kept):
            g[k] = g_new[k]
            key[k] = key_new[k]
        kept = new_kept
    # finish: add end scores and pick the best n kept prefixes
    final = np.empty(kept)
    for k in range(kept):
        final[k] = g[k] + end[lab[n_tokens - 1, k]]
    # by score, then tie key: stable sort by key first, then by score
    by_key = np.argsort(key[:kept], kind="mergesort")
    order = by_key[np.argsort(-final[by_key], kind="mergesort")]
    found = min(n, kept)
    for r in range(found):
        k = order[r]
        scores[r] = final[k]
        p = k
        for i in range(n_tokens - 1, -1, -1):
            paths[r, i] = lab[i, p]
            p = back[i, p]
    return found
