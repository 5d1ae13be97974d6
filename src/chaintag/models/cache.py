"""The user's cache folder, where ``chaintag models build NAME`` puts the models it trains."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CACHE_ENV", "cache_dir", "cached_model_path"]

#: Environment variable naming chaintag's cache folder (it wins over ``XDG_CACHE_HOME``).
CACHE_ENV = "CHAINTAG_CACHE"


def cache_dir() -> Path:
    """chaintag's cache folder.

    Returns
    -------
    pathlib.Path
        ``$CHAINTAG_CACHE`` when set and non-empty; else ``$XDG_CACHE_HOME/chaintag``
        when ``XDG_CACHE_HOME`` is set and non-empty; else ``~/.cache/chaintag``. It need not exist.
    """
    own = os.environ.get(CACHE_ENV)
    if own:
        return Path(own)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "chaintag"


def cached_model_path(name: str) -> Path:
    """Where the model ``name`` built by ``chaintag models build`` is kept.

    Parameters
    ----------
    name : str
        A model name (``en-chunk``).

    Returns
    -------
    pathlib.Path
        ``<cache folder>/models/<name>.npz`` (see :func:`cache_dir`); it need not exist.
    """
    return cache_dir() / "models" / f"{name}.npz"
