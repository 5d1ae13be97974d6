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
from numba import njit, prange

from .forward_backward import forward_backward_kernel
from .nbest import astar_workspace, nbest_into
from .scoring import (SENTENCES_PER_CHUNK, _viterbi_work, chunk_bounds, four_full_rows, max_sentence_length,
                      weight_views)
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
        k = tok_ptr[i]
        k_end = tok_ptr[i + 1]
        while k < k_end:
            if four_full_rows(ent_n, k, k_end, n_labels):
                # four full rows (dense attributes hold every label; the "all" feature space): the
                # labels are contiguous, 0..L-1 from ent_lo; the sums are added in entry order, as below
                w0 = w[ent_lo[k]:ent_lo[k] + n_labels]
                w1 = w[ent_lo[k + 1]:ent_lo[k + 1] + n_labels]
                w2 = w[ent_lo[k + 2]:ent_lo[k + 2] + n_labels]
                w3 = w[ent_lo[k + 3]:ent_lo[k + 3] + n_labels]
                v0 = ent_val[k]
                v1 = ent_val[k + 1]
                v2 = ent_val[k + 2]
                v3 = ent_val[k + 3]
                for j in range(n_labels):
                    row[j] = (((row[j] + v0 * w0[j]) + v1 * w1[j]) + v2 * w2[j]) + v3 * w3[j]
                k += 4
                continue
            lo = ent_lo[k]
            n = ent_n[k]
            v = ent_val[k]
            if n == n_labels:
                wr = w[lo:lo + n_labels]
                for j in range(n_labels):
                    row[j] += v * wr[j]
            else:
                for f in range(lo, lo + n):
                    row[feat_label[f]] += v * w[f]
            k += 1


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


@njit(cache=True, parallel=True)
def tag_corpus_valued_parallel(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """:func:`tag_corpus_valued` on ``numba.get_num_threads()`` threads.

    As :func:`chaintag.decoding.scoring.tag_corpus`: ``numba.prange`` over chunks of
    :data:`chaintag.decoding.scoring.SENTENCES_PER_CHUNK` sentences, each chunk with its own work
    arrays; every sentence is decoded exactly as alone, so ``out`` is the same as
    :func:`tag_corpus_valued`'s whatever the number of threads.
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    n_sent = sent_ptr.shape[0] - 1
    n_chunks = (n_sent + SENTENCES_PER_CHUNK - 1) // SENTENCES_PER_CHUNK
    for c in prange(n_chunks):
        s0, s1, m = chunk_bounds(sent_ptr, c)
        E, delta, back = _viterbi_work(m, n_labels)
        for s in range(s0, s1):
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
