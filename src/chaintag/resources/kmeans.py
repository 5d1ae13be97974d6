"""k-means cluster ids of word vectors (scikit-learn's MiniBatchKMeans, imported when used)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError

__all__ = ["KMEANS_PASSES", "KMEANS_VERSION", "kmeans_ids", "sklearn_version"]

#: Most passes of MiniBatchKMeans over the vocabulary.
KMEANS_PASSES = 20
#: Version of :func:`kmeans_ids`: raise it when the same vectors would get other ids (it keys the
#: cached ids, :mod:`chaintag.resources.cached`, with scikit-learn's version).
KMEANS_VERSION = 1


def sklearn_version() -> str:
    """The installed scikit-learn's version (read from its metadata, not imported), or ``"none"``."""
    from importlib import metadata
    try:
        return metadata.version("scikit-learn")
    except metadata.PackageNotFoundError:
        return "none"


def kmeans_ids(vectors: np.ndarray, n_clusters: int, seed: int = 0) -> np.ndarray:
    """Cluster id of each row among ``n_clusters`` k-means clusters of the unit-length rows.

    Parameters
    ----------
    vectors : float array, shape (n_words, dim)
        All-zero rows (words without a vector) get id -1.
    n_clusters : int
    seed : int

    Returns
    -------
    int32 array, shape (n_words,)

    Notes
    -----
    scikit-learn's MiniBatchKMeans (Sculley 2010): batch 4096, one k-means++ initialisation,
    at most :data:`KMEANS_PASSES` passes over the words (fewer when the inertia stops improving).
    """
    ids, _ = _kmeans(vectors, n_clusters, seed)
    return ids


def _kmeans(vectors, n_clusters, seed=0):
    from ..lazy import require
    MiniBatchKMeans = require("sklearn.cluster", "clusters", "k-means clusters of word vectors").MiniBatchKMeans
    x = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1)
    live = norms > 0
    if int(live.sum()) < n_clusters:
        raise InputError(f"{int(live.sum())} word vectors cannot make {n_clusters} clusters")
    unit = x[live] / norms[live, None]
    km = MiniBatchKMeans(n_clusters=n_clusters, random_state=seed, batch_size=4096, n_init=1,
                         max_iter=KMEANS_PASSES, max_no_improvement=10)
    ids = np.full(len(x), -1, dtype=np.int32)
    ids[live] = km.fit_predict(unit).astype(np.int32)
    return ids, km.cluster_centers_
