"""What ``chaintag train`` reads beside its data: resource files and folders, word embeddings.

``--resources`` names word vectors, cluster tables, Brown paths files and folders of unlabeled text (a
name that is no path here but a folder of the data directory, such as ``unlabeled_en``, is read there);
templates that read word clusters or vectors and name none take the data directory's known resource (GloVe
6B 50d); neural learners given no ``--embeddings`` take the same vectors as word embeddings. Every choice is
said in the training log.
"""

from __future__ import annotations

__all__ = ["add_resources", "default_resources", "resources_off", "known_embeddings", "text_paths"]


def resources_off(opts) -> bool:
    """Whether ``--resources none`` was given (no resource, not even the data directory's); it is then
    removed from ``opts.resources``."""
    given = list(getattr(opts, "resources", None) or [])
    if [p.lower() for p in given] == ["none"]:
        opts.resources = None
        opts.no_resources = True
    elif any(p.lower() == "none" for p in given):
        from ..errors import InputError
        raise InputError("--resources none means no resources: give it alone")
    return bool(getattr(opts, "no_resources", False))


def default_resources(opts, train, log, kind: str | None | bool = False) -> str | bool:
    """The data directory's resource that the default attributes of this kind of task read, when it covers
    the training words; it is put in ``opts.resources`` and its kind returned for
    :func:`chaintag.api.train_checks.default_preset` (``"vectors"``, ``"clusters"``, or False: none).

    For the kinds whose default with resources differs from the plain one (POS with word vectors; chunking
    with the clusters of unlabeled text), the data directory's GloVe vectors, or its folder of unlabeled
    text with the highest coverage, is taken when it holds at least
    :data:`chaintag.resources.coverage.MIN_COVERAGE` of the training word types seen twice (the language
    and domain of the data). Every choice, and every resource passed over, is said in the log;
    ``--resources none`` turns this off. ``kind``: the kind of task when the caller has found it
    (:func:`chaintag.api.train_checks.task_kind`), else it is found here.
    """
    from ..resources.coverage import (MIN_AGREEMENT, MIN_COVERAGE, MIN_TYPES, RESOURCE_TOP, commonest_words,
                                      coverage, language_agreement, resource_words, training_types)
    from ..resources.discover import find_known_resource, known_text_folders
    from .train_checks import kind_preset, task_kind
    if kind is False:  # not found yet by the caller
        kind = task_kind(train.columns, train.labels)
    has_pos = "pos" in train.columns
    plain = kind_preset(kind, has_pos)[0]
    wants = [k for k in ("clusters", "vectors") if kind_preset(kind, has_pos, k)[0] != plain]
    if not wants:
        return False
    column = list(train.columns).index("word") if "word" in train.columns else 0
    types = training_types(train.tokens, column)
    if len(types) < MIN_TYPES:  # too few words to tell the language and domain (toy data)
        log(f"resources: {len(types)} word types seen twice in the training data, fewer than {MIN_TYPES}: "
            "no resource of the data directory is taken (--resources to name one)")
        return False
    common = commonest_words(train.tokens, column)  # the language test's side of the data, counted once
    for kind in wants:
        if kind == "vectors":
            found = find_known_resource(opts.data_dir, needs=("km",))
            options = [found] if found is not None else []
        else:
            options = known_text_folders(opts.data_dir)
        if not options:
            log(f"resources: no {'word vectors' if kind == 'vectors' else 'folder of unlabeled text'} in the "
                "data directory (--resources to name one)")
        # each resource read once: its vocabulary (the coverage) and its commonest words (the language: a resource
        # of another language can hold most of the words, English GloVe of Spanish news)
        scored, agree = [], {}
        for path, about in options:
            vocabulary, frequent = resource_words(path)
            share, agree[str(path)] = coverage(types, vocabulary), language_agreement(common, frequent)
            scored.append((share if agree[str(path)] >= MIN_AGREEMENT else 0.0, str(path), about, share))
        scored.sort(key=lambda r: (r[0], r[3]), reverse=True)
        missing = _missing_for(kind)
        for gated, path, about, share in scored:
            took = gated >= MIN_COVERAGE and path == scored[0][1]
            why = (f"the default reads it from {100 * MIN_COVERAGE:.0f}%; --resources none for none"
                   if agree[path] >= MIN_AGREEMENT else
                   f"another language: {100 * agree[path]:.0f}% of the data's commonest words are among its "
                   f"{RESOURCE_TOP:,} commonest, the default asks {100 * MIN_AGREEMENT:.0f}%; --resources PATH to use it")
            if took and missing:
                took, why = False, (f"it covers enough, but its "
                                    f"{'k-means clusters' if kind == 'vectors' else 'word clusters'} need "
                                    f"{', '.join(missing)}, which this install lacks: pip install "
                                    "'chaintag[clusters]'; the plain default is used")
            log(f"resources: {path} ({about}) holds {100 * share:.1f}% of the training word types seen twice "
                f"({'taken' if took else 'not taken'}: {why})")
        if scored and scored[0][0] >= MIN_COVERAGE and not missing:
            opts.resources = [scored[0][1]]
            return kind
    return False


#: The modules that deriving each kind of default resource imports (the ``clusters`` extra).
_NEEDS = {"vectors": ("sklearn",), "clusters": ("gensim", "sklearn", "scipy")}


#: The distribution names of :data:`_NEEDS`' modules, as ``pip`` knows them.
_PACKAGES = {"sklearn": "scikit-learn"}


def _missing_for(kind: str) -> list[str]:
    """The packages of :data:`_NEEDS` whose modules cannot be imported here (looked up, not imported)."""
    import importlib.util
    return [_PACKAGES.get(m, m) for m in _NEEDS.get(kind, ()) if importlib.util.find_spec(m) is None]


def _add_gazetteer_lists(opts, given: list, log) -> list:
    """Gazetteer lists among the ``--resources`` (``type<TAB>string`` files) named in ``opts.features`` as
    ``@gazetteer=FILE`` sources beside the training data's entity strings, when the templates read the
    gazetteer columns; the other resources are returned."""
    import os
    from ..features.feature_spec import FeatureSpec
    from ..features.templates import GAZ_COLUMNS
    from ..resources.files import sniff_kind
    lists = [p for p in given if os.path.isfile(p) and sniff_kind(p) == "gazetteer"]
    if not lists:
        return given
    spec = FeatureSpec.parse(opts.features)
    reads = any(f"{c}[" in t.spec for t in spec.templates for c in GAZ_COLUMNS)
    if not reads:
        log(f"resources: the gazetteer list(s) {', '.join(lists)} not used: no template reads the gazetteer "
            "columns (gaz, gazn; the ner+gaz preset does)")
    else:
        sources = list(spec.gazetteer) or ["train"]  # no @gazetteer= part: the training data's strings
        opts.features = spec.with_gazetteers(([] if spec.gazetteer else ["train"]) + lists).to_text()
        log(f"resources: gazetteer list(s) {', '.join(lists)}, beside {', '.join(sources)}")
    return [p for p in given if p not in lists]


def add_resources(opts, log) -> None:
    """Name the resource files (``--resources``, ``--clusters``) in ``opts.features``; when the templates
    read word clusters or vectors and no file is named, the first known resource of the data directory
    (GloVe 6B 50d), said in the log. None found: the extractor's error says what to give."""
    from ..features.spec import resource_paths, uses_resources, with_clusters
    given = list(getattr(opts, "resources", None) or []) + list(opts.clusters or [])
    if given:
        # a name that is no path here but a folder of the data directory (unlabeled_en) is read there
        given = text_paths(given, opts.data_dir)
        import os
        from ..errors import InputError
        for path in given:
            if not os.path.exists(path):
                raise InputError(f"--resources: no such file or folder: {path}")
        given = _add_gazetteer_lists(opts, given, log)
        if not given:
            return
        if not uses_resources(opts.features):
            log(f"resources: {', '.join(given)} not used: no template reads word clusters or vectors (the "
                "default of this kind of task reads none with these resources: they did not help on dev); "
                "name --features that read them (brownK, kmN, vec) to use them")
            return
        opts.features = with_clusters(opts.features, given)
        log(f"resources: {', '.join(given)} (what is derived from them is cached by content; the model keeps "
            "the cluster ids or vectors of every word they hold, for words unseen in training)")
        return
    if not uses_resources(opts.features) or resource_paths(opts.features):
        return
    if getattr(opts, "no_resources", False):
        from ..errors import InputError
        raise InputError("the templates read word clusters or vectors (brownK, kmN, vec) and --resources none "
                         "gives none: name a resource with --resources, or choose templates without them")
    from ..features.feature_spec import FeatureSpec
    from ..resources.discover import find_known_resource
    from ..resources.wordmaps import is_resource_function
    needs = [n for n in FeatureSpec.parse(opts.features).function_names() if is_resource_function(n)]
    found = find_known_resource(opts.data_dir, needs)
    if found is not None:
        path, about = found
        opts.features = with_clusters(opts.features, [str(path)])
        log(f"resources: the templates read word clusters or vectors and no --resources was given; using "
            f"{path} from the data directory ({about})")


def known_embeddings(opts, learner, log) -> None:
    """Word embeddings of a neural learner: the data directory's word vectors (GloVe 6B 50d, the standard
    input of the neural taggers in the literature) when none are named and the data directory has them,
    said in the log; ``--embeddings none`` trains the embeddings from scratch."""
    if not getattr(type(learner), "learns_representation", False) or not hasattr(learner, "embeddings"):
        return
    if isinstance(learner.embeddings, str) and learner.embeddings.lower() == "none":
        learner.embeddings = None
        return
    if learner.embeddings is not None or getattr(learner, "word_dim", None) is not None:
        return  # named vectors, or an embedding size of the user's (vectors fix their own)
    from ..resources.discover import find_known_resource
    found = find_known_resource(opts.data_dir, needs=("vec",))
    if found is not None:
        learner.embeddings = str(found[0])
        log(f"embeddings: {found[0]} from the data directory ({found[1]}); the model keeps the vectors of all "
            "its words (GloVe 6B 50d: about 80 MB); --embeddings none to learn them from scratch")
    else:
        log("embeddings: learned from scratch (no --embeddings, and no word vectors in the data directory)")


def text_paths(paths, data_dir, in_data_dir: bool = False) -> list[str]:
    """``--autotags`` paths; one that does not exist here but names a folder of the data directory (such
    as ``unlabeled_en``) is read there. A recipe's text (``in_data_dir``) is always the data directory's."""
    import os
    from ..data.datasets import resolve_data_dir
    out = []
    for p in paths:
        there = os.path.join(resolve_data_dir(data_dir), p)
        local = os.path.exists(p) or os.path.isabs(p) or not os.path.exists(there)
        out.append(p if local and not in_data_dir else there)
    return out


def keep_resources_read(opts, given: list, preset: str, log) -> None:
    """With word vectors and cluster maps both given, keep in ``opts`` only the kind that ``preset`` (the
    default attributes) reads: vectors for the ``+km`` presets, cluster maps otherwise."""
    from .train_checks import KIND_PRESETS_WITH_BOTH, KIND_PRESETS_WITH_VECTORS, resource_class
    if preset not in KIND_PRESETS_WITH_BOTH.values():
        return  # a preset that reads no resource: add_resources says that none is used
    wanted = "vectors" if preset in KIND_PRESETS_WITH_VECTORS.values() and "+km" in preset else "clusters"
    left = [p for p in given if resource_class(p) not in (wanted, None)]
    if not left:
        return
    log(f"resources: {', '.join(left)} not used: the default attributes of this kind of task read "
        f"{'word vectors' if wanted == 'vectors' else 'cluster maps'} (what helped it on dev), and the two do "
        "not combine; name --features to read others")
    keep = set(given) - set(left)
    opts.resources = [p for p in (getattr(opts, "resources", None) or []) if _resolved(p, opts) in keep]
    opts.clusters = [p for p in (opts.clusters or []) if _resolved(p, opts) in keep]


def _resolved(path, opts) -> str:
    return text_paths([path], opts.data_dir)[0]
