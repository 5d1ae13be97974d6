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


class TrainingError(ChaintagError, ValueError):
    """Training cannot produce a usable model (e.g. no features survive the cut-off)."""
