"""Fetching a named dataset on first use, when it is missing from the user data folder.

A user who installed chaintag has no benchmark data folder: the first command
that names ``conll2000:train`` downloads the dataset from its public source
(:func:`chaintag.data.fetch.fetch`: sha256-checked, with progress) into the
user data folder (``~/.local/share/chaintag/data``), then goes on. This
happens only when that folder is the one in use (no ``--data-dir``, no
``CHAINTAG_DATA``, no ``../shared/data``), and not when
``CHAINTAG_AUTO_FETCH=0``. When the download fails (an offline machine), the
command stops with the message it gave before: run ``chaintag data fetch
NAME`` or point ``--data-dir`` at the data.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import InputError

#: Set to 0 to never download a missing dataset on first use.
AUTO_FETCH_ENV = "CHAINTAG_AUTO_FETCH"


#: Whether first-use fetches keep quiet (the command line's -q); see :func:`quiet_fetches`.
_QUIET = False


def quiet_fetches(quiet: bool) -> None:
    """Make fetches on first use print nothing (``-q``): neither the fetching nor the downloading line."""
    global _QUIET
    _QUIET = bool(quiet)


def _missing(name: str, path: Path, ref: str, env: str, why: str = "", data_dir=None) -> InputError:
    from .location import data_dir_places
    return InputError(f"dataset file not found: {path}; {why}run `chaintag data fetch {name}`, "
                      f"or pass --data-dir DIR / set {env}=DIR to the folder that holds {name}/ "
                      f"(the data directory was looked for in: {data_dir_places(data_dir)})", ref)


def fetch_missing(name: str, path: Path, data_dir, ref: str) -> Path:
    """Fetch dataset ``name`` into the user data folder when ``path`` (one of its files) is missing.

    Parameters
    ----------
    name : str
        Dataset name.
    path : pathlib.Path
        The file that is missing (in the data folder in use).
    data_dir : str or os.PathLike or None
        The ``--data-dir`` given, if any.
    ref : str
        The reference as the user wrote it (for messages).

    Returns
    -------
    pathlib.Path
        ``path``, now present.

    Raises
    ------
    InputError
        When fetching is not allowed here (another data folder is in use, or
        ``CHAINTAG_AUTO_FETCH=0``), when the download fails (offline: the
        reason is given), or when the file cannot be fetched (JNLPBA's
        training data); the message says how to supply the data.
    """
    from .location import DATA_ENV, resolve_data_dir, user_data_dir
    from .fetch import FetchError, fetch

    folder = resolve_data_dir(data_dir)
    allowed = (data_dir is None and not os.environ.get(DATA_ENV)
               and folder.resolve() == user_data_dir().resolve()
               and os.environ.get(AUTO_FETCH_ENV, "1").strip() not in ("0", "no", "false"))
    if not allowed:
        raise _missing(name, path, ref, DATA_ENV, data_dir=data_dir)
    if not _QUIET:
        print(f"{name} is not in {folder}: fetching it from its public source (sha256-checked); "
              f"`chaintag data fetch {name}` does the same", file=sys.stderr, flush=True)
    try:
        fetch(name, data_dir=folder, quiet=_QUIET)
    except FetchError as exc:
        raise _missing(name, path, ref, DATA_ENV, f"fetching it failed ({exc}); ", data_dir) from None
    if not path.is_file():
        raise _missing(name, path, ref, DATA_ENV, "it has no public source to fetch it from; ", data_dir)
    return path
