"""Compiled epochs and corpus tagging of the second-order (trigram) perceptron.

Flat weight layout: the first-order one (:mod:`chaintag.decoding.scoring`:
``F`` features, ``L*L`` transitions ``U[prev, cur]``, ``L`` start, ``L`` end)
followed by the ``L*L*L`` second-order weights ``V[prev2, prev, cur]``
(C order). The model is that of :mod:`chaintag.decoding.viterbi2`.

A *tag dictionary* is given as CSR arrays over word ids: word ``k`` may take
the labels ``dict_labels[dict_ptr[k]:dict_ptr[k+1]]`` (ascending); a token
whose word id is ``-1`` may take any label.

Averaging is lazy, exactly as in :mod:`.perceptron_kernels`: with ``c``
completed steps, an update ``d`` at step ``c + 1`` does ``w += d`` and
``u += c * d``; after ``K`` steps the average is ``(K * w - u) / K``.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from ..decoding.scoring import CorpusArrays, emission_scores, max_sentence_length, sentence_emissions, weight_views
from ..decoding.viterbi2 import viterbi2_kernel
from .path_kernels import difference_work
from .perceptron_kernels import hamming, perceptron_update


@njit(cache=True)
def second_order_views(w, n_features, n_labels):
    """Views of the second-order weight vector: the first-order layout
    (:func:`chaintag.decoding.scoring.weight_views`) followed by ``V[prev2, prev, cur]``.

    Returns
    -------
    (transitions, start, end, transitions2)
    """
    trans, start, end = weight_views(w, n_features, n_labels)
    v_off = first_order_size(n_features, n_labels)
    L = n_labels
    return trans, start, end, w[v_off:v_off + L * L * L].reshape((L, L, L))


@njit(cache=True)
def first_order_size(n_features, n_labels):
    """Length of the first-order part of the flat weights (features, ``U``, start, end)."""
    return n_features + n_labels * n_labels + 2 * n_labels


@njit(cache=True)
def fill_candidates(t0, t1, use_dict, word_ids, dict_ptr, dict_labels, n_labels, cand, n_cand):
    """Allowed labels of the tokens ``t0:t1`` into ``cand``/``n_cand`` (see ``viterbi2_kernel``).

    Every label when ``use_dict`` is false or the token's word id is ``-1``.
    """
    for i in range(t0, t1):
        r = i - t0
        k = word_ids[i] if use_dict else -1
        if k < 0:
            for j in range(n_labels):
                cand[r, j] = j
            n_cand[r] = n_labels
        else:
            lo = dict_ptr[k]
            n = dict_ptr[k + 1] - lo
            for j in range(n):
                cand[r, j] = dict_labels[lo + j]
            n_cand[r] = n


@njit(cache=True)
def fix_candidates(t0, t1, fixed, cand, n_cand):
    """Restrict the tokens ``t0:t1`` whose label is fixed to that label (``cand``/``n_cand`` as
    :func:`fill_candidates`; a fixed label overrides the tag dictionary at its token).

    Parameters
    ----------
    fixed : int32 array, shape (n_tokens,) or (0,)
        Label id each token of the corpus must take, or -1 (free); empty: no token is fixed.
    """
    if fixed.shape[0] == 0:
        return
    for i in range(t0, t1):
        f = fixed[i]
        if f >= 0:
            cand[i - t0, 0] = f
            n_cand[i - t0] = 1


@njit(cache=True)
def perceptron2_update(c, t0, t1, pred, w, u, step, n_labels, averaged, scale, idx, val):
    """Apply ``scale * (Phi(x, y*) - Phi(x, z))`` for the sentence ``t0:t1`` of the corpus ``c``
    (a :class:`chaintag.decoding.scoring.CorpusArrays` with ``gold`` and ``gold_feat``; second order).

    The first-order part (emissions, ``U``, start, end) is
    :func:`perceptron_update` (``idx``, ``val``: its work arrays); the trigram weights are touched
    only where the gold and predicted triples differ. ``pred`` is indexed from 0.
    """
    perceptron_update(c, t0, t1, pred, w, u, step, n_labels, averaged, scale, idx, val)
    gold = c.gold
    v_off = first_order_size(c.feat_label.shape[0], n_labels)
    for i in range(2, t1 - t0):
        y2 = gold[t0 + i - 2]
        y1 = gold[t0 + i - 1]
        y = gold[t0 + i]
        z2 = pred[i - 2]
        z1 = pred[i - 1]
        z = pred[i]
        if y2 != z2 or y1 != z1 or y != z:
            g = v_off + (y2 * n_labels + y1) * n_labels + y
            p = v_off + (z2 * n_labels + z1) * n_labels + z
            w[g] += scale
            w[p] -= scale
            if averaged:
                u[g] += step * scale
                u[p] -= step * scale


@njit(cache=True)
def perceptron2_epoch(order, sent_ptr, tok_ptr, ent_lo, ent_n, gold, gold_feat, feat_label,
                      w, u, step, n_labels, averaged, use_dict, word_ids, dict_ptr, dict_labels):
    """One pass of the second-order structured perceptron over the sentences in ``order``.

    Parameters
    ----------
    order : int64 array, shape (n_sentences,)
        Sentence indices in visiting order.
    sent_ptr, tok_ptr : CSR corpus arrays
    ent_lo, ent_n : feature entries (:func:`chaintag.decoding.scoring.feature_entries`)
    gold : int32 array, shape (n_tokens,)
    gold_feat : integer array, shape (n_entries,)
        From :func:`chaintag.learners.perceptron_kernels.gold_feature_ids`.
    feat_label : int32 array, shape (n_features,)
    w : float64 array, shape (n_features + L*L + 2*L + L**3,)
        Current weights, updated in place.
    u : float64 array, same shape as ``w`` (shape (1,) when not averaged)
        Step-weighted update sums for lazy averaging.
    step : int
        Steps (sentences visited) completed before this pass.
    n_labels : int
    averaged : bool
    use_dict : bool
        Restrict the search with the tag dictionary.
    word_ids : int32 array, shape (n_tokens,)
        Tag-dictionary word id of every token, ``-1`` for an unrestricted one
        (may be empty when ``use_dict`` is false).
    dict_ptr : int64 array, shape (n_words + 1,)
    dict_labels : int32 array, shape (n_entries,)

    Returns
    -------
    n_updates : int
        Sentences whose prediction differed from the gold.
    n_errors : int
        Tokens mislabelled before the updates.
    step : int
        Steps completed after this pass.
    """
    L = n_labels
    trans, start, end, trans2 = second_order_views(w, feat_label.shape[0], L)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, L))
    delta = np.zeros((m, L, L))
    back = np.zeros((m, L, L), dtype=np.int32)
    cand = np.zeros((m, L), dtype=np.int32)
    n_cand = np.zeros(m, dtype=np.int32)
    pred = np.zeros(m, dtype=np.int32)
    c = CorpusArrays(sent_ptr, tok_ptr, ent_lo, ent_n, np.zeros(0), gold, gold_feat, feat_label)  # 0/1 attributes
    idx, val = difference_work(c)
    n_updates = 0
    n_errors = 0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 > t0:
            sentence_emissions(c, t0, t1, w, E)
            fill_candidates(t0, t1, use_dict, word_ids, dict_ptr, dict_labels, L, cand, n_cand)
            viterbi2_kernel(E[:t1 - t0], trans, trans2, start, end, cand, n_cand, pred, delta, back)
            wrong = hamming(t0, t1, gold, pred)
            if wrong > 0:
                n_updates += 1
                n_errors += wrong
                perceptron2_update(c, t0, t1, pred, w, u, step, L, averaged, 1.0, idx, val)
        step += 1
    return n_updates, n_errors, step


@njit(cache=True)
def tag_corpus2(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels,
                use_dict, word_ids, dict_ptr, dict_labels, fixed, out, best):
    """Second-order Viterbi over every sentence; label ids into ``out`` (shape (n_tokens,)).

    Arguments as in :func:`perceptron2_epoch`, plus the constraints of
    :mod:`chaintag.learners.constrained2`: ``w`` may hold ``-inf`` on the
    transitions ``U[prev, cur]``, start and end weights that a label scheme
    forbids (:func:`chaintag.decoding.constraints.constrained_weights`), which
    makes every label pair and trigram holding them ``-inf``.

    Parameters
    ----------
    fixed : int32 array, shape (n_tokens,) or (0,)
        Label id each token must take, or -1 (free); empty: none fixed
        (:func:`fix_candidates`).
    out : int32 array, shape (n_tokens,)
        Receives the label ids.
    best : float64 array, shape (n_sentences,)
        Receives each sentence's best score; ``-inf`` when no sequence
        satisfies the constraints (its labels in ``out`` are then meaningless).

    Returns
    -------
    float
        The total score of the decoded paths.

    Notes
    -----
    A sentence whose tag dictionary leaves no sequence that satisfies the
    constraints is decoded again without the dictionary (fixed labels kept).
    Without ``-inf`` weights or fixed labels no score is ``-inf``, and the
    labels are those of the unconstrained search.
    """
    L = n_labels
    trans, start, end, trans2 = second_order_views(w, feat_label.shape[0], L)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, L))
    delta = np.zeros((m, L, L))
    back = np.zeros((m, L, L), dtype=np.int32)
    cand = np.zeros((m, L), dtype=np.int32)
    n_cand = np.zeros(m, dtype=np.int32)
    no_values = np.zeros(0)  # 0/1 attributes
    total = 0.0
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        best[s] = 0.0
        if t1 == t0:
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, no_values, t0, t1, feat_label, w, E)
        fill_candidates(t0, t1, use_dict, word_ids, dict_ptr, dict_labels, L, cand, n_cand)
        fix_candidates(t0, t1, fixed, cand, n_cand)
        score = viterbi2_kernel(E[:t1 - t0], trans, trans2, start, end, cand, n_cand, out[t0:t1], delta, back)
        if score == -np.inf and use_dict:  # the dictionary's labels break the constraints: every label
            fill_candidates(t0, t1, False, word_ids, dict_ptr, dict_labels, L, cand, n_cand)
            fix_candidates(t0, t1, fixed, cand, n_cand)
            score = viterbi2_kernel(E[:t1 - t0], trans, trans2, start, end, cand, n_cand, out[t0:t1], delta, back)
        best[s] = score
        total += score
    return total
