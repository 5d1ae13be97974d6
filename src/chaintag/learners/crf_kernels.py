"""Compiled CRF training: the per-sentence gradient, SGD epochs, the batch objective.

The log-likelihood gradient of one sentence is ``Phi(x, y*) - E_{P(y|x)}[Phi(x, y)]``
(Lafferty et al. 2001), with the expectation from forward-backward marginals.
:func:`add_gradient` adds ``scale`` times it to a flat vector; SGD adds it to
the (scaled) weights, the batch objective to a gradient accumulator, so both
trainers share one gradient code.

SGD (Bottou; Tsuruoka et al. 2009) uses the same lazy L2 as SAPO: ``w = sigma
v``, the step ``w *= 1 - gamma lambda / |S|`` multiplies ``sigma`` only.

The corpus comes as one :class:`chaintag.decoding.scoring.CorpusArrays`.
Attributes with values take the same code: ``Phi(x, y)`` adds ``v`` for an
attribute of value ``v`` at a token labelled ``y``, so emissions are ``sum v
W[a, l]`` and the gradient has ``v (1[l = y*_i] - P(y_i = l | x))`` for
every feature ``(a, l)`` of an entry (an empty ``ent_val``: every entry
counts 1).
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from ..decoding.forward_backward import forward_backward_kernel
from ..decoding.scoring import entry_value, max_sentence_length, sentence_emissions, tagging_arrays
from .path_kernels import add_path_chain
from .scale_kernels import end_of_step

@njit(cache=True)
def sentence_marginals(c, t0, t1, w, sigma, n_labels, ws):
    """Scores of ``sigma * w`` for the sentence ``t0:t1`` of the corpus ``c`` and their marginals.

    Returns
    -------
    log_z : float
    gold_score : float
        Filled in by the caller; 0 here.

    Notes
    -----
    Results are left in the work arrays ``ws``: ``E`` (emissions),
    ``marg`` (token marginals), ``pair`` (transition marginals summed over
    positions).
    """
    E, pe, pt, alpha, beta, scale, marg, pair, trans, start, end = ws
    n_features = c.feat_label.shape[0]
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    T = t1 - t0
    sentence_emissions(c, t0, t1, w, E)
    if sigma != 1.0:
        for i in range(T):
            for j in range(n_labels):
                E[i, j] *= sigma
    for a in range(n_labels):
        start[a] = sigma * w[s_off + a]
        end[a] = sigma * w[e_off + a]
        for b in range(n_labels):
            trans[a, b] = sigma * w[t_off + a * n_labels + b]
    return forward_backward_kernel(E[:T], trans, start, end, pe, pt, alpha, beta, scale, marg, pair)


@njit(cache=True)
def crf_workspace(max_tokens, n_labels):
    """Work arrays for :func:`sentence_marginals`."""
    m = max(max_tokens, 1)
    return (np.zeros((m, n_labels)), np.zeros((m, n_labels)), np.zeros((n_labels, n_labels)),
            np.zeros((m, n_labels)), np.zeros((m, n_labels)), np.zeros(m), np.zeros((m, n_labels)),
            np.zeros((n_labels, n_labels)), np.zeros((n_labels, n_labels)), np.zeros(n_labels),
            np.zeros(n_labels))


@njit(cache=True)
def gold_score(t0, t1, gold, ws):
    """Score of the gold labels under the scores left in ``ws`` by :func:`sentence_marginals`."""
    E, pe, pt, alpha, beta, scale, marg, pair, trans, start, end = ws
    y0 = gold[t0]
    s = start[y0] + E[0, y0] + end[gold[t1 - 1]]
    for i in range(1, t1 - t0):
        s += trans[gold[t0 + i - 1], gold[t0 + i]] + E[i, gold[t0 + i]]
    return s


@njit(cache=True, inline="always")
def _put(target, u, f, delta, averaged, sigma_sum):
    target[f] += delta
    if averaged:
        u[f] += delta * sigma_sum


@njit(cache=True, inline="always")
def _gradient_body(c, t0, t1, n_labels, ws, target, scale, u, averaged, sigma_sum, valued):
    E, pe, pt, alpha, beta, sc, marg, pair, trans, start, end = ws
    feat_label = c.feat_label
    tok_ptr = c.tok_ptr
    ent_lo = c.ent_lo
    ent_n = c.ent_n
    ent_val = c.ent_val
    gold = c.gold
    n_features = feat_label.shape[0]
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    T = t1 - t0
    for i in range(T):
        tok = t0 + i
        y = gold[tok]
        for e in range(tok_ptr[tok], tok_ptr[tok + 1]):
            lo = ent_lo[e]
            v = entry_value(ent_val, valued, e)
            for f in range(lo, lo + ent_n[e]):
                lab = feat_label[f]
                g = -marg[i, lab]
                if lab == y:
                    g += 1.0
                _put(target, u, f, scale * v * g, averaged, sigma_sum)
    for a in range(n_labels):
        _put(target, u, s_off + a, -scale * marg[0, a], averaged, sigma_sum)
        _put(target, u, e_off + a, -scale * marg[T - 1, a], averaged, sigma_sum)
        for b in range(n_labels):
            _put(target, u, t_off + a * n_labels + b, -scale * pair[a, b], averaged, sigma_sum)
    add_path_chain(gold, t0, T, n_features, n_labels, scale, target, u, sigma_sum, averaged)


@njit(cache=True)
def add_gradient(c, t0, t1, n_labels, ws, target, scale, u, averaged, sigma_sum):
    """``target += scale * (Phi(x, y*) - E[Phi(x, y)])`` for the sentence ``t0:t1`` of the corpus ``c``.

    With ``averaged``, also ``u += sigma_sum * (the same change)`` (lazy
    averaging under the scale trick, see :mod:`chaintag.learners.sapo_kernels`).
    An entry of value ``v`` contributes ``scale * v * (1[l = y*] - P(l))`` to its feature of label ``l``.
    """
    if c.ent_val.shape[0] == 0:
        _gradient_body(c, t0, t1, n_labels, ws, target, scale, u, averaged, sigma_sum, False)
    else:
        _gradient_body(c, t0, t1, n_labels, ws, target, scale, u, averaged, sigma_sum, True)


@njit(cache=True)
def crf_sgd_epoch(order, c, v, sigma, step, n_labels, lr0, lr_decay, l2, n_train, averaged, u, acc, sigma_sum):
    """One SGD pass of the L2-regularized CRF over the sentences in ``order``.

    Parameters
    ----------
    c : CorpusArrays
        The corpus (:class:`chaintag.decoding.scoring.CorpusArrays`) with its gold labels.
    v : float64 array, shape (n_weights,)
        Unscaled weights (``w = sigma * v``), updated in place.
    sigma : float
    step : int
        Samples processed before this pass.
    lr0 : float
        Learning rate ``gamma_0``.
    lr_decay : float
        ``gamma_t = gamma_0 / (1 + lr_decay * t / |S|)``: 0 = fixed, 1 = the
        ``1 / (1 + epochs)`` decay, ``gamma_0 * lambda`` = Bottou's schedule
        ``gamma_0 / (1 + gamma_0 lambda t / |S|)``.
    l2 : float
        ``lambda``: the objective is ``sum log P(y*|x) - lambda ||w||^2 / 2``.
    n_train : int
    averaged : bool
        Keep the sums of averaged SGD (Polyak-Ruppert averaging of every
        step's weights) in ``u``, ``acc``, ``sigma_sum``, as for SAPO.

    Returns
    -------
    sigma, step, loss, sigma_sum
        ``loss`` is the sum of ``-log P(y* | x)`` over the pass (before each update).
    """
    sent_ptr = c.sent_ptr
    m = max(max_sentence_length(sent_ptr), 1)
    ws = crf_workspace(m, n_labels)
    loss = 0.0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        gamma = lr0 / (1.0 + lr_decay * step / n_train)
        if t1 > t0:
            log_z = sentence_marginals(c, t0, t1, v, sigma, n_labels, ws)
            loss += log_z - gold_score(t0, t1, c.gold, ws)
            add_gradient(c, t0, t1, n_labels, ws, v, gamma / sigma, u, averaged, sigma_sum)
        shrink = 1.0 - gamma * l2 / n_train if l2 > 0.0 else 1.0
        sigma, sigma_sum = end_of_step(v, u, acc, sigma, sigma_sum, shrink, averaged)
        step += 1
    return sigma, step, loss, sigma_sum


@njit(cache=True)
def crf_objective(w, c, n_labels, l2, grad):
    """Negative penalized log-likelihood of the corpus ``c`` and its gradient (into ``grad``).

    ``f(w) = sum_x [log Z(x) - s(x, y*)] + l2 ||w||^2 / 2``; ``c`` is a
    :class:`chaintag.decoding.scoring.CorpusArrays` with its gold labels.
    """
    sent_ptr = c.sent_ptr
    m = max(max_sentence_length(sent_ptr), 1)
    ws = crf_workspace(m, n_labels)
    for f in range(grad.shape[0]):
        grad[f] = l2 * w[f]
    value = 0.0
    for f in range(w.shape[0]):
        value += 0.5 * l2 * w[f] * w[f]
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 > t0:
            log_z = sentence_marginals(c, t0, t1, w, 1.0, n_labels, ws)
            value += log_z - gold_score(t0, t1, c.gold, ws)
            add_gradient(c, t0, t1, n_labels, ws, grad, -1.0, grad, False, 0.0)
    return value


@njit(cache=True)
def marginals_corpus(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out):
    """Token marginals of every sentence into ``out`` (shape (n_tokens, n_labels)).

    The arrays are those of :class:`chaintag.decoding.scoring.CorpusArrays` (``ent_val`` empty for
    0/1 attributes).
    """
    c = tagging_arrays(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label)
    m = max(max_sentence_length(sent_ptr), 1)
    ws = crf_workspace(m, n_labels)
    marg = ws[6]
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 > t0:
            sentence_marginals(c, t0, t1, w, 1.0, n_labels, ws)
            for i in range(t1 - t0):
                for j in range(n_labels):
                    out[t0 + i, j] = marg[i, j]
