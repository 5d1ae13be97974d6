"""A linear-chain CRF output layer over a batch of padded sentences, in PyTorch.

The score of a label sequence ``y`` of a sentence of ``T`` tokens is

    s(x, y) = start[y_0] + sum_i E[i, y_i] + sum_{i>0} U[y_{i-1}, y_i] + end[y_{T-1}],

with emission scores ``E`` from the network and transition scores ``U``
(``[prev, cur]``), as in chaintag's linear models and in Lample et al.
(2016, s. 2.2). Every function works on a whole batch at once: the loops run
over the positions of the longest sentence, each step a tensor operation
over all sentences and labels (no per-token Python). Padded positions
(``mask`` False) carry the previous state unchanged.
"""

from __future__ import annotations

import torch


def log_partition(emissions, mask, transitions, start, end):
    """log Z(x) of each sentence by the forward algorithm in log space.

    Parameters
    ----------
    emissions : float tensor, shape (B, T, L)
    mask : bool tensor, shape (B, T)
        True on real tokens; each row a prefix of True (sentences have at least one token).
    transitions : float tensor, shape (L, L)
        ``[prev, cur]``.
    start, end : float tensors, shape (L,)

    Returns
    -------
    float tensor, shape (B,)
        ``log sum_y exp(s(x, y))``; differentiable (its gradient with respect
        to the emissions is the token marginals).

    Notes
    -----
    The forward recursion of Lafferty et al. (2001), Rabiner (1989).
    """
    alpha = start.unsqueeze(0) + emissions[:, 0]
    trans = transitions.unsqueeze(0)
    for t in range(1, emissions.shape[1]):
        nxt = torch.logsumexp(alpha.unsqueeze(2) + trans, dim=1) + emissions[:, t]
        alpha = torch.where(mask[:, t].unsqueeze(1), nxt, alpha)
    return torch.logsumexp(alpha + end.unsqueeze(0), dim=1)


def sequence_score(emissions, mask, tags, transitions, start, end):
    """Score ``s(x, y)`` of given label sequences.

    Parameters
    ----------
    emissions : float tensor, shape (B, T, L)
    mask : bool tensor, shape (B, T)
    tags : int64 tensor, shape (B, T)
        Labels; values at padded positions are ignored (must be valid ids).
    transitions, start, end : as :func:`log_partition`

    Returns
    -------
    float tensor, shape (B,)
    """
    m = mask.to(emissions.dtype)
    emit = emissions.gather(2, tags.unsqueeze(2)).squeeze(2)
    score = (emit * m).sum(1) + start[tags[:, 0]]
    if tags.shape[1] > 1:
        score = score + (transitions[tags[:, :-1], tags[:, 1:]] * m[:, 1:]).sum(1)
    last = mask.sum(1) - 1
    score = score + end[tags.gather(1, last.unsqueeze(1)).squeeze(1)]
    return score


def neg_log_likelihood(emissions, mask, tags, transitions, start, end):
    """``log Z(x) - s(x, y)`` of each sentence (the CRF loss), shape (B,)."""
    return log_partition(emissions, mask, transitions, start, end) - sequence_score(
        emissions, mask, tags, transitions, start, end)


def marginals(emissions, mask, transitions, start, end):
    """Token marginals ``P(y_i = l | x)``, as the gradient of log Z with respect to the emissions.

    Parameters
    ----------
    As :func:`log_partition` (no gradient needed on the inputs).

    Returns
    -------
    float tensor, shape (B, T, L)
        Rows of real tokens sum to 1; padded rows are 0.

    Notes
    -----
    ``d log Z / d E[i, l] = P(y_i = l | x)`` (the forward-backward
    identity; Lafferty et al. 2001), computed by reverse-mode differentiation
    of the forward algorithm, which is the backward pass of forward-backward.
    """
    with torch.enable_grad():
        e = emissions.detach().clone().requires_grad_(True)
        z = log_partition(e, mask, transitions.detach(), start.detach(), end.detach())
        (grad,) = torch.autograd.grad(z.sum(), e)
    return grad * mask.unsqueeze(2).to(grad.dtype)


def viterbi(emissions, mask, transitions, start, end):
    """Best label sequence of each sentence (Viterbi 1967), batched.

    Parameters
    ----------
    As :func:`log_partition`.

    Returns
    -------
    paths : int64 tensor, shape (B, T)
        Best labels; 0 at padded positions.
    scores : float tensor, shape (B,)
        ``s(x, y*)``.
    """
    B, T, L = emissions.shape
    delta = start.unsqueeze(0) + emissions[:, 0]
    trans = transitions.unsqueeze(0)
    back = torch.zeros((B, T, L), dtype=torch.long, device=emissions.device)
    keep = torch.arange(L, device=emissions.device).expand(B, L)
    for t in range(1, T):
        best, arg = (delta.unsqueeze(2) + trans).max(dim=1)
        on = mask[:, t].unsqueeze(1)
        delta = torch.where(on, best + emissions[:, t], delta)
        back[:, t] = torch.where(on, arg, keep)  # padded steps point to themselves
    scores, last = (delta + end.unsqueeze(0)).max(dim=1)
    paths = torch.zeros((B, T), dtype=torch.long, device=emissions.device)
    cur = last
    for t in range(T - 1, -1, -1):
        paths[:, t] = cur
        if t:
            cur = back[:, t].gather(1, cur.unsqueeze(1)).squeeze(1)
    return paths * mask.long(), scores
