"""The on-disk store of derived resources: npz arrays and a JSON description, keyed by a content digest.

An entry ``KIND-KEY`` of the folder :func:`resource_cache_dir` is two files:
``KIND-KEY.npz`` (the arrays, uncompressed, no pickle) and ``KIND-KEY.json``
(what they were derived from, with the names, shapes, dtypes and sha256 of
the arrays), each written atomically, the JSON last: an entry without its JSON
was not finished and is rebuilt. ``KEY`` is the sha256 of the settings that
determine the arrays (:func:`entry_key`): the source file's sha256, the
versions of the code that derived them, ... so a changed source gives a new
key and an old entry is never read for it. An entry that cannot be read back
as its JSON describes (a cut or damaged file: the zip CRC, shapes, dtypes, the
arrays' digests, which also catch the arrays of another entry put in its
place, the caller's checks) is reported on the ``chaintag.resources`` logger and
ignored: the caller rebuilds it and the new entry replaces it. A store that
cannot be written (read-only folder, full disk) is reported the same way;
the caller goes on with what it computed.

``CHAINTAG_RESOURCE_CACHE=0`` (or ``off``, ``no``, ``false``) turns the store off.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import zipfile
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import ChaintagError
from .digest import array_sha256
from ..io.atomic import atomic_open
from ..models.cache import cache_dir

__all__ = ["STORE_FORMAT", "SWITCH_ENV", "resource_cache_dir", "store_enabled", "entry_key", "read_entry", "say",
           "write_entry"]

#: Version of the entry layout (part of every key).
STORE_FORMAT = 2  # 2: the description holds each array's sha256
#: Environment variable that turns the store off (``0``, ``off``, ``no``, ``false``).
SWITCH_ENV = "CHAINTAG_RESOURCE_CACHE"

_LOG = logging.getLogger("chaintag.resources")


def say(message: str) -> None:
    """``resources: MESSAGE``, for a step that takes a while when the cache misses: an INFO record of the
    ``chaintag.resources`` logger, which the command line shows on stderr (not with ``-q``) and the
    library leaves to the application's logging set-up."""
    _LOG.info("resources: %s", message)


def resource_cache_dir() -> Path:
    """The folder of the store: ``resources/`` in chaintag's cache folder.

    Returns
    -------
    pathlib.Path
        ``<cache>/resources``, ``<cache>`` as :func:`chaintag.models.cache.cache_dir` (``CHAINTAG_CACHE``,
        else ``$XDG_CACHE_HOME/chaintag``, else ``~/.cache/chaintag``). It need not exist.
    """
    return cache_dir() / "resources"


def store_enabled() -> bool:
    """Whether the store is used (``CHAINTAG_RESOURCE_CACHE`` not set to 0, off, no or false)."""
    return os.environ.get(SWITCH_ENV, "").strip().lower() not in ("0", "off", "no", "false")


def entry_key(settings: dict) -> str:
    """The key of an entry: the sha256 (64 hex digits) of ``settings`` as sorted JSON, with the store format.

    Parameters
    ----------
    settings : dict
        JSON-ready values that determine the arrays (source digest, code versions, parameters).
    """
    text = json.dumps({"store": STORE_FORMAT, **settings}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _paths(kind: str, key: str) -> tuple[Path, Path]:
    base = resource_cache_dir() / f"{kind}-{key}"
    return base.with_suffix(".npz"), base.with_suffix(".json")


def read_entry(kind: str, key: str, check: Callable[[dict, dict], None] | None = None) -> dict | None:
    """The arrays of an entry, or None when it is missing, unfinished or damaged (rebuild it then).

    Parameters
    ----------
    kind : str
        ``"vectors"``, ``"kmeans"``, ...: the first part of the file names.
    key : str
        From :func:`entry_key`.
    check : callable, optional
        ``check(arrays, meta)`` raises ValueError when the arrays do not hold what ``meta`` says.

    Returns
    -------
    dict of str to numpy.ndarray, or None
        A damaged entry is reported (a warning on the ``chaintag.resources`` logger) before None.
    """
    if not store_enabled():
        return None
    npz, meta_path = _paths(kind, key)
    if not npz.is_file() or not meta_path.is_file():
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if not isinstance(meta, dict) or meta.get("key") != key or meta.get("kind") != kind:
            raise ValueError("its description names another entry")
        want = meta.get("arrays")
        with np.load(npz, allow_pickle=False) as z:
            if not isinstance(want, dict) or sorted(z.files) != sorted(want):
                raise ValueError("its arrays are not the ones described")
            arrays = {name: z[name] for name in z.files}  # read whole: the zip CRC is checked
        for name, arr in arrays.items():
            if not isinstance(want[name], list) or [list(arr.shape), arr.dtype.str] != want[name][:2]:
                raise ValueError(f"array {name} has shape {arr.shape} and dtype {arr.dtype.str}, "
                                 f"not {want[name]}")
            if want[name][2:] != [array_sha256(arr)]:
                raise ValueError(f"array {name} is not the one described (its sha256 differs)")
        if check is not None:
            check(arrays, meta)
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as exc:
        _LOG.warning("the cached %s %s is damaged (%s): it is ignored and rebuilt", kind, npz,
                     str(exc) or type(exc).__name__)
        return None
    return arrays


def write_entry(kind: str, key: str, arrays: dict, meta: dict) -> bool:
    """Store an entry (the arrays, then their description), atomically; a failure is reported, not raised.

    Parameters
    ----------
    kind, key : str
        As for :func:`read_entry`.
    arrays : dict of str to numpy.ndarray
        Plain numeric arrays (no object dtype).
    meta : dict
        JSON-ready description (what the arrays were derived from); ``kind``, ``key``
        and ``arrays`` (names, shapes, dtypes, sha256) are added.

    Returns
    -------
    bool
        Whether the entry was written (False when the store is off or cannot be written).
    """
    if not store_enabled():
        return False
    npz, meta_path = _paths(kind, key)
    described = {**meta, "kind": kind, "key": key,
                 "arrays": {n: [list(a.shape), a.dtype.str, array_sha256(a)] for n, a in arrays.items()}}
    try:
        npz.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(npz, "wb") as f:
            np.savez(f, **arrays)
        with atomic_open(meta_path, "w", newline="\n") as f:
            f.write(json.dumps(described, sort_keys=True, indent=1) + "\n")
    except (OSError, ChaintagError) as exc:
        _LOG.warning("cannot cache the %s in %s (%s): it is computed again next time", kind,
                     resource_cache_dir(), exc)
        return False
    return True
