"""Where the data directory is: a flag, ``CHAINTAG_DATA``, ``../shared/data``, the user's folder."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_ENV", "user_data_dir", "resolve_data_dir", "data_dir_places"]

#: Environment variable naming the data directory.
DATA_ENV = "CHAINTAG_DATA"


def user_data_dir() -> Path:
    """Per-user data directory, where ``chaintag data fetch`` puts datasets.

    Returns
    -------
    pathlib.Path
        ``$XDG_DATA_HOME/chaintag/data``, by default
        ``~/.local/share/chaintag/data``. It need not exist.
    """
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return Path(base) / "chaintag" / "data"


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Find the directory that holds the named datasets.

    Parameters
    ----------
    data_dir : str or os.PathLike, optional
        Explicit directory; used as given when not None.

    Returns
    -------
    pathlib.Path
        In order of preference: ``data_dir``; the ``CHAINTAG_DATA`` environment
        variable when set and non-empty; ``../shared/data`` relative to the
        current directory when that is a directory; otherwise
        :func:`user_data_dir`. The result need not exist.
    """
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    shared = Path.cwd().parent / "shared" / "data"
    if shared.is_dir():
        return shared
    return user_data_dir()


def data_dir_places(data_dir: str | os.PathLike | None = None) -> str:
    """Where :func:`resolve_data_dir` looked for the data directory, in its order, for messages.

    Returns
    -------
    str
        E.g. ``"--data-dir (not given); CHAINTAG_DATA (not set); /home/me/x/../shared/data (no such
        folder); /home/me/.local/share/chaintag/data (used)"``, the place in use marked ``(used)``.
    """
    places = []
    used = False

    def mark(text: str, ok: bool, why: str) -> None:
        nonlocal used
        places.append(f"{text} ({'used' if ok and not used else 'not used: an earlier place is' if ok else why})")
        used = used or ok

    mark(f"--data-dir {data_dir}" if data_dir is not None else "--data-dir", data_dir is not None, "not given")
    env = os.environ.get(DATA_ENV)
    mark(f"{DATA_ENV}={env}" if env else DATA_ENV, bool(env), "not set")
    shared = Path.cwd().parent / "shared" / "data"
    mark(f"{shared} (../shared/data from the working folder)", shared.is_dir(), "no such folder")
    mark(str(user_data_dir()), True, "not reached")
    return "; ".join(places)
