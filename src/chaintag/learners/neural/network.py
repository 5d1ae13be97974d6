"""The network of the neural learners (Lample et al. 2016; Ma and Hovy 2016), in PyTorch.

Each token is represented by the concatenation of

- its word embedding (``word_dim``; random, or initialized from pretrained vectors),
- a character-level encoding of the word as written: a CNN over character
  embeddings with max pooling (Ma and Hovy 2016, s. 2.1; ``char_filters``
  filters of width ``char_window``), or the final states of a character
  BiLSTM (Lample et al. 2016, s. 4.1),
- one embedding per extra input column (e.g. POS tags; ``feature_dim``).

Dropout is applied to that vector and to the output of a bidirectional LSTM
(``hidden`` units per direction) whose states are projected to one emission
score per label. The softmax tagger normalizes those scores per token; the
CRF tagger adds transition, start and end scores (:mod:`.crf_layer`).
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence


class Dropout(nn.Module):
    """Inverted dropout (Srivastava et al. 2014): in training, each value is zeroed with
    probability ``p`` and the rest scaled by ``1 / (1 - p)``; the identity in evaluation.

    The same function as :class:`torch.nn.Dropout`, with the mask drawn by
    comparing uniform numbers with ``p``: on the CPU that is several times
    faster than the Bernoulli sampler :class:`torch.nn.Dropout` uses.
    """

    def __init__(self, p: float):
        super().__init__()
        self.p = float(p)

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        keep = torch.rand_like(x) >= self.p
        return x * keep.to(x.dtype) * (1.0 / (1.0 - self.p))


_POOL = None


def _direction_pool():
    """Two worker threads, each running PyTorch's CPU operations on one thread of its own (the
    caller's thread settings stay as they are)."""
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        def one_thread():
            torch.ones(1 << 16).sum()  # ATen sets this thread's OpenMP threads on its first parallel op
            try:
                from threadpoolctl import threadpool_limits
                threadpool_limits(1, user_api="openmp")  # this thread's only
            except ImportError:  # pragma: no cover - scikit-learn brings threadpoolctl
                pass

        _POOL = ThreadPoolExecutor(2, initializer=one_thread, thread_name_prefix="chaintag-lstm")
    return _POOL


class _TwoLSTMs(torch.autograd.Function):
    """Two independent LSTMs over two inputs, run side by side on two threads, forward and backward.

    The forward and backward directions of a BiLSTM share no computation, so on a CPU with two
    or more cores they can run at the same time, each on one core; this is faster than running them
    one after the other, each spread over the cores (the matrices of one time step are too small
    for that to pay). The arithmetic of each direction is that of the module run alone on one
    thread, so one seed still gives one model.
    """

    @staticmethod
    def forward(ctx, lstms, a, b, *params):
        pool = _direction_pool()
        ins = [a.detach().requires_grad_(a.requires_grad), b.detach().requires_grad_(b.requires_grad)]
        grad = torch.is_grad_enabled() or any(p.requires_grad for p in params)

        def run(k):
            with torch.enable_grad() if grad else torch.no_grad():
                return lstms[k](ins[k])[0]

        outs = list(pool.map(run, (0, 1)))
        ctx.graph = (lstms, ins, outs)
        return outs[0].detach(), outs[1].detach()

    @staticmethod
    def backward(ctx, g_a, g_b):
        lstms, ins, outs = ctx.graph
        pool = _direction_pool()

        def run(k):
            wrt = [ins[k]] + list(lstms[k].parameters())
            return torch.autograd.grad(outs[k], wrt, (g_a, g_b)[k], allow_unused=True)

        ga, gb = pool.map(run, (0, 1))
        del ctx.graph
        return (None, ga[0], gb[0], *ga[1:], *gb[1:])


def two_lstms(lstm_a, lstm_b, a, b, parallel: bool):
    """``(lstm_a(a)[0], lstm_b(b)[0])``, side by side on two threads when ``parallel``."""
    if not parallel:
        return lstm_a(a)[0], lstm_b(b)[0]
    params = list(lstm_a.parameters()) + list(lstm_b.parameters())
    if not torch.is_grad_enabled():
        pool = _direction_pool()
        fa, fb = pool.submit(lambda: lstm_a(a)[0]), pool.submit(lambda: lstm_b(b)[0])
        return fa.result(), fb.result()
    return _TwoLSTMs.apply((lstm_a, lstm_b), a, b, *params)


class CharCNN(nn.Module):
    """Character CNN: embeddings, one convolution, max over the word's positions (Ma and Hovy 2016)."""

    def __init__(self, n_chars: int, dim: int, filters: int, window: int):
        super().__init__()
        self.emb = nn.Embedding(n_chars, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, filters, window, padding=window // 2)
        self.out_dim = filters

    def forward(self, chars, lengths):
        """chars: int64 (N, W) padded with 0; lengths: int64 (N,) >= 1. Returns (N, filters)."""
        h = self.conv(self.emb(chars).transpose(1, 2))  # (N, F, W')
        width = h.shape[2]
        pos = torch.arange(width, device=chars.device).unsqueeze(0)
        pad = (pos >= lengths.unsqueeze(1)).unsqueeze(1)
        return h.masked_fill(pad, float("-inf")).max(dim=2).values


class CharLSTM(nn.Module):
    """Character BiLSTM: the last forward and the first backward state (Lample et al. 2016, s. 4.1)."""

    def __init__(self, n_chars: int, dim: int, hidden: int):
        super().__init__()
        self.emb = nn.Embedding(n_chars, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
        self.out_dim = 2 * hidden

    def forward(self, chars, lengths):
        packed = pack_padded_sequence(self.emb(chars), lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return torch.cat([h[0], h[1]], dim=1)


class TaggerNet(nn.Module):
    """Word, character and column embeddings, a BiLSTM, and per-label emission scores.

    Parameters
    ----------
    n_words, n_chars : int
        Vocabulary sizes (ids 0 padding, 1 unknown).
    extra_sizes : list of int
        Vocabulary size of each extra input column.
    n_labels : int
    word_dim, char_dim, char_filters, char_window, char_hidden, feature_dim, hidden : int
    char_encoder : {"cnn", "lstm", "none"}
    dropout : float
    crf : bool
        Add transition, start and end scores.
    """

    def __init__(self, n_words, n_chars, extra_sizes, n_labels, *, word_dim, char_encoder, char_dim,
                 char_filters, char_window, char_hidden, feature_dim, hidden, dropout, crf):
        super().__init__()
        self.word_emb = nn.Embedding(n_words, word_dim, padding_idx=0)
        if char_encoder == "cnn":
            self.char = CharCNN(n_chars, char_dim, char_filters, char_window)
        elif char_encoder == "lstm":
            self.char = CharLSTM(n_chars, char_dim, char_hidden)
        else:
            self.char = None
        self.extra_emb = nn.ModuleList(nn.Embedding(n, feature_dim, padding_idx=0) for n in extra_sizes)
        in_dim = word_dim + (self.char.out_dim if self.char is not None else 0) + feature_dim * len(extra_sizes)
        self.dropout = Dropout(dropout)
        # the two directions run on padded batches: the backward one reads each sentence reversed
        # within its length (no packing, which is slow on the CPU)
        self.lstm_fw = nn.LSTM(in_dim, hidden, batch_first=True)
        self.lstm_bw = nn.LSTM(in_dim, hidden, batch_first=True)
        self.proj = nn.Linear(2 * hidden, n_labels)
        #: Run the two LSTM directions on two threads on a CPU with PyTorch set to two or more threads.
        self.parallel_directions = True
        self.crf = crf
        if crf:
            self.transitions = nn.Parameter(torch.zeros(n_labels, n_labels))
            self.start = nn.Parameter(torch.zeros(n_labels))
            self.end = nn.Parameter(torch.zeros(n_labels))

    def emissions(self, batch):
        """Emission scores of a padded batch (:func:`chaintag.learners.neural.batches.make_batch`).

        Returns
        -------
        float tensor, shape (B, T, L)
        """
        parts = [self.word_emb(batch["words"])]
        B, T = batch["words"].shape
        if self.char is not None:
            enc = self.char(batch["chars"], batch["char_len"])  # (N, C) over the real tokens
            full = enc.new_zeros((B * T, enc.shape[1]))
            full[batch["flat_pos"]] = enc
            parts.append(full.view(B, T, -1))
        for j, emb in enumerate(self.extra_emb):
            parts.append(emb(batch["extras"][j]))
        x = self.dropout(torch.cat(parts, dim=2))
        rev = batch["reverse"].unsqueeze(2)
        # the two directions side by side on two cores when PyTorch may use two CPU threads
        parallel = self.parallel_directions and x.device.type == "cpu" and torch.get_num_threads() > 1
        fw, bw = two_lstms(self.lstm_fw, self.lstm_bw, x, x.gather(1, rev.expand(-1, -1, x.shape[2])), parallel)
        bw = bw.gather(1, rev.expand(-1, -1, bw.shape[2]))
        return self.proj(self.dropout(torch.cat([fw, bw], dim=2)))
