"""Compiled decoding of the maximum-entropy tagger (:mod:`chaintag.learners.maxent`).

Viterbi and forward-backward over products of local probabilities
``P(l | x, i, prev) = exp(E[i, l] + U[prev, l]) / sum_k exp(E[i, k] + U[prev, k])``,
whose normalizer depends on the position and the previous label (Ratnaparkhi
1996; the baseline of Collins 2002, s. 4), with a numpy reference of the
local log-probabilities.
"""

from __future__ import annotations

import math

import numpy as np
from .._jit import njit

from ..decoding.scoring import emission_scores, max_sentence_length, weight_views

__all__ = ["local_viterbi_kernel", "tag_corpus_local", "local_marginals_kernel", "marginals_corpus_local",
           "local_log_proba"]


# ------------------------------------------------------------------ decoding
@njit(cache=True)
def _local_normalizer(emissions, transitions, i, k):
    """``(m, z)`` with ``log sum_j exp(E[i, j] + U[k, j]) = m + log z`` (the local
    log-normalizer of ``P(. | prev = k)`` at token ``i``, shifted by its maximum ``m``)."""
    n_labels = emissions.shape[1]
    m = -np.inf
    for j in range(n_labels):
        v = emissions[i, j] + transitions[k, j]
        if v > m:
            m = v
    z = 0.0
    for j in range(n_labels):
        z += math.exp(emissions[i, j] + transitions[k, j] - m)
    return m, z


@njit(cache=True)
def local_viterbi_kernel(emissions, transitions, start, path, delta, back):
    """Most probable label sequence of one sentence under a locally normalized model.

    Parameters
    ----------
    emissions : float64 array, shape (n_tokens, n_labels)
        ``E[i, l]``, unnormalized (attribute weights summed).
    transitions : float64 array, shape (n_labels, n_labels)
        Previous-label weights ``U[prev, cur]``.
    start : float64 array, shape (n_labels,)
        Weights of the sentence start as previous label (first token).
    path : int32 array, shape (>= n_tokens,)
        Receives the label ids.
    delta : float64 work array, shape (>= n_tokens, n_labels)
    back : int32 work array, shape (>= n_tokens, n_labels)

    Returns
    -------
    float
        Log-probability of the best path, ``sum_i log P(t_i | t_{i-1}, x, i)`` (<= 0).

    Notes
    -----
    ``O(T L^2)`` time: for each token and previous label, one log-sum-exp
    over the labels (computed with its maximum subtracted). Ties go to the
    lower label index, both for back-pointers and for the final label.
    """
    n_tokens, n_labels = emissions.shape
    if n_tokens == 0:
        return 0.0
    # first token: the previous label is the sentence start
    m = -np.inf
    for j in range(n_labels):
        v = emissions[0, j] + start[j]
        if v > m:
            m = v
    z = 0.0
    for j in range(n_labels):
        z += math.exp(emissions[0, j] + start[j] - m)
    log_z = m + math.log(z)
    for j in range(n_labels):
        delta[0, j] = emissions[0, j] + start[j] - log_z
    for i in range(1, n_tokens):
        for j in range(n_labels):
            delta[i, j] = -np.inf
            back[i, j] = 0
        for k in range(n_labels):
            m, z = _local_normalizer(emissions, transitions, i, k)
            base = delta[i - 1, k] - (m + math.log(z))
            for j in range(n_labels):
                v = base + emissions[i, j] + transitions[k, j]
                if v > delta[i, j]:
                    delta[i, j] = v
                    back[i, j] = k
    last = n_tokens - 1
    best = delta[last, 0]
    arg = 0
    for j in range(1, n_labels):
        if delta[last, j] > best:
            best = delta[last, j]
            arg = j
    path[last] = arg
    for i in range(last, 0, -1):
        path[i - 1] = back[i, path[i]]
    return best


@njit(cache=True)
def tag_corpus_local(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """Decode every sentence with :func:`local_viterbi_kernel`; label ids into ``out``.

    Parameters
    ----------
    sent_ptr : int64 array, shape (n_sentences + 1,)
    tok_ptr : int64 array, shape (n_tokens + 1,)
    ent_lo, ent_n : integer arrays, shape (n_entries,)
        Feature range of every attribute entry
        (:func:`chaintag.decoding.scoring.feature_entries`).
    ent_val : float64 array, shape (n_entries,) or (0,)
        Value of every entry (emissions ``sum v W[a, l]``); empty for 0/1 attributes.
    feat_label : int32 array, shape (n_features,)
    w : float64 array, shape (n_weights,)
        Flat weights: features, transitions ``[prev, cur]``, start, end (end unused).
    n_labels : int
    out : int32 array, shape (n_tokens,)

    Returns
    -------
    float
        Summed log-probability of the decoded paths.
    """
    trans, start, _ = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    delta = np.zeros((m, n_labels))
    back = np.zeros((m, n_labels), dtype=np.int32)
    total = 0.0
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
        total += local_viterbi_kernel(E[:t1 - t0], trans, start, out[t0:t1], delta, back)
    return total


@njit(cache=True)
def local_marginals_kernel(emissions, transitions, start, out):
    """Token marginals ``P(t_i = l | x)`` of one sentence under a locally normalized model.

    Parameters
    ----------
    emissions : float64 array, shape (n_tokens, n_labels)
    transitions : float64 array, shape (n_labels, n_labels), ``[prev, cur]``
    start : float64 array, shape (n_labels,)
    out : float64 array, shape (>= n_tokens, n_labels)
        Receives the marginals; each row sums to 1.

    Notes
    -----
    The model is a product of conditional distributions read left to right,
    so a forward pass is exact (no backward pass, no partition function):
    ``P(t_i = l) = sum_{l'} P(t_{i-1} = l') P(l | x, i, prev=l')``. ``O(T L^2)``.
    """
    n_tokens, n_labels = emissions.shape
    if n_tokens == 0:
        return
    m = -np.inf
    for j in range(n_labels):
        v = emissions[0, j] + start[j]
        if v > m:
            m = v
    z = 0.0
    for j in range(n_labels):
        out[0, j] = math.exp(emissions[0, j] + start[j] - m)
        z += out[0, j]
    for j in range(n_labels):
        out[0, j] /= z
    for i in range(1, n_tokens):
        for j in range(n_labels):
            out[i, j] = 0.0
        for k in range(n_labels):
            p_prev = out[i - 1, k]
            if p_prev == 0.0:
                continue
            m, z = _local_normalizer(emissions, transitions, i, k)
            scale = p_prev / z
            for j in range(n_labels):
                out[i, j] += scale * math.exp(emissions[i, j] + transitions[k, j] - m)


@njit(cache=True)
def marginals_corpus_local(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """:func:`local_marginals_kernel` for every sentence; ``out`` has shape (n_tokens, n_labels).

    Same arrays as :func:`tag_corpus_local`.
    """
    trans, start, _ = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
        local_marginals_kernel(E[:t1 - t0], trans, start, out[t0:t1])


def local_log_proba(emissions, transitions, start, prev):
    """Local log-probabilities ``log P(l | x, i, prev_i)`` (numpy reference).

    Parameters
    ----------
    emissions : float array, shape (n_tokens, n_labels)
    transitions : float array, shape (n_labels, n_labels), ``[prev, cur]``
    start : float array, shape (n_labels,)
    prev : int array, shape (n_tokens,)
        Previous label of each token; ``-1`` (or ``n_labels``) for the sentence start.

    Returns
    -------
    float64 array, shape (n_tokens, n_labels)
        Each row log-normalized (``logsumexp`` of a row is 0).
    """
    emissions = np.asarray(emissions, dtype=np.float64)
    n_labels = emissions.shape[1]
    prev = np.asarray(prev, dtype=np.int64)
    rows = np.vstack([np.asarray(transitions, dtype=np.float64), np.asarray(start, dtype=np.float64)[None]])
    scores = emissions + rows[np.where(prev < 0, n_labels, prev)]
    m = scores.max(axis=1, keepdims=True)
    return scores - (m + np.log(np.exp(scores - m).sum(axis=1, keepdims=True)))
