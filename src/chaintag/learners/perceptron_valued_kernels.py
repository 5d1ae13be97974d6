"""The structured perceptron's compiled epoch with real-valued attributes.

Same algorithm as :mod:`chaintag.learners.perceptron_kernels` (Collins 2002,
Fig. 1 and s. 2.5, lazy averaging), for entries that carry a value ``v``:
the feature vector ``Phi(x, y)`` adds ``v`` (not 1) for an attribute with
value ``v`` at a token labelled ``y``, so emissions are ``sum v W[a, l]``
and an update adds ``+v`` to the gold feature and ``-v`` to the predicted
one. Used only for corpora with a value other than 1 (feature-dict tokens
with numbers); the unvalued kernels serve every other corpus unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..decoding.scoring import find_feature, max_sentence_length, weight_views
from ..decoding.valued import emission_scores_valued
from ..decoding.viterbi import viterbi_kernel
from .perceptron_kernels import hamming


@njit(cache=True, inline="always")
def _add(w, u, idx, d, step, averaged):
    w[idx] += d
    if averaged:
        u[idx] += step * d


@njit(cache=True)
def perceptron_update_valued(t0, t1, gold, pred, tok_ptr, ent_lo, ent_n, ent_val, gold_feat, feat_label,
                             w, u, step, n_labels, averaged, scale):
    """Apply ``scale * (Phi(x, y*) - Phi(x, z))`` for the sentence ``t0:t1`` (valued entries)."""
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
                d = scale * ent_val[k]
                fg = gold_feat[k]
                if fg >= 0:
                    _add(w, u, fg, d, step, averaged)
                fz = find_feature(feat_label, ent_lo[k], ent_n[k], z)
                if fz >= 0:
                    _add(w, u, fz, -d, step, averaged)
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
def perceptron_epoch_valued(order, sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, gold, gold_feat, feat_label,
                            w, u, step, n_labels, averaged):
    """One pass of the structured perceptron over the sentences in ``order``, with valued entries.

    Parameters and returns as :func:`chaintag.learners.perceptron_kernels.perceptron_epoch`, plus
    ``ent_val`` (float64, shape (n_entries,)), the value of every entry.
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
            emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
            viterbi_kernel(E[:t1 - t0], trans, start, end, pred, delta, back)
            wrong = hamming(t0, t1, gold, pred)
            if wrong > 0:
                n_updates += 1
                n_errors += wrong
                perceptron_update_valued(t0, t1, gold, pred, tok_ptr, ent_lo, ent_n, ent_val, gold_feat,
                                         feat_label, w, u, step, n_labels, averaged, 1.0)
        step += 1
    return n_updates, n_errors, step
