"""Where a feature specification names its cluster resources (``@clusters=FILE``).

A ``features`` value (``--features``) can name resource files next to the
templates: ``"chunking+clusters;@clusters=resources/en.tsv"``, or a line
``@clusters=en.tsv`` in a template file (a relative path is then read from
the template file's folder). ``chaintag train --clusters FILE`` adds such a
part. Several ``@clusters=`` parts are merged (a Brown paths file and a
vector file, say).
"""

from __future__ import annotations

import os
from typing import Sequence

from .wordmaps import WordMaps

DIRECTIVE = "@clusters="


def resource_paths(features: str | Sequence[str]) -> list[str]:
    """The resource files a feature specification names (in order).

    Raises
    ------
    chaintag.errors.InputError
        On an ``@`` part that is not ``@clusters=FILE``.
    """
    from ..errors import InputError
    if not isinstance(features, str):
        parts, base, where = list(features), "", None
    elif os.path.isfile(features):
        with open(features, encoding="utf-8") as f:
            parts = [ln.split("#", 1)[0].strip() for ln in f]
        base, where = os.path.dirname(features), features
    else:
        parts, base, where = [p.strip() for p in features.split(";")], "", None
    out = []
    for part in parts:
        if not part.startswith("@"):
            continue
        if not part.startswith(DIRECTIVE) or not part[len(DIRECTIVE):].strip():
            raise InputError(f"unknown feature directive {part!r} (expected @clusters=FILE)", where)
        path = part[len(DIRECTIVE):].strip()
        out.append(path if os.path.isabs(path) or not base else os.path.join(base, path))
    return out


_CACHE: dict[tuple, WordMaps] = {}


def resolve_resources(features: str | Sequence[str]) -> WordMaps | None:
    """Read the resources a feature specification names (None when it names none).

    The maps of the last files read are kept in memory (keyed by path, size
    and modification time), so that training epoch by epoch, as the
    experiment runner does, reads a large file once.
    """
    from .files import load_resources
    paths = resource_paths(features)
    if not paths:
        return None
    try:
        key = tuple((os.path.abspath(p), os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths)
    except OSError:
        return load_resources(paths)  # the reader names the missing file
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = load_resources(paths)
    return _CACHE[key]


def with_clusters(features: str, paths: Sequence[str] | None) -> str:
    """``features`` with an ``@clusters=FILE`` part added for each of ``paths``."""
    if not paths:
        return features
    return ";".join([features] + [DIRECTIVE + os.path.abspath(p) for p in paths])


def uses_resources(features: str) -> bool:
    """Whether a feature specification names a resource function (``brownK``, ``kmN``) anywhere."""
    from ..features.templates import PRESETS
    from .wordmaps import RESOURCE_FUNCTION
    import re
    if os.path.isfile(features):
        with open(features, encoding="utf-8") as f:
            parts = [ln.split("#", 1)[0].strip() for ln in f]
    else:
        parts = [p.strip() for p in features.split(";")]
    specs = []
    for part in parts:
        specs += PRESETS.get(part, [part])
    names = {m for spec in specs if not spec.startswith("@") for m in re.findall(r"([A-Za-z0-9_]+)\(", spec)}
    return any(RESOURCE_FUNCTION.match(n) for n in names)
