"""Minibatches of the neural learners: length-bucketed order and padded integer arrays.

All index arithmetic is vectorized numpy over the flat (CSR) arrays of
:meth:`chaintag.learners.neural.vocab.Encoder.encode`; no per-token Python.
"""

from __future__ import annotations

import numpy as np

#: Sentences sorted together by length: this many batches' worth at a time.
POOL_BATCHES = 50


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices ``starts[k] + j`` for ``j < lengths[k]``, and the row ``k`` of each."""
    total = int(lengths.sum())
    rows = np.repeat(np.arange(len(lengths)), lengths)
    offsets = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=offsets[1:])
    within = np.arange(total, dtype=np.int64) - offsets[rows]
    return starts[rows] + within, rows, within


def bucketed_batches(order: np.ndarray, sent_ptr: np.ndarray, batch_size: int, rng) -> list[np.ndarray]:
    """Split a sentence order into minibatches of sentences of similar length.

    The order is cut into pools of ``POOL_BATCHES * batch_size`` sentences;
    each pool is sorted by length (stable) and cut into batches; the batches
    are then visited in an order drawn from ``rng``. Padding stays small while
    every epoch still sees new batch compositions when ``order`` is shuffled.

    Parameters
    ----------
    order : int64 array, shape (n,)
        Sentence ids in visiting order.
    sent_ptr : int64 array, shape (n_sentences + 1,)
    batch_size : int
    rng : numpy.random.Generator

    Returns
    -------
    list of int64 arrays
        Sentence ids of each batch; together a permutation of ``order``.
    """
    lengths = sent_ptr[1:] - sent_ptr[:-1]
    pool = POOL_BATCHES * batch_size
    batches = []
    for lo in range(0, len(order), pool):
        part = order[lo:lo + pool]
        part = part[np.argsort(lengths[part], kind="stable")]
        batches += [part[k:k + batch_size] for k in range(0, len(part), batch_size)]
    return [batches[k] for k in rng.permutation(len(batches))]


def make_batch(enc: dict, sentences: np.ndarray, gold: np.ndarray | None = None) -> dict:
    """Padded numpy arrays of a batch of sentences.

    Parameters
    ----------
    enc : dict
        :meth:`Encoder.encode` output.
    sentences : int array, shape (B,)
        Sentence ids (each with at least one token).
    gold : int64 array, shape (n_tokens,), optional
        Label ids of all tokens.

    Returns
    -------
    dict of numpy arrays
        ``words`` (B, T), ``extras`` (n_extra, B, T), ``mask`` bool (B, T),
        ``lengths`` (B,), ``reverse`` (B, T) (position ``t`` of a sentence
        reversed within its length, padding in place), ``chars`` (N, W) and ``char_len`` (N,) for the N real
        tokens in row-major order, ``flat_pos`` (N,) their positions in the
        flattened (B*T) grid, ``tokens`` (N,) their corpus token ids, and
        ``tags`` (B, T) when ``gold`` is given (0 on padding).
    """
    sp = enc["sent_ptr"]
    sentences = np.asarray(sentences, dtype=np.int64)
    starts = sp[sentences]
    lengths = sp[sentences + 1] - starts
    B, T = len(sentences), int(lengths.max())
    tok, rows, within = _ranges(starts, lengths)
    flat_pos = rows * T + within
    words = np.zeros(B * T, dtype=np.int64)
    words[flat_pos] = enc["words"][tok]
    extras = np.zeros((enc["extras"].shape[0], B * T), dtype=np.int64)
    extras[:, flat_pos] = enc["extras"][:, tok]
    mask = np.zeros(B * T, dtype=bool)
    mask[flat_pos] = True
    reverse = np.tile(np.arange(T, dtype=np.int64), B)
    reverse[flat_pos] = lengths[rows] - 1 - within
    cp = enc["char_ptr"]
    c_start = cp[tok]
    c_len = cp[tok + 1] - c_start
    W = int(c_len.max())
    c_idx, c_rows, c_within = _ranges(c_start, c_len)
    chars = np.zeros(len(tok) * W, dtype=np.int64)
    chars[c_rows * W + c_within] = enc["chars"][c_idx]
    out = {"words": words.reshape(B, T), "reverse": reverse.reshape(B, T), "extras": extras.reshape(-1, B, T), "mask": mask.reshape(B, T),
           "lengths": lengths, "chars": chars.reshape(len(tok), W), "char_len": c_len, "flat_pos": flat_pos,
           "tokens": tok}
    if gold is not None:
        tags = np.zeros(B * T, dtype=np.int64)
        tags[flat_pos] = gold[tok]
        out["tags"] = tags.reshape(B, T)
    return out


def to_device(batch: dict, torch, device) -> dict:
    """The arrays of :func:`make_batch` as tensors on ``device`` (``lengths`` stays on the CPU,
    as packing wants)."""
    out = {k: torch.from_numpy(v).to(device) for k, v in batch.items() if k not in ("lengths", "tokens")}
    out["lengths"] = torch.from_numpy(batch["lengths"])
    return out
