"""``chaintag train --recipe NAME``: a recipe's settings on the ``train`` arguments.

The recipes themselves are data of the library (:mod:`chaintag.recipes`,
``recipes.json``): the learner, feature preset and settings that ``chaintag
tune`` chose on a task's dev data (see docs/results/presets). A recipe sets
the options left at their defaults; options given on the command line win.
Recipes whose preset reads word clusters need ``--clusters FILE``; a recipe
whose preset reads the labels of unlabeled text (``atag``) names its text
(``autotags``: a folder of the data directory), which ``--autotags`` replaces.
"""

from __future__ import annotations

from .. import recipes as _recipes

#: name -> train options (argparse destinations), a one-line description (``about``) and, for a
#: recipe replaced by a later choice, ``superseded_by``: read from the library's recipe file.
RECIPES: dict[str, dict] = _recipes.recipes()


#: Recipe keys that every learner takes: a recipe gives them also to a learner named on the command line.
SHARED_KEYS = ("features", "feature_space", "epochs", "autotags")


def _takes(args, key: str) -> bool:
    """Whether the learner named on the command line takes a recipe's shared setting as the recipe
    means it: attribute templates (not the neural learners, which embed the columns themselves) and
    passes of online learning (not the maxent tagger, nor L-BFGS iterations)."""
    from ..learners import LEARNERS
    cls = LEARNERS.get(args.algorithm)
    if cls is None:
        return True
    if getattr(cls, "learns_representation", False):
        return False
    if key == "epochs":  # passes of online learning: not a solver's iterations (maxent, L-BFGS)
        return cls.mixing_family is not None or cls.order == 2
    if key == "autotags":  # the text of the recipe's templates: it goes with them
        return "features" in cls._param_names()
    return key in cls._param_names()


class _Unset(list):
    """Marks an option that the command line did not give (a list, so that append actions work on it)."""


def explicit_options(parser, argv: list[str], command: str) -> set[str]:
    """The destinations of the options that ``argv`` gives to the ``command`` subparser ``parser``.

    The subcommand's words are parsed again into a namespace whose every destination already holds a
    marker: argparse sets a default only where the namespace has none, so an option keeps the marker
    exactly when the command line left it out (abbreviations and ``--name=value`` forms included).
    """
    import argparse
    words = list(argv)
    words = words[words.index(command) + 1:] if command in words else words
    marks = {a.dest: _Unset() for a in parser._actions if a.dest != argparse.SUPPRESS}
    ns, _ = parser.parse_known_args(words, namespace=argparse.Namespace(**marks))
    return {dest for dest, mark in marks.items() if getattr(ns, dest, mark) is not mark}


def retired_recipe(name: str) -> None:
    """Refuse a recipe that a later choice on its task replaced, naming what replaced it.

    Raises
    ------
    chaintag.errors.InputError
        For a recipe with ``superseded_by``: the message names the recipe in use today on its task and
        the defaults of ``chaintag train``, and says where its history is kept.
    """
    after = _recipes.superseded_by(name)
    if after is None:
        return
    from ..errors import InputError
    now = _recipes.current(name)
    raise InputError(f"recipe {name} is retired: {after} replaced it on its task"
                     + (f" (in use today: --recipe {now}: {RECIPES[now]['about']})" if now != after else
                        f" (--recipe {now}: {RECIPES[now]['about']})")
                     + "; without a recipe, chaintag train uses the defaults chosen across tasks of each kind. "
                       f"Its settings and dev figures stay in docs/results/presets: {RECIPES[name]['about']}")


def apply_recipe(args, parser) -> list[str]:
    """Set the recipe's options on ``args`` except those the command line gave.

    An option given explicitly wins over the recipe, even when its value equals the option's
    default. When the command line names another learner than the recipe's
    (``--recipe bio-ner --algorithm perceptron``), the recipe gives only its attributes and
    epochs (``features``, ``feature_space``, ``epochs``): its other settings (``order``, ``l2``)
    were chosen for its own learner and are left out (the log says so).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``train`` arguments (``args.argv``: the command line's words).
    parser : argparse.ArgumentParser
        The ``train`` subparser.

    Returns
    -------
    list of str
        The options set, as ``--name value`` strings (for the log).
    """
    retired_recipe(args.recipe)
    recipe = _recipes.settings(args.recipe)
    given = explicit_options(parser, getattr(args, "argv", []), "train")
    other_learner = "algorithm" in given and args.algorithm != recipe["algorithm"]
    done, dropped = [], []
    for key, value in recipe.items():
        if key in given:
            continue
        shown = f"--{key.replace('_', '-')} {' '.join(value) if isinstance(value, list) else value}"
        if other_learner and (key not in SHARED_KEYS or not _takes(args, key)):
            dropped.append(shown)
            continue
        setattr(args, key, value)
        if key == "autotags":  # the recipe's text is the data directory's, whatever the working folder holds
            args.autotags_in_data_dir = True
        done.append(shown)
    if dropped:
        done.append(f"(not {' '.join(dropped)}: the recipe's settings for {recipe['algorithm']})")
    return done
