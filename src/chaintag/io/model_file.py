"""Model files: a zip of ``.npy`` arrays (``np.load``-compatible) plus JSON metadata.

The format is non-executable: arrays are read with ``allow_pickle=False`` and
the metadata is JSON stored as the uint8 array ``__meta__``. Entries carry a
fixed timestamp so that equal models give equal bytes. Files are written
atomically (temporary file + rename).
"""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np

from .. import __version__
from ..errors import ModelFormatError
from .atomic import atomic_open

FORMAT_NAME = "chaintag-model"
FORMAT_VERSION = 1
_EPOCH = (1980, 1, 1, 0, 0, 0)


def save_model(path, meta: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write a model file atomically.

    Parameters
    ----------
    path : str or os.PathLike
        Destination (conventionally ``*.npz``).
    meta : dict
        JSON-serializable description; ``format``, ``format_version`` and
        ``chaintag_version`` are added.
    arrays : dict of str to ndarray
        Numeric arrays (no object dtype).

    Raises
    ------
    ValueError
        If an array has object dtype.
    """
    meta = dict(meta, format=FORMAT_NAME, format_version=FORMAT_VERSION, chaintag_version=__version__)
    blob = json.dumps(meta, ensure_ascii=False, sort_keys=True).encode("utf-8")
    items = [("__meta__", np.frombuffer(blob, dtype=np.uint8))] + sorted(arrays.items())
    with atomic_open(path, "wb") as f:
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as zf:
            for name, arr in items:
                arr = np.asarray(arr)
                if arr.dtype == object:
                    raise ValueError(f"array {name!r} has object dtype; models hold numeric arrays only")
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
                info = zipfile.ZipInfo(name + ".npy", date_time=_EPOCH)
                info.external_attr = 0o644 << 16
                zf.writestr(info, buf.getvalue())


def load_model(path) -> tuple[dict, dict[str, np.ndarray]]:
    """Read a model file written by :func:`save_model`.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    meta : dict
    arrays : dict of str to ndarray

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ModelFormatError
        If the file is truncated, corrupt, not a chaintag model, or of a
        newer format version than this release reads.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such model file")
    if os.path.isdir(path):
        raise ModelFormatError(f"{path}: is a folder, not a model file")
    if not zipfile.is_zipfile(path):
        raise ModelFormatError(f"{path}: not a chaintag model file (not an npz archive; "
                               "truncated, or some other kind of file)")
    try:
        with np.load(path, allow_pickle=False) as data:
            if "__meta__" not in data.files:
                raise ModelFormatError(f"{path}: not a chaintag model file (no metadata)")
            meta = json.loads(bytes(data["__meta__"]).decode("utf-8"))
            arrays = {k: data[k] for k in data.files if k != "__meta__"}
    except ModelFormatError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError, UnicodeDecodeError) as exc:
        detail = str(exc)
        if "pickle" in detail:  # never suggest loading pickles
            detail = "it holds pickled (executable) data, which chaintag refuses to load"
        raise ModelFormatError(f"{path}: not a readable chaintag model file "
                               f"(truncated or corrupt?): {detail}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelFormatError(f"{path}: not a chaintag model file")
    version = meta.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ModelFormatError(
            f"{path}: model format version {version} is newer than this chaintag "
            f"({__version__}) reads (up to {FORMAT_VERSION}); upgrade chaintag")
    return meta, arrays
