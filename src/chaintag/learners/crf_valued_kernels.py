"""CRF training kernels with real-valued attributes (SGD epoch, batch objective).

Counterparts of :mod:`chaintag.learners.crf_kernels` for entries carrying a
value ``v``: ``Phi(x, y)`` adds ``v`` for an attribute of value ``v`` at a
token labelled ``y``, so emissions are ``sum v W[a, l]`` and the gradient
``Phi(x, y*) - E[Phi(x, y)]`` (Lafferty et al. 2001) has ``v (1[l = y*_i] -
P(y_i = l | x))`` for every feature ``(a, l)`` of an entry. Used only for
corpora with a value other than 1; the unvalued kernels serve every other
corpus unchanged.
"""

from __future__ import annotations

from numba import njit

from ..decoding.forward_backward import forward_backward_kernel
from ..decoding.scoring import max_sentence_length
from ..decoding.valued import emission_scores_valued
from .crf_kernels import _put, crf_workspace, gold_score
from .scale_kernels import end_of_step


@njit(cache=True)
def sentence_marginals_valued(t0, t1, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, sigma, n_labels, ws):
    """:func:`chaintag.learners.crf_kernels.sentence_marginals` with valued entries; returns ``log Z``."""
    E, pe, pt, alpha, beta, scale, marg, pair, trans, start, end = ws
    n_features = feat_label.shape[0]
    t_off = n_features
    s_off = t_off + n_labels * n_labels
    e_off = s_off + n_labels
    T = t1 - t0
    emission_scores_valued(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
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
def add_gradient_valued(t0, t1, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, n_labels, ws, target, scale,
                        u, averaged, sigma_sum):
    """``target += scale * (Phi(x, y*) - E[Phi(x, y)])`` for the sentence ``t0:t1`` (valued entries)."""
    E, pe, pt, alpha, beta, sc, marg, pair, trans, start, end = ws
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
            v = ent_val[e]
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
    _put(target, u, s_off + gold[t0], scale, averaged, sigma_sum)
    _put(target, u, e_off + gold[t1 - 1], scale, averaged, sigma_sum)
    for i in range(1, T):
        _put(target, u, t_off + gold[t0 + i - 1] * n_labels + gold[t0 + i], scale, averaged, sigma_sum)


@njit(cache=True)
def crf_sgd_epoch_valued(order, sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, v, sigma, step,
                         n_labels, lr0, lr_decay, l2, n_train, averaged, u, acc, sigma_sum):
    """:func:`chaintag.learners.crf_kernels.crf_sgd_epoch` with ``ent_val`` (float64, per entry)."""
    m = max(max_sentence_length(sent_ptr), 1)
    ws = crf_workspace(m, n_labels)
    loss = 0.0
    for s in order:
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        gamma = lr0 / (1.0 + lr_decay * step / n_train)
        if t1 > t0:
            log_z = sentence_marginals_valued(t0, t1, tok_ptr, ent_lo, ent_n, ent_val, feat_label, v, sigma,
                                              n_labels, ws)
            loss += log_z - gold_score(t0, t1, gold, ws)
            add_gradient_valued(t0, t1, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, n_labels, ws, v,
                                gamma / sigma, u, averaged, sigma_sum)
        shrink = 1.0 - gamma * l2 / n_train if l2 > 0.0 else 1.0
        sigma, sigma_sum = end_of_step(v, u, acc, sigma, sigma_sum, shrink, averaged)
        step += 1
    return sigma, step, loss, sigma_sum


@njit(cache=True)
def crf_objective_valued(w, sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, n_labels, l2, grad):
    """:func:`chaintag.learners.crf_kernels.crf_objective` with ``ent_val``: the negative penalized
    log-likelihood ``sum_x [log Z(x) - s(x, y*)] + l2 ||w||^2 / 2``, its gradient into ``grad``."""
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
            log_z = sentence_marginals_valued(t0, t1, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, 1.0,
                                              n_labels, ws)
            value += log_z - gold_score(t0, t1, gold, ws)
            add_gradient_valued(t0, t1, tok_ptr, ent_lo, ent_n, ent_val, gold, feat_label, n_labels, ws, grad,
                                -1.0, grad, False, 0.0)
    return value
