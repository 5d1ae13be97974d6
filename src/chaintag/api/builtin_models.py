"""Models by name: which are shipped, built or buildable here, and building one (``chaintag models``).

The names, settings and scores are :mod:`chaintag.models.catalog`; this module
looks at the data directory and the cache folder, and trains. A model built
from the same data with the same settings and the same chaintag version has the
same bytes (serial, seeded training; model files carry no time stamps), which
is how the shipped files are checked: ``chaintag models build en-pos --output
PATH`` gives the shipped file's SHA-256.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..io.file_digest import file_sha256
from ..models.cache import cached_model_path
from ..models.catalog import MODELS, ModelInfo, known_names
from ..models.resolve import builtin_model_path

__all__ = ["ModelStatus", "BuildResult", "list_models", "build_model", "file_sha256", "STATES"]

#: The states of a model name here, as ``chaintag models list`` prints them.
STATES = ("built-in", "built", "buildable", "not available")


@dataclass(frozen=True)
class ModelStatus:
    """A known model and where it stands on this machine.

    Attributes
    ----------
    info : ModelInfo
        Its catalog entry (name, what it tags, settings, scores, licence).
    state : str
        ``"built-in"`` (shipped in the package), ``"built"`` (in the cache folder),
        ``"buildable"`` (its training data is in the data directory) or ``"not available"``.
    path : pathlib.Path or None
        Its file when built-in or built, else None.
    size : int or None
        The file's size in bytes, when there is a file.
    data : pathlib.Path
        Where its training file is looked for.
    """

    info: ModelInfo
    state: str
    path: Path | None
    size: int | None
    data: Path


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build_model` made.

    Attributes
    ----------
    info : ModelInfo
    path : pathlib.Path
        The model file written.
    sha256 : str
        Its hex SHA-256.
    size : int
        Its size in bytes.
    seconds : float
        Wall-clock time of the training and saving.
    matches_shipped : bool or None
        For a built-in model: whether the file has the shipped file's SHA-256; else None.
    """

    info: ModelInfo
    path: Path
    sha256: str
    size: int
    seconds: float
    matches_shipped: bool | None


def _info(name: str) -> ModelInfo:
    info = MODELS.get(name)
    if info is None:
        raise InputError(f"unknown model {name!r}; the known models are {', '.join(known_names())}")
    return info


def _training_file(info: ModelInfo, data_dir) -> Path:
    """Where the training file of ``info`` is in the data directory (it need not exist)."""
    from ..data.location import resolve_data_dir
    from ..data.registry import DATASETS
    dataset = DATASETS[info.dataset]
    return resolve_data_dir(data_dir) / dataset.name / dataset.splits[info.split]


def _status(info: ModelInfo, data_dir) -> ModelStatus:
    data = _training_file(info, data_dir)
    places = [("built-in", builtin_model_path(info.name))] if info.builtin else []
    places.append(("built", cached_model_path(info.name)))
    for state, path in places:
        if path.is_file():
            return ModelStatus(info, state, path, path.stat().st_size, data)
    return ModelStatus(info, "buildable" if data.is_file() else "not available", None, None, data)


def list_models(data_dir: str | os.PathLike | None = None) -> list[ModelStatus]:
    """Every known model and its state here: built-in, built (cached), buildable or not available.

    Parameters
    ----------
    data_dir : str or os.PathLike, optional
        The data directory (default: as dataset references find it:
        :func:`chaintag.data.location.resolve_data_dir`).

    Returns
    -------
    list of ModelStatus
        In catalog order, the built-in models first.
    """
    return [_status(info, data_dir) for info in MODELS.values()]


def build_model(name: str, *, data_dir: str | os.PathLike | None = None,
                output: str | os.PathLike | None = None, log=None) -> BuildResult:
    """Train a known model with its catalog settings and save it (atomically).

    Parameters
    ----------
    name : str
        A model name (:func:`list_models`).
    data_dir : str or os.PathLike, optional
        The data directory holding its dataset (default: as dataset references find it).
    output : str or os.PathLike, optional
        Where to save it. Default: the cache folder
        (:func:`chaintag.models.cache.cached_model_path`), where ``chaintag.load(name)`` and
        ``--model NAME`` find it. A built-in model is shipped already: rebuilding it needs
        ``output`` (e.g. to compare its SHA-256 with the shipped file's).
    log : callable, optional
        Gets one line per step of the training (default: none).

    Returns
    -------
    BuildResult

    Raises
    ------
    chaintag.errors.InputError
        For an unknown name, a built-in model without ``output``, or a training file that is not
        in the data directory (and could not be fetched).

    Examples
    --------
    >>> from chaintag.api.builtin_models import build_model
    >>> build_model("en-chunk").path  # doctest: +SKIP
    PosixPath('/home/me/.cache/chaintag/models/en-chunk.npz')
    """
    from .training import train
    info = _info(name)
    if output is None and info.builtin:
        raise InputError(f"{name} is built in (shipped with chaintag): give --output PATH to rebuild it, "
                         "e.g. to compare it with the shipped file")
    path = Path(output) if output is not None else cached_model_path(name)
    if output is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    else:  # refused before the training, not after it
        from ..io.atomic import check_writable
        from .train_checks import check_model_path
        check_model_path(output, "--output")
        check_writable(output)
    start = time.perf_counter()
    train(info.train_source(), data_dir=data_dir, model=os.fspath(path), log=log, **info.settings)
    seconds = time.perf_counter() - start
    digest = file_sha256(path)
    matches = (digest == info.sha256) if info.builtin else None
    return BuildResult(info, path, digest, path.stat().st_size, seconds, matches)
