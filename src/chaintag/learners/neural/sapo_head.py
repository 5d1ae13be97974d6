"""SAPO's output layer on a neural encoder: the top-n label sequences and their loss, batched.

For a sentence ``x`` with gold labels ``y*``, the exact top-n sequences
``Y_n = {y_1 .. y_n}`` under the network's emission scores and the
transition, start and end scores are found by A* search
(:mod:`chaintag.decoding.nbest`) on the detached float64 scores. The loss is

    loss(x) = log sum_{k=1}^{n} exp(s(x, y_k)) - s(x, y*),

the negative of SAPO's implied objective ``log P_n(y* | x)`` with the top-n
normalizer (ALGORITHMS.md, SAPO, the line after step 6). Its gradient with
respect to the scores is ``sum_k P_k Phi(x, y_k) - Phi(x, y*)`` with
``P_k = exp(s(x, y_k)) / sum_j exp(s(x, y_j))`` (steps 3 to 5), the
negative of SAPO's update; ``y*`` is not added to ``Y_n`` when the search
does not find it (step 3 normalizes over ``Y_n`` only, and step 5 adds
``Phi(x, y*)`` whether or not it is in ``Y_n``). The set ``Y_n`` is constant
where the scores have no ties, so the gradient is exact there.
"""

from __future__ import annotations

import numpy as np
import torch
from ..._jit import njit

from ...decoding.nbest import astar_nbest_retry, astar_workspace


@njit(cache=True)
def _batch_topn(em, lengths, transitions, start, end, n, out_paths, out_found):
    """Top-n of every sentence of a padded batch; fills ``out_paths[b, :k, :T_b]`` and ``out_found[b]``."""
    B, T, L = em.shape
    ws = astar_workspace(T, L, n, 0)
    paths = np.zeros((n, max(T, 1)), dtype=np.int32)
    scores = np.zeros(n)
    for b in range(B):
        t = lengths[b]
        k, ws = astar_nbest_retry(em[b, :t], transitions, start, end, n, np.inf, paths, scores, ws)
        out_found[b] = k
        for r in range(k):
            for i in range(t):
                out_paths[b, r, i] = paths[r, i]


def topn_paths(emissions, mask, transitions, start, end, n: int):
    """The exact ``n`` best label sequences of each sentence of a batch: compiled A* on the CPU
    (:func:`topn_paths_astar`), the batched list Viterbi on another device (:func:`topn_paths_viterbi`:
    no copy of the scores to the host). Parameters and returns: as :func:`topn_paths_astar`."""
    if emissions.device.type == "cpu":
        return topn_paths_astar(emissions, mask, transitions, start, end, n)
    return topn_paths_viterbi(emissions, mask, transitions, start, end, n)


def topn_paths_astar(emissions, mask, transitions, start, end, n: int):
    """The exact ``n`` best label sequences of each sentence of a batch (A*; ties: lower label first).

    Parameters
    ----------
    emissions : float tensor, shape (B, T, L)
    mask : bool tensor, shape (B, T)
        True on real tokens (each row a prefix of True, at least one).
    transitions : float tensor, shape (L, L), ``[prev, cur]``
    start, end : float tensors, shape (L,)
    n : int
        At least 1.

    Returns
    -------
    paths : int64 tensor, shape (B, n, T)
        Best first; 0 at padded positions and in the rows past ``found``.
    found : int64 tensor, shape (B,)
        ``min(n, L ** T_b)``: the rows of ``paths`` that are sequences.
    """
    em = np.ascontiguousarray(emissions.detach().double().cpu().numpy())
    U, s, e = (np.ascontiguousarray(p.detach().double().cpu().numpy()) for p in (transitions, start, end))
    lengths = mask.sum(1).cpu().numpy().astype(np.int64)
    B, T, _ = em.shape
    paths = np.zeros((B, n, T), dtype=np.int64)
    found = np.zeros(B, dtype=np.int64)
    _batch_topn(em, lengths, U, s, e, int(n), paths, found)
    dev = emissions.device
    return torch.from_numpy(paths).to(dev), torch.from_numpy(found).to(dev)


def topn_paths_viterbi(emissions, mask, transitions, start, end, n: int):
    """The exact ``n`` best label sequences of each sentence, by a list Viterbi batched in torch.

    Each (position, label) keeps the ``n`` best prefixes ending there: one
    ``topk`` over the ``L n`` extensions per step, all sentences and labels
    at once; padded positions carry the state unchanged. Parameters and
    returns: as :func:`topn_paths_astar` (among equal scores the order may
    differ from A*'s).

    References
    ----------
    Seshadri and Sundberg (1994), list Viterbi decoding; Huang and Chiang (2005), k-best algorithm 0.
    """
    B, T, L = emissions.shape
    dev = emissions.device
    delta = emissions.new_full((B, L, n), float("-inf"))
    delta[:, :, 0] = start.unsqueeze(0) + emissions[:, 0]
    keep = (torch.arange(L, device=dev).view(1, L, 1) * n + torch.arange(n, device=dev).view(1, 1, n)).expand(B, L, n)
    step = transitions.view(1, L, 1, L)
    backs = []
    for t in range(1, T):
        cand = (delta.unsqueeze(3) + step).permute(0, 3, 1, 2).reshape(B, L, L * n)  # [b, cur, prev * n + slot]
        best, idx = cand.topk(n, dim=2)
        on = mask[:, t].view(B, 1, 1)
        delta = torch.where(on, best + emissions[:, t].unsqueeze(2), delta)
        backs.append(torch.where(on, idx, keep).reshape(B, L * n))
    scores, cur = (delta + end.view(1, L, 1)).reshape(B, L * n).topk(n, dim=1)
    paths = torch.zeros((B, n, T), dtype=torch.long, device=dev)
    for t in range(T - 1, -1, -1):
        paths[:, :, t] = cur // n
        if t:
            cur = backs[t - 1].gather(1, cur)
    valid = torch.isfinite(scores)
    paths = paths * mask.unsqueeze(1).long() * valid.unsqueeze(2).long()
    return paths, valid.sum(1)


def path_scores(emissions, mask, paths, transitions, start, end):
    """Scores ``s(x, y)`` of K label sequences per sentence (differentiable).

    Parameters
    ----------
    emissions : float tensor, shape (B, T, L)
    mask : bool tensor, shape (B, T)
    paths : int64 tensor, shape (B, K, T)
        Valid label ids everywhere (padded positions ignored).
    transitions, start, end : as :func:`topn_paths`

    Returns
    -------
    float tensor, shape (B, K)
    """
    B, K, T = paths.shape
    m = mask.to(emissions.dtype).unsqueeze(1)  # (B, 1, T)
    emit = emissions.unsqueeze(1).expand(B, K, T, emissions.shape[2]).gather(3, paths.unsqueeze(3)).squeeze(3)
    score = (emit * m).sum(2) + start[paths[:, :, 0]]
    if T > 1:
        score = score + (transitions[paths[:, :, :-1], paths[:, :, 1:]] * m[:, :, 1:]).sum(2)
    last = (mask.sum(1) - 1).view(B, 1, 1).expand(B, K, 1)
    return score + end[paths.gather(2, last).squeeze(2)]


def sapo_loss(emissions, mask, tags, transitions, start, end, n: int, margin: float = 0.0):
    """SAPO's loss ``log sum_{y in Y_n} exp s(x, y) - s(x, y*)`` of each sentence, shape (B,).

    Parameters
    ----------
    emissions : float tensor, shape (B, T, L)
    mask : bool tensor, shape (B, T)
    tags : int64 tensor, shape (B, T)
        Gold labels (valid ids at padded positions).
    transitions, start, end : as :func:`topn_paths`
    n : int
        Size of the top-n.
    margin : float, default 0.0
        A cost added to the score of every label that differs from the gold one, in the search
        and in the candidates' scores: the top-n and ``P_k`` are those of ``s(x, y) + margin *
        hamming(y, y*)`` (the softmax-margin of Gimpel and Smith 2010, over the top-n). 0 is SAPO.

    Returns
    -------
    float tensor, shape (B,)
        At least 0 (``y*`` scores at most ``s(x, y_1)``); its gradient with
        respect to the scores is ``sum_k P_k Phi(y_k) - Phi(y*)``.

    References
    ----------
    Sun et al., SAPO, Algorithm 1 (steps 2 to 5); ALGORITHMS.md, SAPO.
    """
    scored = emissions
    if margin:
        wrong = 1.0 - torch.nn.functional.one_hot(tags, emissions.shape[2]).to(emissions.dtype)
        scored = emissions + margin * wrong
    paths, found = topn_paths(scored, mask, transitions, start, end, n)
    cand = path_scores(scored, mask, paths, transitions, start, end)
    valid = torch.arange(paths.shape[1], device=paths.device).unsqueeze(0) < found.unsqueeze(1)
    cand = cand.masked_fill(~valid, float("-inf"))
    gold = path_scores(emissions, mask, tags.unsqueeze(1), transitions, start, end).squeeze(1)
    return torch.logsumexp(cand, dim=1) - gold
