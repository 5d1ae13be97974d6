"""Resource files read through the on-disk cache: parsed word vectors and their k-means ids kept as npz.

Reading a large text vector file (GloVe 6B 50d: 400,000 lines, 171 MB, about
11 s) and clustering its vectors (k-means at 256 and 1024 clusters: tens of
seconds) is done once per file content: the results are kept in the store of
:mod:`chaintag.resources.store` (``<cache>/resources/``), keyed by

- for vectors: the sha256 of the file's bytes and :data:`VECTORS_READER_VERSION`;
- for k-means ids: the vectors' key (or the sha256 of the vector array, for
  vectors merged from several files), the number of clusters, the seed,
  :data:`KMEANS_VERSION` and scikit-learn's version.

A file whose bytes changed gets a new key, so a stale entry is never used.
The arrays read back are those the readers give (float32 vectors, int32 ids),
so a model trained with the cache is the model trained without it.
Brown paths files and cluster tables are read as they are (they are read fast).
"""

from __future__ import annotations

import os

import numpy as np

from . import files as _files
from . import kmeans as _kmeans
from .digest import array_sha256, file_sha256
from .store import entry_key, read_entry, say, store_enabled, write_entry
from .wordmaps import WordMaps

__all__ = ["cached_vectors", "cached_kmeans", "cached_read", "load_resources"]


def _words_blob(words: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(words).encode("utf-8"), dtype=np.uint8)


def _check_vectors(arrays: dict, meta: dict) -> None:
    n, dim = meta["n_words"], meta["dim"]
    if arrays["vectors"].shape != (n, dim) or arrays["vectors"].dtype != np.float32:
        raise ValueError(f"the vectors are not {n} x {dim} float32")
    words = arrays["words"].tobytes().decode("utf-8").split("\n")
    if len(words) != n or len(set(words)) != n:
        raise ValueError(f"{len(words)} words (or repeated ones) where {n} are described")
    if not np.isfinite(arrays["vectors"]).all():
        raise ValueError("the vectors hold inf or nan")
    arrays["_words"] = words


def cached_vectors(path, source: str | None = None) -> WordMaps:
    """Read a word-vector text file, from the cache when its content was read before.

    Parameters
    ----------
    path : str or os.PathLike
        A vector file in text format (see :func:`chaintag.resources.files.read_vectors`).
    source : str, optional
        Description kept with the maps (default: the file name).

    Returns
    -------
    WordMaps
        ``words`` and ``vectors`` (float32, shape (n_words, dim)) as
        :func:`~chaintag.resources.files.read_vectors` gives them; their
        ``kmeans`` ids are computed through :func:`cached_kmeans`.

    Raises
    ------
    chaintag.errors.InputError
        When the file cannot be read or is malformed (file and line named), as the reader.
    """
    source = source or os.path.basename(os.fspath(path))
    if not store_enabled():
        maps = _files.read_vectors(path, source=source)
        maps.kmeans_cache = cached_kmeans
        return maps

    def read(p):
        m = _files.read_vectors(p, source=source)
        return m.words, m.vectors

    words, vectors, key = _cached_arrays(path, "vectors", _files.VECTORS_READER_VERSION, read)
    maps = WordMaps(words, vectors=vectors, source=source)
    maps.vectors_digest = "vectors-" + key
    maps.kmeans_cache = cached_kmeans
    return maps


def cached_read(path, what: str, version: int, reader) -> tuple[list[str], np.ndarray]:
    """``reader(path) -> (words, float32 vectors)``, from the cache when this file's content was read before.

    Parameters
    ----------
    path : str or os.PathLike
    what : str
        Which reader (part of the key: two readers of one file keep two entries).
    version : int
        The reader's version (raise it when the same bytes would give other words or values).
    reader : callable

    Returns
    -------
    words : list of str
    vectors : float32 array, shape (len(words), dim)

    Raises
    ------
    Whatever ``reader`` raises (the file is read only when no entry holds it).
    """
    if not store_enabled():
        return reader(path)
    words, vectors, _ = _cached_arrays(path, what, version, reader)
    return words, vectors


def _cached_arrays(path, what: str, version: int, reader) -> tuple[list[str], np.ndarray, str]:
    """The words and float32 vectors of ``reader(path)`` through the store, and the entry's key."""
    digest = file_sha256(path)
    key = entry_key({"what": what, "file_sha256": digest, "reader": version})
    arrays = read_entry("vectors", key, _check_vectors)
    if arrays is not None:
        return arrays["_words"], arrays["vectors"], key
    say(f"reading {path} (once for this content; later runs read the cache)")
    words, vectors = reader(path)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    write_entry("vectors", key, {"words": _words_blob(words), "vectors": vectors},
                {"file": os.path.abspath(os.fspath(path)), "file_sha256": digest,
                 "file_bytes": os.path.getsize(path), "reader": version, "what": what,
                 "n_words": len(words), "dim": int(vectors.shape[1])})
    return words, vectors, key


def cached_kmeans(vectors: np.ndarray, n_clusters: int, vectors_digest: str | None = None,
                  seed: int = 0) -> np.ndarray:
    """k-means cluster ids of word vectors (:func:`chaintag.resources.kmeans.kmeans_ids`), cached.

    Parameters
    ----------
    vectors : float32 array, shape (n_words, dim)
    n_clusters : int
    vectors_digest : str, optional
        A key naming the content of ``vectors`` (the vectors' cache entry); None: the sha256 of the array.
    seed : int

    Returns
    -------
    int32 array, shape (n_words,)
        Ids in ``0 .. n_clusters - 1``, -1 for all-zero rows.

    Raises
    ------
    chaintag.errors.InputError
        When there are fewer non-zero vectors than clusters.
    """
    if not store_enabled():
        return _kmeans.kmeans_ids(vectors, n_clusters, seed)
    if vectors_digest is None:
        vectors_digest = "array-" + array_sha256(np.asarray(vectors, dtype=np.float32))
    settings = {"what": "kmeans", "vectors": vectors_digest, "n_clusters": int(n_clusters), "seed": int(seed),
                "kmeans": _kmeans.KMEANS_VERSION, "sklearn": _kmeans.sklearn_version()}
    key = entry_key(settings)
    n_rows = len(vectors)

    def check(arrays, meta):
        ids = arrays["ids"]
        if ids.shape != (n_rows,) or ids.dtype != np.int32:
            raise ValueError(f"the ids are not {n_rows} int32 values")
        if n_rows and (ids.min() < -1 or ids.max() >= n_clusters):
            raise ValueError(f"ids outside -1 .. {n_clusters - 1}")

    arrays = read_entry("kmeans", key, check)
    if arrays is not None:
        return arrays["ids"]
    say(f"k-means of {n_rows:,} word vectors into {n_clusters} clusters (once; cached)")
    ids = np.asarray(_kmeans.kmeans_ids(vectors, n_clusters, seed), dtype=np.int32)
    write_entry("kmeans", key, {"ids": ids}, {**settings, "n_words": n_rows})
    return ids


def load_resources(paths, cache: bool = True) -> WordMaps | None:
    """Read and merge the resource files ``paths``, word-vector files through the cache.

    Parameters
    ----------
    paths : sequence of str or os.PathLike
        Brown paths files, word-vector files, cluster tables (kind detected by
        :func:`~chaintag.resources.files.sniff_kind`), and folders of unlabeled text
        (:func:`~chaintag.resources.induced.cached_induced`).
    cache : bool, default True
        False: read every file and compute k-means ids as
        :func:`chaintag.resources.files.load_resources` does, without the cache.

    Returns
    -------
    WordMaps or None
        None when ``paths`` is empty.

    Raises
    ------
    chaintag.errors.InputError
        On a missing or malformed file (file and line named), or resources that cannot be merged.
    """
    if not cache:
        return _files.load_resources(paths)
    paths = [p for p in (paths or []) if p]
    if not paths:
        return None
    maps = []
    for p in paths:
        if os.path.isdir(p):  # a folder of unlabeled text: vectors and clusters induced once, then cached
            from .induced import cached_induced
            maps.append(cached_induced(p))
            continue
        kind = _files.sniff_kind(p)
        maps.append(cached_vectors(p) if kind == "vectors" else _files.read_resource(p, kind))
    merged = WordMaps.merge(maps)
    if merged.kmeans_cache is None:
        merged.kmeans_cache = cached_kmeans
    return merged
