"""Where a feature specification names its cluster resources (``@clusters=FILE``).

A ``features`` value (``--features``) can name resource files next to the
templates: ``"chunking+clusters;@clusters=resources/en.tsv"``, or a line
``@clusters=en.tsv`` in a template file (a relative path is then read from
the template file's folder). ``chaintag train --clusters FILE`` adds such a
part. Several ``@clusters=`` parts are merged (a Brown paths file and a
vector file, say).

``@vecscale=SIGMA`` sets the scale of the word-vector attributes that
``vec(...)`` templates read: the vectors are multiplied by one factor so
that the standard deviation of their components is ``SIGMA`` (default
:data:`DEFAULT_VEC_SCALE` = 0.1, as Turian et al. 2010, s. 7.2);
``@vecscale=raw`` keeps the file's values. ``@vecdim=D`` keeps the first
D principal components of the vectors instead of their D' dimensions (fewer
real-valued entries per token: a faster epoch).

``@gazetteer=train`` (the entity strings of the training data, jackknifed on
the training sentences) and ``@gazetteer=FILE`` (a list file, one
``type<TAB>string`` a line) give the virtual columns ``gaz`` / ``gazn`` that
templates read (:mod:`chaintag.features.gazetteer`); templates that read them
without a ``@gazetteer=`` part use the training data. ``@gazfolds=K`` sets
the number of jackknife folds (default 10), ``@gazblock=B`` the number of
consecutive sentences that share a fold (default 10, about one abstract).

``@autotags=PATH`` names unlabeled text (a file, or a folder of ``*.txt``
files; one sentence a line) for the virtual columns ``atag`` / ``atag2``,
the labels a model of the training data gives each word there
(:mod:`chaintag.features.autotags`); ``@autofolds=K`` sets the number of
contiguous jackknife blocks of the training sentences (default 5), and
``@autofeatures=PRESET`` the attributes of the models that tag the text
(default: the specification's own templates without those columns; a
preset that reads the words alone, such as ``pos``, for a task whose
templates read other columns), ``@autoepochs=E`` their passes (default:
the learner's own) and ``@autotarget=COLUMN`` what they learn to tag (a data
column such as ``pos`` instead of the labels: each word then gets the POS
tags it took in the text, its ambiguity class).
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from ..io.text_lines import numbered_lines
from ..resources.wordmaps import RESOURCE_FUNCTION, VECTOR_FUNCTION, WordMaps

_RESOURCE_NAMES = {VECTOR_FUNCTION}

DIRECTIVE = "@clusters="
SCALE_DIRECTIVE = "@vecscale="
DIM_DIRECTIVE = "@vecdim="
GAZ_DIRECTIVE = "@gazetteer="
GAZ_FOLDS_DIRECTIVE = "@gazfolds="
GAZ_BLOCK_DIRECTIVE = "@gazblock="
AUTO_DIRECTIVE = "@autotags="
AUTO_FOLDS_DIRECTIVE = "@autofolds="
AUTO_FEATURES_DIRECTIVE = "@autofeatures="
AUTO_EPOCHS_DIRECTIVE = "@autoepochs="
AUTO_TARGET_DIRECTIVE = "@autotarget="
#: The directives that name no cluster resource.
_OTHER_DIRECTIVES = (SCALE_DIRECTIVE, DIM_DIRECTIVE, GAZ_DIRECTIVE, GAZ_FOLDS_DIRECTIVE, GAZ_BLOCK_DIRECTIVE,
                     AUTO_DIRECTIVE, AUTO_FOLDS_DIRECTIVE, AUTO_FEATURES_DIRECTIVE, AUTO_EPOCHS_DIRECTIVE,
                     AUTO_TARGET_DIRECTIVE)
#: Standard deviation of the vector components after scaling (Turian et al. 2010, s. 7.2).
DEFAULT_VEC_SCALE = 0.1


def _parts(features):
    if not isinstance(features, str):
        return list(features), "", None
    if os.path.isfile(features):
        return ([ln.split("#", 1)[0].strip() for _, ln in numbered_lines(features, what="template file")],
                os.path.dirname(features), features)
    return [p.strip() for p in features.split(";")], "", None


def _text_directives(features, prefix: str, hint: str) -> tuple[list[str], str]:
    """Every ``prefix`` value of a feature specification, in order, and the template file's folder
    ("" when the specification is no file).

    Raises
    ------
    chaintag.errors.InputError
        On an empty value (the message adds ``hint``: what to name there).
    """
    from ..errors import InputError
    parts, base, where = _parts(features)
    out = []
    for part in parts:
        if part.startswith(prefix):
            value = part[len(prefix):].strip()
            if not value:
                raise InputError(f"{part!r}: {hint}", where)
            out.append(value)
    return out, base


def _int_directive(features, prefix: str, default, minimum: int, what: str):
    """The last ``prefix`` value of a feature specification as an int (``default`` when none).

    Raises
    ------
    chaintag.errors.InputError
        On a value that is not an integer of at least ``minimum`` (the message says ``what`` it is).
    """
    from ..errors import InputError
    parts, _, where = _parts(features)
    value = default
    for part in parts:
        if part.startswith(prefix):
            text = part[len(prefix):].strip()
            if not (text.isascii() and text.isdigit()) or int(text) < minimum:
                raise InputError(f"{part!r}: {what}", where)
            value = int(text)
    return value


def vector_scale(features: str | Sequence[str]) -> float | None:
    """The ``@vecscale=`` setting of a feature specification: a positive float, or None for ``raw``.

    Returns
    -------
    float or None
        :data:`DEFAULT_VEC_SCALE` when the specification does not set it.

    Raises
    ------
    chaintag.errors.InputError
        On a value that is neither a positive number nor ``raw``.
    """
    from ..errors import InputError
    parts, _, where = _parts(features)
    scale: float | None = DEFAULT_VEC_SCALE
    for part in parts:
        if part.startswith(SCALE_DIRECTIVE):
            text = part[len(SCALE_DIRECTIVE):].strip()
            if text == "raw":
                scale = None
                continue
            try:
                scale = float(text)
            except ValueError:
                scale = -1.0
            if not (scale > 0 and np.isfinite(scale)):
                raise InputError(f"{part!r}: the vector scale is a positive number (the standard deviation "
                                 "of the scaled components) or 'raw'", where)
    return scale


def vector_dim(features: str | Sequence[str]) -> int | None:
    """The ``@vecdim=`` setting of a feature specification (None: every dimension of the vectors).

    Raises
    ------
    chaintag.errors.InputError
        On a value that is not a positive integer.
    """
    return _int_directive(features, DIM_DIRECTIVE, None, 1, "the vector dimension is a positive integer")


def resource_paths(features: str | Sequence[str]) -> list[str]:
    """The resource files a feature specification names (in order).

    Raises
    ------
    chaintag.errors.InputError
        On an ``@`` part that is not ``@clusters=FILE``, ``@vecscale=SIGMA`` or ``@vecdim=D``.
    """
    from ..errors import InputError
    if not isinstance(features, str):
        parts, base, where = list(features), "", None
    elif os.path.isfile(features):
        parts = [ln.split("#", 1)[0].strip() for _, ln in numbered_lines(features, what="template file")]
        base, where = os.path.dirname(features), features
    else:
        parts, base, where = [p.strip() for p in features.split(";")], "", None
    out = []
    for part in parts:
        if not part.startswith("@") or part.startswith(_OTHER_DIRECTIVES):
            continue
        if not part.startswith(DIRECTIVE) or not part[len(DIRECTIVE):].strip():
            raise InputError(f"unknown feature directive {part!r} (expected @clusters=FILE, @vecscale=SIGMA, "
                             "@vecdim=D, @gazetteer=train|FILE, @gazfolds=K, @gazblock=B, @autotags=PATH, "
                             "@autofolds=K, @autofeatures=PRESET, @autoepochs=E or @autotarget=COLUMN)", where)
        path = part[len(DIRECTIVE):].strip()
        out.append(path if os.path.isabs(path) or not base else os.path.join(base, path))
    return out


def gazetteer_sources(features: str | Sequence[str]) -> list[str]:
    """The ``@gazetteer=`` parts of a feature specification: ``"train"`` and list-file paths, in order.

    A relative path in a template file is read from that file's folder.
    Templates reading ``gaz`` / ``gazn`` with no such part mean ``["train"]``
    (the caller decides; this returns only what is written).

    Raises
    ------
    chaintag.errors.InputError
        On an empty ``@gazetteer=`` part.
    """
    values, base = _text_directives(features, GAZ_DIRECTIVE, "name the gazetteer, 'train' or a list file")
    return [os.path.join(base, v) if v != "train" and base and not os.path.isabs(v) else v for v in values]


def gazetteer_folds(features: str | Sequence[str]) -> int:
    """The ``@gazfolds=K`` setting (default 10): jackknife folds of the training sentences.

    Raises
    ------
    chaintag.errors.InputError
        On a value that is not an integer of at least 2.
    """
    from .gazetteer import DEFAULT_FOLDS
    return _int_directive(features, GAZ_FOLDS_DIRECTIVE, DEFAULT_FOLDS, 2,
                          "the number of jackknife folds is an integer of at least 2")


def gazetteer_block(features: str | Sequence[str]) -> int:
    """The ``@gazblock=B`` setting (default 10): consecutive training sentences that share a jackknife fold.

    Raises
    ------
    chaintag.errors.InputError
        On a value that is not a positive integer.
    """
    from .gazetteer import DEFAULT_BLOCK
    return _int_directive(features, GAZ_BLOCK_DIRECTIVE, DEFAULT_BLOCK, 1,
                          "the jackknife block is a positive number of sentences")


def autotag_sources(features: str | Sequence[str]) -> list[str]:
    """The ``@autotags=`` paths of a feature specification (files or folders of unlabeled text), in order.

    A relative path in a template file is read from that file's folder.

    Raises
    ------
    chaintag.errors.InputError
        On an empty ``@autotags=`` part.
    """
    values, base = _text_directives(features, AUTO_DIRECTIVE, "name the unlabeled text, a file or a folder of "
                                                              "*.txt files")
    return [v if os.path.isabs(v) or not base else os.path.join(base, v) for v in values]


def autotag_folds(features: str | Sequence[str]) -> int:
    """The ``@autofolds=K`` setting (default 5): contiguous jackknife blocks of the training sentences.

    Raises
    ------
    chaintag.errors.InputError
        On a value that is not an integer of at least 2.
    """
    from .autotags import DEFAULT_FOLDS
    return _int_directive(features, AUTO_FOLDS_DIRECTIVE, DEFAULT_FOLDS, 2,
                          "the number of jackknife blocks is an integer of at least 2")


def autotag_epochs(features: str | Sequence[str]) -> int | None:
    """The ``@autoepochs=E`` setting: passes of the models that tag the unlabeled text (None: the learner's).

    Raises
    ------
    chaintag.errors.InputError
        On a value that is not a positive integer.
    """
    return _int_directive(features, AUTO_EPOCHS_DIRECTIVE, None, 1,
                          "the passes of the text's taggers are a positive integer")


def autotag_target(features: str | Sequence[str]) -> str | None:
    """The ``@autotarget=COLUMN`` setting: the data column the text's taggers learn (None: the labels).

    Raises
    ------
    chaintag.errors.InputError
        On an empty ``@autotarget=`` part.
    """
    values, _ = _text_directives(features, AUTO_TARGET_DIRECTIVE, "name a data column (for example pos)")
    return values[-1] if values else None


def autotag_preset(features: str | Sequence[str]) -> str | None:
    """The ``@autofeatures=`` value: a preset name, or a template file's path (a relative one in a
    template file is read from that file's folder); None when the specification has none.

    Raises
    ------
    chaintag.errors.InputError
        On an empty ``@autofeatures=`` part.
    """
    from .templates import PRESETS
    values, base = _text_directives(features, AUTO_FEATURES_DIRECTIVE, "name a feature preset (for example pos)")
    if not values:
        return None
    preset = values[-1]
    if preset not in PRESETS and base and not os.path.isabs(preset) and os.path.isfile(os.path.join(base, preset)):
        preset = os.path.abspath(os.path.join(base, preset))
    return preset


def autotag_features(features: str | Sequence[str]) -> str | None:
    """The features of the models that tag the unlabeled text: the ``@autofeatures=`` preset (or template
    file) with the specification's cluster files and vector settings, or None (the specification's own
    templates).

    Raises
    ------
    chaintag.errors.InputError
        On an empty ``@autofeatures=`` part.
    """
    preset = autotag_preset(features)
    if preset is None:
        return None
    parts, _, _ = _parts(features)
    keep = [p for p in parts if p.startswith((SCALE_DIRECTIVE, DIM_DIRECTIVE))]
    return ";".join([inline(preset)] + [DIRECTIVE + os.path.abspath(p) for p in resource_paths(features)] + keep)


def with_autoepochs(features, epochs: int):
    """``features`` with ``@autoepochs=epochs`` added when it names unlabeled text and sets no passes for
    the text's taggers (so that a run trained step by step, as the experiment runner does, keeps the
    labels of taggers of the run's length); anything else unchanged."""
    if not isinstance(features, str) or not autotag_sources(features) or autotag_epochs(features) is not None:
        return features
    return f"{inline(features)};{AUTO_EPOCHS_DIRECTIVE}{int(epochs)}"


def with_autotags(features: str, paths: Sequence[str] | None) -> str:
    """``features`` (inlined when a template file: :func:`inline`) with an ``@autotags=PATH`` part added
    for each of ``paths`` (made absolute)."""
    return _with_paths(features, AUTO_DIRECTIVE, paths)


_CACHE: dict[tuple, WordMaps] = {}


def resolve_resources(features: str | Sequence[str]) -> WordMaps | None:
    """Read the resources a feature specification names (None when it names none).

    The maps of the last files read are kept in memory (keyed by path, size
    and modification time), so that training epoch by epoch, as the
    experiment runner does, reads a large file once.
    """
    from ..resources.files import load_resources
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


def inline(features: str) -> str:
    """A template file's specification as one ``;``-separated string (anything else unchanged).

    Comments and blank lines are dropped; the relative paths of its ``@clusters=``, ``@gazetteer=``,
    ``@autotags=`` and ``@autofeatures=`` lines are made absolute from the file's folder, so that parts
    can be added to it.
    """
    from .templates import PRESETS
    if not isinstance(features, str) or features in PRESETS or not os.path.isfile(features):
        return features
    parts, base, _ = _parts(features)
    out = []
    for part in filter(None, parts):
        for prefix in (DIRECTIVE, GAZ_DIRECTIVE, AUTO_DIRECTIVE):
            path = part[len(prefix):].strip()
            if part.startswith(prefix) and path and path != "train" and not os.path.isabs(path):
                part = prefix + os.path.abspath(os.path.join(base, path))
        if part.startswith(AUTO_FEATURES_DIRECTIVE):
            part = AUTO_FEATURES_DIRECTIVE + autotag_preset(features)
        out.append(part)
    return ";".join(out)


def with_clusters(features: str, paths: Sequence[str] | None) -> str:
    """``features`` (inlined when a template file: :func:`inline`) with an ``@clusters=FILE`` part added
    for each of ``paths``."""
    return _with_paths(features, DIRECTIVE, paths)


def _with_paths(features: str, prefix: str, paths) -> str:
    """``features`` (inlined when a template file) with a ``prefix`` part for each of ``paths`` (absolute)."""
    if not paths:
        return features
    return ";".join([inline(features)] + [prefix + os.path.abspath(p) for p in paths])


def uses_resources(features: str) -> bool:
    """Whether a feature specification names a resource function (``brownK``, ``kmN``, ``vec``) anywhere."""
    return bool(_function_names(features) & _RESOURCE_NAMES) or any(
        RESOURCE_FUNCTION.match(n) for n in _function_names(features))


def uses_vectors(features: str) -> bool:
    """Whether a feature specification has a ``vec(...)`` template (real-valued attributes) anywhere."""
    return VECTOR_FUNCTION in _function_names(features)


def _function_names(features: str) -> set[str]:
    from .templates import PRESETS
    import re
    if not isinstance(features, str):
        features = ";".join(features)
    if os.path.isfile(features):
        parts = [ln.split("#", 1)[0].strip() for _, ln in numbered_lines(features, what="template file")]
    else:
        parts = [p.strip() for p in features.split(";")]
    specs = []
    for part in parts:
        specs += PRESETS.get(part, [part])
    return {m for spec in specs if not spec.startswith("@") for m in re.findall(r"([A-Za-z0-9_]+)\(", spec)}
