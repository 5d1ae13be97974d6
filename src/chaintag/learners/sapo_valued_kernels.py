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

from ..decoding.nbest import astar_workspace
from ..decoding.scoring import find_feature, max_sentence_length, weight_views
from ..decoding.valued import emission_scores_valued
from .sapo_kernels import _add, apply_chain_coefs, topn_step
from .scale_kernels import end_of_step


@njit(cache=True)
def apply_emission_coefs(tok, row, tok_ptr, ent_lo, ent_n, ent_val, valued, feat_label, v, u, scale,
                         averaged, sigma_sum, labs, coefs):
    """Add ``scale * row[l] * value`` to the feature (attribute, ``l``) of every entry of token ``tok``
    for each label with a coefficient, and clear ``row``; returns whether any was non-zero.

    ``labs`` (int64) and ``coefs`` (float64), shape (n_labels,), are work arrays. Every
    weight receives its additions in the order of the entries.
    """
    n_labels = row.shape[0]
    nz = 0
    for lab in range(n_labels):
        c = row[lab]
        if c != 0.0:
            row[lab] = 0.0
            labs[nz] = lab
            coefs[nz] = scale * c
            nz += 1
    if nz == 0:
        return False
    for e in range(tok_ptr[tok], tok_ptr[tok + 1]):
        lo = ent_lo[e]
        n = ent_n[e]
        x = ent_val[e] if valued else 1.0
        if n == n_labels:  # a full row: the label's feature is lo + label
            for q in range(nz):
                _add(v, u, lo + labs[q], coefs[q] * x, averaged, sigma_sum)
        else:
            for q in range(nz):
                f = find_feature(feat_label, lo, n, labs[q])
                if f >= 0:
                    _add(v, u, f, coefs[q] * x, averaged, sigma_sum)
    return True


@njit(cache=True)
def _sapo_piece_valued(t0, t1, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, v, u, sigma, gamma, n_labels,
                n_best, use_beam, beam_width, stop_gap, averaged, sigma_sum, E, C, CT, CS, CE,
                paths, scores, probs, ws, labs, coefs):
    """:func:`chaintag.learners.sapo_kernels._sapo_piece` with valued entries; returns (touched, errors, loss, ws).

    ``labs`` (int64, shape (n_labels,)) and ``coefs`` (float64, shape (n_labels,)) are work arrays.
    """
    n_features = feat_label.shape[0]
    t_off = n_features
    trans, start, end = weight_views(v, n_features, n_labels)
    T = t1 - t0
    # search on the unscaled weights v: w = sigma v with sigma > 0 ranks paths
    # identically; the scores are scaled afterwards
    emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, v, E)
    touched, errors, loss, k, ws = topn_step(E, T, t0, gold, trans, start, end, use_beam, beam_width, n_best,
                                             stop_gap, sigma, paths, scores, probs, ws, C, CS, CT, CE)
    if touched:
        scale = gamma / sigma
        for i in range(T):  # tokens in order: every weight receives its additions in token order
            apply_emission_coefs(t0 + i, C[i], tok_ptr, ent_lo, ent_n, ent_val, True, feat_label, v, u, scale,
                                 averaged, sigma_sum, labs, coefs)
        apply_chain_coefs(CS, CE, CT, t0, T, gold, paths, k, v, u, t_off, scale, averaged, sigma_sum)
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
