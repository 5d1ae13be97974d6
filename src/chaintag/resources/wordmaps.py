"""Word -> cluster maps that templates read as functions of a column.

Naming (Turian et al. 2010, s. 7.1; Ratinov and Roth 2009, s. 5):

``brownK(x)``
    The first K bits of the word's bit-string path in a binary cluster
    hierarchy (a Brown clustering ``paths`` file, or the hierarchy that
    ``chaintag clusters`` builds over k-means centroids). A path shorter than
    K bits is used whole, as in those papers. K is 1 .. 64.
``kmN(x)``
    The id of the word's cluster among N k-means clusters of word vectors
    (e.g. ``km256``), read from a cluster table, or computed when the model
    is trained from a word-vector file (scikit-learn's MiniBatchKMeans,
    seed 0).

``vec(x)``
    The word's vector (a word-vector file: word2vec, GloVe, fastText text
    format), as D real-valued attributes, one per dimension, whose values
    are the components times a scale factor (Turian et al. 2010, s. 7.2:
    the vectors scaled so that their standard deviation is ``sigma``; see
    :mod:`chaintag.features.vectors`). It must be the outermost function
    of a template of its own (``vec(w[0])``, ``vec(lower(w[-1]))``).

A word missing from the resource makes the atom absent: the template does
not fire for that token (for ``vec``: no vector attribute, not a zero or
an "unknown" vector). Before the lookup the value goes through the
resource's own normalization (``lower``, ``norm``: the normalization the
clusters were induced with), so ``brown6(w[0])`` works on raw words.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

import numpy as np

from ..errors import InputError

#: Names of the resource functions: ``brown`` + prefix length, ``km`` + number of clusters.
RESOURCE_FUNCTION = re.compile(r"^(brown|km)([1-9][0-9]*)$")

_DIGIT = re.compile(r"\d")


def _norm_digits(v: str) -> str:
    """Every decimal digit (any script) as ``0``; a string of letters only is returned at once."""
    return v if v.isalpha() else _DIGIT.sub("0", v)


_NORMALIZERS: dict[str, Callable[[str], str]] = {
    "lower": str.lower,
    "norm": _norm_digits,
}

#: Values whose row :meth:`WordMaps.row` remembers (the memo starts again when full).
ROW_MEMO = 1 << 18


#: The template function that reads word vectors as real-valued attributes.
VECTOR_FUNCTION = "vec"


def is_resource_function(name: str) -> bool:
    """Whether ``name`` is a resource function (``brown6``, ``km256``, ``vec``, ...)."""
    if name == VECTOR_FUNCTION:
        return True
    m = RESOURCE_FUNCTION.match(name)
    return bool(m) and (m.group(1) != "brown" or int(m.group(2)) <= 64)


class WordMaps:
    """Word clusters of one or more resources, keyed by (normalized) word.

    Parameters
    ----------
    words : list of str
        The resource's vocabulary (distinct strings, no newline).
    paths : list of str, optional
        Bit-string path of each word (``""`` where unknown), for ``brownK``.
    clusters : dict of int to int32 array of shape (len(words),), optional
        For each number of clusters N, the cluster id of each word (-1 where
        unknown), for ``kmN``.
    vectors : float32 array of shape (len(words), dim), optional
        Word vectors; ``kmN`` for an N not in ``clusters`` is computed from
        them on first use (MiniBatchKMeans, seed 0); ``vec`` reads them. A
        model stores them only when its templates read ``vec``. An all-zero
        row means the word has no vector.
    normalize : sequence of {"lower", "norm"}
        Applied to a value before the lookup.
    source : str
        Description of where the maps came from (files), kept in the model.

    Raises
    ------
    InputError
        When the arrays do not match the vocabulary.
    """

    def __init__(self, words: list[str], paths: list[str] | None = None,
                 clusters: dict[int, np.ndarray] | None = None, vectors: np.ndarray | None = None,
                 normalize: Iterable[str] = (), source: str = ""):
        self.words = list(words)
        self.index = {w: k for k, w in enumerate(self.words)}
        self._row_memo: dict[str, int] = {}
        self.paths = list(paths) if paths is not None else None
        self.clusters = {int(k): np.asarray(v, dtype=np.int32) for k, v in (clusters or {}).items()}
        self.vectors = vectors
        self.normalize = tuple(normalize)
        self.source = source
        #: ``kmeans_cache(vectors, n, vectors_digest) -> ids``: where :meth:`kmeans` gets ids it lacks
        #: (set by :func:`chaintag.resources.cached.load_resources`: the on-disk cache); None: computed here.
        self.kmeans_cache: Callable[[np.ndarray, int, str | None], np.ndarray] | None = None
        #: A key naming the vectors' content (the cached file's entry), or None (the cache hashes the array).
        self.vectors_digest: str | None = None
        unknown = [n for n in self.normalize if n not in _NORMALIZERS]
        if unknown:
            raise InputError(f"unknown normalization {unknown[0]!r} (known: lower, norm)", source or None)
        for name, arr in [("paths", self.paths), ("vectors", vectors), *self.clusters.items()]:
            if arr is not None and len(arr) != len(self.words):
                raise InputError(f"resource {name} has {len(arr)} rows for {len(self.words)} words",
                                 source or None)

    # ------------------------------------------------------------ lookups
    def _key(self, value: str) -> str:
        for n in self.normalize:
            value = _NORMALIZERS[n](value)
        return value

    def row(self, value: str) -> int:
        """Row of ``value`` (normalized as the resource says) among the words, -1 when absent.

        Rows are remembered for the last :data:`ROW_MEMO` values asked, so that the several
        functions of one resource (``brown4``, ``brown6``, ``km256``) and successive batches
        normalize and look up each word once.
        """
        memo = self._row_memo
        j = memo.get(value)
        if j is None:
            j = self.index.get(self._key(value), -1)
            if len(memo) >= ROW_MEMO:
                memo.clear()
            memo[value] = j
        return j

    def available(self) -> list[str]:
        """Readable list of the function families this resource can serve."""
        out = []
        if self.paths is not None:
            out.append("brownK (paths)")
        out += [f"km{k}" for k in sorted(self.clusters)]
        if self.vectors is not None:
            out.append("kmN (vectors)")
        return out

    def function(self, name: str) -> Callable[[str], str | None]:
        """The string function that a template calls ``name`` (``brown6``, ``km256``).

        Raises
        ------
        InputError
            When this resource cannot serve ``name``.
        """
        m = RESOURCE_FUNCTION.match(name)
        if not m:
            raise InputError(f"{name!r} is not a resource function that gives strings (brownK or kmN)")
        kind, n = m.group(1), int(m.group(2))
        row = self.row
        if kind == "brown":
            if self.paths is None:
                raise InputError(f"template function {name} reads cluster paths, but the resources "
                                 f"({self.source or 'given'}) have none; they offer: "
                                 f"{', '.join(self.available()) or 'nothing'}")
            paths = self.paths

            def brown(v: str) -> str | None:
                j = row(v)
                if j < 0 or not paths[j]:
                    return None
                return paths[j][:n]
            return brown
        ids = self.kmeans(n)

        def km(v: str) -> str | None:
            j = row(v)
            if j < 0 or ids[j] < 0:
                return None
            return str(int(ids[j]))
        return km

    def kmeans(self, n: int) -> np.ndarray:
        """Cluster ids of every word among ``n`` clusters (computed from the vectors if needed).

        Raises
        ------
        InputError
            When neither a stored clustering with ``n`` clusters nor vectors are there.
        """
        if n in self.clusters:
            return self.clusters[n]
        if self.vectors is None:
            raise InputError(f"template function km{n} needs {n} k-means clusters, but the resources "
                             f"({self.source or 'given'}) offer: {', '.join(self.available()) or 'nothing'} "
                             "(give word vectors, or a cluster table with that many clusters)")
        try:
            if self.kmeans_cache is not None:
                self.clusters[n] = np.asarray(self.kmeans_cache(self.vectors, n, self.vectors_digest),
                                              dtype=np.int32)
            else:
                from .kmeans import kmeans_ids
                self.clusters[n] = kmeans_ids(self.vectors, n)
        except InputError as exc:
            if exc.path is None and self.source:  # the message names the resource it is about
                raise InputError(exc.message, self.source) from None
            raise
        return self.clusters[n]

    # --------------------------------------------------------- persistence
    def vector_rows(self) -> np.ndarray:
        """The vectors, checked to exist (for ``vec``).

        Returns
        -------
        float32 array, shape (n_words, dim)

        Raises
        ------
        InputError
            When the resources hold no word vectors.
        """
        if self.vectors is None:
            raise InputError(f"template function vec reads word vectors, but the resources "
                             f"({self.source or 'given'}) have none; they offer: "
                             f"{', '.join(self.available()) or 'nothing'} (give a word-vector file)")
        return self.vectors

    def subset(self, names: Iterable[str]) -> "WordMaps":
        """The maps that the functions ``names`` read (vectors only for ``vec``): what a model must store."""
        names = list(names)
        want_paths = any(n.startswith("brown") for n in names)
        ks = sorted({int(RESOURCE_FUNCTION.match(n).group(2)) for n in names if n.startswith("km")})
        clusters = {k: self.kmeans(k) for k in ks}
        vectors = self.vector_rows() if VECTOR_FUNCTION in names else None
        return WordMaps(self.words, self.paths if want_paths else None, clusters, vectors,
                        self.normalize, self.source)

    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """JSON-ready description and arrays (UTF-8 bytes and int32 ids, no pickle)."""
        meta = {"normalize": list(self.normalize), "source": self.source, "n_words": len(self.words),
                "paths": self.paths is not None, "kmeans": sorted(self.clusters),
                "vectors": self.vectors is not None}
        arrays = {"res_words": _blob(self.words)}
        if self.vectors is not None:
            arrays["res_vectors"] = np.ascontiguousarray(self.vectors, dtype=np.float32)
        if self.paths is not None:
            arrays["res_paths"] = _blob(self.paths)
        for k, ids in self.clusters.items():
            arrays[f"res_km{k}"] = ids
        return meta, arrays

    @classmethod
    def from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> "WordMaps":
        """Rebuild maps saved by :meth:`state`."""
        words = _unblob(arrays["res_words"], meta["n_words"])
        paths = _unblob(arrays["res_paths"], meta["n_words"]) if meta.get("paths") else None
        clusters = {int(k): np.asarray(arrays[f"res_km{k}"], dtype=np.int32) for k in meta.get("kmeans", [])}
        vectors = np.asarray(arrays["res_vectors"], dtype=np.float32) if meta.get("vectors") else None
        return cls(words, paths, clusters, vectors, meta.get("normalize", ()), meta.get("source", ""))

    @classmethod
    def merge(cls, maps: list["WordMaps"]) -> "WordMaps":
        """One resource from several (a paths file and a vector file, say).

        Raises
        ------
        InputError
            When two resources give the same kind of map, or normalize differently.
        """
        if len(maps) == 1:
            return maps[0]
        words: list[str] = []
        index: dict[str, int] = {}
        for m in maps:
            for w in m.words:
                if w not in index:
                    index[w] = len(words)
                    words.append(w)
        if len({m.normalize for m in maps}) > 1:
            raise InputError("the resources were induced with different normalizations: "
                             + "; ".join(f"{m.source}: {','.join(m.normalize) or 'none'}" for m in maps))
        paths = None
        clusters: dict[int, np.ndarray] = {}
        vectors = None
        for m in maps:
            rows = np.fromiter((index[w] for w in m.words), dtype=np.int64, count=len(m.words))
            if m.paths is not None:
                if paths is not None:
                    raise InputError(f"two resources give cluster paths ({m.source} and another)")
                paths = [""] * len(words)
                for r, p in zip(rows.tolist(), m.paths):
                    paths[r] = p
            for k, ids in m.clusters.items():
                if k in clusters:
                    raise InputError(f"two resources give km{k} clusters ({m.source} and another)")
                full = np.full(len(words), -1, dtype=np.int32)
                full[rows] = ids
                clusters[k] = full
            if m.vectors is not None:
                if vectors is not None:
                    raise InputError(f"two resources give word vectors ({m.source} and another)")
                # words without a vector get a zero vector; they are clustered but never
                # looked up through the vectors alone
                vectors = np.zeros((len(words), m.vectors.shape[1]), dtype=np.float32)
                vectors[rows] = m.vectors
        out = cls(words, paths, clusters, vectors, maps[0].normalize, " + ".join(m.source for m in maps))
        out.kmeans_cache = next((m.kmeans_cache for m in maps if m.kmeans_cache is not None), None)
        return out  # vectors_digest None: the rows were placed anew


def _blob(strings: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(strings).encode("utf-8"), dtype=np.uint8).copy()


def _unblob(arr: np.ndarray, n: int) -> list[str]:
    text = np.asarray(arr, dtype=np.uint8).tobytes().decode("utf-8")
    out = text.split("\n") if n else []
    if len(out) != n:
        from ..errors import ModelFormatError
        raise ModelFormatError(f"word resource holds {len(out)} entries, the metadata says {n}")
    return out
