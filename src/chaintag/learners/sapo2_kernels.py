"""Compiled passes and tagging of the second-order SAPO (Sun et al., Algorithm 1, over label trigrams).

The algorithm of :mod:`chaintag.learners.sapo_kernels` on the second-order
model of :mod:`chaintag.decoding.nbest2`: top-n by A* over the allowed label
pairs, probabilities over the top-n, the update
``w += gamma * (Phi(x, y*) - sum_k P_k Phi(x, y_k))`` where ``Phi`` now also
counts label trigrams, then the L2 step ``w *= 1 - gamma * lambda / |S|``
(lazily, through the scale ``sigma``; averaging as in
:mod:`chaintag.learners.scale_kernels`). Entries may carry real values
(``valued``): the scores and the updates multiply by them.

Flat weight layout: that of :mod:`chaintag.learners.second_order_kernels`
(features, ``U``, start, end, then ``V[prev2, prev, cur]``), then, with *pair
features* (Sha and Pereira 2003, s. 2: every observation predicate also
conjoined with the label pair ``(y_{i-1}, y_i)``), one weight per (attribute,
pair) seen in training: attribute ``a`` has the pairs
``pf_code[pf_ptr[a]:pf_ptr[a+1]]`` (codes ``prev * L + cur``, ascending), whose
weights start at ``pf_off + pf_ptr[a]``. They add to the bigram score of the
pair ending at each token from the second on.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from ..decoding.constraints import fix_emissions
from ..decoding.nbest2 import astar2_retry, astar2_workspace
from ..decoding.scoring import emission_scores, find_feature, max_sentence_length
from .perceptron_kernels import hamming
from .sapo_kernels import _add, apply_chain_coefs, apply_emission_coefs, topn_coefficients, topn_probabilities
from .scale_kernels import end_of_step
from .second_order_kernels import first_order_size, second_order_views


@njit(cache=True)
def _emissions(tok_ptr, ent_lo, ent_n, ent_val, valued, t0, t1, feat_label, w, E):
    # the values only when ``valued`` (else ``ent_val`` may hold anything): an empty array, 0/1 attributes
    emission_scores(tok_ptr, ent_lo, ent_n, ent_val if valued else ent_val[:0], t0, t1, feat_label, w, E)


@njit(cache=True)
def pair_scores(t0, t1, tok_ptr, attr_ids, ent_val, valued, pf_ptr, pf_code, w, pf_off, U, P):
    """``P[i] = U + sum_a x(i, a) W_pair[a, :, :]`` for the tokens ``i = 1 .. t1-t0-1`` of a sentence.

    Parameters
    ----------
    attr_ids : int array, shape (n_entries,)
        Attribute of every (token, attribute) entry.
    pf_ptr : int64 array, shape (n_attributes + 1,)
    pf_code : int32 array, shape (n_pair_features,)
    pf_off : int
        Offset of the pair-feature weights in ``w``.
    U : float64 array, shape (L, L)
    P : float64 array, shape (>= n_tokens, L, L)
        Receives the scores (``P[0]`` is left as it is).
    """
    L = U.shape[0]
    n_attr = pf_ptr.shape[0] - 1
    for i in range(1, t1 - t0):
        flat = P[i].reshape(L * L)
        uf = U.reshape(L * L)
        for q in range(L * L):
            flat[q] = uf[q]
        tok = t0 + i
        for e in range(tok_ptr[tok], tok_ptr[tok + 1]):
            a = attr_ids[e]
            if a < 0 or a >= n_attr:
                continue
            x = ent_val[e] if valued else 1.0
            for j in range(pf_ptr[a], pf_ptr[a + 1]):
                flat[pf_code[j]] += w[pf_off + j] * x


@njit(cache=True)
def apply_pair_coefs(tok, code, c, tok_ptr, attr_ids, ent_val, valued, pf_ptr, pf_code, pf_off, v, u, averaged,
                     sigma_sum):
    """Add ``c * value`` to the weight of (attribute, pair ``code``) of every entry of token ``tok``
    whose attribute has that pair feature."""
    n_attr = pf_ptr.shape[0] - 1
    for e in range(tok_ptr[tok], tok_ptr[tok + 1]):
        a = attr_ids[e]
        if a < 0 or a >= n_attr:
            continue
        j = find_feature(pf_code, pf_ptr[a], pf_ptr[a + 1] - pf_ptr[a], code)
        if j >= 0:
            _add(v, u, pf_off + j, c * (ent_val[e] if valued else 1.0), averaged, sigma_sum)


@njit(cache=True)
def sapo2_epoch(order, sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, valued, gold, feat_label, v, sigma, step,
                n_labels, succ_ptr, succ, pred_ptr, pred, n_best, stop_gap, lr0, lr_decay, l2, n_train,
                averaged, u, acc, sigma_sum, use_pairs, attr_ids, pf_ptr, pf_code):
    """One pass of second-order SAPO over the sentences in ``order``.

    Parameters
    ----------
    order : int64 array
        Sentence indices in visiting order.
    sent_ptr, tok_ptr, ent_lo, ent_n, gold, feat_label
        As :func:`chaintag.learners.sapo_kernels.sapo_epoch`.
    ent_val : float64 array, shape (n_entries,) (any length when not ``valued``)
    valued : bool
        Entries carry real values.
    v : float64 array, shape (F + L*L + 2*L + L**3,)
        Unscaled weights (``w = sigma * v``), updated in place.
    sigma : float
    step : int
        Samples processed before this pass.
    n_labels : int
    succ_ptr, succ, pred_ptr, pred
        Allowed label pairs (:func:`chaintag.decoding.nbest2.pair_lists`); every gold pair must be allowed.
    n_best : int
    stop_gap : float
        Stop the search once a candidate scores ``stop_gap`` below the best (``inf``: exact top-n).
    lr0 : float
    lr_decay : bool
        ``gamma_t = gamma_0 / (1 + t / |S|)`` instead of a fixed rate.
    l2 : float
    n_train : int
    averaged : bool
    u, acc : float64 arrays (shape (1,) when not averaged)
    sigma_sum : float
    use_pairs : bool
        Pair features (``attr_ids``, ``pf_ptr``, ``pf_code`` as :func:`pair_scores`; their weights
        follow ``V`` in ``v``).

    Returns
    -------
    (sigma, step, n_updates, n_errors, loss, sigma_sum)
        As :func:`chaintag.learners.sapo_kernels.sapo_epoch`.
    """
    L = n_labels
    n_features = feat_label.shape[0]
    t_off = n_features
    v_off = first_order_size(n_features, L)
    pf_off = v_off + L * L * L
    U, start, end, V = second_order_views(v, n_features, L)
    m = max(max_sentence_length(sent_ptr), 1)
    P = np.zeros((m, L, L)) if use_pairs else U.reshape((1, L, L))
    CP = np.zeros((m, L * L)) if use_pairs else np.zeros((1, 1))
    E = np.zeros((m, L))
    C = np.zeros((m, L))
    CT = np.zeros((L, L))
    C3 = np.zeros(L * L * L)
    CS = np.zeros(L)
    CE = np.zeros(L)
    paths = np.zeros((n_best, m), dtype=np.int32)
    scores = np.zeros(n_best)
    probs = np.zeros(n_best)
    ws = astar2_workspace(m, L, 4 * n_best * m * L + L)
    n_updates = 0
    n_errors = 0
    loss = 0.0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        T = t1 - t0
        gamma = lr0 / (1.0 + step / n_train) if lr_decay else lr0
        if T > 0:
            _emissions(tok_ptr, ent_lo, ent_n, ent_val, valued, t0, t1, feat_label, v, E)
            if use_pairs:
                pair_scores(t0, t1, tok_ptr, attr_ids, ent_val, valued, pf_ptr, pf_code, v, pf_off, U, P)
            k, ws = astar2_retry(E[:T], P, use_pairs, V, start, end, succ_ptr, succ, pred_ptr, pred, n_best,
                                 stop_gap / sigma, paths, scores, ws)
            log_z = topn_probabilities(scores, k, sigma, probs)
            g_score = start[gold[t0]] + E[0, gold[t0]] + end[gold[t1 - 1]]
            for i in range(1, T):
                g_score += (P[i] if use_pairs else U)[gold[t0 + i - 1], gold[t0 + i]] + E[i, gold[t0 + i]]
                if i >= 2:
                    g_score += V[gold[t0 + i - 2], gold[t0 + i - 1], gold[t0 + i]]
            loss += log_z - sigma * g_score
            n_errors += hamming(t0, t1, gold, paths[0])
            # coefficients of Phi(y*) - sum_k P_k Phi(y_k): the first-order ones, then those of the pair
            # features and trigrams (a candidate that differs from the gold differs at some token, so with no
            # token coefficient every other one is zero too)
            touched = topn_coefficients(t0, T, gold, paths, k, probs, C, CS, CT, CE)
            for r in range(k if touched else 0):
                p = probs[r]
                for i in range(1, T):
                    y = gold[t0 + i]
                    zl = paths[r, i]
                    yp = gold[t0 + i - 1]
                    zp = paths[r, i - 1]
                    if use_pairs and (yp != zp or y != zl):
                        CP[i, yp * L + y] += p
                        CP[i, zp * L + zl] -= p
                    if i >= 2:
                        y2 = gold[t0 + i - 2]
                        z2 = paths[r, i - 2]
                        if y2 != z2 or yp != zp or y != zl:
                            C3[(y2 * L + yp) * L + y] += p
                            C3[(z2 * L + zp) * L + zl] -= p
            if touched:
                n_updates += 1
                scale = gamma / sigma
                for i in range(T):
                    apply_emission_coefs(t0 + i, C[i], gold[t0 + i], paths, i, k, tok_ptr, ent_lo, ent_n, ent_val,
                                         valued, feat_label, v, u, scale, averaged, sigma_sum)
                apply_chain_coefs(CS, CE, CT, t0, T, gold, paths, k, v, u, t_off, scale, averaged, sigma_sum)
                if use_pairs:  # the pairs met above, each (token, pair) coefficient once
                    for i in range(1, T):
                        for r in range(-1, k):
                            if r < 0:
                                q = gold[t0 + i - 1] * L + gold[t0 + i]
                            else:
                                q = paths[r, i - 1] * L + paths[r, i]
                            if CP[i, q] != 0.0:
                                apply_pair_coefs(t0 + i, q, scale * CP[i, q], tok_ptr, attr_ids, ent_val, valued,
                                                 pf_ptr, pf_code, pf_off, v, u, averaged, sigma_sum)
                                CP[i, q] = 0.0
                # trigrams: the triples met above, each weight once
                for r in range(k):
                    for i in range(2, T):
                        for side in range(2):
                            if side == 0:
                                q = (gold[t0 + i - 2] * L + gold[t0 + i - 1]) * L + gold[t0 + i]
                            else:
                                q = (paths[r, i - 2] * L + paths[r, i - 1]) * L + paths[r, i]
                            if C3[q] != 0.0:
                                _add(v, u, v_off + q, scale * C3[q], averaged, sigma_sum)
                                C3[q] = 0.0
        shrink = 1.0 - gamma * l2 / n_train if l2 > 0.0 else 1.0
        sigma, sigma_sum = end_of_step(v, u, acc, sigma, sigma_sum, shrink, averaged)
        step += 1
    return sigma, step, n_updates, n_errors, loss, sigma_sum


@njit(cache=True)
def nbest_corpus_sapo2(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, valued, feat_label, w, n_labels,
                       succ_ptr, succ, pred_ptr, pred, use_pairs, attr_ids, pf_ptr, pf_code, fixed, k, out_paths,
                       out_scores, out_found):
    """The ``k`` best valid second-order label sequences of every sentence (exact A*).

    Arguments as :func:`sapo2_epoch` (``w``: the scaled weights); ``out_paths`` (int32, shape
    (k, n_tokens)), ``out_scores`` (float64, shape (n_sentences, k)) and ``out_found`` (int32, shape
    (n_sentences,)) receive the label ids, scores and number found of each sentence, best first.
    Returns the total score of the best sequences.

    Constraints (:mod:`chaintag.learners.constrained2`): ``w`` may hold ``-inf`` on the label
    bigrams ``U[prev, cur]``, start and end weights a label scheme forbids, and ``fixed`` (int32,
    shape (n_tokens,), the label id a token must take or -1; empty: none) makes the emission
    scores of the other labels ``-inf`` at a fixed token. The search never extends a prefix of
    score ``-inf``, so only sequences that satisfy them are found: ``out_found[s]`` is 0 when none
    does. ``sent_ptr`` may be a part of the corpus (``[t0, t1]``: one sentence).
    """
    L = n_labels
    U, start, end, V = second_order_views(w, feat_label.shape[0], L)
    pf_off = first_order_size(feat_label.shape[0], L) + L * L * L
    m = max(max_sentence_length(sent_ptr), 1)
    P = np.zeros((m, L, L)) if use_pairs else U.reshape((1, L, L))
    E = np.zeros((m, L))
    paths = np.zeros((k, m), dtype=np.int32)
    scores = np.zeros(k)
    ws = astar2_workspace(m, L, 4 * k * m * L + L)
    total = 0.0
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            continue
        _emissions(tok_ptr, ent_lo, ent_n, ent_val, valued, t0, t1, feat_label, w, E)
        if fixed.shape[0]:
            fix_emissions(E, fixed, t0, t1 - t0)
        if use_pairs:
            pair_scores(t0, t1, tok_ptr, attr_ids, ent_val, valued, pf_ptr, pf_code, w, pf_off, U, P)
        found, ws = astar2_retry(E[:t1 - t0], P, use_pairs, V, start, end, succ_ptr, succ, pred_ptr, pred, k,
                                 np.inf, paths, scores, ws)
        for r in range(found):
            for i in range(t1 - t0):
                out_paths[r, t0 + i] = paths[r, i]
            out_scores[s, r] = scores[r]
        out_found[s] = found
        if found:
            total += scores[0]
    return total


@njit(cache=True)
def tag_corpus_sapo2(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, valued, feat_label, w, n_labels,
                     succ_ptr, succ, pred_ptr, pred, use_pairs, attr_ids, pf_ptr, pf_code, fixed, out):
    """Best valid second-order label sequence of every sentence; label ids into ``out`` (shape (n_tokens,)).

    Arguments as :func:`nbest_corpus_sapo2` (``fixed``: int32, shape (n_tokens,) or (0,));
    ``w`` are the (scaled) weights. Returns the total score.
    """
    n_sent = sent_ptr.shape[0] - 1
    return nbest_corpus_sapo2(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, valued, feat_label, w, n_labels,
                              succ_ptr, succ, pred_ptr, pred, use_pairs, attr_ids, pf_ptr, pf_code, fixed, 1,
                              out.reshape((1, out.shape[0])), np.zeros((n_sent, 1)), np.zeros(n_sent, dtype=np.int32))
