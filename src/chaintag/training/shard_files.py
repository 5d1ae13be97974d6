"""Shards written to disk from a corpus extracted in chunks, so that no process holds the whole corpus.

:func:`write_shard_files` turns the chunk files of
:func:`chaintag.streaming.extract.extract_to_disk` into one ``.npy`` file per
shard and array (the arrays of :func:`chaintag.training.shards.make_shard`,
with the same bounds :func:`~chaintag.training.shards.shard_bounds` gives
the corpus in memory), one chunk's piece at a time. The driver then holds the
per-sentence offsets (16 bytes per sentence) and the model, not the corpus.

Workers that see the driver's folder (a ``LocalCluster``, or a shared file
system, checked with a marker file for each worker) map their shard's files read-only
(``np.load(mmap_mode="r")``); others receive their shard's arrays, read from
the files one shard at a time.
"""

from __future__ import annotations

import os
import zlib

import numpy as np

from .shards import bounds_from_entries

#: Bytes per block when a shard's arrays are sent to a worker that does not see the files.
BLOCK_BYTES = 32 * 2**20
#: The arrays of a shard, in the (sorted) order :func:`~chaintag.training.shards.shard_digest` reads them.
NAMES = ("ent_lo", "ent_n", "gold", "sent_ptr", "tok_ptr")


class ShardPaths(dict):
    """The files of one shard (``name -> path``): what a worker that sees them is sent instead of the arrays."""

    def load(self) -> dict:
        """The shard's arrays, memory-mapped read-only."""
        return {name: np.load(path, mmap_mode="r") for name, path in self.items()}


class ShardFiles:
    """A corpus's shards as ``.npy`` files (see the module's note).

    Attributes
    ----------
    folder : str
    bounds : int64 array, shape (n_shards + 1,)
        Shard ``i`` holds sentences ``bounds[i]:bounds[i+1]``.
    digests : list of str
        :func:`~chaintag.training.shards.shard_digest` of every shard.
    n_sentences, n_tokens : int
    feat_label : int32 array, shape (n_features,)
    n_labels : int
    sees : dict
        Worker address -> whether it reads the files as this process does (asked of each worker the first
        time a shard goes to it: :func:`workers_seeing`).
    how : set of str
        "mapped" and/or "sent": how the shards reached their workers so far.
    """

    def __init__(self, folder, bounds, digests, n_tokens, feat_label, n_labels):
        self.folder, self.bounds, self.digests = folder, bounds, digests
        self.n_sentences, self.n_tokens = int(bounds[-1]), int(n_tokens)
        self.feat_label, self.n_labels = feat_label, int(n_labels)
        self.sees: dict = {}
        self.how: set = set()

    @property
    def k(self) -> int:
        return len(self.bounds) - 1

    def paths(self, i: int) -> ShardPaths:
        return ShardPaths({name: os.path.join(self.folder, f"shard{i:05d}.{name}.npy") for name in NAMES})

    def send(self, client, i: int, worker: str):
        """Send shard ``i`` to ``worker``: its file names (when it sees them) or its arrays, read from the
        files and scattered block by block (at most :data:`BLOCK_BYTES` in this process at a time); returns
        what the worker's task takes (:func:`~chaintag.training.worker.load_shard`) and the digest."""
        paths = self.paths(i)
        if worker not in self.sees:
            self.sees.update(workers_seeing(client, self.folder, [worker]))
        if self.sees.get(worker):
            self.how.add("mapped")
            return paths, self.digests[i]
        self.how.add("sent")
        blocks = {}
        for name, path in paths.items():
            blocks[name] = [client.scatter([b], workers=[worker], hash=False)[0] for b in _read_blocks(path)]
        return blocks, self.digests[i]

    def gold_parts(self):
        """The gold label ids, shard by shard (for the checkpoint's fingerprint)."""
        for i in range(self.k):
            yield np.load(self.paths(i)["gold"])


def _read_blocks(path: str):
    """The 1-D array of a ``.npy`` file in blocks of at most :data:`BLOCK_BYTES` (read, not mapped: no
    page of the file stays in this process); an empty array gives one empty block."""
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(f)
        n = int(shape[0])
        step = max(1, BLOCK_BYTES // dtype.itemsize)
        for a in range(0, max(n, 1), step):
            m = min(step, n - a)
            yield np.frombuffer(f.read(m * dtype.itemsize), dtype=dtype, count=m)


def write_shard_files(corpus, n_shards: int, feat_label, n_labels: int, remove_chunks: bool = True) -> ShardFiles:
    """Write the shards of a chunked corpus; the chunk files are removed as they are used up.

    Parameters
    ----------
    corpus : chaintag.streaming.extract.StreamedCorpus
    n_shards : int
        Cut to the number of sentences when larger.
    feat_label : int32 array, shape (n_features,)
    n_labels : int
    remove_chunks : bool, default True
        Delete each chunk's files once every shard has its piece (the disk
        holds the corpus about once, not twice).

    Returns
    -------
    ShardFiles
        In ``corpus.folder``; arrays and digests equal those of
        :func:`~chaintag.training.shards.make_shard` over the corpus in memory.
    """
    n_sent = corpus.n_sentences
    tok_cum = np.zeros(n_sent + 1, dtype=np.int64)   # tokens before each sentence
    ent_cum = np.zeros(n_sent + 1, dtype=np.int64)   # entries before each sentence
    dtypes = {}
    for c in range(corpus.n_chunks):
        s0, s1 = int(corpus.bounds[c]), int(corpus.bounds[c + 1])
        sp = np.load(corpus.path(c, "sent_ptr"))
        tp = np.load(corpus.path(c, "tok_ptr"), mmap_mode="r")
        tok_cum[s0 + 1:s1 + 1] = tok_cum[s0] + sp[1:]
        ent_cum[s0 + 1:s1 + 1] = ent_cum[s0] + np.asarray(tp[sp[1:]])
        if c == 0:
            dtypes = {name: np.load(corpus.path(0, name), mmap_mode="r").dtype for name in NAMES}
        del sp, tp
    bounds = bounds_from_entries(ent_cum, min(int(n_shards), n_sent))
    files = ShardFiles(corpus.folder, bounds, [], int(tok_cum[-1]), feat_label, n_labels)
    removed = 0
    for i in range(files.k):
        S0, S1 = int(bounds[i]), int(bounds[i + 1])
        sizes = {"sent_ptr": S1 - S0 + 1, "tok_ptr": int(tok_cum[S1] - tok_cum[S0]) + 1,
                 "gold": int(tok_cum[S1] - tok_cum[S0]), "ent_lo": int(ent_cum[S1] - ent_cum[S0]),
                 "ent_n": int(ent_cum[S1] - ent_cum[S0])}
        crc = 0
        c_first = int(np.searchsorted(corpus.bounds, S0, side="right") - 1)
        c_last = int(np.searchsorted(corpus.bounds, S1 - 1, side="right") - 1)
        for name in NAMES:
            dtype = np.dtype(np.int64) if name in ("sent_ptr", "tok_ptr") else dtypes[name]
            shape = (sizes[name],)
            crc = zlib.crc32(f"{name}|{dtype.str}|{shape}".encode(), crc)
            with open(files.paths(i)[name], "wb") as f:
                np.lib.format.write_array_header_1_0(
                    f, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape})
                for c in range(c_first, c_last + 1):
                    piece = _piece(corpus, c, S0, S1, name, tok_cum, ent_cum).astype(dtype, copy=False)
                    crc = zlib.crc32(memoryview(np.ascontiguousarray(piece)).cast("B"), crc)
                    f.write(piece.tobytes())
                if name in ("sent_ptr", "tok_ptr"):  # the closing offset
                    end = np.asarray([sizes["gold"] if name == "sent_ptr" else sizes["ent_lo"]], dtype=dtype)
                    crc = zlib.crc32(memoryview(end).cast("B"), crc)
                    f.write(end.tobytes())
        files.digests.append(f"{crc:08x}")
        if remove_chunks:  # the chunks no later shard reads
            upto = int(np.searchsorted(corpus.bounds, S1, side="right") - 1) if i + 1 < files.k else corpus.n_chunks
            for c in range(removed, upto):
                for name in NAMES:
                    try:
                        os.remove(corpus.path(c, name))
                    except FileNotFoundError:
                        pass
            removed = max(removed, upto)
    return files


def _piece(corpus, c: int, S0: int, S1: int, name: str, tok_cum, ent_cum) -> np.ndarray:
    """Chunk ``c``'s part of array ``name`` of the shard of sentences ``S0:S1`` (offsets rebased to the shard;
    without the closing offset)."""
    cs0 = int(corpus.bounds[c])
    a, b = max(S0, cs0) - cs0, min(S1, int(corpus.bounds[c + 1])) - cs0  # chunk-local sentences
    sp = np.load(corpus.path(c, "sent_ptr"))
    t_a, t_b = int(sp[a]), int(sp[b])
    if name == "sent_ptr":
        return sp[a:b] - t_a + (tok_cum[cs0 + a] - tok_cum[S0])
    if name == "gold":
        return np.asarray(np.load(corpus.path(c, "gold"), mmap_mode="r")[t_a:t_b])
    tp = np.load(corpus.path(c, "tok_ptr"), mmap_mode="r")
    if name == "tok_ptr":
        return np.asarray(tp[t_a:t_b]) - int(tp[t_a]) + (ent_cum[cs0 + a] - ent_cum[S0])
    e_a, e_b = int(tp[t_a]), int(tp[t_b])
    return np.asarray(np.load(corpus.path(c, name), mmap_mode="r")[e_a:e_b])


def workers_seeing(client, folder: str, workers: list[str]) -> dict:
    """Which of ``workers`` read ``folder`` as this process does (a marker file with a random token is
    written there and read back by each of them); ``{address: bool}``."""
    import secrets
    token = secrets.token_hex(16)
    marker = os.path.join(folder, f"marker-{token}.txt")
    with open(marker, "w") as f:
        f.write(token)
    try:
        seen = client.run(_read_marker, marker, workers=list(workers))
    except Exception:  # noqa: BLE001 (a worker that cannot answer does not see it)
        seen = {}
    finally:
        os.remove(marker)
    return {w: seen.get(w) == token for w in workers}


def _read_marker(path: str):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None
