"""Compiled epochs of the structured perceptron (Collins 2002, Fig. 1 and s. 2.5).

One call runs a whole pass over the corpus: for each sentence, emission
scores, Viterbi, and the update ``w += Phi(x, y*) - Phi(x, z)`` when the
prediction ``z`` differs from the gold ``y*``. Averaging is lazy
(ALGORITHMS.md): with ``c`` the number of completed steps, an update ``d`` at
step ``c + 1`` does ``w += d`` and ``u += c * d``; after ``K`` steps the
average of the ``K`` intermediate weight vectors is ``(K * w - u) / K``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..decoding.scoring import emission_scores, find_feature, max_sentence_length, weight_views
from ..decoding.viterbi import viterbi_kernel


@njit(cache=True)
def hamming(t0, t1, gold, path):
    """Number of tokens ``i`` of the sentence ``[t0, t1)`` with ``path[i - t0] != gold[i]``."""
    d = 0
    for i in range(t1 - t0):
        if path[i] != gold[t0 + i]:
            d += 1
    return d


@njit(cache=True)
def gold_feature_ids(tok_ptr, ent_lo, ent_n, gold, feat_label):
    """Feature id of (attribute, gold label) for every entry, -1 when absent.

    Returns
    -------
    int32 array (int64 when ``ent_lo`` is int64), shape (n_entries,)
    """
    out = np.full(ent_lo.shape[0], -1, dtype=ent_lo.dtype)
    n_tokens = tok_ptr.shape[0] - 1
    for i in range(n_tokens):
        y = gold[i]
        for k in range(tok_ptr[i], tok_ptr[i + 1]):
            out[k] = find_feature(feat_label, ent_lo[k], ent_n[k], y)
    return out


@njit(cache=True, inline="always")
def _add(w, u, idx, d, step, averaged):
    w[idx] += d
    if averaged:
        u[idx] += step * d


@njit(cache=True)
def perceptron_update(t0, t1, gold, pred, tok_ptr, ent_lo, ent_n, gold_feat, feat_label,
                      w, u, step, n_labels, averaged, scale):
    """Apply ``scale * (Phi(x, y*) - Phi(x, z))`` for the sentence ``t0:t1``.

    Only positions and transitions where gold and prediction differ are
    touched (the rest cancel exactly). ``pred`` is indexed from 0.
    """
    n_features = feat_label.shape[0]
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    n = t1 - t0
    for i in range(n):
        y = gold[t0 + i]
        z = pred[i]
        if y != z:
            for k in range(tok_ptr[t0 + i], tok_ptr[t0 + i + 1]):
                fg = gold_feat[k]
                if fg >= 0:
                    _add(w, u, fg, scale, step, averaged)
                fz = find_feature(feat_label, ent_lo[k], ent_n[k], z)
                if fz >= 0:
                    _add(w, u, fz, -scale, step, averaged)
        if i == 0:
            if y != z:
                _add(w, u, s_off + y, scale, step, averaged)
                _add(w, u, s_off + z, -scale, step, averaged)
        else:
            yp = gold[t0 + i - 1]
            zp = pred[i - 1]
            if yp != zp or y != z:
                _add(w, u, t_off + yp * n_labels + y, scale, step, averaged)
                _add(w, u, t_off + zp * n_labels + z, -scale, step, averaged)
    y = gold[t1 - 1]
    z = pred[n - 1]
    if y != z:
        _add(w, u, e_off + y, scale, step, averaged)
        _add(w, u, e_off + z, -scale, step, averaged)


@njit(cache=True)
def perceptron_epoch(order, sent_ptr, tok_ptr, ent_lo, ent_n, gold, gold_feat, feat_label,
                     w, u, step, n_labels, averaged):
    """One pass of the structured perceptron over the sentences in ``order``.

    Parameters
    ----------
    order : int64 array, shape (n_sentences,)
        Sentence indices in visiting order.
    sent_ptr, tok_ptr : CSR corpus arrays
    ent_lo, ent_n : feature entries (:func:`chaintag.decoding.scoring.feature_entries`)
    gold : int32 array, shape (n_tokens,)
        Gold label ids.
    gold_feat : integer array, shape (n_entries,)
        From :func:`gold_feature_ids`.
    feat_label : int32 array, shape (n_features,)
    w : float64 array, shape (n_weights,)
        Current weights, updated in place.
    u : float64 array, shape (n_weights,)
        Step-weighted update sums for lazy averaging (ignored unless ``averaged``).
    step : int
        Steps (sentences visited) completed before this pass.
    n_labels : int
    averaged : bool

    Returns
    -------
    n_updates : int
        Sentences whose prediction differed from the gold.
    n_errors : int
        Tokens mislabelled before the updates (training errors).
    step : int
        Steps completed after this pass.
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    delta = np.zeros((m, n_labels))
    back = np.zeros((m, n_labels), dtype=np.int32)
    pred = np.zeros(m, dtype=np.int32)
    n_updates = 0
    n_errors = 0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 > t0:
            emission_scores(tok_ptr, ent_lo, ent_n, t0, t1, feat_label, w, E)
            viterbi_kernel(E[:t1 - t0], trans, start, end, pred, delta, back)
            wrong = hamming(t0, t1, gold, pred)
            if wrong > 0:
                n_updates += 1
                n_errors += wrong
                perceptron_update(t0, t1, gold, pred, tok_ptr, ent_lo, ent_n, gold_feat,
                                  feat_label, w, u, step, n_labels, averaged, 1.0)
        step += 1
    return n_updates, n_errors, step
