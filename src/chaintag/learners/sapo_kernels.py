"""Compiled epochs of SAPO (Sun et al., Algorithm 1; ALGORITHMS.md "SAPO").

Per sample: top-n search on the current weights; probabilities
``P_k = exp(s_k) / sum_j exp(s_j)`` over the top-n (log-sum-exp); the update
``w += gamma * (Phi(x, y*) - sum_k P_k Phi(x, y_k))``; then the L2 step
``w *= 1 - gamma * lambda / |S|``.

The weights are stored as ``w = sigma * v`` (Bottou's trick): the L2 step
only multiplies the scalar ``sigma``, updates add ``delta / sigma`` to ``v``,
and ``sigma`` is folded back into ``v`` when it falls below ``1e-6``. A step
therefore costs time proportional to the weights it touches.

The update is accumulated exactly: at a position where a candidate agrees
with the gold label nothing is added, so with ``n = 1``, ``gamma = 1`` and no
regularization the update is exactly the perceptron's.

Averaging (an option, as in the authors' code) is lazy too; see
:mod:`chaintag.learners.scale_kernels`.

Attributes with values (feature-dict numbers, word vectors) take the same
code: the search scores ``sum v W[a, l]`` and the update adds ``v`` times
each coefficient to the features of an entry (an empty ``ent_val``: every
entry counts 1).
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from ..decoding.nbest import astar_nbest_retry, astar_workspace, beam_nbest_kernel
from ..decoding.scoring import entry_value, find_feature, max_sentence_length, sentence_emissions, weight_views
from .perceptron_kernels import hamming
from .scale_kernels import end_of_step

@njit(cache=True, inline="always")
def _add(v, u, f, delta, averaged, sigma_sum):
    v[f] += delta
    if averaged:
        u[f] += delta * sigma_sum


@njit(cache=True)
def topn_probabilities(scores, k, sigma, probs):
    """Scale the top-n scores (searched on ``v``) by ``sigma`` in place and put their probabilities
    over the top-n into ``probs[:k]`` (log-sum-exp); returns ``log sum_k exp(s_k)``."""
    for r in range(k):
        scores[r] *= sigma
    top = scores[0]
    z = 0.0
    for r in range(k):
        probs[r] = np.exp(scores[r] - top)
        z += probs[r]
    for r in range(k):
        probs[r] /= z
    return top + np.log(z)


@njit(cache=True)
def topn_coefficients(t0, T, gold, paths, k, probs, C, CS, CT, CE):
    """Accumulate the first-order coefficients of ``Phi(x, y*) - sum_k P_k Phi(x, y_k)`` exactly:
    ``C[i, label]`` (token ``t0 + i``), ``CS`` (start), ``CT[prev, cur]``, ``CE`` (end); a candidate
    adds nothing where it agrees with the gold. Returns whether some candidate differs at a token
    (every coefficient is zero otherwise)."""
    touched = False
    for r in range(k):
        p = probs[r]
        for i in range(T):
            y = gold[t0 + i]
            zl = paths[r, i]
            if zl != y:
                C[i, y] += p
                C[i, zl] -= p
                touched = True
            if i == 0:
                if zl != y:
                    CS[y] += p
                    CS[zl] -= p
            else:
                yp = gold[t0 + i - 1]
                zp = paths[r, i - 1]
                if yp != zp or y != zl:
                    CT[yp, y] += p
                    CT[zp, zl] -= p
        y = gold[t0 + T - 1]
        zl = paths[r, T - 1]
        if zl != y:
            CE[y] += p
            CE[zl] -= p
    return touched


@njit(cache=True)
def apply_chain_coefs(CS, CE, CT, t0, T, gold, paths, k, v, u, t_off, scale, averaged, sigma_sum):
    """Add ``scale`` times the start, end and transition coefficients to their weights (transitions
    from ``t_off``, then start, then end, as :func:`chaintag.decoding.scoring.weight_views`) and clear
    them. Only the label pairs of the gold sequence and the ``k`` candidates can hold a transition
    coefficient, so only those are visited (each weight once: distinct weights, any order)."""
    n_labels = CS.shape[0]
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    for a in range(n_labels):
        if CS[a] != 0.0:
            _add(v, u, s_off + a, scale * CS[a], averaged, sigma_sum)
            CS[a] = 0.0
        if CE[a] != 0.0:
            _add(v, u, e_off + a, scale * CE[a], averaged, sigma_sum)
            CE[a] = 0.0
    for r in range(k):
        for i in range(1, T):
            yp = gold[t0 + i - 1]
            y = gold[t0 + i]
            zp = paths[r, i - 1]
            zl = paths[r, i]
            if yp != zp or y != zl:
                if CT[yp, y] != 0.0:
                    _add(v, u, t_off + yp * n_labels + y, scale * CT[yp, y], averaged, sigma_sum)
                    CT[yp, y] = 0.0
                if CT[zp, zl] != 0.0:
                    _add(v, u, t_off + zp * n_labels + zl, scale * CT[zp, zl], averaged, sigma_sum)
                    CT[zp, zl] = 0.0


@njit(cache=True)
def topn_step(E, T, t0, gold, trans, start, end, use_beam, beam_width, n_best, stop_gap, sigma, paths, scores,
              probs, ws, C, CS, CT, CE):
    """The top-n search of one sample on its emissions ``E[:T]`` (unscaled weights), the probabilities,
    the loss and the first-order coefficients (:func:`topn_coefficients`).

    Returns
    -------
    (touched, errors, loss, k, ws)
    """
    if use_beam:
        k = beam_nbest_kernel(E[:T], trans, start, end, n_best, beam_width, paths, scores)
    else:
        k, ws = astar_nbest_retry(E[:T], trans, start, end, n_best, stop_gap / sigma, paths, scores, ws)
    log_z = topn_probabilities(scores, k, sigma, probs)
    y0 = gold[t0]
    g_score = start[y0] + E[0, y0] + end[gold[t0 + T - 1]]
    for i in range(1, T):
        g_score += trans[gold[t0 + i - 1], gold[t0 + i]] + E[i, gold[t0 + i]]
    loss = log_z - sigma * g_score
    errors = hamming(t0, t0 + T, gold, paths[0])
    touched = topn_coefficients(t0, T, gold, paths, k, probs, C, CS, CT, CE)
    return touched, errors, loss, k, ws


@njit(cache=True, inline="always")
def _token_coefs_body(tok, row, y, paths, i, k, tok_ptr, ent_lo, ent_n, ent_val, valued, feat_label, v, u, scale,
                      averaged, sigma_sum):
    for r in range(-1, k):
        lab = y if r < 0 else paths[r, i]
        c = row[lab]
        if c != 0.0:
            row[lab] = 0.0
            d = scale * c
            for e in range(tok_ptr[tok], tok_ptr[tok + 1]):
                lo = ent_lo[e]
                n = ent_n[e]
                f = find_feature(feat_label, lo, n, lab)
                if f >= 0:
                    _add(v, u, f, d * entry_value(ent_val, valued, e), averaged, sigma_sum)


@njit(cache=True, inline="always")
def apply_emission_coefs(tok, row, y, paths, i, k, tok_ptr, ent_lo, ent_n, ent_val, valued, feat_label, v, u,
                         scale, averaged, sigma_sum):
    """Add ``scale * row[l] * value`` to the feature (attribute, ``l``) of every entry of token ``tok``, for the
    labels ``l`` that carry a coefficient, and clear them in ``row``.

    Only the gold label ``y`` and the candidates' labels ``paths[:k, i]`` at the token (position ``i``
    of the sample) can carry one. ``valued``: whether ``ent_val`` holds the entries' values (else
    every entry counts 1.0). Every weight receives its additions in the order of the entries (the
    labels are distinct features, so their order does not matter).
    """
    if valued:
        _token_coefs_body(tok, row, y, paths, i, k, tok_ptr, ent_lo, ent_n, ent_val, True, feat_label, v, u, scale,
                          averaged, sigma_sum)
    else:
        _token_coefs_body(tok, row, y, paths, i, k, tok_ptr, ent_lo, ent_n, ent_val, False, feat_label, v, u, scale,
                          averaged, sigma_sum)


@njit(cache=True)
def sapo_piece(t0, t1, c, v, u, sigma, gamma, n_labels, n_best, use_beam, beam_width, stop_gap, averaged,
               sigma_sum, E, C, CT, CS, CE, paths, scores, probs, ws):
    """Search and update for the tokens ``t0:t1`` of the corpus ``c``; returns (touched, errors, loss, ws)."""
    n_features = c.feat_label.shape[0]
    t_off = n_features
    trans, start, end = weight_views(v, n_features, n_labels)
    T = t1 - t0
    # search on the unscaled weights v: w = sigma v with sigma > 0 ranks paths
    # identically; the scores are scaled afterwards
    sentence_emissions(c, t0, t1, v, E)
    touched, errors, loss, k, ws = topn_step(E, T, t0, c.gold, trans, start, end, use_beam, beam_width, n_best,
                                             stop_gap, sigma, paths, scores, probs, ws, C, CS, CT, CE)
    if touched:
        scale = gamma / sigma
        valued = c.ent_val.shape[0] > 0
        gold = c.gold
        # only the positions where some candidate differs from the gold carry coefficients; tokens
        # in order (a feature may recur at several tokens): every weight receives its additions in
        # token order; each coefficient applied once and cleared
        for i in range(T):
            y = gold[t0 + i]
            if C[i, y] == 0.0:
                hit = False
                for r in range(k):
                    if paths[r, i] != y:
                        hit = True
                        break
                if not hit:
                    continue
            apply_emission_coefs(t0 + i, C[i], y, paths, i, k, c.tok_ptr, c.ent_lo, c.ent_n, c.ent_val, valued,
                                 c.feat_label, v, u, scale, averaged, sigma_sum)
        apply_chain_coefs(CS, CE, CT, t0, T, c.gold, paths, k, v, u, t_off, scale, averaged, sigma_sum)
    return touched, errors, loss, ws


@njit(cache=True)
def sapo_epoch(order, c, v, sigma, step, n_labels, n_best, use_beam, beam_width, stop_gap, lr0, lr_decay, l2,
               n_train, l2_per_sample, averaged, u, acc, sigma_sum, piece_mean, seed):
    """One pass of SAPO over the sentences in ``order``.

    Parameters
    ----------
    order : int64 array
        Sentence indices in visiting order.
    c : CorpusArrays
        The corpus (:class:`chaintag.decoding.scoring.CorpusArrays`) with its gold labels;
        ``ent_val`` empty for 0/1 attributes, else the value of every entry (the search scores
        ``sum v W[a, l]`` and the update adds ``v`` times each coefficient).
    v : float64 array, shape (n_weights,)
        Unscaled weights (``w = sigma * v``), updated in place.
    sigma : float
        Current scale.
    step : int
        Samples processed before this pass (for the decayed learning rate).
    n_labels, n_best : int
    use_beam : bool
        Beam search of width ``beam_width`` instead of exact A*.
    beam_width : int
    stop_gap : float
        Stop the search once a candidate scores ``stop_gap`` below the best
        (``inf`` = exact top-n).
    lr0 : float
        Learning rate ``gamma_0``.
    lr_decay : bool
        ``gamma_t = gamma_0 / (1 + t / |S|)`` instead of a fixed rate.
    l2 : float
        Regularization strength ``lambda``.
    n_train : int
        ``|S|``.
    l2_per_sample : bool
        Apply ``w *= 1 - gamma lambda / |S|`` after every sample (the paper);
        when False the caller applies one step per pass.
    averaged : bool
        Keep the sums for averaged weights in ``u``, ``acc`` and ``sigma_sum``.
    u, acc : float64 arrays, shape (n_weights,)
        Averaging sums (unused unless ``averaged``).
    sigma_sum : float
        ``S``: sum of the scales since the last fold.
    piece_mean : float
        Structure regularization (Sun 2014): when > 0, every sentence is cut
        at random into pieces of geometric length with this mean, and each
        piece is searched and updated as a sentence of its own.
    seed : int
        Seed of the cutting (used when ``piece_mean > 0``).

    Returns
    -------
    sigma : float
    step : int
    n_updates : int
        Samples with a non-zero update (some candidate differs from the gold).
    n_errors : int
        Tokens where the best candidate differs from the gold.
    loss : float
        Sum over samples of ``log sum_k exp(s_k) - s(y*)`` (the negative
        top-n log-likelihood, >= 0).
    sigma_sum : float
    """
    sent_ptr = c.sent_ptr
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    C = np.zeros((m, n_labels))
    CT = np.zeros((n_labels, n_labels))
    CS = np.zeros(n_labels)
    CE = np.zeros(n_labels)
    paths = np.zeros((n_best, m), dtype=np.int32)
    scores = np.zeros(n_best)
    probs = np.zeros(n_best)
    ws = astar_workspace(m, n_labels, n_best, 0)
    if piece_mean > 0.0:
        np.random.seed(seed)
    n_updates = 0
    n_errors = 0
    loss = 0.0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        gamma = lr0 / (1.0 + step / n_train) if lr_decay else lr0
        a = t0
        touched_any = False
        while a < t1:
            b = t1
            if piece_mean > 0.0:
                length = 1
                stop = 1.0 / piece_mean if piece_mean > 1.0 else 1.0
                while np.random.random() >= stop:
                    length += 1
                b = min(a + length, t1)
            touched, errors, piece_loss, ws = sapo_piece(
                a, b, c, v, u, sigma, gamma, n_labels, n_best, use_beam, beam_width, stop_gap, averaged,
                sigma_sum, E, C, CT, CS, CE, paths, scores, probs, ws)
            touched_any = touched_any or touched
            n_errors += errors
            loss += piece_loss
            a = b
        if touched_any:
            n_updates += 1
        shrink = 1.0 - gamma * l2 / n_train if l2 > 0.0 and l2_per_sample else 1.0
        sigma, sigma_sum = end_of_step(v, u, acc, sigma, sigma_sum, shrink, averaged)
        step += 1
    return sigma, step, n_updates, n_errors, loss, sigma_sum
