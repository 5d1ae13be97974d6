"""A model argument to the file to load: a file that exists, else a built-in or cached model's name."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import InputError
from .cache import cached_model_path
from .catalog import MODELS, known_names

__all__ = ["builtin_model_path", "looks_like_name", "resolve_model", "check_built_with"]

#: A model name: lowercase letters, digits and inner hyphens or underscores (no path separator, no dot).
_NAME = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")


def builtin_model_path(name: str) -> Path:
    """The file of a built-in model in the installed package (it need not exist).

    Parameters
    ----------
    name : str
        A built-in model's name (``en-pos``).

    Returns
    -------
    pathlib.Path
    """
    return Path(__file__).resolve().parent / f"{name}.npz"


def looks_like_name(text: str) -> bool:
    """Whether ``text`` could be a model name rather than a path: no folder, no suffix (``en-pos``).

    Parameters
    ----------
    text : str

    Returns
    -------
    bool
    """
    return _NAME.fullmatch(text) is not None


def resolve_model(model: str | os.PathLike) -> str | os.PathLike:
    """The file that a model argument means.

    Parameters
    ----------
    model : str or os.PathLike
        A model file, or the name of a built-in model (``en-pos``) or of one built into the cache
        folder by ``chaintag models build NAME``.

    Returns
    -------
    str or os.PathLike
        ``model`` itself when it exists and is no folder (a file always wins over a name) or when it
        does not look like a name (``m.npz``, ``runs/m``: loading it reports the missing file); else the
        built-in model's file, else the cached one.

    Raises
    ------
    chaintag.errors.InputError
        For a name that is no file here and no known model (the message lists the known names),
        and for a known name that is neither shipped nor built yet (the message says how to build it).
    """
    text = os.fspath(model)
    if isinstance(text, bytes) or not looks_like_name(text) or (os.path.exists(text) and not os.path.isdir(text)):
        if isinstance(text, str) and not os.path.exists(text) and text.lower() in MODELS:
            raise InputError(f"no model file {text!r}; model names are lower case: {text.lower()}")
        return model
    info = MODELS.get(text)
    if info is None:
        raise InputError(f"no model file or known model named {text!r}; the known models are "
                         f"{', '.join(known_names())} (chaintag models list)")
    if info.builtin and builtin_model_path(text).is_file():
        return str(builtin_model_path(text))
    cached = cached_model_path(text)
    if cached.is_file():
        return str(cached)
    raise InputError(f"the model {text!r} is not built yet: chaintag models build {text} (it trains on "
                     f"{info.train_source()} of the data directory and keeps the model in {cached.parent})")


def check_built_with(name: str, algorithm: str | None, path) -> None:
    """Refuse a model of a known name, cached in the cache folder, that was built with another learner
    than its catalog entry names (built by an earlier version, whose entry named none).

    Parameters
    ----------
    name : str
        The name the model was asked by (``en-chunk``).
    algorithm : str or None
        The learner the model file records.
    path : str or os.PathLike
        The cached file, for the message.

    Raises
    ------
    chaintag.errors.InputError
        Naming both learners and the command that rebuilds the model.
    """
    info = MODELS.get(name)
    want = info.settings.get("algorithm") if info is not None else None
    if want and not info.builtin and algorithm != want:
        raise InputError(f"the cached model {name} ({path}) was built with {algorithm}, but the catalog's {name} "
                         f"is {want}: rebuild it with chaintag models build {name}")
