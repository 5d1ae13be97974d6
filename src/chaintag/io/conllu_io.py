"""CoNLL-U files, read through the ``conllu`` package, as (form, label) tokens,
and written back with predicted labels in the XPOS or UPOS column."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

import conllu
from conllu.exceptions import ParseException

from chaintag.errors import InputError
from chaintag.io.columns import Sentence, iter_lines, source_name

__all__ = ["iter_conllu", "read_conllu", "iter_conllu_blocks", "ConlluBlock", "format_conllu_block",
           "LABEL_FIELDS"]

#: Label fields that can be read, mapped to their name in messages.
LABEL_FIELDS = {"xpos": "XPOS", "upos": "UPOS"}
#: 0-based column of each label field in a CoNLL-U word line.
_FIELD_COLUMN = {"upos": 3, "xpos": 4}


def _raw(fields: list[str], i: int) -> str:
    return fields[i]


# Columns a tagger never uses are kept as raw strings: faster, and a malformed
# HEAD, FEATS, DEPS or MISC value does not stop a POS corpus from loading.
_FIELD_PARSERS = {"head": _raw, "feats": _raw, "deps": _raw, "misc": _raw}


class _LineFeed:
    """File-like view of decoded lines that remembers where each sentence is.

    ``conllu.parse_incr`` reads a sentence's lines up to the blank line after it
    and only then hands the sentence over, so when a sentence arrives, ``done``
    holds the line numbers of its non-comment lines, in order: exactly the lines
    that became its tokens (words, ranges and empty nodes alike).
    """

    def __init__(self, lines: Iterator[str], keep_raw: bool = False):
        self._lines = lines
        self.current: list[int] = []
        self.start = 0        # first line of the block being read
        self.done: list[int] = []
        self.done_start = 0   # first line of the last complete block
        self.keep_raw = keep_raw
        self.raw: list[str] = []       # lines of the block being read (keep_raw)
        self.done_raw: list[str] = []  # lines of the last complete block (keep_raw)

    def read(self, size: int = -1):  # pragma: no cover - parse_incr only checks it exists
        raise NotImplementedError

    def __iter__(self):
        lineno = 0
        for line in self._lines:
            lineno += 1
            stripped = line.strip()
            if not stripped:
                if self.start:
                    self._finish()
            else:
                if not self.start:
                    self.start = lineno
                if not stripped.startswith("#"):
                    self.current.append(lineno)
                if self.keep_raw:
                    self.raw.append(line)
            yield line + "\n"
        if self.start:
            self._finish()

    def _finish(self):
        self.done, self.done_start = self.current, self.start
        self.current, self.start = [], 0
        self.done_raw, self.raw = self.raw, []


def iter_conllu(source, *, label_field: str | None = "xpos", encoding: str = "utf-8",
                name: str | None = None, markers: bool = False) -> Iterator[Sentence]:
    """Read the words of a CoNLL-U file with their POS labels, lazily.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path, or an open binary or text file object such as ``sys.stdin``.
    label_field : {"xpos", "upos"} or None
        Which column gives the label: XPOS (column 5, default) or UPOS (column 4).
        ``None`` reads the forms only (for unlabelled input).
    encoding : str
        Encoding of the file (ASCII-compatible).
    name : str, optional
        Name of the input in error messages (default: the path, or ``"<stdin>"``).
    markers : bool, default False
        Also yield a document marker (a Sentence with no tokens and ``marker``
        ``"# newdoc"``) before each sentence whose comments hold ``# newdoc``
        (CoNLL-U's document boundary), as :func:`chaintag.io.columns.iter_sentences`
        yields ``-DOCSTART-`` lines.

    Yields
    ------
    Sentence
        Tokens are ``(form, label)`` tuples (``(form,)`` when ``label_field`` is
        None), one per syntactic word. Multiword-token ranges (``2-3``), empty
        nodes (``4.1``) and comment lines are skipped; a sentence left without
        words is skipped too. ``line`` is the exact line of the first word.

    Raises
    ------
    InputError
        A word has no label (``_``), has no ID, a line is not valid CoNLL-U, a
        line is not valid in ``encoding`` or the file cannot be opened. The
        message names the file and the line (for a parse error reported by
        ``conllu``, the first line of the sentence concerned).
    ValueError
        ``label_field`` is not one of the accepted values.

    Notes
    -----
    Only ID, FORM and the label column are interpreted; HEAD, FEATS, DEPS and
    MISC are not validated. Line endings, a byte-order mark and decoding are
    handled as for column files
    (:func:`chaintag.io.columns.iter_lines`); the input is streamed one sentence at
    a time.
    """
    if label_field is not None:
        label_field = label_field.lower()
        if label_field not in LABEL_FIELDS:
            raise ValueError(f"label_field must be one of {sorted(LABEL_FIELDS)} or None, "
                             f"not {label_field!r}")
    for sentence, (_, tokenlist, lines) in _parse(source, label_field, encoding, name, keep_raw=False):
        if markers and any(k == "newdoc" or k.startswith("newdoc ") for k in tokenlist.metadata):
            yield Sentence([], sentence.line or (lines[0] if lines else 0), "# newdoc")
        if sentence.tokens:
            yield sentence


def _parse(source, label_field, encoding, name, keep_raw):
    """Each block of the file: its words as a Sentence, and the feed (for raw lines)."""
    name = source_name(source, name)
    feed = _LineFeed(iter_lines(source, encoding=encoding, name=name), keep_raw=keep_raw)
    parsed = iter(conllu.parse_incr(feed, field_parsers=_FIELD_PARSERS))
    while True:
        try:
            tokenlist = next(parsed)
        except StopIteration:
            return
        except ParseException as e:
            line = feed.done_start or None
            raise InputError(f"not valid CoNLL-U in the sentence starting here: {e}",
                             name, line) from None
        lines = feed.done
        if len(lines) != len(tokenlist):  # cannot happen with conllu 4-6; stay safe
            lines = [feed.done_start] * len(tokenlist)
        yield _words(tokenlist, lines, label_field, name), (feed, tokenlist, lines)


class ConlluBlock(NamedTuple):
    """One sentence block of a CoNLL-U file, kept as read.

    Attributes
    ----------
    sentence : Sentence
        The block's syntactic words as ``(form,)`` tuples (empty when the block
        has none, e.g. comments only).
    lines : list of str
        Every line of the block as read (comments, words, multiword ranges and
        empty nodes), without line ends.
    word_lines : list of int
        For each word of ``sentence``, the index of its line in ``lines``.
    columns : tuple of str or None
        The column names a CoNLL-U Plus ``# global.columns`` header declared
        (upper case, in order); None for plain CoNLL-U (the 10 standard columns).
    """

    sentence: Sentence
    lines: list[str]
    word_lines: list[int]
    columns: tuple[str, ...] | None = None


def iter_conllu_blocks(source, *, encoding: str = "utf-8", name: str | None = None) -> Iterator[ConlluBlock]:
    """Read a CoNLL-U file block by block, keeping every line, for writing it back labelled.

    Parameters
    ----------
    source : str, os.PathLike or file object
        As for :func:`iter_conllu`.
    encoding : str
        Encoding of the file.
    name : str, optional
        Name of the input in error messages.

    Yields
    ------
    ConlluBlock
        Every sentence block, including blocks without words.

    Raises
    ------
    InputError
        As for :func:`iter_conllu`; also a word line without exactly 10
        columns (file and line named).
    """
    name = source_name(source, name)
    declared = None
    for sentence, (feed, tokenlist, lines) in _parse(source, None, encoding, name, keep_raw=True):
        start = feed.done_start
        raw = list(feed.done_raw)
        for line in raw:  # CoNLL-U Plus: the header names the columns (as the conllu reader reads it)
            if line.startswith("# global.columns = "):
                declared = tuple(c.upper() for c in line.split("=", 1)[1].split())
        word_lines = [lineno - start for token, lineno in zip(tokenlist, lines)
                      if not isinstance(token.get("id"), tuple)]
        n_expected = len(declared) if declared else 10
        for i in word_lines:  # the labels are written into the UPOS or XPOS column
            n = len(_cells(raw[i]))
            if n != n_expected:
                what = (f"this CoNLL-U Plus file declares {n_expected} columns" if declared
                        else "a CoNLL-U word line has 10 columns")
                raise InputError(f"{what}, this one has {n} (to write FORM and the label only, use "
                                 "--output-format columns)", name, start + i)
        yield ConlluBlock(sentence, raw, word_lines, declared)


def _cells(line: str) -> list[str]:
    """The columns of a CoNLL-U line, split as the reader (``conllu``) splits them:
    on tabs, or on runs of two or more spaces in a line without tabs."""
    return line.split("\t") if "\t" in line else re.split(" {2,}", line)


def format_conllu_block(block: ConlluBlock, labels, field: str = "xpos") -> str:
    """The block's lines with ``labels`` written into each word's ``field`` column.

    Parameters
    ----------
    block : ConlluBlock
    labels : sequence of str
        One label per word of ``block.sentence``.
    field : {"xpos", "upos"}
        Column that receives the labels; every other column and line is kept.

    Returns
    -------
    str
        The block, ``\n``-terminated lines followed by one blank line.

    Raises
    ------
    ValueError
        Unknown ``field``, or not one label per word.
    InputError
        A CoNLL-U Plus block whose header names no such column.
    """
    if field not in _FIELD_COLUMN:
        raise ValueError(f"field must be one of {sorted(_FIELD_COLUMN)}, not {field!r}")
    if len(labels) != len(block.word_lines):
        raise ValueError(f"{len(labels)} labels for {len(block.word_lines)} words")
    col = _FIELD_COLUMN[field]
    if block.columns is not None:
        if LABEL_FIELDS[field] not in block.columns:
            raise InputError(f"this CoNLL-U Plus file has no {LABEL_FIELDS[field]} column (its columns: "
                             f"{' '.join(block.columns)}); choose another --label-field, or write FORM and "
                             "the label with --output-format columns")
        col = block.columns.index(LABEL_FIELDS[field])
    out = list(block.lines)
    for i, label in zip(block.word_lines, labels):
        cells = _cells(out[i])
        cells[col] = label
        out[i] = "\t".join(cells)
    return "".join(line + "\n" for line in out) + "\n"


def _words(tokenlist, lines: list[int], label_field: str | None, name: str) -> Sentence:
    tokens: list[tuple[str, ...]] = []
    first = 0
    for token, lineno in zip(tokenlist, lines):
        token_id = token.get("id")
        if isinstance(token_id, tuple):
            continue  # multiword range "2-3" or empty node "4.1"
        if token_id is None:
            raise InputError("word has no ID (column 1 is '_')", name, lineno)
        form = token.get("form")
        if form is None:
            raise InputError("word has no FORM column", name, lineno)
        if label_field is None:
            tokens.append((form,))
        else:
            label = token.get(label_field)
            if label is None or label == "_" or label == "":
                raise InputError(
                    f"word {form!r} has no {LABEL_FIELDS[label_field]} label ('_' or missing); "
                    "choose another label field (xpos or upos)", name, lineno)
            tokens.append((form, label))
        if not first:
            first = lineno
    return Sentence(tokens, first)


def read_conllu(source, **kwargs) -> list[Sentence]:
    """Read every sentence of a CoNLL-U file into a list.

    Parameters
    ----------
    source : str, os.PathLike or file object
        As for :func:`iter_conllu`.
    **kwargs
        ``label_field``, ``encoding`` and ``name``, as for :func:`iter_conllu`.

    Returns
    -------
    list of Sentence

    Raises
    ------
    InputError
        As for :func:`iter_conllu`.
    """
    return list(iter_conllu(source, **kwargs))
