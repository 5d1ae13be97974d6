"""SAPO epochs with real-valued attributes (Sun et al., SAPO, s. 2-3).

The algorithm of :mod:`chaintag.learners.sapo_kernels` for entries carrying
a value ``v``: the top-n search scores ``sum v W[a, l]`` and the update
``Phi(x, y*) - sum_k P_k Phi(x, y_k)`` adds ``v`` times each coefficient to
the features of an entry. Used only for corpora with a value other than 1;
the unvalued kernels serve every other corpus unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..decoding.beam import beam_nbest_kernel
from ..decoding.nbest import astar_nbest_retry, astar_workspace
from ..decoding.scoring import find_feature, max_sentence_length, weight_views
from ..decoding.valued import emission_scores_valued
from .perceptron_kernels import hamming
from .sapo_kernels import _add
from .scale_kernels import end_of_step


@njit(cache=True)
def _sapo_piece_valued(t0, t1, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, v, u, sigma, gamma, n_labels,
                n_best, use_beam, beam_width, stop_gap, averaged, sigma_sum, E, C, CT, CS, CE,
                paths, scores, probs, ws, labs, coefs):
    """:func:`chaintag.learners.sapo_kernels._sapo_piece` with valued entries; returns (touched, errors, loss, ws).

    ``labs`` (int64, shape (n_labels,)) and ``coefs`` (float64, shape (n_labels,)) are work arrays.
    """
    n_features = feat_label.shape[0]
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    trans, start, end = weight_views(v, n_features, n_labels)
    T = t1 - t0
    # search on the unscaled weights v: w = sigma v with sigma > 0 ranks paths
    # identically; the scores are scaled afterwards
    emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, v, E)
    if use_beam:
        k = beam_nbest_kernel(E[:T], trans, start, end, n_best, beam_width, paths, scores)
    else:
        k, ws = astar_nbest_retry(E[:T], trans, start, end, n_best, stop_gap / sigma, paths, scores, ws)
    for r in range(k):
        scores[r] *= sigma
    # probabilities over the top-n (log-sum-exp)
    top = scores[0]
    z = 0.0
    for r in range(k):
        probs[r] = np.exp(scores[r] - top)
        z += probs[r]
    for r in range(k):
        probs[r] /= z
    log_z = top + np.log(z)
    y0 = gold[t0]
    g_score = start[y0] + E[0, y0] + end[gold[t1 - 1]]
    for i in range(1, T):
        g_score += trans[gold[t0 + i - 1], gold[t0 + i]] + E[i, gold[t0 + i]]
    loss = log_z - sigma * g_score
    errors = hamming(t0, t0 + T, gold, paths[0])
    # coefficients of Phi(y*) - sum_k P_k Phi(y_k), accumulated exactly
    touched = False
    for r in range(k):
        p = probs[r]
        for i in range(T):
            y = gold[t0 + i]
            zl = paths[r, i]
            if zl != y:
                C[i, y] += p
                C[i, zl] -= p
                touched = True
            if i == 0:
                if zl != y:
                    CS[y] += p
                    CS[zl] -= p
            else:
                yp = gold[t0 + i - 1]
                zp = paths[r, i - 1]
                if yp != zp or y != zl:
                    CT[yp, y] += p
                    CT[zp, zl] -= p
        y = gold[t1 - 1]
        zl = paths[r, T - 1]
        if zl != y:
            CE[y] += p
            CE[zl] -= p
    if touched:
        scale = gamma / sigma
        for i in range(T):
            # the labels with a coefficient at this token (cleared), then one sweep over its entries;
            # every weight still receives its additions in token order
            nz = 0
            for lab in range(n_labels):
                c = C[i, lab]
                if c != 0.0:
                    C[i, lab] = 0.0
                    labs[nz] = lab
                    coefs[nz] = scale * c
                    nz += 1
            if nz == 0:
                continue
            tok = t0 + i
            for e in range(tok_ptr[tok], tok_ptr[tok + 1]):
                lo = ent_lo[e]
                n = ent_n[e]
                x = ent_val[e]
                if n == n_labels:  # a full row: the label's feature is lo + label
                    for q in range(nz):
                        _add(v, u, lo + labs[q], coefs[q] * x, averaged, sigma_sum)
                else:
                    for q in range(nz):
                        f = find_feature(feat_label, lo, n, labs[q])
                        if f >= 0:
                            _add(v, u, f, coefs[q] * x, averaged, sigma_sum)
        for a in range(n_labels):
            if CS[a] != 0.0:
                _add(v, u, s_off + a, scale * CS[a], averaged, sigma_sum)
                CS[a] = 0.0
            if CE[a] != 0.0:
                _add(v, u, e_off + a, scale * CE[a], averaged, sigma_sum)
                CE[a] = 0.0
            for b in range(n_labels):
                if CT[a, b] != 0.0:
                    _add(v, u, t_off + a * n_labels + b, scale * CT[a, b], averaged, sigma_sum)
                    CT[a, b] = 0.0
    return touched, errors, loss, ws


@njit(cache=True)
def sapo_epoch_valued(order, sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, v, sigma, step,
               n_labels, n_best, use_beam, beam_width, stop_gap, lr0, lr_decay, l2, n_train,
               l2_per_sample, averaged, u, acc, sigma_sum, piece_mean, seed):
    """:func:`chaintag.learners.sapo_kernels.sapo_epoch` with ``ent_val`` (float64, per entry): the search
    scores and the update ``Phi(x, y*) - sum_k P_k Phi(x, y_k)`` read the values."""
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    C = np.zeros((m, n_labels))
    CT = np.zeros((n_labels, n_labels))
    CS = np.zeros(n_labels)
    CE = np.zeros(n_labels)
    paths = np.zeros((n_best, m), dtype=np.int32)
    scores = np.zeros(n_best)
    probs = np.zeros(n_best)
    ws = astar_workspace(m, n_labels, n_best, 0)
    labs = np.zeros(n_labels, dtype=np.int64)
    coefs = np.zeros(n_labels)
    if piece_mean > 0.0:
        np.random.seed(seed)
    n_updates = 0
    n_errors = 0
    loss = 0.0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        gamma = lr0 / (1.0 + step / n_train) if lr_decay else lr0
        a = t0
        touched_any = False
        while a < t1:
            b = t1
            if piece_mean > 0.0:
                length = 1
                stop = 1.0 / piece_mean if piece_mean > 1.0 else 1.0
                while np.random.random() >= stop:
                    length += 1
                b = min(a + length, t1)
            touched, errors, piece_loss, ws = _sapo_piece_valued(
                a, b, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, v, u, sigma, gamma, n_labels,
                n_best, use_beam, beam_width, stop_gap, averaged, sigma_sum, E, C, CT, CS, CE,
                paths, scores, probs, ws, labs, coefs)
            touched_any = touched_any or touched
            n_errors += errors
            loss += piece_loss
            a = b
        if touched_any:
            n_updates += 1
        shrink = 1.0 - gamma * l2 / n_train if l2 > 0.0 and l2_per_sample else 1.0
        sigma, sigma_sum = end_of_step(v, u, acc, sigma, sigma_sum, shrink, averaged)
        step += 1
    return sigma, step, n_updates, n_errors, loss, sigma_sum
