"""Epochs on several threads: lock-free shared weights (Hogwild), for the perceptron and SAPO.

The sentences of an epoch, in visiting order, are dealt out to ``n_parts``
threads in turn (thread ``p`` takes positions ``p, p + n_parts, ...``;
``numba.prange``, one parallel region per epoch). Every thread decodes its sentences against the one shared weight
vector and writes its updates into it without locks, as in Hogwild (Niu,
Recht, Re and Wright, NIPS 2011; the SAPO authors trained lock-free on many
threads in the same manner). The updates are sparse, so two threads seldom
write the same weight at once; a lost write drops part of one update, which
the analysis of Hogwild tolerates for sparse problems.

What depends on time within the pass reads a shared clock: ``c``, the
number of samples all threads have completed (:func:`clock`, each thread
counting its own). An update applied at clock ``c`` is the update of step
``step + c`` of a serial pass: the perceptron's lazy averaging adds
``(step + c) * d`` to ``u``, so every update counts in the averaged weights
for the steps after the moment it was really applied (labelling it by the
sample's place in the order instead would count a thread's updates as if the
other threads' had all come first, and degrades the average: 91.7 against
94.1 dev F1 on CoNLL-2000 in a test). SAPO's learning rate and scale
``sigma`` are functions of the step known in advance,
``sigma_c = sigma_0 prod_{j<c} (1 - gamma_j lambda / |S|)`` (:func:`sapo_scales`).

Every thread runs the serial learners' step code
(:func:`chaintag.learners.perceptron_kernels.perceptron_update`,
:func:`chaintag.learners.sapo_kernels.sapo_piece`) on the corpus's
:class:`chaintag.decoding.scoring.CorpusArrays`, with 0/1 attributes (empty
``ent_val``) or attributes with values alike. With ``n_parts = 1`` the clock
is the sample's position and these kernels do exactly what the serial
kernels do, bit for bit. On several threads the
result depends on the interleaving and is not reproducible bit for bit; the
learners run the serial kernels when one thread is asked for.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit, prange

from ..decoding.nbest import astar_workspace
from ..decoding.scoring import max_sentence_length, sentence_emissions, weight_views
from ..decoding.viterbi import viterbi_kernel
from .path_kernels import difference_work
from .perceptron_kernels import hamming, perceptron_update
from .sapo_kernels import sapo_piece


@njit(cache=True)
def viterbi_work(m, n_labels):
    """Per-thread work arrays of a Viterbi pass: ``(E, delta, back, pred)``, zeroed.

    Allocated in a called function, not in the ``prange`` body, so that numba
    does not hoist the allocation out of the parallel loop (which would share
    one buffer between the threads).
    """
    return (np.zeros((m, n_labels)), np.zeros((m, n_labels)), np.zeros((m, n_labels), dtype=np.int32),
            np.zeros(m, dtype=np.int32))


@njit(cache=True)
def sapo_work(m, n_labels, n_best):
    """Per-thread work arrays of SAPO: ``(E, C, CT, CS, CE, paths, scores, probs)``, zeroed
    (see :func:`viterbi_work` on why they come from a call)."""
    return (np.zeros((m, n_labels)), np.zeros((m, n_labels)), np.zeros((n_labels, n_labels)),
            np.zeros(n_labels), np.zeros(n_labels), np.zeros((n_best, m), dtype=np.int32), np.zeros(n_best),
            np.zeros(n_best))


@njit(cache=True)
def clock(done):
    """Samples of the pass completed so far by all threads (``done[p]``: thread ``p``'s count).

    Read without locks while the threads write their own counts: a reading
    may lag behind by a sample or two, never by a thread's whole block.
    """
    c = 0
    for q in range(done.shape[0]):
        c += done[q]
    return c


@njit(cache=True, parallel=True)
def perceptron_epoch_hogwild(order, c, w, u, step, n_labels, averaged, n_parts):
    """One perceptron pass on ``n_parts`` threads sharing ``w`` and ``u`` without locks.

    Parameters and returns as :func:`chaintag.learners.perceptron_kernels.perceptron_epoch`,
    plus ``n_parts`` (int >= 1): the blocks of the order run in parallel.
    """
    trans, start, end = weight_views(w, c.feat_label.shape[0], n_labels)
    sent_ptr = c.sent_ptr
    gold = c.gold
    n = order.shape[0]
    parts = max(min(n_parts, n), 1)
    updates = np.zeros(parts, dtype=np.int64)
    errors = np.zeros(parts, dtype=np.int64)
    m = max(max_sentence_length(sent_ptr), 1)
    done = np.zeros(parts, dtype=np.int64)
    for p in prange(parts):
        E, delta, back, pred = viterbi_work(m, n_labels)
        idx, val = difference_work(c)
        for k in range(p, n, parts):
            s = order[k]
            t0 = sent_ptr[s]
            t1 = sent_ptr[s + 1]
            if t1 > t0:
                sentence_emissions(c, t0, t1, w, E)
                viterbi_kernel(E[:t1 - t0], trans, start, end, pred, delta, back)
                wrong = hamming(t0, t1, gold, pred)
                if wrong > 0:
                    updates[p] += 1
                    errors[p] += wrong
                    perceptron_update(c, t0, t1, pred, w, u, step + clock(done), n_labels, averaged, 1.0, idx,
                                      val)
            done[p] += 1
    return updates.sum(), errors.sum(), step + n


@njit(cache=True)
def sapo_scales(n, sigma, step, lr0, lr_decay, l2, n_train, l2_per_sample):
    """Learning rates and scales of the next ``n`` SAPO samples, as the serial pass computes them.

    Returns
    -------
    gammas : float64 array, shape (n,)
        ``gamma`` of sample ``k`` (step ``step + k``).
    sigmas : float64 array, shape (n + 1,)
        ``sigmas[k]``: the scale when sample ``k`` is searched and updated;
        ``sigmas[n]``: the scale after the pass (no fold applied).
    """
    gammas = np.empty(n)
    sigmas = np.empty(n + 1)
    sigmas[0] = sigma
    for k in range(n):
        t = step + k
        gamma = lr0 / (1.0 + t / n_train) if lr_decay else lr0
        gammas[k] = gamma
        shrink = 1.0 - gamma * l2 / n_train if l2 > 0.0 and l2_per_sample else 1.0
        sigma *= shrink
        sigmas[k + 1] = sigma
    return gammas, sigmas


@njit(cache=True)
def sapo_pass_state(order, sent_ptr, n_parts):
    """What a lock-free SAPO pass keeps: ``(n, parts, updates, errors, losses, m, done)``: the samples,
    the threads (at most one a sample, at least one), per-thread update and error counts, the loss of
    every sample (summed in sample order at the end), the longest sentence and the per-thread count of
    samples done (the shared clock)."""
    n = order.shape[0]
    parts = max(min(n_parts, n), 1)
    return (n, parts, np.zeros(parts, dtype=np.int64), np.zeros(parts, dtype=np.int64), np.zeros(max(n, 1)),
            max(max_sentence_length(sent_ptr), 1), np.zeros(parts, dtype=np.int64))


@njit(cache=True)
def ordered_sum(values, n):
    """``values[0] + ... + values[n-1]`` added in that order (the serial pass's order)."""
    total = 0.0
    for k in range(n):
        total += values[k]
    return total


@njit(cache=True, parallel=True)
def sapo_epoch_hogwild(order, c, v, gammas, sigmas, n_labels, n_best, use_beam, beam_width, stop_gap, n_parts):
    """One SAPO pass (not averaged, whole sentences) on ``n_parts`` threads sharing ``v``.

    Parameters
    ----------
    order, c, v, n_labels, n_best, use_beam, beam_width, stop_gap :
        As in :func:`chaintag.learners.sapo_kernels.sapo_epoch` (``c``: 0/1 attributes or
        attributes with values).
    gammas, sigmas : float64 arrays
        From :func:`sapo_scales` (the scale must not need a fold within the pass).
    n_parts : int

    Returns
    -------
    n_updates, n_errors : int
    loss : float
        Summed in sample order.
    """
    sent_ptr = c.sent_ptr
    n, parts, updates, errors, losses, m, done = sapo_pass_state(order, sent_ptr, n_parts)
    u = np.zeros(1)
    for p in prange(parts):
        E, C, CT, CS, CE, paths, scores, probs = sapo_work(m, n_labels, n_best)
        ws = astar_workspace(m, n_labels, n_best, 0)
        for k in range(p, n, parts):
            s = order[k]
            if sent_ptr[s + 1] == sent_ptr[s]:
                done[p] += 1
                continue
            q = min(clock(done), n - 1)
            touched, err, loss, ws = sapo_piece(
                sent_ptr[s], sent_ptr[s + 1], c, v, u, sigmas[q], gammas[q], n_labels, n_best, use_beam,
                beam_width, stop_gap, False, 0.0, E, C, CT, CS, CE, paths, scores, probs, ws)
            if touched:
                updates[p] += 1
            errors[p] += err
            losses[k] = loss
            done[p] += 1
    return updates.sum(), errors.sum(), ordered_sum(losses, n)
