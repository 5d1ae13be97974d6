"""``chaintag train`` from a file read in chunks (:func:`chaintag.streaming.fit_streamed`).

When it streams: with ``--stream``; with neither ``--stream`` nor
``--no-stream`` when the training file is at least :data:`AUTO_BYTES` and the
run's model is the same either way (perceptron, MIRA or N-best MIRA without
shuffling: the same model file, byte for byte). Streamed training holds the
model and one chunk of sentences, not the corpus (see docs/DISTRIBUTED.md for
the measured bytes per token). The checks ``chaintag train`` makes on its data
(label column warnings, the default preset) then read the first chunk.

Distributed training (``--workers`` / ``--scheduler``) streams by default
(:func:`chaintag.distributed.fit_distributed_file`: the shards are written to
disk chunk by chunk and the model is the in-memory one byte for byte, for every
learner it trains); ``--no-stream`` holds the corpus in memory as before.
"""

from __future__ import annotations

import os



def _streamed(distributed: bool) -> list[str]:
    """The learners trained streamed: those whose epoch state mixes between shards (a ``mixing_family``),
    and distributed also those that sum their gradient over the shards (``gradient_sum``)."""
    from ..learners import LEARNERS
    return [n for n in LEARNERS if LEARNERS[n].mixing_family is not None
            or (distributed and getattr(LEARNERS[n], "gradient_sum", False))]


#: Training files from this size on are streamed when it changes nothing in the model (32 MiB: about
#: 3 million tokens of a CoNLL column file, some 2 GB of memory when held as strings).
AUTO_BYTES = 32 * 2**20
#: Sentences per chunk (5000: a chunk's strings and extraction arrays are the constant part of the peak; with 20000 it
#: was 200-300 MiB higher on JNLPBA).
CHUNK_SENTENCES = 5000


def _reads_columns(features, names) -> bool:
    """Whether templates read one of the columns ``names`` by name."""
    from ..features.feature_spec import FeatureSpec
    return FeatureSpec.parse(features).reads_columns(names)


def _reads_char_grams(features) -> bool:
    """Whether a template gives character n-grams (``cngramK(...)``: :mod:`chaintag.features.chargrams`)."""
    from ..features.feature_spec import FeatureSpec
    return any(n.startswith("cngram") for n in FeatureSpec.parse(features).function_names())


def _why_not(args, name: str) -> str | None:
    """Why this run cannot be streamed, or None."""
    from .train_distributed import wants_distributed
    dist = wants_distributed(args)
    if args.train == "-":
        return "standard input is read once; streamed training reads its file three times"
    if os.path.exists(args.train) and not os.path.isfile(args.train):
        return "a named pipe (or <(...)) is read once; streamed training reads its file three times"
    offered = _streamed(dist)
    if name not in offered:
        return f"it trains {', '.join(offered)} (order 1), not {name}"
    from ..features.spec import uses_vectors
    if args.features and uses_vectors(args.features):
        return "it does not read vec(...) templates (real-valued word-vector attributes)"
    if args.features and _reads_char_grams(args.features):
        return "it does not read cngramK(...) templates (character n-grams)"
    from ..features.document import DOCUMENT_COLUMNS
    from ..features.templates import AUTO_COLUMNS, GAZ_COLUMNS
    if args.features and _reads_columns(args.features, DOCUMENT_COLUMNS):
        return "it does not compute the document columns (abbr, docnext, doccap), which need whole documents"
    if args.features and _reads_columns(args.features, GAZ_COLUMNS + AUTO_COLUMNS):
        return "it does not compute the gazetteer and unlabeled-text columns (gaz, gazn, atag, atag2)"
    for flag, on in (("--hash-bits", args.hash_bits is not None),
                     ("--checkpoint-dir", bool(args.checkpoint_dir) and not dist),
                     ("--dev-fraction", bool(args.dev_fraction)), ("--threads", getattr(args, "threads", None)),
                     ("--format", bool(args.format))):
        if on:
            return f"it is not offered with {flag}"
    return None


def wants_stream(args, name: str, log=None) -> bool:
    """Whether this run trains streamed (see the module's note). With ``log``, a training file large
    enough to stream by default that is held in memory for another reason (``--checkpoint-dir``, ...)
    is said, with the reason: its memory is then several times the streamed run's.

    Raises
    ------
    chaintag.errors.InputError
        For ``--stream`` with options or a learner it does not apply to.
    """
    from ..errors import InputError
    if args.stream is False:
        return False
    reason = _why_not(args, name)
    if args.stream:
        if reason:
            raise InputError(f"--stream: {reason}")
        return True
    from .train_distributed import wants_distributed
    if wants_distributed(args):
        return reason is None  # the shards, hence the model, are the same either way
    from ..learners import LEARNERS
    if reason or not LEARNERS[name].streams_exactly:  # else the model would not be the in-memory one
        if reason and log is not None and LEARNERS[name].streams_exactly and _large(args):
            log(f"training data held in memory, not streamed as files of {AUTO_BYTES >> 20} MiB or more are by "
                f"default: {reason}")
        return False
    shuffle = args.shuffle if args.shuffle is not None else LEARNERS[name]().shuffle
    if shuffle:
        return False
    from ..data.datasets import resolve
    try:
        return os.path.getsize(resolve(args.train, args.data_dir).path) >= AUTO_BYTES
    except (OSError, ValueError):
        return False  # the in-memory reader names the problem


def _large(args) -> bool:
    """Whether the training file is large enough to stream by default."""
    from ..data.datasets import resolve
    try:
        return os.path.getsize(resolve(args.train, args.data_dir).path) >= AUTO_BYTES
    except (OSError, ValueError):
        return False


def head_corpus(args):
    """The first chunk of the training file as a corpus (for the checks and the default preset).

    Raises
    ------
    chaintag.errors.InputError
        As the reader does (bad columns, missing labels), naming file and line; or on an empty file.
    """
    from ..data.datasets import Corpus, resolve
    from ..errors import InputError
    from ..streaming.reader import iter_chunks
    found = resolve(args.train, args.data_dir)
    first = next(iter_chunks(args.train, CHUNK_SENTENCES, **_reader_options(args)), None)
    if first is None:
        raise InputError("no sentences to train on", os.fspath(found.path))
    names, tokens, labels = first
    return Corpus(columns=tuple(names), tokens=tokens, labels=labels, source=os.fspath(found.path),
                  label_field=(args.label_field or "xpos") if found.format == "conllu" else None,
                  format=found.format)


def _reader_options(args) -> dict:
    from .corpus import sep_value
    return dict(columns=args.columns, data_dir=args.data_dir, label_field=args.label_field or "xpos",
                sep=sep_value(args.sep), encoding=args.encoding)


def _stream_folder(folder) -> None:
    """Make ``--stream-dir`` (one level: its parent must exist, so that a mistyped path makes no folders).

    Raises
    ------
    chaintag.errors.InputError
        When it names a file, or its parent folder does not exist or cannot be written.
    """
    if not folder:
        return
    from ..errors import InputError
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise InputError("--stream-dir names a file; give a folder for the chunk files", folder)
    if os.path.isdir(folder):
        return
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise InputError(f"--stream-dir: the folder {parent} does not exist (it is not made for a mistyped path)",
                         folder)
    try:
        os.mkdir(folder)
    except OSError as exc:
        raise InputError(f"--stream-dir: cannot make the folder: {exc.strerror or exc}", folder) from None


def fit_stream_distributed(learner, args, dev, head=None) -> None:
    """Train ``learner`` on a Dask cluster from ``args.train`` read in chunks (shard files in ``--stream-dir``
    or $TMPDIR; see :func:`chaintag.distributed.fit_distributed_file`)."""
    from ..distributed import fit_distributed_file
    if head is not None:
        head.tokens, head.labels = [], []
    _stream_folder(args.stream_dir)
    fit_distributed_file(learner, args.train, dev, workers=args.workers, scheduler=args.scheduler,
                         nanny=getattr(args, "nanny", True),
                         shards=args.workers, mixing=args.mixing or "uniform", checkpoint_dir=args.checkpoint_dir,
                         resume=args.resume, folder=args.stream_dir, chunk_sentences=CHUNK_SENTENCES,
                         **_reader_options(args))


def fit_stream(learner, args, dev, head=None) -> None:
    """Train ``learner`` streamed from ``args.train`` (chunk files in ``--stream-dir`` or $TMPDIR).

    ``head``, the corpus of :func:`head_corpus`, has its sentences dropped first
    (the checks are done; fit_streamed reads the file again).
    """
    from ..streaming import fit_streamed
    if head is not None:
        head.tokens, head.labels = [], []
    _stream_folder(args.stream_dir)
    fit_streamed(learner, args.train, dev=dev, folder=args.stream_dir, chunk_sentences=CHUNK_SENTENCES,
                 **_reader_options(args))
