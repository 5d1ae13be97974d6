"""Datasets by name (``conll2000:train``), the data directory, and corpus loading.

A corpus source is a dataset reference ``NAME:SPLIT``, a path, or ``"-"`` for
standard input. An existing path always wins over a reference of the same
spelling. Files ending in ``.conllu``, ``.cupt`` or ``.conllup`` (CoNLL-U Plus)
are read as CoNLL-U; for other names, and for standard input, the format is
detected from the content (:func:`chaintag.io.columns.sniff_conllu`): CoNLL-U
when the first token line has the ID and the 10 columns of CoNLL-U (or those
a ``# global.columns`` header declares), else CoNLL column files.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from chaintag.errors import InputError
from chaintag.io.columns import iter_sentences, peek_stream, sniff_conllu
from chaintag.io.conllu_io import iter_conllu

from .location import DATA_ENV, resolve_data_dir, user_data_dir
from .registry import DATASETS, DatasetInfo

__all__ = [
    "DatasetInfo",
    "DatasetFile",
    "DATASETS",
    "Corpus",
    "user_data_dir",
    "resolve_data_dir",
    "is_dataset_ref",
    "resolve",
    "parse_columns",
    "load_corpus",
]

#: Column role: the label column.
LABEL = "label"
#: Column role: a column to ignore.
IGNORE = "_"


_REF_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class DatasetFile:
    """Where a corpus source lives and how to read it.

    Attributes
    ----------
    path : pathlib.Path
        The file.
    format : {"columns", "conllu"}
        File format.
    columns : tuple of str or None
        Column spec from the dataset registry; None for a plain path.
    sep : str or None
        Field separator from the registry; None to detect.
    name : str
        The reference as given (``"conll2000:train"``) or the path.
    """

    path: Path
    format: str
    columns: tuple[str, ...] | None
    sep: str | None
    name: str


@dataclass
class Corpus:
    """Sentences with their feature columns and, optionally, their labels.

    Attributes
    ----------
    columns : tuple of str
        Names of the feature columns, in order (e.g. ``("word", "pos")``).
    tokens : list of list of tuple of str
        ``tokens[i][t]`` holds the feature column values of token ``t`` of
        sentence ``i``, one value per entry of ``columns``.
    labels : list of list of str or None
        ``labels[i][t]`` is the label of that token; None for unlabelled input.
    source : str
        The path or dataset reference it was read from (``"<stdin>"`` for stdin).
    lines : list of int
        1-based line of the first token of each sentence in the file.
    label_field : {"xpos", "upos"} or None
        The CoNLL-U column the labels were read from; None for column files
        and unlabelled input.
    format : {"columns", "conllu"}
        The format the data was read in.
    label_column : int or None
        0-based column of the labels in a column file (None otherwise).
    n_file_columns : int
        Number of columns of a column file (0 for CoNLL-U or no sentences).
    documents : list of int or None
        Document index of each sentence: document-marker lines (``-DOCSTART-``,
        ``###MEDLINE:``) of a column file and ``# newdoc`` comments of a CoNLL-U
        file start a new document, and a file without them is one document
        (all 0); None when the corpus was not read from a file. The
        document columns (:mod:`chaintag.features.document`) are computed per
        document.
    """

    columns: tuple[str, ...]
    tokens: list[list[tuple[str, ...]]] = field(default_factory=list)
    labels: list[list[str]] | None = None
    source: str = ""
    lines: list[int] = field(default_factory=list)
    label_field: str | None = None
    format: str = field(default="columns", compare=False)
    label_column: int | None = field(default=None, compare=False)
    n_file_columns: int = field(default=0, compare=False)
    documents: list[int] | None = field(default=None, compare=False)

    @property
    def n_sentences(self) -> int:
        """Number of sentences."""
        return len(self.tokens)

    @property
    def n_tokens(self) -> int:
        """Number of tokens over all sentences."""
        return sum(len(s) for s in self.tokens)


def is_dataset_ref(s) -> bool:
    """Tell whether ``s`` is a dataset reference rather than a path.

    Parameters
    ----------
    s : str or os.PathLike
        A corpus source.

    Returns
    -------
    bool
        True when ``s`` has the form ``NAME:SPLIT`` with a known ``NAME`` and no
        file or folder of that name exists. The split is not checked
        (:func:`resolve` reports an unknown one).
    """
    if not isinstance(s, str) or os.path.exists(s):
        return False
    name, colon, _ = s.partition(":")
    return bool(colon) and name in DATASETS


#: File name endings read as CoNLL-U (CoNLL-U Plus included).
CONLLU_SUFFIXES = (".conllu", ".cupt", ".conllup")


def _plain_file(path: str) -> DatasetFile:
    if path.lower().endswith(CONLLU_SUFFIXES):
        fmt = "conllu"
    else:
        fmt = sniff_format(path)
    return DatasetFile(Path(path), fmt, None, None, path)


def sniff_format(path) -> str | None:
    """``"conllu"`` or ``"columns"``, from the first 64 KiB of a file (see :func:`sniff_conllu`).

    A file that cannot be read is called ``"columns"``; its reader reports the error. A path that is
    no regular file (a named pipe, ``<(...)``, a device) gives None, unread: its reader opens it once
    and sniffs the format from the same stream (:func:`open_stream`).
    """
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return "columns"
    return "conllu" if sniff_conllu(head) else "columns"


def open_stream(path, fmt: str | None = None):
    """Open a path that is no regular file once, as a binary stream, and its format (given, else sniffed
    from its start, which the stream still yields): named pipes and ``<(...)`` are read once."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise InputError(f"cannot open: {e.strerror or e}", os.fspath(path)) from None
    if fmt is not None:
        return f, fmt
    head, stream = peek_stream(f)
    return stream, ("conllu" if sniff_conllu(head) else "columns")


def stdin_source(fmt: str | None):
    """Standard input as a binary stream, and its format (given, else detected from its start).

    The start is peeked, not consumed: the returned stream replays it.
    """
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    if fmt is not None:
        return stream, fmt
    head, stream = peek_stream(stream)
    return stream, ("conllu" if sniff_conllu(head) else "columns")


def _known() -> str:
    return ", ".join(f"{d.name} ({'/'.join(d.splits)})" for d in DATASETS.values())


def resolve(ref, data_dir: str | os.PathLike | None = None) -> DatasetFile:
    """Turn a dataset reference or a path into the file to read.

    Parameters
    ----------
    ref : str or os.PathLike
        ``NAME:SPLIT`` (e.g. ``"conll2000:train"``) or a path. An existing path is
        never taken as a reference.
    data_dir : str or os.PathLike, optional
        Data directory for references (see :func:`resolve_data_dir`).

    Returns
    -------
    DatasetFile
        For a path: format from the extension (``.conllu``, ``.cupt``,
        ``.conllup`` -> CoNLL-U), else from the content; no column spec,
        separator detected. For a reference: the registry's format,
        column spec and separator.

    Raises
    ------
    InputError
        Unknown dataset name or split (the message lists the choices); the
        dataset's file is missing and cannot be fetched on first use
        (:mod:`chaintag.data.autofetch`; the message says to run ``chaintag data
        fetch NAME`` or to pass ``--data-dir`` / set ``CHAINTAG_DATA``); a path
        that does not exist.
    """
    s = os.fspath(ref)
    if os.path.exists(s):
        return _plain_file(s)
    name, colon, split = s.partition(":")
    if not colon:
        hint = ""
        if s in DATASETS:
            hint = f" (for the dataset give a split: {', '.join(f'{s}:{x}' for x in DATASETS[s].splits)})"
        raise InputError("no such file" + hint, s)
    if name not in DATASETS:
        if _REF_PART.fullmatch(name) and _REF_PART.fullmatch(split):
            raise InputError(f"no such file, and {name!r} is not a known dataset; "
                             f"known datasets (NAME:SPLIT): {_known()}", s)
        raise InputError("no such file", s)
    info = DATASETS[name]
    if split not in info.splits:
        raise InputError(f"dataset {name!r} has no split {split!r}; choose one of: "
                         f"{', '.join(f'{name}:{x}' for x in info.splits)}", s)
    folder = resolve_data_dir(data_dir)
    path = folder / name / info.splits[split]
    if not path.is_file():
        from .autofetch import fetch_missing
        path = fetch_missing(name, path, data_dir, s)  # fetched on first use, or a clear error
    return DatasetFile(path, info.format, info.columns, info.sep, s)


def _spec_names(spec) -> list[str]:
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    return [str(n).strip() for n in names]


def _default_columns(n_columns: int, labelled: bool, path, line
                     ) -> tuple[tuple[str | None, ...], int | None]:
    """The roles of :func:`parse_columns` with no spec: ``word``, ``pos``, ``c2``, ... then the label."""
    if labelled and n_columns < 2:
        raise InputError(f"found {n_columns} column{'s' if n_columns != 1 else ''}; a labelled "
                         "file needs a token column and a label column", path, line)
    n_features = n_columns - 1 if labelled else n_columns
    default = ("word", "pos")
    names = tuple(default[i] if i < 2 else f"c{i}" for i in range(n_features))
    return (names + (None,), n_columns - 1) if labelled else (names, None)


def _spec_columns(spec, n_columns: int, labelled: bool, path, line
                  ) -> tuple[tuple[str | None, ...], int | None]:
    """The roles of :func:`parse_columns` from a column spec, checked name by name."""
    given = _spec_names(spec)
    shown = ",".join(given)
    if len(given) != n_columns:
        raise InputError(f"column spec {shown!r} names {len(given)} column"
                         f"{'s' if len(given) != 1 else ''} but the file has {n_columns}",
                         path, line)
    names: list[str | None] = []
    label_index = None
    seen = set()
    for i, n in enumerate(given):
        if n == LABEL:
            if label_index is not None:
                raise InputError(f"column spec {shown!r} names two label columns", path, line)
            label_index = i
            names.append(None)
        elif n == IGNORE:
            names.append(None)
        elif not n.isidentifier():
            raise InputError(f"column spec {shown!r}: {n!r} is not a valid column name "
                             "(letters, digits, '_'; or 'label', or '_' to ignore)", path, line)
        elif n in seen:
            raise InputError(f"column spec {shown!r} names column {n!r} twice", path, line)
        else:
            seen.add(n)
            names.append(n)
    if not seen:
        raise InputError(f"column spec {shown!r} names no feature column", path, line)
    if labelled and label_index is None:
        raise InputError(f"column spec {shown!r} has no 'label' column", path, line)
    return tuple(names), label_index


def parse_columns(spec: str | Sequence[str] | None, n_columns: int, *, labelled: bool = True,
                  path: str | None = None, line: int | None = None
                  ) -> tuple[tuple[str | None, ...], int | None]:
    """Decide the role of each column of a file.

    Parameters
    ----------
    spec : str, sequence of str or None
        One name per column, e.g. ``"word,pos,label"`` or ``["word", "label"]``.
        ``label`` marks the label column, ``_`` a column to ignore; every other
        name (a Python identifier, used once) names a feature column. None: the
        last column is the label (when ``labelled``) and the feature columns are
        named ``word``, ``pos``, then ``c2``, ``c3``, ... by position.
    n_columns : int
        Number of columns in the file.
    labelled : bool
        Whether a label column is required. With a spec, the spec decides: it must
        name a label column when ``labelled``, and may name one otherwise. With no
        spec and ``labelled=False``, every column is a feature.
    path, line : optional
        File and line named in error messages.

    Returns
    -------
    names : tuple of (str or None)
        One entry per file column: the feature name, or None for the label
        column and ignored columns.
    label_index : int or None
        Index of the label column, or None.

    Raises
    ------
    InputError
        The spec names a different number of columns than the file has, repeats
        a name, uses an invalid name, names no feature column, names two label
        columns, or names none when ``labelled``; or, with no spec, a labelled file
        has a single column.

    Examples
    --------
    >>> parse_columns("word,_,label", 3)
    (('word', None, None), 2)
    >>> parse_columns(None, 3)
    (('word', 'pos', None), 2)
    """
    if spec is None:
        return _default_columns(n_columns, labelled, path, line)
    return _spec_columns(spec, n_columns, labelled, path, line)


def _spec_has_label(spec) -> bool:
    return spec is not None and LABEL in _spec_names(spec)


def _open_source(source, data_dir, format):
    """The file to read for :func:`load_corpus`: ``(path, name, format, spec, separator)``.

    Standard input (``"-"``) has no spec nor separator and its format is
    ``format`` or sniffed; anything else goes through :func:`resolve`.
    """
    if isinstance(source, str) and source == "-":
        path, fmt = stdin_source(format)
        return path, "<stdin>", fmt, None, None
    found = resolve(source, data_dir)
    if found.format is None and format is None:  # a named pipe or <(...): opened once, sniffed from the stream
        stream, fmt = open_stream(found.path)
        return stream, os.fspath(found.path), fmt, found.columns, found.sep
    return found.path, os.fspath(found.path), format or found.format, found.columns, found.sep


def _first_sentence_columns(corpus: Corpus, sentence, spec, want_labels: bool, name, sep):
    """Decide the columns' roles from the first sentence; set the corpus's columns.

    Returns ``(feature_idx, label_index, keep_rows)``: the indices of the
    feature columns, that of the label column (or None) and whether the
    rows are kept as read (every column a feature, in order).
    """
    fmt = corpus.format
    try:
        names, label_index = parse_columns(spec, len(sentence.tokens[0]), labelled=want_labels,
                                           path=name, line=sentence.line)
    except InputError as exc:
        if fmt != "conllu" and sep == "\t" and any(" " in f for f in sentence.tokens[0]):
            raise InputError(exc.message + " (read with --sep tab, but its columns look "
                             "space-separated)", exc.path, exc.line) from None
        raise
    feature_idx = [i for i, n in enumerate(names) if n is not None]
    keep_rows = feature_idx == list(range(len(names)))
    corpus.columns = tuple(names[i] for i in feature_idx)
    if fmt != "conllu":
        corpus.label_column, corpus.n_file_columns = label_index, len(names)
    if label_index is None:
        corpus.labels = None
    return feature_idx, label_index, keep_rows


def _read_sentences(corpus: Corpus, sentences, spec, want_labels: bool, name, sep) -> None:
    """Append each sentence's feature rows, labels, line and document to ``corpus``.

    A document marker makes the next sentence start a new document; the
    first sentence decides the columns (:func:`_first_sentence_columns`).
    """
    feature_idx: list[int] = []
    label_index = None
    keep_rows = False
    documents: list[int] = []
    doc, doc_seen = 0, False
    for sentence in sentences:
        if sentence.marker is not None:  # a document marker: the next sentence starts a new document
            if doc_seen:
                doc, doc_seen = doc + 1, False
            continue
        documents.append(doc)
        doc_seen = True
        if not corpus.lines:
            feature_idx, label_index, keep_rows = _first_sentence_columns(
                corpus, sentence, spec, want_labels, name, sep)
        rows = sentence.tokens
        if keep_rows:
            corpus.tokens.append(rows)
        else:
            corpus.tokens.append([tuple(row[i] for i in feature_idx) for row in rows])
        if label_index is not None:
            corpus.labels.append([row[label_index] for row in rows])
        corpus.lines.append(sentence.line)
    corpus.documents = documents


def load_corpus(source, *, columns: str | Sequence[str] | None = None,
                data_dir: str | os.PathLike | None = None, label_field: str = "xpos",
                sep: str | None = None, encoding: str = "utf-8", labelled: bool = True,
                format: str | None = None) -> Corpus:
    """Read a whole corpus into memory.

    Parameters
    ----------
    source : str or os.PathLike
        Dataset reference (``"conll2000:train"``), path, or ``"-"`` for standard
        input.
    columns : str or sequence of str, optional
        Column spec (see :func:`parse_columns`); default: the dataset's own spec,
        or the default roles for a plain file.
    data_dir : str or os.PathLike, optional
        Data directory for dataset references.
    label_field : {"xpos", "upos"}
        Label column of CoNLL-U files.
    sep : str, optional
        Separator for column files; default: the dataset's, or detected.
    encoding : str
        Encoding of the file (ASCII-compatible).
    labelled : bool
        Whether labels are required. With False, labels are read only if the
        column spec (given or the dataset's) names a label column.
    format : {"columns", "conllu"}, optional
        Overrides the format implied by the reference, the extension or the
        content (standard input: detected from its first lines).
    Returns
    -------
    Corpus
        ``labels`` is None when no label column is read. An empty input gives a
        corpus with no sentences (``columns`` then comes from the spec, or is
        empty).

    Raises
    ------
    InputError
        From :func:`resolve`, :func:`parse_columns` and the readers (bad
        columns, bad bytes, missing CoNLL-U labels), naming file and line.
    ValueError
        ``format`` or ``label_field`` is not an accepted value.
    """
    if format is not None and format not in ("columns", "conllu"):
        raise ValueError(f"format must be 'columns' or 'conllu', not {format!r}")
    path, name, fmt, spec, file_sep = _open_source(source, data_dir, format)
    if format is not None:
        fmt = format
    if columns is not None:
        spec = columns
    source_str = "<stdin>" if isinstance(source, str) and source == "-" else os.fspath(source)
    want_labels = labelled or _spec_has_label(spec)

    if fmt == "conllu":
        sentences = iter_conllu(path, label_field=label_field if want_labels else None,
                                encoding=encoding, name=name, markers=True)
    else:
        sentences = iter_sentences(path, sep=sep if sep is not None else file_sep,
                                   encoding=encoding, name=name, markers=True)

    corpus = Corpus(columns=(), labels=[] if want_labels else None, source=source_str,
                    label_field=label_field.lower() if fmt == "conllu" and want_labels else None,
                    format=fmt)
    if spec is not None:
        corpus.columns = tuple(n for n in _spec_names(spec) if n not in (LABEL, IGNORE))
    _read_sentences(corpus, sentences, spec, want_labels, name, sep)
    return corpus
