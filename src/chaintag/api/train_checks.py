"""What ``chaintag train`` checks and says about its data before training.

The default attribute preset is chosen from the columns present and the kind
of labels; the label column is checked for the mistakes users make (a single
label, a column of another kind); and every run states on stderr the preset,
the templates and the columns it uses.
"""

from __future__ import annotations

import re

__all__ = ["KIND_PRESETS", "KIND_ALGORITHMS", "KIND_PRESETS_WITH_VECTORS", "KIND_PRESETS_WITH_CLUSTERS",
           "KIND_PRESETS_WITH_BOTH", "resource_class", "resource_kind",
           "task_kind", "default_preset", "kind_preset", "label_column_warnings", "describe_features", "check_model_path",
           "dev_test_reason", "check_dev_is_not_test", "check_options_given", "check_checkpoint_kept", "check_algorithm"]

#: Chunk types of syntactic phrases (CoNLL-2000); other types are taken for entities.
PHRASE_TYPES = frozenset({"NP", "VP", "PP", "ADJP", "ADVP", "SBAR", "PRT", "CONJP", "INTJ", "LST", "UCP"})
_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)?")


#: The attribute preset of each kind of task, chosen as one setting per kind on the summed dev scores of the
#: handed tasks of that kind (POS: ptb_sample, UD English EWT; chunking: CoNLL-2000 and its base NPs; NER:
#: JNLPBA, the one task with entity types, which the proper-name tasks built from CoNLL-2000 and UD EWT lack)
#: with SAPO, among the plain presets and their richer variants (docs/results/kind_defaults).
KIND_PRESETS = {"pos": "pos", "chunking": "chunking", "ner": "ner+gaz"}
#: The learner of ``chaintag train`` without ``--algorithm`` for the kinds where it is not SAPO
#: (:data:`chaintag.api.training.DEFAULT_ALGORITHM`): none. For NER the CRF was ahead of SAPO on JNLPBA's dev
#: data alone (F1 78.154 against 78.145 on ``ner+gaz``); with the proper names of CoNLL-2000 and UD English EWT
#: beside it, SAPO leads on the summed dev F1, without resources (258.26 against the CRF's 258.23) and with
#: them (260.65 against 260.20; docs/results/kind_defaults).
KIND_ALGORITHMS: dict[str, str] = {}
#: The same choice when word vectors are given (``--resources`` FILE of vectors) and no ``--features``:
#: their k-means ids helped POS, and NER on the proper names of CoNLL-2000 and UD English EWT (whose words
#: the data directory's GloVe vectors cover; not JNLPBA's); they did not help chunking, which keeps its preset.
KIND_PRESETS_WITH_VECTORS = {"pos": "pos+km", "chunking": "chunking", "ner": "ner+gaz+km"}
#: The same choice when cluster maps with hierarchy paths are given (a folder of unlabeled text, induced
#: once and cached, or a cluster table): they helped chunking (maps of ``unlabeled_en``), not POS nor NER
#: (maps of ``unlabeled_bio``) on dev.
KIND_PRESETS_WITH_CLUSTERS = {"pos": "pos", "chunking": "chunking+text", "ner": "ner+gaz"}
#: Both given: for each kind, the preset of the resource that helped it on dev (no trial read both at once).
KIND_PRESETS_WITH_BOTH = {k: KIND_PRESETS_WITH_VECTORS[k] if KIND_PRESETS_WITH_VECTORS[k] != KIND_PRESETS[k]
                          else KIND_PRESETS_WITH_CLUSTERS[k] for k in KIND_PRESETS}


def task_kind(columns, labels) -> str | None:
    """The kind of task of labelled data: ``"chunking"`` (a ``pos`` column and phrase chunk labels: NP,
    VP, ...), ``"ner"`` (other chunk labels: entity types), ``"pos"`` (labels that are not chunk labels,
    without a ``pos`` column), or None (a ``pos`` column with labels that are not chunk labels).

    Parameters
    ----------
    columns : sequence of str
    labels : list of list of str
    """
    from ..evaluation.schemes import detect_scheme
    scheme = detect_scheme(labels)
    types = {t for (p, t) in scheme.read.values() if t}
    if "pos" in columns and scheme.is_chunking and types and types <= PHRASE_TYPES:
        return "chunking"
    if scheme.is_chunking:
        return "ner"
    return None if "pos" in columns else "pos"


def default_preset(columns, labels, resources: str | bool = False) -> tuple[str, str]:
    """The preset used when ``--features`` is not given, and why.

    Parameters
    ----------
    columns : sequence of str
        Feature column names of the training data (``word``, ``pos``, ...).
    labels : list of list of str
        Training labels.

    resources : {False, "vectors", "clusters"}, default False
        What ``--resources`` gives (:func:`resource_kind`): word vectors (:data:`KIND_PRESETS_WITH_VECTORS`)
        or cluster maps with paths (:data:`KIND_PRESETS_WITH_CLUSTERS`).

    Returns
    -------
    (str, str)
        Preset name and a phrase saying why. The kind of task: chunking for a
        ``pos`` column with phrase chunk labels (NP, VP, ...), NER for other
        chunk labels (entity types; the NER presets read the ``pos`` column when
        there is one), POS otherwise; its preset is :data:`KIND_PRESETS`' (the
        plain ``ner`` preset for a ``pos`` column with labels that are not chunk
        labels, which has no entity strings for a gazetteer).
    """
    return kind_preset(task_kind(columns, labels), "pos" in columns, resources)


def kind_preset(kind: str | None, has_pos: bool, resources: str | bool = False) -> tuple[str, str]:
    """:func:`default_preset` for a kind of task already found (:func:`task_kind`; reading the labels
    again costs about 0.2 s on JNLPBA) and whether the data has a ``pos`` column."""
    presets = {"clusters": KIND_PRESETS_WITH_CLUSTERS, "vectors": KIND_PRESETS_WITH_VECTORS,
               "both": KIND_PRESETS_WITH_BOTH}.get(resources, KIND_PRESETS)
    if kind == "chunking":
        return presets["chunking"], "a pos column and phrase chunk labels"
    if kind == "ner":
        return presets["ner"], "entity chunk labels" + (" and a pos column, which it reads" if has_pos else "")
    if kind is None:
        return "ner", "a pos column, which the ner preset reads"
    return presets["pos"], ("a word column and labels that are not chunk labels"
                            + (f", with {'cluster maps' if resources == 'clusters' else 'word vectors'}"
                               if presets["pos"] != KIND_PRESETS["pos"] else ""))


def resource_class(path) -> str | None:
    """What one ``--resources`` path gives the default attributes.

    Parameters
    ----------
    path : str
        A file or folder.

    Returns
    -------
    str or None
        ``"clusters"`` (a folder of unlabeled text, a cluster table), ``"vectors"`` (a word-vectors file) or
        None (Brown paths, a gazetteer list, no such path).

    Raises
    ------
    chaintag.errors.InputError
        When a file cannot be read or is empty.
    """
    import os
    from ..resources.files import sniff_kind
    if os.path.isdir(path):
        return "clusters"
    return {"table": "clusters", "vectors": "vectors"}.get(sniff_kind(path) if os.path.isfile(path) else "")


def resource_kind(paths) -> str | bool:
    """What ``--resources`` files give together, for :func:`default_preset`.

    Parameters
    ----------
    paths : sequence of str
        Files and folders (:func:`resource_class` of each).

    Returns
    -------
    str or bool
        ``"clusters"`` (a folder of unlabeled text or a cluster table: paths and k-means ids), ``"vectors"``
        (word vectors), ``"both"``, or False (none, or Brown paths or gazetteer lists alone, which change
        no preset).
    """
    kinds = {resource_class(p) for p in paths or []}
    if {"clusters", "vectors"} <= kinds:
        return "both"
    return "clusters" if "clusters" in kinds else "vectors" if "vectors" in kinds else False


def _where(corpus) -> str:
    if corpus.format == "conllu":
        return f"the {(corpus.label_field or 'xpos').upper()} column of {corpus.source}"
    if corpus.label_column is not None:
        return f"column {corpus.label_column + 1} of {corpus.n_file_columns} of {corpus.source}"
    return f"the label column of {corpus.source}"


def label_column_warnings(corpus, scheme: str | None = "auto", label_named: bool = False) -> list[str]:
    """Warnings about a training corpus's label column, each naming the column.

    Parameters
    ----------
    corpus : chaintag.data.datasets.Corpus
        Labelled training data.
    scheme : str, default "auto"
        The chunk scheme the labels are read in (``--scheme``; see
        :func:`chaintag.evaluation.schemes.detect_scheme`).
    label_named : bool, default False
        Whether the user named the label column (``--columns ...,label``):
        then no other column is proposed as the labels.

    Returns
    -------
    list of str
        Empty when nothing looks wrong. Warns when the labels are a single
        label; when they look like numbers (IDs, heads), like words (at least
        50 labels and at least one per two tokens), or like a copy of the
        word column (over half of the tokens); when they are chunk labels of
        which some fit no prefix of the scheme (``PER``, ``B_LOC`` beside
        ``B-PER``: read as O by spans and chunk F1); and when they are not
        chunk labels but a feature column, the word column included, holds
        chunk labels (at most 1 % strays; the label column is then probably
        another one), unless the label column was named or ``O`` is on half
        of the tokens (entity types without prefixes: ``PER``, ``LOC``, ``O``), which get a warning of
        their own (they make no spans).
    """
    from ..evaluation.schemes import TRAINING_TYPO_PREFIXES, detect_scheme
    labels = corpus.labels or []
    flat = [lab for s in labels for lab in s]
    if not flat:
        return []
    where = _where(corpus)
    how = "--label-field" if corpus.format == "conllu" else "--columns"
    out = []
    distinct = set(flat)
    if len(distinct) == 1:
        out.append(f"the labels ({where}) are a single label, {flat[0]!r}: every token will be tagged "
                   f"with it (if the labels are in another column, name it with {how})")
        return out
    n = len(flat)
    n_numbers = sum(1 for lab in flat if _NUMBER.fullmatch(lab))
    if n_numbers >= 0.9 * n:
        out.append(f"the labels ({where}) are numbers on {n_numbers} of {n} tokens: this looks like a column "
                   f"of IDs, heads or counts, not labels (choose the label column with {how})")
    elif len(distinct) >= 50 and len(distinct) * 2 >= n:
        out.append(f"the labels ({where}) take {len(distinct)} values over {n} tokens: this looks like a "
                   f"word column, not labels (choose the label column with {how})")
    if "word" in corpus.columns:
        w = corpus.columns.index("word")
        same = sum(1 for toks, labs in zip(corpus.tokens, labels) for tok, lab in zip(toks, labs) if tok[w] == lab)
        if same * 2 > n and len(distinct) > 2:
            out.append(f"the labels ({where}) equal the word on {same} of {n} tokens: this looks like a copy "
                       f"of the word column (choose the label column with {how})")
    # read as the model records them (a rare prefix of another scheme is a typo)
    scheme = detect_scheme(labels, (), scheme or "auto", typo_prefixes=TRAINING_TYPO_PREFIXES)
    auto = detect_scheme(labels, typo_prefixes=TRAINING_TYPO_PREFIXES) if scheme.detected is False else scheme
    if scheme.is_chunking:
        out += _scheme_warnings(corpus, labels, flat, scheme, auto, where)
    n_outside = flat.count("O")
    if not scheme.is_chunking and scheme.detected and 2 * n_outside >= n and len(distinct) <= 30:
        types = sorted(distinct - {"O"})
        out.append(f"the labels ({where}) look like entity types without chunk prefixes ({', '.join(types[:5])}"
                   f"{', ...' if len(types) > 5 else ''}; O on {100 * n_outside / n:.0f} % of the tokens): they are "
                   "learned as token labels, so the model gives no entities (spans) and no chunk F1; if they are "
                   "entity types, write them in IOB2 (B-PER on a name's first token, I-PER on the next ones); "
                   "--scheme none says they are token labels")
    if not scheme.is_chunking and not label_named and 2 * n_outside < n:
        for i, name in enumerate(corpus.columns):
            values = [[tok[i] for tok in s] for s in corpus.tokens]
            column = detect_scheme(values)
            if column.is_chunking and 100 * sum(v in column.stray for s in values for v in s) <= n:
                out.append(f"the feature column {name!r} holds chunk labels ({column.name.upper()}) while "
                           f"the labels ({where}) do not: is the label column the one you meant? "
                           f"(choose it with {how})")
    return out


def _scheme_warnings(corpus, labels, flat, scheme, auto, where: str) -> list[str]:
    """Stray labels (no prefix of the scheme) and labels that break its rules; ``auto`` is the scheme
    detected, which the hint names when ``--scheme`` gave another one that reads the labels worse."""
    from collections import Counter
    from ..data.label_check import has_control
    from ..evaluation.schemes import SCHEMES, rule_breaks
    out = []
    better = (auto.name != scheme.name and auto.is_chunking and not auto.stray and not rule_breaks(labels, auto)[0])
    given = (f"the labels look like {auto.name.upper()}: --scheme {auto.name} (or auto) reads them all"
             if better else None)
    # labels with control characters have their own warning (chaintag.data.label_check)
    stray = {lab for lab in scheme.stray if not has_control(lab)}
    if stray:
        counts = Counter(lab for lab in flat if lab in stray)
        shown = ", ".join(f"{lab!r} on {counts[lab]} token{'s' if counts[lab] > 1 else ''}"
                          for lab in sorted(counts, key=lambda k: (-counts[k], k))[:5])
        prefixes = "-X / ".join(p for p in "BIMELSU" if p in SCHEMES[scheme.name]) + "-X"
        out.append(f"the labels ({where}) are chunk labels ({scheme.name.upper()}), but {len(counts)} fit none of "
                   f"its prefixes: {shown}{', ...' if len(counts) > 5 else ''}; they are learned as labels of "
                   f"their own, and spans, tagged entities and chunk F1 read them as O "
                   f"({given or 'a typo of ' + prefixes + '?'})")
    breaks = _rule_break_warning(corpus, labels, scheme, where, given)
    if breaks:
        out.append(breaks)
    return out


def _rule_break_warning(corpus, labels, scheme, where: str, hint: str | None = None) -> str | None:
    """The warning about labels that break the transition rules of their scheme (``I-LOC`` after ``O`` in
    IOB2: a chunk broken by a typo), naming the first; None when none does."""
    from ..evaluation.schemes import rule_breaks
    n, first = rule_breaks(labels, scheme)
    if not n:
        return None
    s, t, prev, lab = first
    if corpus.format == "columns" and s < len(corpus.lines or ()):
        at = f"line {corpus.lines[s] + min(t, len(labels[s]) - 1)} of {corpus.source}"
    else:
        at = f"sentence {s + 1}, token {min(t, len(labels[s]) - 1) + 1}"
    what = (f"{lab!r} after {prev!r}" if prev is not None and lab is not None
            else f"{lab!r} first in a sentence" if lab is not None else f"{prev!r} last in a sentence")
    return (f"the labels ({where}) break the rules of {scheme.name.upper()} on {n} token{'s' if n > 1 else ''}, "
            f"the first at {at}: {what}; spans and chunk F1 read them as conlleval does, and --constrain "
            f"never predicts such a sequence ({hint or 'a typo?'})")


def describe_labels(corpus) -> str:
    """Where the labels of a training corpus come from (the end of the line ``chaintag train`` prints)."""
    return _where(corpus)


def describe_features(features: str, why: str | None, templates, columns, corpus) -> str:
    """The line ``chaintag train`` prints about its attributes and columns."""
    source = (f"preset {features!r} (chosen for {why}; set --features to choose)" if why
              else (f"preset {features!r}" if features in ("chunking", "pos", "ner") else f"{features!r}"))
    names = "; ".join(t.name for t in templates)
    return (f"features: {source}; {len(templates)} templates: {names}; "
            f"feature columns: {', '.join(columns)}; labels: {_where(corpus)}")


def check_model_path(path, option: str = "--model") -> None:
    """Refuse a model destination that names a folder (``newdir/``, or a folder that exists).

    A path ending with a separator would otherwise be written as a file
    called ``newdir``; the message proposes a file name in that folder.

    Raises
    ------
    chaintag.errors.InputError
    """
    import os

    from ..errors import InputError
    text = os.fspath(path)
    if not text:
        raise InputError(f"{option}: an empty path; give the model's file name, e.g. {option} model.npz")
    ends = text.endswith(tuple(s for s in (os.sep, os.altsep) if s))
    if ends or os.path.isdir(text):
        folder = text.rstrip("/" + (os.altsep or "") + os.sep) or text
        state = "an existing folder" if os.path.isdir(text) else "a folder (it ends with a separator)"
        raise InputError(f"{option} names {state}; give the model's file name, e.g. "
                         f"{option} {os.path.join(folder, 'model.npz')}", text)


def _same_file(a: str, b: str) -> bool:
    """Whether two paths are one file, or two files of the same bytes (a copy of a test file)."""
    import filecmp
    import os
    try:
        if os.path.samefile(a, b):
            return True
        return (os.path.isfile(a) and os.path.isfile(b) and os.path.getsize(a) == os.path.getsize(b)
                and filecmp.cmp(a, b, shallow=False))
    except OSError:
        return False


def dev_test_reason(dev, test=None, data_dir=None) -> str | None:
    """Why the dev data given is a test split, or None.

    Parameters
    ----------
    dev : str or None
        The ``--dev`` source: a path or a dataset reference.
    test : str, optional
        The ``--test`` source.
    data_dir : str, optional
        The ``--data-dir``, to find the files of the named test splits.

    Returns
    -------
    str or None
        ``"it is a test split (conll2000:test)"``, ``"it is the --test data"``,
        ``"it is the file of conll2000:test"``, or None. Nothing is fetched:
        references are compared by name, paths by file identity or, for files
        of equal size, by their bytes (a copy of a test file is one).
    """
    import os

    from ..data.datasets import is_dataset_ref
    from ..data.location import resolve_data_dir
    from ..data.registry import DATASETS
    if not dev or dev == "-":
        return None
    dev = os.fspath(dev)
    if is_dataset_ref(dev) and dev.partition(":")[2] == "test":
        return f"it is a test split ({dev})"
    if test and (dev == os.fspath(test) or (os.path.exists(dev) and _same_file(dev, os.fspath(test)))):
        return "it is the --test data"
    if os.path.isfile(dev):
        folder = resolve_data_dir(data_dir)
        for info in DATASETS.values():
            name = info.splits.get("test")
            path = os.path.join(folder, info.name, name) if name else None
            if path and _same_file(dev, path):
                return (f"it is the file of {info.name}:test" if os.path.samefile(dev, path)
                        else f"it is a copy of {info.name}:test")
    return None


def check_dev_is_not_test(dev, test=None, data_dir=None, command: str = "train") -> str | None:
    """Refuse a named test split as dev data; warn when dev and --test are the same file.

    With a test split as dev data, the best epoch (``train``) or the tuned
    settings (``tune``) are chosen on the test data. A named test split
    (``conll2000:test``, or the file of one) is refused. The same file given
    as ``--dev`` and ``--test`` is only warned about: the tests of tiny data
    sets and smoke runs do that on purpose, and the test score then says so.

    Returns
    -------
    str or None
        The warning to show (same file as ``--test``), else None.

    Raises
    ------
    chaintag.errors.InputError
        For a named test split, naming why (see :func:`dev_test_reason`) and what to give instead.
    """
    from ..errors import InputError
    why = dev_test_reason(dev, test, data_dir)
    if not why:
        return None
    choice = "the best epoch" if command == "train" else "the settings"
    text = (f"--dev {dev}: {why}; {choice} would then be chosen on the test data, and the test score would "
            "no longer measure the model on unseen data")
    if why == "it is the --test data":
        return "warning: " + text + " (the test figures below are not a held-out score)"
    raise InputError(text + ". Give a dev split (e.g. ptb_sample:dev) or --dev-fraction F to hold out part "
                     "of the training data")


def check_options_given(opts, names=("model", "history", "checkpoint_dir", "features", "stream_dir")) -> None:
    """Refuse options given as empty text (``--history ""``): they would silently mean "none".

    Parameters
    ----------
    opts : object
        The settings of :func:`chaintag.api.training.run_training` (attributes named as the options).
    names : sequence of str
        The settings to check.

    Raises
    ------
    chaintag.errors.InputError
        Naming the first empty one as its command-line option.
    """
    from ..errors import InputError
    for name in names:
        value = getattr(opts, name, None)
        if value is not None and not str(value).strip():
            raise InputError(f"--{name.replace('_', '-')}: an empty value; leave the option out, or give one")


def check_checkpoint_kept(opts) -> None:
    """Refuse to start over in a checkpoint folder that holds an earlier run's checkpoint without --resume:
    the new run would replace it after its first epoch.

    Raises
    ------
    chaintag.errors.InputError
    """
    import os
    folder = getattr(opts, "checkpoint_dir", None)
    if not folder or getattr(opts, "resume", False):
        return
    from ..learners.checkpoint import FILE_NAME
    if os.path.isfile(os.path.join(folder, FILE_NAME)):
        from ..errors import InputError
        raise InputError(f"--checkpoint-dir {folder} holds the checkpoint of an earlier run, which this run would "
                         "replace: add --resume to continue it, or give another folder (or remove it) to start over")


def check_algorithm(algorithm) -> None:
    """Refuse an unknown learner name before any data is read, naming the close ones.

    Raises
    ------
    chaintag.errors.InputError
    """
    from ..errors import InputError
    from ..learners import learner_class
    if algorithm is None:
        return
    try:
        learner_class(algorithm)
    except ValueError as exc:
        raise InputError(str(exc)) from None