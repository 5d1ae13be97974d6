"""Exceptions raised by chaintag, with the file and line they concern."""

from __future__ import annotations

import os


class ChaintagError(Exception):
    """Base class of every error chaintag raises on purpose."""


class InputError(ChaintagError, ValueError):
    """Bad input data: the message names the file and, where known, the line.

    Parameters
    ----------
    message : str
        What was wrong and what was expected.
    path : str or os.PathLike, optional
        The file concerned (``"<stdin>"`` for standard input).
    line : int, optional
        1-based line number in that file.
    """

    def __init__(self, message: str, path: str | os.PathLike | None = None,
                 line: int | None = None):
        self.message = message
        self.path = None if path is None else os.fspath(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + message)


class ModelFormatError(ChaintagError, ValueError):
    """A model file is truncated, corrupt, foreign or of an unsupported version."""


class MissingExtraError(ChaintagError, ImportError):
    """An optional dependency is not installed, and a part of chaintag that needs it was asked for; the
    message names the extra that installs it (``pip install 'chaintag[EXTRA]'``). One class for every
    extra (scikit-learn, SciPy, PyTorch, Dask, ...), so that one ``except`` catches them all."""


class NotFittedError(ChaintagError, RuntimeError, ValueError, AttributeError):
    """A method that needs a fitted model was called before ``fit`` (or ``load``).

    It is an ``AttributeError`` and a ``ValueError`` as scikit-learn's
    ``NotFittedError`` is (so ``hasattr(model, "weights_")`` is False before
    fitting), and a ``RuntimeError`` as chaintag's earlier releases raised.
    """


class TrainingError(ChaintagError, ValueError):
    """Training cannot produce a usable model (e.g. no features survive the cut-off)."""


class OutputError(ChaintagError, OSError):
    """A file could not be written (disk full, folder gone, ...); the message names the file.

    Parameters
    ----------
    message : str
        What failed, with the file's name.
    path : str or os.PathLike, optional
        The file that could not be written.
    errno : int, optional
        The operating system's error number (``errno.ENOSPC`` for a full disk).
    exit_code : int, default 2
        The exit code of the command line (see the README's table of exit codes).
    """

    def __init__(self, message: str, path: str | os.PathLike | None = None, errno: int | None = None,
                 exit_code: int = 2):
        if errno is not None:
            super().__init__(errno, message)
        else:
            super().__init__(message)
        self.message = message
        self.path = None if path is None else os.fspath(path)
        self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message


class NumericalError(TrainingError):
    """Training produced weights that are not finite (NaN or infinity): the message names the epoch, and the
    attribute value that most likely caused it (the largest real value in the corpus)."""
