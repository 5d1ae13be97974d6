"""Shards of a training corpus: contiguous runs of sentences as compact integer arrays.

A shard holds what the compiled epochs read and nothing else: the sentence and
token offsets (``sent_ptr``, ``tok_ptr``, rebased to start at 0), the feature
range of every (token, attribute) entry (``ent_lo``, ``ent_n``) and the gold
label ids. No string reaches a worker: the attribute table, the feature index's
attribute map and the label names stay with the driver.
"""

from __future__ import annotations

import numpy as np

from ..features.extract import Attributes


def shard_bounds(sent_ptr: np.ndarray, tok_ptr: np.ndarray, n_shards: int) -> np.ndarray:
    """Cut the sentences into ``n_shards`` contiguous runs of about equal numbers of entries.

    Parameters
    ----------
    sent_ptr : int64 array, shape (n_sentences + 1,)
    tok_ptr : int64 array, shape (n_tokens + 1,)
    n_shards : int
        At least 1 and at most the number of sentences.

    Returns
    -------
    int64 array, shape (n_shards + 1,)
        Shard ``i`` holds sentences ``bounds[i]:bounds[i+1]`` (never empty).

    Raises
    ------
    ValueError
        When ``n_shards`` is below 1 or above the number of sentences.

    Notes
    -----
    The work of an epoch grows with the entries (tokens times attributes), so
    balancing entries rather than sentences keeps the workers finishing
    together (a straggler holds up every mixing step).
    """
    return bounds_from_entries(tok_ptr[sent_ptr], n_shards)


def bounds_from_entries(cum: np.ndarray, n_shards: int) -> np.ndarray:
    """:func:`shard_bounds` from the entries before each sentence (``tok_ptr[sent_ptr]``).

    Parameters
    ----------
    cum : int64 array, shape (n_sentences + 1,)
        Entries before each sentence, and their total last.
    n_shards : int

    Returns
    -------
    int64 array, shape (n_shards + 1,)

    Raises
    ------
    ValueError
        When ``n_shards`` is below 1 or above the number of sentences.
    """
    n_sent = len(cum) - 1
    if not 1 <= n_shards <= n_sent:
        raise ValueError(f"cannot cut {n_sent} sentences into {n_shards} shards")
    targets = cum[-1] * np.arange(1, n_shards, dtype=np.float64) / n_shards
    cuts = np.searchsorted(cum, targets, side="left").astype(np.int64)
    bounds = np.concatenate([[0], cuts, [n_sent]]).astype(np.int64)
    # keep every shard non-empty (tiny corpora, or one huge sentence)
    for i in range(1, n_shards):
        bounds[i] = max(bounds[i], bounds[i - 1] + 1)
    for i in range(n_shards - 1, 0, -1):
        bounds[i] = min(bounds[i], bounds[i + 1] - 1)
    return bounds


def make_shard(data, s0: int, s1: int) -> dict:
    """The compact arrays of sentences ``s0:s1`` of a :class:`~chaintag.learners.base.TrainData`.

    Returns
    -------
    dict of numpy arrays
        ``sent_ptr`` (int64, rebased), ``tok_ptr`` (int64, rebased), ``ent_lo``,
        ``ent_n`` (the dtypes of ``data``), ``gold`` (int32). Copies, so that a
        shard sent to a worker does not drag the whole corpus with it.
    """
    a = data.attrs
    t0, t1 = int(a.sent_ptr[s0]), int(a.sent_ptr[s1])
    e0, e1 = int(a.tok_ptr[t0]), int(a.tok_ptr[t1])
    return {"sent_ptr": a.sent_ptr[s0:s1 + 1] - t0, "tok_ptr": a.tok_ptr[t0:t1 + 1] - e0,
            "ent_lo": data.ent_lo[e0:e1].copy(), "ent_n": data.ent_n[e0:e1].copy(),
            "gold": data.gold[t0:t1].copy()}


def shard_digest(shard: dict) -> str:
    """A checksum of a shard's arrays (names, dtypes, shapes and bytes), as a hex string.

    The driver computes it before sending a shard and the worker again on
    what it received, so that a shard mixed up or damaged on the way stops
    the run instead of training a wrong model.
    """
    import zlib
    crc = 0
    for name in sorted(shard):
        a = np.ascontiguousarray(shard[name])
        crc = zlib.crc32(f"{name}|{a.dtype.str}|{a.shape}".encode(), crc)
        crc = zlib.crc32(memoryview(a).cast("B"), crc)
    return f"{crc:08x}"


def shard_train_data(shard: dict, feat_label: np.ndarray, n_labels: int):
    """A :class:`~chaintag.learners.base.TrainData` over one shard, for the learner's own epoch code.

    The feature index carries the labels of the features only (``feat_ptr`` is
    None): the kernels read the entries, not the attribute map.
    """
    from ..features.space import FeatureIndex
    from ..learners.base import TrainData
    attrs = Attributes(shard["sent_ptr"], shard["tok_ptr"], None)
    return TrainData(attrs, shard["gold"], FeatureIndex(None, feat_label, n_labels),
                     ent_lo=shard["ent_lo"], ent_n=shard["ent_n"])


def shard_orders(order: np.ndarray, bounds: np.ndarray) -> list[np.ndarray]:
    """Split a corpus-wide visiting order into each shard's order, in local sentence ids.

    Every shard visits its sentences in the relative order they have in
    ``order``; with one shard this is ``order`` itself.

    Parameters
    ----------
    order : int64 array, shape (n_sentences,)
        A permutation of the sentences.
    bounds : int64 array, shape (n_shards + 1,)
        From :func:`shard_bounds`.

    Returns
    -------
    list of int64 arrays
    """
    if len(bounds) == 2:
        return [np.ascontiguousarray(order, dtype=np.int64)]
    which = np.searchsorted(bounds, order, side="right") - 1
    return [np.ascontiguousarray(order[which == i] - bounds[i], dtype=np.int64)
            for i in range(len(bounds) - 1)]


class MemoryShards:
    """The shards of a corpus held in memory by the driver (what a :class:`~chaintag.distributed.pool.ShardPool`
    sends; :class:`~chaintag.training.shard_files.ShardFiles` is the same for shards on disk).

    Parameters
    ----------
    data : TrainData
    bounds : int64 array, shape (n_shards + 1,)
        From :func:`shard_bounds`.
    """

    def __init__(self, data, bounds: np.ndarray):
        self.data, self.bounds = data, bounds
        self.feat_label, self.n_labels = data.index.feat_label, data.index.n_labels

    @property
    def k(self) -> int:
        return len(self.bounds) - 1

    def send(self, client, i: int, worker: str):
        """Scatter shard ``i``'s arrays (copies) to ``worker``; returns their future and digest.

        One Dask key per shard: a dict given to scatter would be scattered value by
        value under its own keys ("sent_ptr", ...), the same keys for every shard,
        so that two shards on one worker (or a shard fetched from another worker)
        would read another shard's arrays.
        """
        shard = make_shard(self.data, int(self.bounds[i]), int(self.bounds[i + 1]))
        return client.scatter([shard], workers=[worker], hash=False)[0], shard_digest(shard)
