"""Training as ``chaintag train`` does it: data read and checked, features chosen, learner fitted, model saved.

:func:`train` is the Python entry point; the command line builds the same
settings from its options and calls :func:`run_training`, then prints.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from types import SimpleNamespace

from ..errors import InputError
from ..progress import plural
from .corpus import load_source, require_tokens
from .train_checks import check_algorithm, check_checkpoint_kept, check_options_given
from .train_resources import (add_resources, default_resources, keep_resources_read, known_embeddings, resources_off,
                              text_paths)

__all__ = ["TrainResult", "TrainOptions", "train", "run_training", "check_misplaced_options", "second_order_name",
           "EXIT_HISTORY_NOT_WRITTEN", "EXIT_STATE_KEPT"]

# exit codes of `chaintag train` beyond 0 (success) and 2 (error, nothing written)
EXIT_HISTORY_NOT_WRITTEN = 3  # the model was saved; the --history file was not written
EXIT_STATE_KEPT = 4  # the model was not saved to --model; the trained state was kept (the message says where)


@dataclass
class TrainResult:
    """What a training run gives.

    Attributes
    ----------
    model : SequenceTagger
        The fitted model (saved to ``report["model"]`` when a path was given).
    report : dict
        ``model``, ``algorithm``, ``seconds``, ``best_epoch``, ``history`` (one record per
        epoch), ``train`` (sentence and token counts), ``extraction_seconds`` (attribute extraction, as
        the log's line), ``extractor_seconds`` (building the extractor: resources read and derived, the
        gazetteer), ``features`` (the
        specification of the attributes, as the model keeps it) and ``resources`` (the files it reads),
        and ``n_features`` / ``n_attributes`` (or ``n_parameters``).
    test : EvalResult or None
        The test data's scores (conlleval semantics), when test data was given.
    test_seconds : float
    test_sentences : int
    history_error : OSError or None
        Set when the history file could not be written (the model was saved).
    """

    model: object
    report: dict
    test: object = None
    test_seconds: float = 0.0
    test_sentences: int = 0
    history_error: OSError | None = None


#: The learner of ``chaintag train`` and :func:`train` when none is named: SAPO had the highest dev score,
#: summed over the handed tasks of each kind (POS, chunking, NER), against the averaged perceptron, with
#: and without word vectors (docs/results/kind_defaults).
DEFAULT_ALGORITHM = "sapo"  # of every kind of task (:data:`chaintag.api.train_checks.KIND_ALGORITHMS`)

#: The settings of :func:`train` (the names of ``chaintag train``'s options) and their defaults.
DEFAULTS = dict(train=None, dev=None, dev_fraction=0.0, test=None, model=None, algorithm=None, order=1,
                features=None, resources=None, clusters=None, autotags=None, epochs=None, cc=0, hash_bits=None,
                feature_space=None, shuffle=None, seed=0, no_clip=None, history=None, checkpoint_dir=None,
                resume=False, scheme=None, workers=None, scheduler=None, mixing=None, stream=None,
                stream_dir=None, columns=None, data_dir=None, label_field=None, sep=None, encoding="utf-8",
                format=None, quiet=True)


class TrainOptions(SimpleNamespace):
    """The settings of a training run (:data:`DEFAULTS`, with the given ones); learner flags read None."""

    def __init__(self, **given):
        unknown = set(given) - set(DEFAULTS)
        if unknown:
            raise TypeError(f"train() got unexpected settings {', '.join(sorted(unknown))} (learner parameters "
                            "go in params=)")
        super().__init__(**{**DEFAULTS, **given})

    def __getattr__(self, name):  # a learner option the command line would have (--n-best, ...): not given
        if name.startswith("_"):
            raise AttributeError(name)
        return None


def train(train, *, params: dict | None = None, log=None, **settings) -> TrainResult:
    """Train a model on a labelled corpus, as ``chaintag train`` does.

    Parameters
    ----------
    train : str
        A training file or a dataset reference (``conll2000:train``).
    params : dict, optional
        The learner's own parameters (``{"l2": 2, "n_best": 10}``), checked against what it declares
        (:mod:`chaintag.learners.params`); a setting that is not one of train's (``l2=2``) is one too.
    log : callable, optional
        Gets one line per step (default: none).
    **settings
        The names of ``chaintag train``'s options (:data:`DEFAULTS`): ``algorithm``, ``features``,
        ``dev``, ``dev_fraction``, ``test``, ``model`` (a path: the model is saved there), ``epochs``,
        ``order``, ``resources`` (files of word vectors, Brown paths or cluster tables; ``clusters``
        is the same), ``autotags``, ``checkpoint_dir``, ``resume``, ``scheme``, ... Without ``algorithm``,
        the learner chosen on dev for the kind of task found in the data (SAPO, :data:`DEFAULT_ALGORITHM`,
        for every kind: :data:`chaintag.api.train_checks.KIND_ALGORITHMS` names none other);
        without ``features``, the kind's attributes, with the data directory's resources that cover the
        training words, and SAPO's settings for the kind (``SAPO.kind_params``).

    Returns
    -------
    TrainResult
        The fitted model, its report, and the test scores when ``test`` was given.

    Raises
    ------
    chaintag.errors.InputError
        For bad data or settings.

    Examples
    --------
    >>> result = chaintag.train("conll2000:train", test="conll2000:test", features="chunking",
    ...                         algorithm="sapo", params={"l2": 1.0}, epochs=10)  # doctest: +SKIP
    >>> result.test.f1  # doctest: +SKIP
    """
    given = dict(params or {})
    for name, value in (("train", train), ("dev", settings.get("dev")), ("test", settings.get("test"))):
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise InputError(f"{name}: expected a file or a dataset reference (conll2000:train), not a "
                             f"{type(value).__name__}; to train on sentences and labels held in Python, use "
                             "chaintag.make_learner(...).fit(sentences, labels, dev=(sentences, labels))")
    for name in ("resources", "clusters", "autotags"):  # one path given as a string is one path, not letters
        if isinstance(settings.get(name), (str, os.PathLike)):
            settings[name] = [os.fspath(settings[name])]
    for name in [k for k in settings if k not in DEFAULTS]:  # a learner's parameter given by name (l2=2)
        given[name] = settings.pop(name)
    opts = TrainOptions(train=train, **settings)

    def learner_params(cls, shown):
        declared = {p.name: p for p in cls.params}
        unknown = sorted(set(given) - set(declared))
        if unknown:
            import difflib
            close = [m for u in unknown for m in difflib.get_close_matches(u, list(DEFAULTS) + list(declared), 1)]
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise InputError(f"{shown} has no parameter {', '.join(unknown)}{hint}; it takes "
                             f"{', '.join(sorted(declared))}, and train takes {', '.join(sorted(DEFAULTS))}")
        for name, value in given.items():
            declared[name].check(value)
        return given

    return run_training(opts, log=log, settings=learner_params)


def second_order_name(algorithm: str) -> str:
    """The learner of ``--algorithm A --order 2``: the one that declares ``first_order = A``."""
    from ..errors import InputError
    from ..learners import LEARNERS
    names = {LEARNERS[n].first_order: n for n in LEARNERS if LEARNERS[n].order == 2}
    if algorithm not in names:
        raise InputError("--order 2 is offered for the perceptron and SAPO (--algorithm perceptron or sapo)")
    return names[algorithm]


def run_training(opts, log=None, settings=None) -> TrainResult:
    """Train and save a model as ``chaintag train`` does, from its settings.

    Parameters
    ----------
    opts : object
        The settings, with the names of ``chaintag train``'s options (``train``, ``dev``,
        ``dev_fraction``, ``test``, ``model``, ``algorithm``, ``order``, ``features``,
        ``resources``, ``clusters``, ``autotags``, ``epochs``, ``cc``, ``hash_bits``, ``feature_space``,
        ``shuffle``, ``seed``, ``no_clip``, ``history``, ``checkpoint_dir``, ``resume``,
        ``scheme``, ``workers``, ``scheduler``, ``mixing``, ``stream``, ``stream_dir``,
        ``columns``, ``data_dir``, ``label_field``, ``sep``, ``encoding``, ``format``, ``quiet``):
        see :class:`TrainOptions`.
    log : callable, optional
        Gets one line per step (data read, features, epochs, model saved).
    settings : callable, optional
        ``settings(cls, shown) -> dict``: the learner's own parameters for the class
        ``cls`` (``shown``: the learner as the command line names it, for messages).

    Returns
    -------
    TrainResult

    Raises
    ------
    chaintag.errors.InputError
        For bad data or settings (naming the file and line, or the option).
    chaintag.errors.OutputError
        When the model cannot be saved (the message says where the trained state is kept).
    """
    if log is None:
        def log(message):
            return None
    t0 = time.perf_counter()
    opts.model_saved = opts.history_written = False  # set once written (the advice after an interrupt)
    check_options_given(opts)
    check_algorithm(opts.algorithm)
    check_checkpoint_kept(opts)
    from .train_stream import wants_stream
    from .train_distributed import wants_distributed
    if opts.algorithm is None and (opts.order == 2 or opts.stream or opts.checkpoint_dir or wants_distributed(opts)):
        opts.algorithm = DEFAULT_ALGORITHM  # chosen before the data is read: the learner of every kind but one
        opts.algorithm_default = "runs whose learner is chosen before the data is read"
    streamed = wants_stream(opts, second_order_name(opts.algorithm) if opts.order == 2
                            else opts.algorithm or DEFAULT_ALGORITHM, log=log)
    opts.streamed_run = streamed  # what the advice after an interrupt reads
    train = _read_training_data(opts, streamed, log)
    from .train_checks import KIND_ALGORITHMS, task_kind
    opts.task_kind = task_kind(train.columns, train.labels)  # read once: learner, attributes, settings
    if opts.algorithm is None:  # the learner chosen on dev for the kind of task found in the data
        opts.algorithm = KIND_ALGORITHMS.get(opts.task_kind, DEFAULT_ALGORITHM)
        opts.algorithm_default = opts.task_kind or "this data"
    _choose_features(opts, train, streamed, log)
    dev, test = _held_out_data(opts, train, log, streamed)
    name = second_order_name(opts.algorithm) if opts.order == 2 else opts.algorithm
    learner = _make_learner(opts, name, train, settings)
    opts.epochs_run = getattr(learner, "epochs", None)
    if getattr(opts, "kind_settings", None):
        log(f"{name} settings for {opts.default_kind} with the default attributes (chosen on dev with them; "
            "options given win): " + ", ".join(f"{k}={v}" for k, v in opts.kind_settings.items()))
    skipped = getattr(opts, "kind_skipped", None)
    if skipped:
        log(f"{name} settings for {opts.data_kind} ({', '.join(f'{k}={v}' for k, v in skipped.items())}) not "
            "applied: they were chosen with the default attributes (no --features); give them as "
            "options to use them")
    known_embeddings(opts, learner, log)
    if hasattr(learner, "epochs"):
        default = getattr(opts, "algorithm_default", None)
        log(f"learner: {name}" + (f" (the default for {default}, chosen on dev; --algorithm to choose)"
                                  if default else "")
            + f", {plural(learner.epochs, 'epoch')}" + ("" if opts.epochs is not None else " (the default; --epochs)")
            + ("; the epoch with the best dev score is kept" if opts.dev or opts.dev_fraction else ""))
    _fit(learner, opts, train, dev, streamed)
    gaz = getattr(getattr(learner, "extractor_", None), "gazetteer", None)
    if gaz is not None:  # what the gaz / gazn columns matched against
        log(f"gazetteer: {plural(len(gaz.counts), 'entry', 'entries')} of {plural(len(gaz.types), 'type')} "
            f"({', '.join(sorted(gaz.types)[:8])}"
            f"{', ...' if len(gaz.types) > 8 else ''}) from {', '.join(gaz.sources)}; the labels a match "
            "predicts are learned from the training data")
    learner.label_field_ = train.label_field  # the CoNLL-U label column, for tag and eval
    if opts.model:
        try:
            learner.save(opts.model)
        except OSError as exc:  # a full disk, ...: keep the trained state, say where
            raise _model_not_saved(opts, learner, exc) from None
        opts.model_saved = True  # what the advice after an interrupt reads
    train_seconds = time.perf_counter() - t0
    result = TrainResult(learner, _report(opts, name, learner, train, dev, streamed, train_seconds, log))
    result.history_error = _write_history(opts, learner)
    opts.history_written = bool(getattr(opts, "history", None)) and result.history_error is None
    if test is not None:
        t1 = time.perf_counter()
        result.test = learner.evaluate(test.tokens, test.labels)
        result.test_seconds, result.test_sentences = time.perf_counter() - t1, test.n_sentences
    return result


def _read_training_data(opts, streamed: bool, log):
    """The training corpus (its first chunk when streamed), with the warnings about its label column."""
    from .train_checks import label_column_warnings
    from .train_stream import CHUNK_SENTENCES, head_corpus
    train = head_corpus(opts) if streamed else load_source(opts.train, opts, log=log)
    if train.n_sentences == 0:
        raise InputError("no sentences to train on", train.source)
    if streamed:
        log(f"streamed training: {opts.train} is read in chunks of {CHUNK_SENTENCES} sentences (the checks "
            f"below read the first one: {plural(train.n_sentences, 'sentence')}, "
            f"{plural(train.n_tokens, 'token')})")
    else:
        log(f"read {plural(train.n_sentences, 'sentence')}, {plural(train.n_tokens, 'token')} from {opts.train}")
    if opts.label_field and train.label_field is None:
        log(f"warning: --label-field applies to CoNLL-U files; {opts.train} is a column file, whose "
            "label is its last column (or the one --columns names)")
    # a --columns spec of training data names the label column (parse_columns requires it)
    for warning in label_column_warnings(train, opts.scheme, label_named=bool(opts.columns)):
        log(f"warning: {warning}")
    return train


def _choose_features(opts, train, streamed: bool, log) -> None:
    """Set ``opts.features``: the default preset when none is given, the resources named, the document
    columns computed when the templates read them (a learner that embeds the columns takes none)."""
    from ..learners import LEARNERS
    from .train_checks import describe_features, describe_labels, kind_preset
    if getattr(LEARNERS.get(opts.algorithm), "learns_representation", False):
        # neural learners embed the columns themselves: no attribute templates, presets or clusters
        for option, value in (("--features", opts.features), ("--resources", getattr(opts, "resources", None)),
                              ("--clusters", opts.clusters), ("--autotags", opts.autotags)):
            if value:
                raise InputError(f"{option} does not apply to {opts.algorithm}: it learns its own token "
                                 "representation (word, character and column embeddings)")
        log(f"{opts.algorithm}: word, character and column embeddings of the columns "
            f"{', '.join(train.columns)} (no attribute templates); labels: {describe_labels(train)}")
        return
    why = None
    off = resources_off(opts)
    if opts.features is None:
        from .train_checks import resource_kind
        given = text_paths(list(getattr(opts, "resources", None) or []) + list(opts.clusters or []), opts.data_dir)
        has_pos = "pos" in train.columns
        kind = resource_kind(given) if given or off else default_resources(opts, train, log, opts.task_kind)
        opts.features, why = kind_preset(opts.task_kind, has_pos, kind)
        if kind == "both":  # the default reads one kind of resource: the other is left out, and said so
            keep_resources_read(opts, given, opts.features, log)
        if kind and opts.features != kind_preset(opts.task_kind, has_pos)[0]:
            why += "; with the resources " + ("given (--resources)" if given else "found in the data directory")
        opts.default_kind = opts.task_kind  # the learner's settings for it apply
    else:
        opts.data_kind = opts.task_kind
    add_resources(opts, log)
    if opts.autotags:
        from ..features.spec import with_autotags
        opts.features = with_autotags(opts.features, text_paths(opts.autotags, opts.data_dir,
                                                                 getattr(opts, "autotags_in_data_dir", False)))
    from ..features.document import document_columns_read, with_document_columns
    if document_columns_read(opts.features, train.columns):
        # the templates read the document columns: computed from each file's documents (marker lines)
        if streamed:
            raise InputError("the document columns (abbr, docnext, doccap) need whole documents: train "
                             "without streaming (a file read in chunks has none)")
        with_document_columns(train)
        log(f"document columns abbr, docnext, doccap computed on {len(set(train.documents or [0]))} "
            f"document(s) of {opts.train}")
    from ..features.templates import AUTO_COLUMNS, resolve_templates
    templates = resolve_templates(opts.features, train.columns, virtual=True)
    log(describe_features(opts.features, why, templates, train.columns, train))
    if not streamed:
        _drop_unread_columns(train, templates, log)
    if opts.autotags and not any(a.column in AUTO_COLUMNS and a.column not in train.columns
                                 for t in templates for a in t.atoms):
        log("warning: the unlabeled text (--autotags, or the recipe's) is not used: no template reads "
            "its labels (atag, atag2)")


def _drop_unread_columns(train, templates, log) -> None:
    """Drop the last feature columns that no template reads (``c2``, a chunk column beside NER labels), so
    that the model does not ask for them when it tags; a column before a read one keeps its place."""
    read = {a.column for t in templates for a in t.atoms}
    keep = len(train.columns)
    while keep > 1 and train.columns[keep - 1] not in read:
        keep -= 1
    if keep == len(train.columns):
        return
    dropped = train.columns[keep:]
    train.columns = tuple(train.columns[:keep])
    train.tokens = [[tok[:keep] for tok in s] for s in train.tokens]
    log(f"column{'s' if len(dropped) > 1 else ''} {', '.join(dropped)} of {train.source}: read by no template, "
        "not needed to tag")


#: Fewest dev sentences before training warns that the epoch chosen on them is mostly chance.
MIN_DEV_SENTENCES = 50


def _held_out_data(opts, train, log, streamed: bool = False):
    """The dev data (a file, or the end of the training data) and the test data, as the training data
    reads them (with the document columns when it has them); the test data is read before training,
    so that a bad reference fails at once."""
    from ..features.document import DOCUMENT_COLUMNS
    from ..evaluation.schemes import TRAINING_TYPO_PREFIXES, detect_scheme
    from .scoring import gold_label_notes
    reference: dict = {}  # the training labels and their scheme, read once and only for a dev or test file

    def load_like_train(source, what):
        corpus = load_source(source, opts, log=log)
        require_tokens(corpus.labels, f"the {what} data", corpus.source)  # refused before training
        if all(c in train.columns for c in DOCUMENT_COLUMNS) and not any(c in corpus.columns
                                                                        for c in DOCUMENT_COLUMNS):
            from ..features.document import with_document_columns
            with_document_columns(corpus)
        # labels of the training types written in another notation are read in the training data's;
        # labels that share nothing with it get a warning (as chaintag eval --model does)
        if not reference:
            reference["labels"] = sorted({lab for s in train.labels for lab in s})
            name = detect_scheme(train.labels, (), opts.scheme or "auto", typo_prefixes=TRAINING_TYPO_PREFIXES).name
            reference["scheme"] = None if name == "none" else name
        corpus.labels, notes = gold_label_notes(corpus.labels, reference["labels"], corpus.source, opts.scheme,
                                                model_scheme=reference["scheme"],
                                                ref="the training data", check_types=not streamed)
        for line in notes:
            log(line)
        return corpus

    dev = None
    seen = (None if streamed or not (opts.dev or opts.test)
            else {tuple(tok[0] for tok in sent) for sent in train.tokens})  # the training sentences' words
    if opts.dev:
        d = load_like_train(opts.dev, "dev")
        dev = (d.tokens, d.labels)
        log(f"dev: {plural(d.n_sentences, 'sentence')} from {opts.dev}")
        _warn_overlap(d, seen, "dev", "the dev score overstates the model and the epoch kept may be too late", log)
    elif opts.dev_fraction > 0:
        cut = train.n_sentences - max(1, int(round(train.n_sentences * opts.dev_fraction)))
        if cut < 1:
            raise InputError("--dev-fraction leaves no training sentences")
        dev = (train.tokens[cut:], train.labels[cut:])
        train.tokens, train.labels = train.tokens[:cut], train.labels[:cut]
        log(f"dev: the last {plural(len(dev[0]), 'sentence')}; training on the first {cut}")
    if dev is not None and len(dev[0]) < MIN_DEV_SENTENCES:
        log(f"warning: the dev data has only {plural(len(dev[0]), 'sentence')}: an epoch chosen on so few is "
            f"mostly chance; give at least {MIN_DEV_SENTENCES} (a larger --dev file or --dev-fraction)")
    test = load_like_train(opts.test, "test") if opts.test else None
    if test is not None:
        _warn_overlap(test, seen, "test", "the test score is not a held-out score", log)
    return dev, test


def _warn_overlap(corpus, seen, what: str, why: str, log) -> None:
    """Warn when at least 10 % of a held-out corpus's sentences (their words) are training sentences."""
    if not seen or not corpus.n_sentences:
        return
    n = sum(tuple(tok[0] for tok in sent) in seen for sent in corpus.tokens)
    if 10 * n >= corpus.n_sentences and n >= 2:
        log(f"warning: {n} of the {corpus.n_sentences} {what} sentences of {corpus.source} "
            f"({100 * n / corpus.n_sentences:.0f} %) are also training sentences: {why}")


def _make_learner(opts, name: str, train, settings):
    """The learner ``name`` with the run's settings; an option given must be one the learner declares."""
    from ..learners import LEARNERS, make_learner
    params = dict(features=opts.features, columns=train.columns, cc=opts.cc, random_state=opts.seed,
                  progress=False if opts.quiet else True)  # bars on a terminal, else one line per epoch
    cls = LEARNERS[name]
    if opts.feature_space is not None:
        params["feature_space"] = opts.feature_space
    # the settings the learner declares for the kind of task when the kind's default attributes are used
    # (SAPO: chosen on dev with them, docs/results/kind_defaults); the options given win
    shown = f"{opts.algorithm} --order 2" if opts.order == 2 else name
    if getattr(opts, "algorithm_default", None):
        shown += f" (the default learner for {opts.algorithm_default}; name another with --algorithm)"
    kind = getattr(cls, "kind_params", {}).get(getattr(opts, "default_kind", None), {})
    user = settings(cls, shown) if settings is not None else {}
    for key, value in kind.items():
        if key not in user and params.get(key) is None:
            params[key] = value
            opts.kind_settings = {**(getattr(opts, "kind_settings", None) or {}), key: value}
    # with attributes named, the settings for the kind (chosen with the default attributes) are said, not taken
    opts.kind_skipped = {k: v for k, v in getattr(cls, "kind_params", {}).get(getattr(opts, "data_kind", None),
                                                                            {}).items()
                         if k not in user and params.get(k) is None}
    check_misplaced_options(opts, cls)
    accepted = set(cls._param_names())
    epochs = opts.epochs
    if epochs is None:  # the budget a learner declares for training runs (SAPO: chosen with the defaults)
        epochs = getattr(cls, "train_epochs", None)
    for option, key, value in (("--epochs", "epochs", epochs), ("--shuffle/--no-shuffle", "shuffle", opts.shuffle),
                               ("--hash-bits", "hash_bits", opts.hash_bits)):
        if value is not None:
            if key not in accepted:
                raise InputError(f"{option} does not apply to {shown}")
            params[key] = value
    params.update(user)
    if opts.no_clip:
        if "C" not in accepted:
            raise InputError(f"--no-clip does not apply to {shown}")
        params["C"] = None
    learner = make_learner(name, strict=False, **params)
    if "progress" not in accepted:  # maxent: its solver step is reported the same way
        learner.progress = params["progress"]
    learner.eval_scheme = opts.scheme  # dev scoring (best epoch) and --test
    return learner


def check_misplaced_options(opts, cls) -> None:
    """Refuse the two regularization strengths named C given to the wrong learner, saying which is which.

    Raises
    ------
    chaintag.errors.InputError
        For ``--maxent-c`` / ``--maxent-solver`` with another learner than maxent, or MIRA's ``--C`` /
        ``--no-clip`` with maxent.
    """
    mine = {p.flag for p in cls.params}
    if getattr(opts, "maxent_c", None) is not None or getattr(opts, "maxent_solver", None) is not None:
        if "--maxent-c" not in mine:
            raise InputError("--maxent-c and --maxent-solver apply to --algorithm maxent only")
    if (getattr(opts, "C", None) is not None or opts.no_clip) and "--maxent-c" in mine:
        raise InputError("--C and --no-clip are MIRA options; the maxent tagger takes --maxent-c")


def _fit(learner, opts, train, dev, streamed: bool) -> None:
    """Fit in memory, streamed from the file, or on a Dask cluster, as the settings ask."""
    from .train_distributed import fit_with_options, wants_distributed
    try:
        if wants_distributed(opts):
            from .train_stream import fit_stream_distributed
            fit_with_options(learner, train, dev, opts, fit_streamed=fit_stream_distributed if streamed else None)
        elif streamed:
            from .train_stream import fit_stream
            fit_stream(learner, opts, dev, train)
        elif opts.checkpoint_dir:
            learner.fit(train.tokens, train.labels, dev=dev, checkpoint_dir=opts.checkpoint_dir,
                        resume=opts.resume)
        else:
            learner.fit(train.tokens, train.labels, dev=dev)
    except ValueError as exc:  # bad hyper-parameter values
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc)) from None
    if opts.columns and getattr(learner, "training_summary_", None) is not None:
        # the column roles named at training, which chaintag eval --model reads files of the same layout with
        spec = opts.columns if isinstance(opts.columns, str) else ",".join(opts.columns)
        learner.training_summary_["column_spec"] = spec.replace(" ", "")


def _report(opts, name, learner, train, dev, streamed, train_seconds, log) -> dict:
    """The run's figures (and its log lines: the model saved, the dev score of the kept epoch)."""
    message = getattr(learner, "optimizer_message_", None)
    if message and "CONVERGENCE" not in message:
        log(f"warning: L-BFGS stopped before converging ({message}); raise --epochs")
    size = (f"{learner.n_parameters_} parameters" if hasattr(learner, "n_parameters_")
            else f"{learner.feature_index_.n_features} features")
    log(f"{'saved ' + str(opts.model) if opts.model else 'trained'}: {size}, "
        f"{plural(len(learner.labels_), 'label')}, "
        f"{'best' if dev is not None else 'weights of'} epoch {learner.best_epoch_}, {train_seconds:.1f} s")
    if dev is not None and learner.history_ and "dev_score" in learner.history_[-1]:
        best = learner.history_[learner.best_epoch_ - 1]
        log(f"dev score of the kept epoch ({learner.best_epoch_}): {best['dev_score']:.2f}")
    out = {"model": opts.model, "algorithm": name, "seconds": train_seconds,
           "best_epoch": learner.best_epoch_, "history": learner.history_,
           "train": (dict(learner.streamed_) if streamed else
                     {"n_sentences": len(train.tokens), "n_tokens": sum(map(len, train.tokens))}),
           "extraction_seconds": learner.extraction_seconds_,
           "extractor_seconds": getattr(learner, "extractor_seconds_", 0.0)}
    features = getattr(learner, "features", None)
    if isinstance(features, str):  # the attributes read, and the resources they read (the log names both)
        from ..features.spec import resource_paths
        out.update(features=features, resources=[str(p) for p in resource_paths(features)])
    if hasattr(learner, "n_parameters_"):
        out["n_parameters"] = learner.n_parameters_
    else:
        out.update(n_features=learner.feature_index_.n_features, n_attributes=learner.extractor_.n_attributes)
    return out


def _write_history(opts, learner) -> OSError | None:
    """Write the per-epoch history as JSON lines (atomically); the error when it could not be written."""
    if not opts.history:
        return None
    from ..io.atomic import atomic_open
    try:
        with atomic_open(opts.history) as f:
            for rec in learner.history_:
                f.write(json.dumps(rec) + "\n")
    except OSError as exc:  # the model is saved: say so, and exit with its own code
        return exc
    return None


def _model_not_saved(args, learner, exc: OSError):
    """The error for a model that could not be saved: where the trained state is kept, if anywhere.

    With ``--checkpoint-dir`` the checkpoint holds the final state (rerun with
    ``--resume`` to write the model without training again); otherwise the
    model is saved to the temporary folder (``$TMPDIR``, else the system's)
    or the home folder, whichever takes it.
    """
    from ..errors import OutputError
    errno_ = getattr(exc, "errno", None)
    if args.checkpoint_dir:
        ck = os.path.join(args.checkpoint_dir, "checkpoint.npz")
        if os.path.exists(ck):
            return OutputError(f"{exc}; the model was not saved, the trained state is kept in {ck}: free some "
                               "space and run the same command with --resume to write the model without "
                               "training again", args.model, errno_, exit_code=EXIT_STATE_KEPT)
    import tempfile
    base = os.path.basename(args.model) or "model.npz"
    stem = base[:-4] if base.endswith(".npz") else base
    tried = []
    for folder in (tempfile.gettempdir(), os.path.expanduser("~")):
        rescue = os.path.join(folder, f"{stem}.rescued-{os.getpid()}.npz")
        if folder in tried or os.path.abspath(folder) == os.path.dirname(os.path.abspath(args.model)):
            continue
        tried.append(folder)
        try:
            learner.save(rescue)
        except (OSError, ValueError):  # cannot write there either (or no such folder)
            continue
        return OutputError(f"{exc}; the model was not saved there, the trained model was saved to {rescue} "
                           "instead: move it where you want it", args.model, errno_, exit_code=EXIT_STATE_KEPT)
    return OutputError(f"{exc}; the model was not saved, nor a rescue copy in {' or '.join(tried) or 'another folder'}"
                       "; the trained model is lost", args.model, errno_)
