"""SAPO epochs with real-valued attributes on several threads (Hogwild).

The parallel pass of :func:`chaintag.learners.hogwild_kernels.sapo_epoch_hogwild`
(lock-free shared weights, Niu, Recht, Re and Wright, NIPS 2011; the SAPO
authors, Sun et al., trained lock-free the same way) for entries that carry a
value: each thread searches and updates its samples with
:func:`chaintag.learners.sapo_valued_kernels._sapo_piece_valued`. Dense
attributes such as word vectors touch many weights per token, but each
update still touches only the rows of the labels where a candidate differs
from the gold, so two threads seldom write the same weight at once.

The clock, the learning rates and the scales are those of the unvalued pass
(:func:`chaintag.learners.hogwild_kernels.sapo_scales`). With ``n_parts = 1``
the pass does what :func:`chaintag.learners.sapo_valued_kernels.sapo_epoch_valued`
does (not averaged, whole sentences), bit for bit; on several threads the
result depends on the interleaving.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..decoding.nbest import astar_workspace
from .hogwild_kernels import clock, ordered_sum, sapo_pass_state, sapo_work
from .sapo_valued_kernels import _sapo_piece_valued


@njit(cache=True)
def label_work(n_labels):
    """Per-thread work arrays of the valued update: ``(labs, coefs)``, zeroed (allocated in a call,
    see :func:`chaintag.learners.hogwild_kernels.viterbi_work`)."""
    return np.zeros(n_labels, dtype=np.int64), np.zeros(n_labels)


@njit(cache=True, parallel=True)
def sapo_epoch_valued_hogwild(order, sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, v, gammas,
                              sigmas, n_labels, n_best, use_beam, beam_width, stop_gap, n_parts):
    """One SAPO pass with valued entries (not averaged, whole sentences) on ``n_parts`` threads sharing ``v``.

    Parameters
    ----------
    order, sent_ptr, tok_ptr, ent_lo, ent_n, gold, feat_label, v, n_labels, n_best, use_beam,
    beam_width, stop_gap :
        As in :func:`chaintag.learners.sapo_kernels.sapo_epoch`.
    ent_val : float64 array, shape (n_entries,)
        Value of every (token, attribute) entry.
    gammas, sigmas : float64 arrays
        From :func:`chaintag.learners.hogwild_kernels.sapo_scales` (the scale must not need a fold
        within the pass).
    n_parts : int
        Threads (blocks of the order dealt out in turn).

    Returns
    -------
    n_updates, n_errors : int
    loss : float
        Summed in sample order.
    """
    n, parts, updates, errors, losses, m, done = sapo_pass_state(order, sent_ptr, n_parts)
    u = np.zeros(1)
    for p in prange(parts):
        E, C, CT, CS, CE, paths, scores, probs = sapo_work(m, n_labels, n_best)
        labs, coefs = label_work(n_labels)
        ws = astar_workspace(m, n_labels, n_best, 0)
        for k in range(p, n, parts):
            s = order[k]
            if sent_ptr[s + 1] == sent_ptr[s]:
                done[p] += 1
                continue
            c = min(clock(done), n - 1)
            touched, err, loss, ws = _sapo_piece_valued(
                sent_ptr[s], sent_ptr[s + 1], tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, v, u,
                sigmas[c], gammas[c], n_labels, n_best, use_beam, beam_width, stop_gap, False, 0.0, E, C, CT,
                CS, CE, paths, scores, probs, ws, labs, coefs)
            if touched:
                updates[p] += 1
            errors[p] += err
            losses[k] = loss
            done[p] += 1
    return updates.sum(), errors.sum(), ordered_sum(losses, n)
