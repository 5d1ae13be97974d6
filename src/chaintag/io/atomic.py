"""Atomic file writes: a temporary file in the target folder, then a rename.

Temporary files are named ``.NAME.chaintag-PID.XXXXXXXX.tmp`` (PID: the
writing process) and locked (``flock``) while they are written. A process
killed while writing (SIGKILL, a power cut) leaves its temporary file
behind; the next atomic write into the same folder removes such files once
their process is gone and nothing holds their lock (:func:`clean_stale_temps`).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import time

from ..errors import InputError, OutputError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locks, the process check alone
    fcntl = None

_TEMP = re.compile(r"^\.(?P<name>.+)\.chaintag-(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")
# temporary files of earlier releases: .NAME.XXXXXXXX.tmp (no process id); removed once a day old
_LEGACY = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp$")
LEGACY_AGE = 24 * 3600.0


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_writable(path, option: str | None = None) -> None:
    """Raise a clear error now if ``path`` could not be written later.

    Parameters
    ----------
    path : str or os.PathLike
    option : str, optional
        The option that names it (``--out``), for the message about an empty path.

    Raises
    ------
    chaintag.errors.InputError
        The path is empty, the folder does not exist or is not writable, or ``path`` is a folder.
    """
    path = os.fspath(path)
    if not path:
        raise InputError(f"{option + ': ' if option else ''}an empty path where a file name is needed")
    if os.path.isdir(path):
        raise InputError("is a directory, not a file", path)
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        raise InputError(f"cannot write here: the folder {folder} does not exist", path)
    if not os.access(folder, os.W_OK) and not os.access(path, os.W_OK):
        raise InputError(f"cannot write here: the folder {folder} is not writable", path)


def refuse_inputs_as_output(path, inputs, option: str = "--out") -> None:
    """Refuse an output path that is one of the ``inputs`` (the same file, or the same path): writing it
    would destroy what is read.

    Parameters
    ----------
    path : str or os.PathLike
        The output.
    inputs : iterable of str or os.PathLike or None
        The files read (None entries are skipped).
    option : str
        The option that names the output, for the message.

    Raises
    ------
    chaintag.errors.InputError
        Naming the option and the path.
    """
    out = os.path.abspath(os.fspath(path))
    for given in inputs:
        if not given:
            continue
        src = os.fspath(given)
        same = os.path.abspath(src) == out
        if not same and os.path.exists(src) and os.path.exists(out):
            try:
                same = os.path.samefile(src, out)
            except OSError:
                same = False
        if same:
            raise InputError(f"{option} would overwrite an input ({src}): give another file", os.fspath(path))


def process_alive(pid: int) -> bool:
    """Whether a process with this id exists (on this machine)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, owned by someone else
    return True


def _remove_if_unlocked(path: str) -> bool:
    """Remove ``path`` unless a process holds its lock."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # being written
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def clean_stale_temps(folder, target: str | None = None) -> list[str]:
    """Remove chaintag's temporary files in ``folder`` that no live process owns.

    A temporary file ``.NAME.chaintag-PID.XXXXXXXX.tmp`` is removed when no
    process PID exists and no process holds its lock. One of an earlier
    release (``.NAME.XXXXXXXX.tmp``, no PID) is removed only when ``NAME`` is
    ``target`` (the file being written), which exists, and the temporary file
    is over a day old: other programs name their temporary files so too.
    Errors are ignored.

    Returns
    -------
    list of str
        The paths removed.
    """
    folder = os.fspath(folder)
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    names = {e.name for e in entries}
    now = time.time()
    for entry in entries:
        if not entry.name.endswith(".tmp") or not entry.name.startswith("."):
            continue
        m = _TEMP.match(entry.name)
        if m:
            pid = int(m.group("pid"))
            if pid == os.getpid() or process_alive(pid):
                continue
        else:
            m = _LEGACY.match(entry.name)
            if not m or target is None or m.group("name") != target or target not in names:
                continue
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime < LEGACY_AGE:
                    continue
            except OSError:
                continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
        except OSError:
            continue
        if _remove_if_unlocked(entry.path):
            removed.append(entry.path)
    return removed


def _refuse_planted_link(path: str) -> None:
    """Refuse to follow a symbolic link that another user may have planted: one in a world-writable
    folder with the sticky bit (``/tmp``) owned by neither this user nor the folder's owner, the rule of
    Linux's ``fs.protected_symlinks`` (which resolving the link ourselves would otherwise sidestep).

    Raises
    ------
    chaintag.errors.InputError
    """
    try:
        link = os.lstat(path)
        if not stat.S_ISLNK(link.st_mode) or not hasattr(os, "geteuid"):
            return
        folder = os.stat(os.path.dirname(os.path.abspath(path)) or ".")
    except OSError:
        return
    shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    if shared and link.st_uid not in (os.geteuid(), folder.st_uid):
        raise InputError("is a symbolic link of another user in a shared folder: refusing to follow it "
                         "(write to another path)", path)


def write_error(path, exc: OSError, what: str = "cannot write") -> OutputError:
    """An :class:`~chaintag.errors.OutputError` naming ``path`` for an OS error."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return OutputError(f"{os.fspath(path)}: {what}: {reason}", path, exc.errno)


class _Guarded:
    """A file object whose write errors name the destination file."""

    def __init__(self, f, path: str):
        self._f, self._path = f, path

    def write(self, data):
        try:
            return self._f.write(data)
        except OSError as exc:
            raise write_error(self._path, exc) from None

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        try:
            self._f.flush()
        except OSError as exc:
            raise write_error(self._path, exc) from None

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __iter__(self):
        return iter(self._f)


def _finish(f, shown: str, sync: bool) -> None:
    """Flush (and fsync) and close ``f``; an error names the destination."""
    try:
        f.flush()
        if sync:
            os.fsync(f.fileno())
        f.close()
    except OSError as exc:
        raise write_error(shown, exc) from None


def _close_quietly(f) -> None:
    """Close ``f`` (a no-op when closed); an error of its unwritten buffer was reported already."""
    try:
        f.close()
    except OSError:
        pass


@contextlib.contextmanager
def atomic_open(path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None):
    """Open a temporary file that replaces ``path`` only if the block succeeds.

    Parameters
    ----------
    path : str, bytes or os.PathLike
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
        exception (including KeyboardInterrupt, and SIGTERM in the command
        line) the temporary file is removed and the destination is left as
        it was. Stale temporary files of killed processes in the same folder
        are removed first (:func:`clean_stale_temps`).

    Raises
    ------
    chaintag.errors.InputError
        When the destination's folder does not exist or is not writable (the
        message names ``path``, not the temporary file).
    chaintag.errors.OutputError
        When writing fails (a full disk, ...): the message names ``path``.
    """
    shown = os.fsdecode(os.fspath(path))  # a bytes path too, as open() takes it
    _refuse_planted_link(shown)
    path = os.path.realpath(shown)
    kwargs = {} if "b" in mode else {"encoding": encoding, "newline": newline}
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        try:
            f = open(path, mode, **kwargs)
        except OSError as exc:
            raise write_error(shown, exc, "cannot open") from None
        try:
            yield _Guarded(f, shown)
            _finish(f, shown, sync=False)
        finally:
            _close_quietly(f)
        return
    check_writable(path)
    folder = os.path.dirname(path)
    clean_stale_temps(folder, os.path.basename(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.chaintag-{os.getpid()}.",
                                   suffix=".tmp", dir=folder)
    except OSError as exc:
        raise write_error(shown, exc, "cannot create a temporary file beside it") from None
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # released when the file is closed, or the process dies
        try:
            mode_bits = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode_bits = 0o666 & ~_umask()
        os.chmod(tmp, mode_bits)
        f = os.fdopen(fd, mode, **kwargs)
        try:
            yield _Guarded(f, shown)
            _finish(f, shown, sync=True)
        finally:
            _close_quietly(f)  # after a failed write, without a second error from its buffer
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise write_error(shown, exc, "cannot replace it") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
