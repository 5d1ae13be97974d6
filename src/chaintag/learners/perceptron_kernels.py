"""Compiled epochs of the structured perceptron (Collins 2002, Fig. 1 and s. 2.5).

One call runs a whole pass over the corpus: for each sentence, emission
scores, Viterbi, and the update ``w += Phi(x, y*) - Phi(x, z)`` when the
prediction ``z`` differs from the gold ``y*``. The corpus comes as one
:class:`chaintag.decoding.scoring.CorpusArrays`; 0/1 attributes (an empty
``ent_val``) and attributes with values take the same code. Averaging is lazy
(ALGORITHMS.md): with ``c`` the number of completed steps, an update ``d`` at
step ``c + 1`` does ``w += d`` and ``u += c * d``; after ``K`` steps the
average of the ``K`` intermediate weight vectors is ``(K * w - u) / K``.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from ..decoding.scoring import find_feature, max_sentence_length, sentence_emissions, weight_views
from ..decoding.viterbi import viterbi_kernel
from .path_kernels import add_path_difference, difference_work


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


@njit(cache=True)
def perceptron_update(c, t0, t1, pred, w, u, step, n_labels, averaged, scale, idx, val):
    """Apply ``scale * (Phi(x, y*) - Phi(x, z))`` for the sentence ``t0:t1`` of the corpus ``c``.

    Only positions and transitions where gold and prediction differ are
    touched (the rest cancel exactly); ``pred`` is indexed from 0. The
    features come from :func:`chaintag.learners.path_kernels.add_path_difference`
    (``idx``, ``val``: its work arrays); entries with values add ``scale * v``.
    """
    add_path_difference(c, t0, t1, pred, n_labels, scale, w, u, step, averaged, idx, val)


@njit(cache=True)
def perceptron_epoch(order, c, w, u, step, n_labels, averaged):
    """One pass of the structured perceptron over the sentences in ``order``.

    Parameters
    ----------
    order : int64 array, shape (n_sentences,)
        Sentence indices in visiting order.
    c : CorpusArrays
        The corpus (:class:`chaintag.decoding.scoring.CorpusArrays`), with ``gold`` and
        ``gold_feat`` (from :func:`gold_feature_ids`); ``ent_val`` empty for 0/1 attributes.
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
    trans, start, end = weight_views(w, c.feat_label.shape[0], n_labels)
    sent_ptr = c.sent_ptr
    gold = c.gold
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    delta = np.zeros((m, n_labels))
    back = np.zeros((m, n_labels), dtype=np.int32)
    pred = np.zeros(m, dtype=np.int32)
    idx, val = difference_work(c)
    n_updates = 0
    n_errors = 0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 > t0:
            sentence_emissions(c, t0, t1, w, E)
            viterbi_kernel(E[:t1 - t0], trans, start, end, pred, delta, back)
            wrong = hamming(t0, t1, gold, pred)
            if wrong > 0:
                n_updates += 1
                n_errors += wrong
                perceptron_update(c, t0, t1, pred, w, u, step, n_labels, averaged, 1.0, idx, val)
        step += 1
    return n_updates, n_errors, step
