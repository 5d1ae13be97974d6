"""Emission scoring and corpus decoding with real-valued attributes.

With feature-dict tokens a (token, attribute) entry may carry a real value
``v`` (:mod:`chaintag.features.dicts`): the entry adds ``v * W[a, l]`` to the
emission score of label ``l`` instead of ``W[a, l]``. These kernels are the
valued counterparts of :func:`chaintag.decoding.scoring.emission_scores` and
the corpus kernels; corpora whose values are all 1 keep using the unvalued
kernels, so their results are unchanged bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .forward_backward import forward_backward_kernel
from .nbest import astar_workspace, nbest_into
from .scoring import max_sentence_length, weight_views
from .viterbi import viterbi_kernel


@njit(cache=True)
def emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, out):
    """Fill ``out[:t1-t0]`` with ``E[i, l] = sum_{a in a(x,i)} v(i, a) W[a, l]``.

    Parameters
    ----------
    tok_ptr, ent_lo, ent_n, t0, t1, feat_label, w, out
        As :func:`chaintag.decoding.scoring.emission_scores`.
    ent_val : float64 array, shape (n_entries,)
        Value of every (token, attribute) entry.
    """
    n_labels = out.shape[1]
    for i in range(t0, t1):
        row = out[i - t0]
        for j in range(n_labels):
            row[j] = 0.0
        for k in range(tok_ptr[i], tok_ptr[i + 1]):
            lo = ent_lo[k]
            n = ent_n[k]
            v = ent_val[k]
            for f in range(lo, lo + n):
                row[feat_label[f]] += v * w[f]


@njit(cache=True)
def tag_corpus_valued(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """Viterbi labels of every sentence (into ``out``, shape (n_tokens,)) with valued entries."""
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    delta = np.zeros((m, n_labels))
    back = np.zeros((m, n_labels), dtype=np.int32)
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 > t0:
            emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
            viterbi_kernel(E[:t1 - t0], trans, start, end, out[t0:t1], delta, back)


@njit(cache=True)
def nbest_corpus_valued(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, k, out_paths,
                        out_scores, out_found):
    """Exact top-k (A*) of every sentence with valued entries; as :func:`chaintag.decoding.nbest.nbest_corpus`."""
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
        emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
        ws = nbest_into(E[:t1 - t0], trans, start, end, k, s, t0, paths, scores, ws, out_paths, out_scores, out_found)


@njit(cache=True)
def marginals_corpus_valued(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """Forward-backward token marginals (into ``out``, shape (n_tokens, n_labels)) with valued entries."""
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    pe = np.zeros((m, n_labels))
    alpha = np.zeros((m, n_labels))
    beta = np.zeros((m, n_labels))
    marg = np.zeros((m, n_labels))
    pt = np.zeros((n_labels, n_labels))
    pair = np.zeros((n_labels, n_labels))
    scale = np.zeros(m)
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            continue
        emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
        forward_backward_kernel(E[:t1 - t0], trans, start, end, pe, pt, alpha, beta, scale, marg, pair)
        for i in range(t1 - t0):
            for j in range(n_labels):
                out[t0 + i, j] = marg[i, j]
