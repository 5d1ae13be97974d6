"""Atomic file writes: a temporary file in the target folder, then a rename."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from ..errors import InputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_writable(path) -> None:
    """Raise a clear error now if ``path`` could not be written later.

    Raises
    ------
    chaintag.errors.InputError
        The folder does not exist, is not writable, or ``path`` is a folder.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise InputError("is a directory, not a file", path)
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        raise InputError(f"cannot write here: the folder {folder} does not exist", path)
    if not os.access(folder, os.W_OK) and not os.access(path, os.W_OK):
        raise InputError(f"cannot write here: the folder {folder} is not writable", path)


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """Open a temporary file that replaces ``path`` only if the block succeeds.

    Parameters
    ----------
    path : str or os.PathLike
        Final destination. A symbolic link is followed (its target is
        replaced). A destination that exists and is not a regular file (a
        FIFO, a terminal, ``/dev/stdout``) cannot be replaced atomically and
        is written to directly.
    mode : {"w", "wb"}
        Text or binary mode.
    encoding, newline : str, optional
        As for :func:`open` (text mode only).

    Yields
    ------
    file object
        Write to it; on normal exit it is flushed, fsynced and renamed over
        the destination, which keeps the mode of the file it replaces (or
        gets the default mode for new files, ``0666 & ~umask``). On an
        exception (including KeyboardInterrupt) the temporary file is removed
        and the destination is left as it was.

    Raises
    ------
    chaintag.errors.InputError
        When the destination's folder does not exist or is not writable (the
        message names ``path``, not the temporary file).
    """
    path = os.path.realpath(os.fspath(path))
    kwargs = {} if "b" in mode else {"encoding": encoding, "newline": newline}
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        with open(path, mode, **kwargs) as f:
            yield f
        return
    check_writable(path)
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        try:
            mode_bits = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode_bits = 0o666 & ~_umask()
        os.chmod(tmp, mode_bits)
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
