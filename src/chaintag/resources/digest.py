"""Content digests (sha256) of resource files and arrays: the keys of the resource cache."""

from __future__ import annotations

import hashlib
import os

import numpy as np

from ..errors import InputError

__all__ = ["file_sha256", "array_sha256"]

_CHUNK = 1 << 20


def file_sha256(path) -> str:
    """The sha256 of a file's bytes, as 64 hex digits.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    str
        Hex digest (about 0.5 s for 171 MB).

    Raises
    ------
    chaintag.errors.InputError
        When the file cannot be opened or read (the message names it).
    """
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(_CHUNK), b""):
                h.update(block)
    except OSError as exc:
        raise InputError(f"cannot read the resource file: {exc.strerror or exc}", os.fspath(path)) from None
    return h.hexdigest()


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
