"""Raw text in, tokens and spans out: :func:`tag_text` for a string, :func:`tag_text_file` for files.

Raw text is split into sentences and tokens by :func:`chaintag.text.split_text` (treebank
conventions, character offsets kept); text already tokenized (one sentence per line, tokens
separated by whitespace) by :func:`chaintag.text.pretokenized`. A file is read as documents
separated by blank lines (paragraphs), so that memory stays flat however large the input: each
output record is one document, its offsets into that document's text.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator

from ..errors import InputError

__all__ = ["TEXT_FORMATS", "TEXT_OUTPUTS", "tag_text", "iter_documents", "tag_text_file", "format_document"]

#: Input formats of raw text: split into sentences and tokens, or already tokenized.
TEXT_FORMATS = ("raw", "pretokenized")
#: Output formats of raw text input (``spans`` is the default).
TEXT_OUTPUTS = ("spans", "conll", "columns", "text")

#: A document longer than this (characters) is cut at a line end, so that memory stays bounded.
MAX_DOCUMENT_CHARS = 1_000_000


def _model(model, what: str = "model"):
    from ..learners import as_model
    return as_model(model, what)


def tag_text(model, text: str, lang: str = "en", *, tokenized: bool = False, confidence: bool = True,
             constrain=False, scheme: str | None = None, pos_model=None):
    """Tag raw text with a model: sentences, tokens with offsets and labels, spans with confidence.

    Parameters
    ----------
    model : SequenceTagger, str or os.PathLike
        A fitted model, or its file (or the name of a built-in model).
    text : str
        Raw text, or (``tokenized=True``) one tokenized sentence per line.
    lang : {"en", "es", "nl", "de"}
        The tokenizer's conventions.
    tokenized : bool, default False
    confidence : bool, default True
        Each span's probability under the model (see :mod:`chaintag.learners.spans`).
    constrain, scheme
        As for ``predict_spans``.
    pos_model : SequenceTagger, str or os.PathLike, optional
        For a model that reads words and POS tags (a chunker): the model that gives the tags
        (``"en-pos"``).

    Returns
    -------
    chaintag.text.Document
        ``document.to_dict()`` is the JSON form ``{"text", "tokens", "spans", "sentences"}``.

    Raises
    ------
    chaintag.errors.InputError
        A model that reads more columns than the words, or an unknown language.

    Examples
    --------
    >>> doc = chaintag.tag_text("en-pos", "It's 3pm.")          # doctest: +SKIP
    >>> [(t.text, t.label) for t in doc.tokens]                  # doctest: +SKIP
    [('It', 'PRP'), ("'s", 'VBZ'), ('3pm', 'NN'), ('.', '.')]
    """
    return _model(model).tag_text(text, lang, tokenized=tokenized, confidence=confidence, constrain=constrain,
                                  scheme=scheme, pos_model=pos_model)  # tag_documents reads pos_model


def iter_documents(source, *, tokenized: bool = False, lang: str = "en", encoding: str = "utf-8",
                   name: str | None = None, check_first: Callable[[list[str]], None] | None = None) -> Iterator:
    """Read raw (or tokenized) text as documents, one per block of lines between blank lines.

    Parameters
    ----------
    source : str, os.PathLike or file object
    tokenized : bool
        One tokenized sentence per line (else raw text, split by :func:`chaintag.text.split_text`).
    lang : str
    encoding : str
    name : str, optional
        The input's name in messages.
    check_first : callable, optional
        Called once with the lines of the first blocks (:data:`PEEK_LINES` lines, or all the input's if
        fewer), before any is split.

    Yields
    ------
    chaintag.text.Document
        The block's text (its lines joined by ``"\\n"``, line ends read as LF) split into sentences
        and tokens, with ``line`` the input line where it starts. A block longer than
        :data:`MAX_DOCUMENT_CHARS` is cut at a line end, and a line longer than that at a space (or,
        without one, at the limit).
    """
    from ..io.columns import iter_lines
    from ..text import pretokenized, split_text
    from ..text.tokenize import _check_lang
    _check_lang(lang)
    split = pretokenized if tokenized else (lambda text: split_text(text, lang))
    blocks = _blocks(iter_lines(source, encoding=encoding, name=name))
    if check_first is not None:  # the first blocks, up to PEEK_LINES lines, are read before any is split
        head: list[list[str]] = []
        for block in blocks:
            head.append(block)
            if sum(len(b) for _, b in head) >= PEEK_LINES:
                break
        check_first([line for _, block in head for line in block])
        for first, block in head:
            yield _at_line(split("\n".join(block)), first)
    for first, block in blocks:
        yield _at_line(split("\n".join(block)), first)


def _at_line(doc, line: int):
    doc.line = line
    return doc


#: Lines of the input's first blocks that ``iter_documents``' ``check_first`` sees.
PEEK_LINES = 30


def _blocks(lines) -> Iterator[tuple[int, list[str]]]:
    """``(first line, lines)`` of each block of non-blank lines, of at most :data:`MAX_DOCUMENT_CHARS`
    characters: a longer block is cut at a line end, a longer line at a space (:func:`_pieces`)."""
    block: list[str] = []
    size, first = 0, 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            if block:
                yield first, block
                block, size = [], 0
            continue
        for piece in _pieces(line):
            if block and size + len(piece) + 1 > MAX_DOCUMENT_CHARS:
                yield first, block
                block, size = [], 0
            if not block:
                first = number
            block.append(piece)
            size += len(piece) + 1
    if block:
        yield first, block


def _pieces(line: str) -> list[str]:
    """A line cut into pieces shorter than :data:`MAX_DOCUMENT_CHARS`, each at its last whitespace before
    the limit (or at the limit, in a line without one)."""
    out = []
    while len(line) >= MAX_DOCUMENT_CHARS:
        cut = max(line.rfind(" ", 0, MAX_DOCUMENT_CHARS - 1), line.rfind("\t", 0, MAX_DOCUMENT_CHARS - 1))
        cut = cut if cut > 0 else MAX_DOCUMENT_CHARS - 1
        out.append(line[:cut])
        line = line[cut:].lstrip(" \t")
    if line:
        out.append(line)
    return out


def format_document(doc, output_format: str) -> str:
    """One tagged document in an output format.

    Parameters
    ----------
    doc : chaintag.text.Document
    output_format : {"spans", "conll", "columns", "text"}
        ``spans``: one JSON line ``{"text", "tokens": [{"text", "start", "end", "label"}], "spans":
        [{"label", "start", "end", "text", "confidence"}], "sentences"}``. ``conll``: a token and its
        label per line, tab-separated, a blank line after each sentence. ``columns``: the same,
        space-separated. ``text``: one sentence per line, ``token/label`` pairs.

    Returns
    -------
    str
    """
    if output_format == "spans":
        return json.dumps(doc.to_dict(), ensure_ascii=False) + "\n"
    lines = []
    for first, last in doc.sentences:
        toks = doc.tokens[first:last]
        if output_format == "text":
            lines.append(" ".join(f"{t.text}/{t.label}" for t in toks) + "\n")
        else:
            sep = "\t" if output_format == "conll" else " "
            lines.append("".join(f"{t.text}{sep}{t.label}\n" for t in toks) + "\n")
    return "".join(lines)


def tag_text_file(model, source="-", output="-", *, format: str = "raw", output_format: str | None = None,
                  lang: str = "en", encoding: str = "utf-8", confidence: bool = True, constrain=False,
                  scheme: str | None = None, batch_size: int = 64,
                  progress: Callable[[int], None] | None = None,
                  warn: Callable[[str], None] | None = None, pos_model=None) -> int:
    """Tag a raw or tokenized text file (or stdin) with a model, as ``chaintag tag --format raw`` does.

    Parameters
    ----------
    model : SequenceTagger, str or os.PathLike
    source : str, os.PathLike or "-"
        A text file, or ``-`` for standard input.
    output : str or os.PathLike
        Written atomically, or ``-`` for stdout.
    format : {"raw", "pretokenized"}
    output_format : {"spans", "conll", "columns", "text"}, optional
        Default ``spans`` (see :func:`format_document`).
    lang, encoding, confidence, constrain, scheme
        As for :func:`tag_text`.
    batch_size : int
        Documents tagged together.
    progress : callable, optional
        Called with the number of documents of each batch tagged.
    warn : callable, optional
        Called with a warning's text: input that begins like a column or CoNLL-U file
        (:func:`chaintag.api.tag_input.column_input_warning`).
    pos_model : SequenceTagger, str or os.PathLike, optional
        For a model that reads words and POS tags: the model that gives the tags (``"en-pos"``).

    Returns
    -------
    int
        The number of sentences tagged.

    Raises
    ------
    chaintag.errors.InputError
        A model that reads more than the words, an unknown format or language, a file that cannot
        be read (named with its line).
    """
    from ..io.atomic import atomic_open
    if format not in TEXT_FORMATS:
        raise InputError(f"unknown text format {format!r}; choose one of {', '.join(TEXT_FORMATS)}")
    output_format = output_format or "spans"
    if output_format not in TEXT_OUTPUTS:
        raise InputError(f"--output-format {output_format} is not an output of raw text; choose one of "
                         f"{', '.join(TEXT_OUTPUTS)}")
    if batch_size < 1:
        raise InputError("--batch-size must be at least 1")
    model = _model(model)
    from .tag_input import refuse_dict_model
    refuse_dict_model(model)  # text gives words, not feature dicts
    pos_model = None if pos_model is None else _model(pos_model, "pos_model")  # loaded once, not per batch
    if constrain or scheme:
        from .tag_constraints import constraint_options
        constrain, scheme = constraint_options(model, constrain, scheme, False, format)["constrain"], None
    name = "<stdin>" if os.fspath(source) == "-" else os.fspath(source)
    if name != "<stdin>" and not os.path.exists(name):
        raise InputError("no such file", name)
    stream = getattr(sys.stdin, "buffer", sys.stdin) if name == "<stdin>" else source
    from .tag_input import column_input_warning

    def check_first(lines):
        text = column_input_warning(model, lines, format)
        if text and warn is not None:
            warn(text)
    docs = iter_documents(stream, tokenized=format == "pretokenized", lang=lang, encoding=encoding, name=name,
                          check_first=check_first)
    opened = (contextlib.nullcontext(sys.stdout) if os.fspath(output) == "-"
              else atomic_open(output, "w", encoding="utf-8", newline="\n"))
    n = 0
    with opened as out:
        batch: list = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= batch_size:
                n += _tag_batch(model, batch, out, output_format, confidence, constrain, scheme, progress, pos_model)
                batch = []
        if batch:
            n += _tag_batch(model, batch, out, output_format, confidence, constrain, scheme, progress, pos_model)
    return n


def _tag_batch(model, batch, out, output_format, confidence, constrain, scheme, progress, pos_model=None) -> int:
    tagged = model.tag_documents(batch, confidence=confidence and output_format == "spans", constrain=constrain,
                                 scheme=scheme, pos_model=pos_model)
    out.write("".join(format_document(doc, output_format) for doc in tagged))
    if progress is not None:
        progress(len(batch))
    return sum(len(doc.sentences) for doc in tagged)
