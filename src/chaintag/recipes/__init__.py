"""Named training settings chosen on dev data: the recipes of ``chaintag train --recipe NAME``.

Each recipe is the learner, attribute preset and settings that ``chaintag
tune`` chose on a task's dev data (see docs/results/presets). They are data,
kept in ``recipes.json`` next to this module and shipped with the package:

- ``recipes``: name -> the ``train`` options the recipe sets (argparse
  destinations: ``algorithm``, ``features``, ``l2``, ``order``,
  ``feature_space``, ``epochs``, ``autotags``), a one-line ``about``, and for
  a recipe replaced by a later choice on the same task, ``superseded_by``
  (the recipe that replaced it; its settings are kept, so the name still
  trains what it trained);
- ``chosen``: task of the SAPO reproduction (``chunking``, ``np``, ``pos``,
  ``ud``, ``ner``) -> the recipe chosen for it today.

A recipe whose preset reads word clusters needs ``--clusters FILE``; one
whose preset reads the labels of unlabeled text (``atag``) names its text
(``autotags``: folders of the data directory).
"""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from importlib import resources

#: The data file, in this package.
RECIPE_FILE = "recipes.json"

#: Keys of a recipe that describe it rather than set a ``train`` option.
INFO_KEYS = ("about", "superseded_by")


@lru_cache(maxsize=1)
def _document() -> dict:
    text = resources.files(__name__).joinpath(RECIPE_FILE).read_text(encoding="utf-8")
    doc = json.loads(text)
    check(doc)
    return doc


def check(doc: dict) -> None:
    """Check a recipe document (the structure of ``recipes.json``).

    Parameters
    ----------
    doc : dict
        ``{"recipes": {name: {...}}, "chosen": {task: name}}``.

    Raises
    ------
    ValueError
        When a recipe has no ``algorithm`` or ``about``, a ``superseded_by`` or
        ``chosen`` entry names no recipe, a chosen recipe is superseded, or a
        chain of ``superseded_by`` comes back to where it started.
    """
    table = doc.get("recipes")
    if not isinstance(table, dict) or not table:
        raise ValueError("recipes: no 'recipes' table")
    for name, recipe in table.items():
        for key in ("algorithm", "about"):
            if key not in recipe:
                raise ValueError(f"recipe {name!r}: no {key!r}")
        after = recipe.get("superseded_by")
        if after is not None and after not in table:
            raise ValueError(f"recipe {name!r}: superseded_by names no recipe: {after!r}")
        seen = {name}
        while after is not None:
            if after in seen:
                raise ValueError(f"recipe {name!r}: superseded_by comes back to {after!r}")
            seen.add(after)
            after = table[after].get("superseded_by")
    for task, name in doc.get("chosen", {}).items():
        if name not in table:
            raise ValueError(f"chosen recipe of task {task!r} is not a recipe: {name!r}")
        if table[name].get("superseded_by"):
            raise ValueError(f"chosen recipe of task {task!r} is superseded: {name!r}")


def recipes() -> dict[str, dict]:
    """Every recipe, superseded ones included.

    Returns
    -------
    dict of str to dict
        Name -> the ``train`` options it sets (argparse destinations), its
        ``about`` line and, where a later choice replaced it, ``superseded_by``.
        A fresh copy: changing it changes nothing here.
    """
    return copy.deepcopy(_document()["recipes"])


def settings(name: str) -> dict:
    """The ``train`` options (argparse destinations -> values) that recipe ``name`` sets.

    Raises
    ------
    KeyError
        For a name that is no recipe.
    """
    recipe = _document()["recipes"][name]
    return {k: copy.deepcopy(v) for k, v in recipe.items() if k not in INFO_KEYS}


def superseded_by(name: str) -> str | None:
    """The recipe that replaced ``name`` on its task, or None for a current one.

    Raises
    ------
    KeyError
        For a name that is no recipe.
    """
    return _document()["recipes"][name].get("superseded_by")


def current(name: str) -> str:
    """The recipe in use today on ``name``'s task: ``superseded_by`` followed to its end.

    Raises
    ------
    KeyError
        For a name that is no recipe.
    """
    while (after := superseded_by(name)) is not None:
        name = after
    return name


def chosen() -> dict[str, str]:
    """Task of the SAPO reproduction -> the recipe chosen for it on dev data.

    Returns
    -------
    dict of str to str
        ``{"chunking": "chunking", "np": "base-np", ...}`` (a fresh copy).
    """
    return dict(_document()["chosen"])
