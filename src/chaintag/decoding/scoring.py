"""Compiled emission scoring and corpus-wide tagging.

The kernels read a corpus as *feature entries*: for every (token, attribute)
entry of the CSR attribute arrays, the range of that attribute's features,
``ent_lo[k] .. ent_lo[k] + ent_n[k]`` (see :func:`feature_entries`). This
saves one random memory access per entry over looking the attribute up in
``feat_ptr`` (about a third of the emission time on CoNLL-2000).

Flat weight layout (see :mod:`chaintag.features.space`): ``w[0:F]`` features,
``w[F:F+L*L]`` transitions ``[prev, cur]``, then ``L`` start and ``L`` end
weights.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .viterbi import viterbi_kernel


@njit(cache=True)
def _fill_entries(attr_ids, feat_ptr, ent_lo, ent_n):
    for k in range(attr_ids.shape[0]):
        a = attr_ids[k]
        ent_lo[k] = feat_ptr[a]
        ent_n[k] = feat_ptr[a + 1] - feat_ptr[a]


def feature_entries(attr_ids, feat_ptr, n_labels: int | None = None):
    """First feature and number of features of every CSR attribute entry.

    Parameters
    ----------
    attr_ids : int32 array, shape (n_entries,)
    feat_ptr : int64 array, shape (n_attributes + 1,)
    n_labels : int, optional
        Bounds ``ent_n``; picks its dtype (int16 when below 32768).

    Returns
    -------
    ent_lo : int32 array (int64 beyond 2**31 - 1 features), shape (n_entries,)
    ent_n : int16 or int32 array, shape (n_entries,)
    """
    n = len(attr_ids)
    lo_type = np.int32 if feat_ptr[-1] < 2 ** 31 else np.int64
    n_type = np.int16 if n_labels is not None and n_labels < 2 ** 15 else np.int32
    ent_lo = np.empty(n, dtype=lo_type)
    ent_n = np.empty(n, dtype=n_type)
    _fill_entries(attr_ids, feat_ptr, ent_lo, ent_n)
    return ent_lo, ent_n


@njit(cache=True, inline="always")
def four_full_rows(ent_n, k, k_end, n_labels):
    """Whether the entries ``k .. k+3`` of a token (which ends at ``k_end``) all hold every label
    (full rows of contiguous weights, as dense attributes and the ``all`` feature space give)."""
    return (k + 4 <= k_end and ent_n[k] == n_labels and ent_n[k + 1] == n_labels
            and ent_n[k + 2] == n_labels and ent_n[k + 3] == n_labels)


@njit(cache=True, inline="always")
def chunk_bounds(sent_ptr, c):
    """Sentences ``s0:s1`` of chunk ``c`` (:data:`SENTENCES_PER_CHUNK` a chunk) and their longest
    length ``m`` (at least 1), for the parallel taggers."""
    n_sent = sent_ptr.shape[0] - 1
    s0 = c * SENTENCES_PER_CHUNK
    s1 = min(s0 + SENTENCES_PER_CHUNK, n_sent)
    m = 1
    for s in range(s0, s1):
        m = max(m, sent_ptr[s + 1] - sent_ptr[s])
    return s0, s1, m


@njit(cache=True)
def emission_scores(tok_ptr, ent_lo, ent_n, t0, t1, feat_label, w, out):
    """Fill ``out[:t1-t0]`` with ``E[i, l] = sum_{a in a(x,i)} W[a, l]``.

    Parameters
    ----------
    tok_ptr : int64 array, shape (n_tokens + 1,)
    ent_lo, ent_n : integer arrays, shape (n_entries,)
        From :func:`feature_entries`.
    t0, t1 : int
        Token range of one sentence.
    feat_label : int32 array, shape (n_features,)
    w : float array, shape (n_weights,)
    out : float64 array, shape (>= t1 - t0, n_labels)
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
                # four full rows (the "all" feature space): contiguous labels 0..L-1, added in entry
                # order as below (the same sums), in one sweep over the labels
                w0 = w[ent_lo[k]:ent_lo[k] + n_labels]
                w1 = w[ent_lo[k + 1]:ent_lo[k + 1] + n_labels]
                w2 = w[ent_lo[k + 2]:ent_lo[k + 2] + n_labels]
                w3 = w[ent_lo[k + 3]:ent_lo[k + 3] + n_labels]
                for j in range(n_labels):
                    row[j] = (((row[j] + w0[j]) + w1[j]) + w2[j]) + w3[j]
                k += 4
                continue
            lo = ent_lo[k]
            n = ent_n[k]
            if n == n_labels:
                # a full row: contiguous labels 0..L-1
                wr = w[lo:lo + n_labels]
                for j in range(n_labels):
                    row[j] += wr[j]
            else:
                for f in range(lo, lo + n):
                    row[feat_label[f]] += w[f]
            k += 1


@njit(cache=True, inline="always")
def find_feature(feat_label, lo, n, label):
    """Index of the feature with ``label`` in ``lo .. lo+n`` (labels ascending), or -1."""
    hi = lo + n
    while lo < hi:
        mid = (lo + hi) // 2
        v = feat_label[mid]
        if v < label:
            lo = mid + 1
        elif v > label:
            hi = mid
        else:
            return mid
    return -1


@njit(cache=True)
def weight_views(w, n_features, n_labels):
    """Views of the flat weight vector: ``(transitions [prev, cur], start, end)``.

    The layout is features ``w[0:F]``, transitions ``L*L``, start ``L``, end
    ``L`` (see :mod:`chaintag.features.space`); the views share ``w``'s memory.
    """
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    return w[t_off:s_off].reshape((n_labels, n_labels)), w[s_off:e_off], w[e_off:e_off + n_labels]


@njit(cache=True)
def max_sentence_length(sent_ptr):
    """Length of the longest sentence (0 for an empty corpus)."""
    best = 0
    for s in range(sent_ptr.shape[0] - 1):
        n = sent_ptr[s + 1] - sent_ptr[s]
        if n > best:
            best = n
    return best


@njit(cache=True)
def tag_corpus_serial(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels, out):
    """:func:`tag_corpus` on the calling thread alone (same labels, same total).

    For inputs of at most :data:`SENTENCES_PER_CHUNK` sentences, which
    :func:`tag_corpus` would decode as one task anyway: it does not start
    numba's thread pool, which costs more than such an input (a short
    ``chaintag tag`` run).
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E, delta, back = _viterbi_work(m, n_labels)
    total = 0.0
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, t0, t1, feat_label, w, E)
        total += viterbi_kernel(E[:t1 - t0], trans, start, end, out[t0:t1], delta, back)
    return total


@njit(cache=True)
def _viterbi_work(m, n_labels):
    """Work arrays of one parallel task, allocated in a call so that numba cannot hoist them
    out of the ``prange`` loop (hoisting would share one buffer between the threads)."""
    return np.zeros((m, n_labels)), np.zeros((m, n_labels)), np.zeros((m, n_labels), dtype=np.int32)


SENTENCES_PER_CHUNK = 64
"""Sentences decoded by one task of the parallel corpus kernels (buffers are allocated per task)."""


@njit(cache=True, parallel=True)
def tag_corpus(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels, out):
    """Viterbi-decode every sentence; label ids into ``out`` (shape (n_tokens,)).

    Sentences are decoded in parallel (``numba.prange`` over chunks of
    :data:`SENTENCES_PER_CHUNK` sentences, each with its own work arrays), on
    ``numba.get_num_threads()`` threads. Every sentence is decoded exactly as
    alone, so ``out`` does not depend on the number of threads.

    Returns
    -------
    float
        The total score of the decoded paths, summed in sentence order (the
        same value whatever the number of threads).
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    n_sent = sent_ptr.shape[0] - 1
    scores = np.zeros(max(n_sent, 1))
    n_chunks = (n_sent + SENTENCES_PER_CHUNK - 1) // SENTENCES_PER_CHUNK
    for c in prange(n_chunks):
        s0, s1, m = chunk_bounds(sent_ptr, c)
        E, delta, back = _viterbi_work(m, n_labels)
        for s in range(s0, s1):
            t0 = sent_ptr[s]
            t1 = sent_ptr[s + 1]
            if t1 == t0:
                continue
            emission_scores(tok_ptr, ent_lo, ent_n, t0, t1, feat_label, w, E)
            scores[s] = viterbi_kernel(E[:t1 - t0], trans, start, end, out[t0:t1], delta, back)
    total = 0.0
    for s in range(n_sent):
        total += scores[s]
    return total
