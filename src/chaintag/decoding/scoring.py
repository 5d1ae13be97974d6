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

from typing import NamedTuple

import numpy as np
from .._jit import njit, prange

from .viterbi import viterbi_kernel

NO_VALUES = np.zeros(0)
"""The value array of a corpus of 0/1 attributes: empty, every entry counts 1.0."""


class CorpusArrays(NamedTuple):
    """The arrays of a corpus that the compiled kernels read, passed to them as one argument.

    A named tuple of arrays, which numba takes as a heterogeneous tuple (its
    fields are read by name inside the kernels, and a kernel taking one is
    cached like any other). Build one with :func:`corpus_arrays`.

    Attributes
    ----------
    sent_ptr : int64 array, shape (n_sentences + 1,)
        Tokens ``sent_ptr[s]:sent_ptr[s+1]`` make sentence ``s``.
    tok_ptr : int64 array, shape (n_tokens + 1,)
        Entries ``tok_ptr[i]:tok_ptr[i+1]`` are the (token, attribute) entries of token ``i``.
    ent_lo, ent_n : integer arrays, shape (n_entries,)
        Feature range of every entry (:func:`feature_entries`).
    ent_val : float64 array, shape (n_entries,) or (0,)
        Value of every entry; EMPTY for a corpus of 0/1 attributes (every entry counts 1.0).
    gold : int32 array, shape (n_tokens,) or (0,)
        Gold label ids (empty when tagging).
    gold_feat : integer array, shape (n_entries,) or (0,)
        Feature of (attribute, gold label) of every entry, -1 when absent
        (:func:`chaintag.learners.perceptron_kernels.gold_feature_ids`; empty unless a learner reads it).
    feat_label : int32 array, shape (n_features,)
        Label of every feature (ascending within an attribute).
    """

    sent_ptr: np.ndarray
    tok_ptr: np.ndarray
    ent_lo: np.ndarray
    ent_n: np.ndarray
    ent_val: np.ndarray
    gold: np.ndarray
    gold_feat: np.ndarray
    feat_label: np.ndarray


def corpus_arrays(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, gold=None, gold_feat=None) -> CorpusArrays:
    """The :class:`CorpusArrays` of a corpus; missing parts become empty arrays of their dtype.

    Parameters
    ----------
    sent_ptr, tok_ptr, ent_lo, ent_n, feat_label :
        As :class:`CorpusArrays`.
    ent_val : float64 array or None
        None (or an empty array) for 0/1 attributes.
    gold : int32 array, optional
    gold_feat : integer array, optional
        Of the dtype of ``ent_lo`` (empty of that dtype when omitted).
    """
    return CorpusArrays(sent_ptr, tok_ptr, ent_lo, ent_n,
                        NO_VALUES if ent_val is None else np.ascontiguousarray(ent_val, dtype=np.float64),
                        np.zeros(0, dtype=np.int32) if gold is None else gold,
                        np.zeros(0, dtype=ent_lo.dtype) if gold_feat is None else gold_feat, feat_label)


def entry_values(attrs) -> np.ndarray:
    """The ``ent_val`` of the kernels for extracted attributes: their ``attr_values`` (float64, one per
    entry) when the tokens carry values, else :data:`NO_VALUES` (0/1 attributes)."""
    values = getattr(attrs, "attr_values", None)
    return NO_VALUES if values is None else np.ascontiguousarray(values, dtype=np.float64)


@njit(cache=True)
def tagging_arrays(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label):
    """:class:`CorpusArrays` without gold labels (for decoding), built inside compiled code."""
    return CorpusArrays(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, np.zeros(0, dtype=np.int32), ent_lo[:0],
                        feat_label)


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


@njit(cache=True, inline="always")
def entry_value(ent_val, valued, k):
    """Value of entry ``k``: ``ent_val[k]``, or 1.0 for a corpus of 0/1 attributes (``valued`` False).

    Callers test ``valued`` (``ent_val.shape[0] > 0``) once, out of their loops, and pass it as a
    constant to an inlined body, so that the 0/1 case compiles without the reads (``1.0 * x`` is
    ``x`` exactly, so both cases give the sums of the same additions in the same order).
    """
    return ent_val[k] if valued else 1.0


@njit(cache=True, inline="always")
def _emission_rows(tok_ptr, ent_lo, ent_n, ent_val, valued, t0, t1, feat_label, w, out):
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
                # labels are contiguous, 0..L-1 from ent_lo; added in entry order as below (the same
                # sums), in one sweep over the labels
                w0 = w[ent_lo[k]:ent_lo[k] + n_labels]
                w1 = w[ent_lo[k + 1]:ent_lo[k + 1] + n_labels]
                w2 = w[ent_lo[k + 2]:ent_lo[k + 2] + n_labels]
                w3 = w[ent_lo[k + 3]:ent_lo[k + 3] + n_labels]
                v0 = entry_value(ent_val, valued, k)
                v1 = entry_value(ent_val, valued, k + 1)
                v2 = entry_value(ent_val, valued, k + 2)
                v3 = entry_value(ent_val, valued, k + 3)
                for j in range(n_labels):
                    row[j] = (((row[j] + v0 * w0[j]) + v1 * w1[j]) + v2 * w2[j]) + v3 * w3[j]
                k += 4
                continue
            lo = ent_lo[k]
            n = ent_n[k]
            v = entry_value(ent_val, valued, k)
            if n == n_labels:
                # a full row: contiguous labels 0..L-1
                wr = w[lo:lo + n_labels]
                for j in range(n_labels):
                    row[j] += v * wr[j]
            else:
                for f in range(lo, lo + n):
                    row[feat_label[f]] += v * w[f]
            k += 1


@njit(cache=True)
def emission_scores(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, out):
    """Fill ``out[:t1-t0]`` with ``E[i, l] = sum_{a in a(x,i)} v(i, a) W[a, l]``.

    Parameters
    ----------
    tok_ptr : int64 array, shape (n_tokens + 1,)
    ent_lo, ent_n : integer arrays, shape (n_entries,)
        From :func:`feature_entries`.
    ent_val : float64 array, shape (n_entries,) or (0,)
        Value ``v(i, a)`` of every (token, attribute) entry (feature-dict numbers, word vectors);
        empty for 0/1 attributes, where every entry counts 1.0 (:data:`NO_VALUES`).
    t0, t1 : int
        Token range of one sentence.
    feat_label : int32 array, shape (n_features,)
    w : float array, shape (n_weights,)
    out : float64 array, shape (>= t1 - t0, n_labels)

    Notes
    -----
    Each row is the sum of its entries' contributions in entry order, whatever the path (four full
    rows in one sweep, one full row, a partial row), so the sums are those of a plain loop, bit for
    bit; with 0/1 attributes ``1.0 * W`` is ``W`` exactly.
    """
    if ent_val.shape[0] == 0:
        _emission_rows(tok_ptr, ent_lo, ent_n, ent_val, False, t0, t1, feat_label, w, out)
    else:
        _emission_rows(tok_ptr, ent_lo, ent_n, ent_val, True, t0, t1, feat_label, w, out)


@njit(cache=True)
def sentence_emissions(c, t0, t1, w, out):
    """:func:`emission_scores` of the tokens ``t0:t1`` of the :class:`CorpusArrays` ``c``."""
    emission_scores(c.tok_ptr, c.ent_lo, c.ent_n, c.ent_val, t0, t1, c.feat_label, w, out)


@njit(cache=True, inline="always")
def find_feature(feat_label, lo, n, label):
    """Index of the feature with ``label`` in ``lo .. lo+n``, or -1.

    A row holds each label at most once, in ascending order, or is a full row
    (:mod:`chaintag.features.dense_rows`: ``label`` at ``lo + label`` when it has a feature, the
    absent label ``-1`` elsewhere). Position ``lo + label`` is tried first: it holds ``label``
    (every full row that has it, and the sparse rows whose labels start at 0) or, in a full row
    only, the absent label (no feature); else a binary search of the sparse row.
    """
    if label < n:
        held = feat_label[lo + label]
        if held == label:
            return lo + label
        if held == -1:  # an absent label of a full row (a sparse row holds labels only)
            return -1
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
def max_sentence_entries(sent_ptr, tok_ptr):
    """Largest number of (token, attribute) entries in a sentence (0 for an empty corpus)."""
    best = 0
    for s in range(sent_ptr.shape[0] - 1):
        n = tok_ptr[sent_ptr[s + 1]] - tok_ptr[sent_ptr[s]]
        if n > best:
            best = n
    return best


@njit(cache=True)
def tag_corpus_serial(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
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
        emission_scores(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
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
def tag_corpus(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """Viterbi-decode every sentence; label ids into ``out`` (shape (n_tokens,)).

    ``ent_val`` holds the value of every entry, or is empty for 0/1 attributes
    (:func:`emission_scores`); the other arrays are those of :class:`CorpusArrays`.

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
            emission_scores(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
            scores[s] = viterbi_kernel(E[:t1 - t0], trans, start, end, out[t0:t1], delta, back)
    total = 0.0
    for s in range(n_sent):
        total += scores[s]
    return total
