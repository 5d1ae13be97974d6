"""Known resources of the data directory, taken when templates read word clusters and none is given."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from ..data.location import resolve_data_dir

__all__ = ["KNOWN_RESOURCES", "KNOWN_TEXT", "find_known_resource", "known_text_folders", "function_family"]

#: Resource files looked for in the data directory, in order of preference: (path in it, what it is,
#: the template functions it serves: ``brown`` for brownK, ``km`` for kmN, ``vec``).
KNOWN_RESOURCES: tuple[tuple[str, str, frozenset], ...] = (
    ("glove6b50d/glove.6B.50d.txt", "GloVe 6B word vectors, 50 dimensions (Pennington et al. 2014)",
     frozenset({"km", "vec"})),
)

#: Folders of unlabeled text looked for in the data directory: (folder in it, what it is).
KNOWN_TEXT: tuple[tuple[str, str], ...] = (
    ("unlabeled_en", "unlabeled English text"),
    ("unlabeled_bio", "unlabeled biomedical text (PubMed abstracts, PMC articles)"),
)


def known_text_folders(data_dir: str | os.PathLike | None = None) -> list[tuple[Path, str]]:
    """The folders of :data:`KNOWN_TEXT` present in the data directory: ``(path, what it is)``."""
    base = resolve_data_dir(data_dir)
    return [(base / rel, about) for rel, about in KNOWN_TEXT if (base / rel).is_dir()]


def function_family(name: str) -> str:
    """``brown``, ``km`` or ``vec``: the family of a resource function name (``brown6``, ``km256``, ``vec``)."""
    return name.rstrip("0123456789")


def find_known_resource(data_dir: str | os.PathLike | None = None,
                        needs: Iterable[str] = ()) -> tuple[Path, str] | None:
    """The first known resource file present in the data directory that serves the functions ``needs``.

    Parameters
    ----------
    data_dir : str or os.PathLike, optional
        The data directory (default: :func:`chaintag.data.location.resolve_data_dir`'s choice:
        ``CHAINTAG_DATA``, ``../shared/data``, the user's data folder).
    needs : iterable of str
        Resource function names the templates read (``km256``, ``vec``, ``brown6``); a file that
        cannot serve one of them (GloVe has no cluster paths for ``brownK``) is not taken.

    Returns
    -------
    (pathlib.Path, str) or None
        The file and what it is (:data:`KNOWN_RESOURCES`), or None when none of them is there.
    """
    families = {function_family(n) for n in needs}
    base = resolve_data_dir(data_dir)
    for rel, about, serves in KNOWN_RESOURCES:
        path = base / rel
        if families <= serves and path.is_file():
            return path, about
    return None
