"""Named training settings chosen on dev data (``chaintag train --recipe NAME``).

Each recipe is the learner, feature preset and settings that ``chaintag
tune`` chose on a task's dev data (see docs/results/presets). A recipe sets
the options left at their defaults; options given on the command line win.
Recipes whose preset reads word clusters need ``--clusters FILE``; a recipe
whose preset reads the labels of unlabeled text (``atag``) names its text
(``autotags``: a folder of the data directory), which ``--autotags`` replaces.
"""

from __future__ import annotations

#: name -> train options (argparse destinations) and a one-line description.
RECIPES: dict[str, dict] = {
    "chunking": {"algorithm": "sapo", "features": "chunking+autotags;@autofeatures=pos;@autoepochs=28",
                 "autotags": ["unlabeled_en"], "feature_space": "all", "epochs": 28,
                 "about": "CoNLL-2000 chunking: SAPO n=5, L2 1, chunking+autotags (chunking+kmvec, --clusters "
                          "TABLE VECTORS, plus the chunk labels that models of the pos attributes give the "
                          "unlabeled text unlabeled_en of the data directory, or --autotags TEXT), all feature "
                          "space, 28 epochs"},
    "chunking-vec": {"algorithm": "sapo", "features": "chunking+kmvec", "feature_space": "all", "epochs": 28,
                     "about": "CoNLL-2000 chunking, the previous choice: SAPO n=5, L2 1, chunking+kmvec (k-means "
                              "ids and values of word vectors: --clusters VECTORS), all feature space, 28 epochs"},
    "base-np": {"algorithm": "sapo", "features": "chunking+kmvec", "epochs": 17,
                "about": "base NP chunking: SAPO n=5, L2 1, chunking+kmvec (--clusters VECTORS), 17 epochs"},
    "pos-ptb": {"algorithm": "sapo", "features": "pos+clusters", "l2": 2.0, "feature_space": "all", "epochs": 16,
                "about": "PTB POS: SAPO n=5, L2 2, pos+clusters, all feature space, 16 epochs"},
    "pos-ud": {"algorithm": "sapo", "features": "pos+autotags;@vecdim=25;@autoepochs=20", "autotags": ["unlabeled_en"],
               "l2": 2.0, "feature_space": "all", "epochs": 20,
               "about": "UD English XPOS: SAPO n=5, L2 2, pos+autotags (pos+clustersvec on 25 principal components "
                        "of the vectors, --clusters TABLE VECTORS, plus the labels of the unlabeled text "
                        "unlabeled_en of the data directory, or --autotags TEXT), all feature space, 20 epochs"},
    "pos-ud-vec": {"algorithm": "sapo", "features": "pos+clustersvec;@vecdim=25", "l2": 2.0, "feature_space": "all",
                   "epochs": 20,
                   "about": "UD English XPOS, the previous choice: SAPO n=5, L2 2, pos+clustersvec on 25 principal "
                            "components of the vectors (--clusters TABLE VECTORS), all feature space, 20 epochs"},
    "bio-ner": {"algorithm": "sapo", "order": 2, "features": "ner+doc", "l2": 5.0, "epochs": 29,
                "about": "JNLPBA Bio-NER: second-order SAPO (label trigrams over the label pairs seen in training) "
                         "n=5, L2 5, ner+doc (ner+affixes and document columns: the input needs its document "
                         "markers), 29 epochs"},
    "bio-ner-doc": {"algorithm": "sapo", "features": "ner+doc", "l2": 5.0, "epochs": 29,
                    "about": "JNLPBA Bio-NER: SAPO n=5, L2 5, ner+doc, 29 epochs (first order)"},
    "bio-ner-gaz": {"algorithm": "sapo", "features": "ner+gaz", "l2": 8.0, "epochs": 30,
                    "about": "JNLPBA Bio-NER: SAPO n=5, L2 8, ner+gaz (gazetteer of the training entities), 30 epochs"},
    # the earlier choices
    "bio-ner-affixes": {"algorithm": "sapo", "features": "ner+affixes", "l2": 5.0, "epochs": 27,
                        "about": "JNLPBA Bio-NER: SAPO n=5, L2 5, ner+affixes, 27 epochs"},
    # the earlier choices: k-means ids of word vectors without their values
    "chunking-km": {"algorithm": "sapo", "features": "chunking+km", "feature_space": "all", "epochs": 24,
                    "about": "CoNLL-2000 chunking: SAPO n=5, L2 1, chunking+km (--clusters VECTORS), all "
                             "feature space, 24 epochs"},
    "base-np-km": {"algorithm": "sapo", "features": "chunking+km", "epochs": 19,
                   "about": "base NP chunking: SAPO n=5, L2 1, chunking+km (--clusters VECTORS), 19 epochs"},
    # the earlier choices (contiguous dev split, clusters-en.tsv)
    "pos-ud-clusters": {"algorithm": "sapo", "features": "pos+clusters",
                        "l2": 2.0, "feature_space": "all", "epochs": 17,
                        "about": "UD English XPOS: SAPO n=5, L2 2, pos+clusters, all feature space, 17 epochs"},
    "chunking-clusters": {"algorithm": "sapo", "features": "chunking+clusters", "epochs": 27,
                          "about": "CoNLL-2000 chunking: SAPO n=5, L2 1, chunking+clusters, 27 epochs"},
    "base-np-plain": {"algorithm": "sapo", "features": "chunking", "epochs": 25,
                      "about": "base NP chunking: SAPO n=5, L2 1, chunking, 25 epochs"},
    "bio-ner-clusters": {"algorithm": "sapo", "features": "ner+clusters", "l2": 5.0, "epochs": 19,
                         "about": "JNLPBA Bio-NER: SAPO n=5, L2 5, ner+clusters, 19 epochs"},
}


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
    if key == "epochs":
        return args.algorithm not in ("maxent", "crf-lbfgs")
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
    recipe = RECIPES[args.recipe]
    given = explicit_options(parser, getattr(args, "argv", []), "train")
    other_learner = "algorithm" in given and args.algorithm != recipe["algorithm"]
    done, dropped = [], []
    for key, value in recipe.items():
        if key == "about" or key in given:
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
