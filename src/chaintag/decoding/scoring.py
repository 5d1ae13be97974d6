"""Compiled emission scoring and corpus-wide tagging over CSR attributes.

Flat weight layout (see :mod:`chaintag.features.space`): ``w[0:F]`` features,
``w[F:F+L*L]`` transitions ``[prev, cur]``, then ``L`` start and ``L`` end
weights.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .viterbi import viterbi_kernel


@njit(cache=True, fastmath=True)
def emission_scores(tok_ptr, attr_ids, t0, t1, feat_ptr, feat_label, w, out):
    """Fill ``out[:t1-t0]`` with ``E[i, l] = sum_{a in a(x,i)} W[a, l]``.

    Parameters
    ----------
    tok_ptr : int64 array, shape (n_tokens + 1,)
    attr_ids : int32 array, shape (n_entries,)
    t0, t1 : int
        Token range of one sentence.
    feat_ptr : int64 array, shape (n_attributes + 1,)
    feat_label : int32 array, shape (n_features,)
    w : float64 array, shape (n_weights,)
    out : float64 array, shape (>= t1 - t0, n_labels)
    """
    n_labels = out.shape[1]
    for i in range(t0, t1):
        row = i - t0
        for j in range(n_labels):
            out[row, j] = 0.0
        for k in range(tok_ptr[i], tok_ptr[i + 1]):
            a = attr_ids[k]
            lo = feat_ptr[a]
            hi = feat_ptr[a + 1]
            if hi - lo == n_labels:
                # a full row (the "all" feature space): contiguous, vectorizable
                for j in range(n_labels):
                    out[row, j] += w[lo + j]
            else:
                for f in range(lo, hi):
                    out[row, feat_label[f]] += w[f]


@njit(cache=True)
def find_feature(feat_ptr, feat_label, a, label):
    """Index of feature (attribute ``a``, ``label``), or -1 (binary search)."""
    lo = feat_ptr[a]
    hi = feat_ptr[a + 1]
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
def max_sentence_length(sent_ptr):
    """Length of the longest sentence (0 for an empty corpus)."""
    best = 0
    for s in range(sent_ptr.shape[0] - 1):
        n = sent_ptr[s + 1] - sent_ptr[s]
        if n > best:
            best = n
    return best


@njit(cache=True)
def tag_corpus(sent_ptr, tok_ptr, attr_ids, feat_ptr, feat_label, w, n_labels, out):
    """Viterbi-decode every sentence; label ids into ``out`` (shape (n_tokens,)).

    Returns the total score of the decoded paths.
    """
    n_features = feat_label.shape[0]
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    trans = w[t_off:s_off].reshape((n_labels, n_labels))
    start = w[s_off:e_off]
    end = w[e_off:e_off + n_labels]
    m = max_sentence_length(sent_ptr)
    E = np.zeros((max(m, 1), n_labels))
    delta = np.zeros((max(m, 1), n_labels))
    back = np.zeros((max(m, 1), n_labels), dtype=np.int32)
    total = 0.0
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            continue
        emission_scores(tok_ptr, attr_ids, t0, t1, feat_ptr, feat_label, w, E)
        total += viterbi_kernel(E[:t1 - t0], trans, start, end, out[t0:t1], delta, back)
    return total
