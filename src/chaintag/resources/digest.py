"""Content digests (sha256) of resource files and arrays: the keys of the resource cache."""

from __future__ import annotations

import hashlib

import numpy as np

from ..io.file_digest import file_sha256  # noqa: F401 (the digest of resource files)

__all__ = ["file_sha256", "array_sha256"]

_CHUNK = 1 << 20


def array_sha256(arr: np.ndarray) -> str:
    """The sha256 of an array's dtype, shape and bytes (C order), as 64 hex digits.

    Parameters
    ----------
    arr : numpy.ndarray
        Any shape and dtype (word vectors: float32, shape (n_words, dim)).

    Returns
    -------
    str
    """
    a = np.ascontiguousarray(arr)
    h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode("ascii"))
    h.update(memoryview(a).cast("B"))
    return h.hexdigest()
