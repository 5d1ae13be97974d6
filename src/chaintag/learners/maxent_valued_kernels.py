"""The max-ent tagger's compiled decoding with real-valued attributes.

Counterparts of :func:`chaintag.learners.maxent_kernels.tag_corpus_local`
and :func:`~chaintag.learners.maxent_kernels.marginals_corpus_local` whose
emissions are ``sum v W[a, l]`` over valued entries
(:func:`chaintag.decoding.valued.emission_scores_valued`); the local
normalization and the Viterbi over local probabilities are the same kernels
(Ratnaparkhi 1996, s. 2 and 4). Used only for corpora with a value other
than 1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..decoding.scoring import max_sentence_length, weight_views
from ..decoding.valued import emission_scores_valued
from .maxent_kernels import local_marginals_kernel, local_viterbi_kernel


@njit(cache=True)
def tag_corpus_local_valued(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """:func:`~chaintag.learners.maxent_kernels.tag_corpus_local` with ``ent_val`` (float64, per entry)."""
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
        emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
        total += local_viterbi_kernel(E[:t1 - t0], trans, start, out[t0:t1], delta, back)
    return total


@njit(cache=True)
def marginals_corpus_local_valued(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """:func:`~chaintag.learners.maxent_kernels.marginals_corpus_local` with ``ent_val``."""
    trans, start, _ = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            continue
        emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
        local_marginals_kernel(E[:t1 - t0], trans, start, out[t0:t1])
