"""CoNLL column files: one token per line, blank lines between sentences.

Reading streams the input (a fixed-size chunk at a time), so files of any size
can be processed; writing is atomic when the destination is a path.

Accepted input:

- LF, CRLF and lone CR line endings (mixed freely); a UTF-8 byte-order mark at the
  start of the file, or at the start of any line (files joined with ``cat``), is
  dropped (:func:`chaintag.io.text_lines.clean_line`);
- blank lines, and lines holding nothing but ASCII whitespace (space, tab, form
  feed, vertical tab), separate sentences; runs of them never produce empty
  sentences; the last sentence needs no final newline;
- columns are separated by ASCII spaces and tabs only: any other Unicode space
  (U+3000, U+00A0, U+2028, ...) or invisible character is part of a token, kept
  byte for byte, and a line holding one is a token line, not a sentence break
  (Python's ``str.split()``, ``strip()`` and ``isspace()`` would treat them as
  whitespace, and ``splitlines()`` would break lines at U+2028, U+0085, ...);
- lines starting with ``-DOCSTART-`` or ``###MEDLINE:`` are document markers: they
  are skipped and end the current sentence;
- there is no comment syntax: ``#`` is an ordinary token;
- every token line has the same number of columns as the first one.
"""

from __future__ import annotations

import codecs
import io
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from chaintag.errors import InputError
from chaintag.io.atomic import atomic_open
from chaintag.io.text_lines import refuse_zip, strip_bom

__all__ = [
    "Sentence",
    "iter_lines",
    "source_name",
    "iter_sentences",
    "format_labelled",
    "read_sentences",
    "format_sentence",
    "write_sentences",
    "DOCUMENT_MARKERS",
    "is_blank",
    "split_columns",
]

#: Prefixes of the lines that mark a document boundary in column files.
DOCUMENT_MARKERS = ("-DOCSTART-", "###MEDLINE:")

_CHUNK = 1 << 16
_NEWLINE_BYTES = re.compile(rb"\r\n|\r|\n")
_NEWLINE_TEXT = re.compile(r"\r\n|\r|\n")
#: Whitespace that separates columns (runs of it, in space-separated files).
_COLUMN_SPACE = re.compile(r"[ \t]+")
#: ASCII whitespace: a line of nothing else is blank (a sentence break).
ASCII_WHITESPACE = " \t\n\r\x0b\x0c"


def is_blank(line: str) -> bool:
    """Whether a line holds nothing but ASCII whitespace (a sentence break).

    Unlike ``str.isspace``, Unicode spaces such as U+3000 or U+00A0 make a
    line a token line.
    """
    return not line.strip(ASCII_WHITESPACE)


def split_columns(line: str) -> list[str]:
    """Fields of a space-separated line: runs of ASCII spaces and tabs separate them.

    Unlike ``str.split()``, no other character (U+3000, U+00A0, ...) splits a
    field, and none is stripped from the ends.

    Examples
    --------
    >>> split_columns("10\u00a0000 NUM  B-MONEY ")
    ['10\xa0000', 'NUM', 'B-MONEY']
    """
    if line and "\t" not in line and "  " not in line and line[0] != " " and line[-1] != " ":
        return line.split(" ")  # single spaces between the fields: the same as the expression, faster
    fields = _COLUMN_SPACE.split(line)
    if fields and fields[0] == "":
        fields = fields[1:]
    if fields and fields[-1] == "":
        fields = fields[:-1]
    return fields


class Sentence(NamedTuple):
    """One sentence read from a column file.

    Attributes
    ----------
    tokens : list of tuple of str
        One tuple of column values per token, all of the same length.
    line : int
        1-based line number of the sentence's first token.
    marker : str or None
        With ``iter_sentences(..., markers=True)``: a document-marker line
        (``-DOCSTART- ...``, ``###MEDLINE:...``) as read, with no tokens.
    """

    tokens: list[tuple[str, ...]]
    line: int
    marker: str | None = None


def source_name(source, name: str | None = None) -> str:
    """Name of an input for error messages.

    Parameters
    ----------
    source : str, os.PathLike or file object
        What is read.
    name : str, optional
        Explicit name; wins when given.

    Returns
    -------
    str
        ``name`` if given, the path for a path, ``"<stdin>"`` for a file object.
    """
    if name is not None:
        return name
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return "<stdin>"


def max_line_length() -> int:
    """The longest line a reader takes: ``CHAINTAG_MAX_LINE`` (characters or bytes), else
    :data:`MAX_LINE` (1 Mi); a longer line stops the reader, so that an input without line breaks
    (``/dev/zero``, a binary file) cannot exhaust memory."""
    return _positive_setting("CHAINTAG_MAX_LINE", MAX_LINE)


def _positive_setting(name: str, default: int) -> int:
    """The positive integer in the environment variable ``name``, else ``default`` (unset or empty).

    Raises
    ------
    InputError
        For any other value (``abc``, ``1.5``, ``0``), naming the variable.
    """
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise InputError(f"{name}={value!r}: give a positive whole number (unset, it is {default:,})")
    return number


#: Default bound on one line's length (see :func:`max_line_length`).
MAX_LINE = 2 ** 20
#: Default bound on the tokens of one sentence of a column file (see :func:`max_sentence_length`).
MAX_SENTENCE = 100_000


def max_sentence_length() -> int:
    """The most tokens a sentence of a column file may have: ``CHAINTAG_MAX_SENTENCE``, else
    :data:`MAX_SENTENCE` (100,000); a file without blank lines is one sentence, which would be held
    whole in memory (about 1 KB per token), so a longer one stops the reader."""
    return _positive_setting("CHAINTAG_MAX_SENTENCE", MAX_SENTENCE)


def _split_chunks(read, empty, newline_re, cr, name: str = "<input>", start: int = 0):
    """Yield the lines of a stream read chunk by chunk, without their endings.

    ``read(n)`` returns bytes or str; an empty result means the end. A CR at the
    very end of a chunk is held back until the next chunk shows whether it
    starts a CRLF. Every character is copied a bounded number of times, so the
    cost is linear even for a single enormous line.

    Raises
    ------
    InputError
        For a line longer than :func:`max_line_length`, naming the input and the line.
    """
    pending: list = []
    held = 0
    lines = start
    limit = max_line_length()
    unit = "bytes" if isinstance(empty, bytes) else "characters"
    while True:
        chunk = read(_CHUNK)
        if not chunk:
            break
        if not newline_re.search(chunk) and not (pending and pending[-1].endswith(cr)):
            # (a CR held back at the end of the pending text ends a line now that no LF follows it)
            pending.append(chunk)
            held += len(chunk)
            if held > limit:
                raise InputError(f"a line longer than {limit:,} {unit} (no line break within them: a binary file, or "
                                 "text without line breaks?); set CHAINTAG_MAX_LINE to read longer lines", name, lines + 1)
            continue
        data = empty.join(pending) + chunk if pending else chunk
        pending = []
        start = 0
        end = len(data)
        for m in newline_re.finditer(data):
            if m.end() == end and m.group() == cr:
                break  # maybe the first half of a CRLF split across chunks
            if m.start() - start > limit:
                raise InputError(f"a line longer than {limit:,} {unit}: set CHAINTAG_MAX_LINE to read "
                                 "longer lines", name, lines + 1)
            lines += 1
            yield data[start:m.start()]
            start = m.end()
        held = 0
        if start < end:
            pending.append(data[start:])
            held = end - start
            if held > limit:
                raise InputError(f"a line longer than {limit:,} {unit} (no line break within them: a binary file, or "
                                 "text without line breaks?); set CHAINTAG_MAX_LINE to read longer lines", name, lines + 1)
    if pending:
        tail = empty.join(pending)
        if tail.endswith(cr):
            tail = tail[:-1]
        yield tail


def _check_encoding(encoding: str) -> str:
    """Return the codec's canonical name; refuse encodings lines cannot be split in."""
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}") from None
    try:
        ascii_like = "\n\r#".encode(info.name) == b"\n\r#"
    except LookupError:  # a codec that is not a text encoding (rot13, ...)
        ascii_like = False
    if not ascii_like:
        raise InputError(f"encoding {encoding!r} is not supported: line-oriented files need "
                         "an ASCII-compatible encoding (UTF-8, Latin-1, cp1252, ...); convert the file first, e.g. "
                         f"iconv -f {encoding} -t UTF-8 FILE > FILE.utf8")
    return info.name


def _display_encoding(codec: str) -> str:
    return "UTF-8" if codec in ("utf-8", "utf-8-sig") else codec


def _decode_lines(raw_lines: Iterator[bytes], codec: str, name: str, start: int = 0) -> Iterator[str]:
    """Decode each line separately so that a bad byte can be reported with its line (the first
    line is line ``start + 1``)."""
    if codec == "utf-8-sig":
        codec = "utf-8"
    lineno = start
    for raw in raw_lines:
        lineno += 1
        if lineno == 1:
            refuse_zip(raw, name, codec)
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError as e:
            bad = raw[e.start:e.start + 1]
            raise InputError(
                f"not valid {_display_encoding(codec)} (byte 0x{bad.hex()} at byte {e.start + 1} "
                "of the line); use --encoding to give the file's encoding",
                name, lineno) from None
        yield strip_bom(text, lineno == 1)


#: Bytes read at a time by the whole-chunk reader (:func:`_binary_pieces`; the first read takes at most :data:`_CHUNK`).
_BIG_CHUNK = 1 << 20


def _binary_pieces(read, codec: str, name: str):
    """The lines of a binary stream as pieces: ``(text, None)`` for plain chunks, then ``(None, lines)``.

    A chunk's complete lines are decoded in one go, and given as one text (the lines joined by
    LF, without a final one), when they hold no carriage return but in CRLF line endings and no
    byte-order mark, decode cleanly, and none is longer than the longest line allowed; the first chunk that does not is
    given, with the rest of the stream, as an iterator of lines read one by one
    (:func:`_split_chunks`, :func:`_decode_lines`), which keeps every rule and names the line of
    any fault. Both give the same lines.
    """
    limit = max_line_length()
    dec = "utf-8" if codec == "utf-8-sig" else codec
    pending = b""
    lineno = 0
    while True:
        chunk = read(min(_CHUNK, _BIG_CHUNK) if lineno == 0 else _BIG_CHUNK)
        data = pending + chunk if pending else chunk
        if not chunk:
            if data:
                yield None, _slow_rest(data, read, codec, name, lineno)
            return
        cut = data.rfind(b"\n")
        text = None
        head = data[:cut + 1] if cut >= 0 else None
        if head is not None and b"\r" in head:  # CRLF endings are plain (as LF); a lone CR is not
            head = head.replace(b"\r\n", b"\n") if head.count(b"\r") == head.count(b"\r\n") else None
        if head is not None:
            if lineno == 0:
                refuse_zip(data[:data.find(b"\n")], name, codec)
            try:
                text = head[:-1].decode(dec)
            except UnicodeDecodeError:
                text = None
            if text is not None and "\ufeff" in text:
                text = None
        if text is None:
            yield None, _slow_rest(data, read, codec, name, lineno)
            return
        n_lines = text.count("\n") + 1
        if len(head) > limit and max(map(len, head.split(b"\n"))) > limit:  # the limit counts bytes here
            yield None, _slow_rest(data, read, codec, name, lineno)
            return
        lineno += n_lines
        yield text, None
        pending = data[cut + 1:]


def _slow_rest(data: bytes, read, codec: str, name: str, lineno: int) -> Iterator[str]:
    """``data`` and the rest of the stream, line by line, the first line numbered ``lineno + 1``."""
    pushed = [data]

    def replay(n, _read=read):
        return pushed.pop() if pushed else _read(n)

    yield from _decode_lines(_split_chunks(replay, b"", _NEWLINE_BYTES, b"\r", name, lineno), codec, name, lineno)


def _text_lines(read, name: str = "<input>") -> Iterator[str]:
    first = True
    for line in _split_chunks(read, "", _NEWLINE_TEXT, "\r", name):
        yield strip_bom(line, first)
        first = False


def iter_lines(source, *, encoding: str = "utf-8", name: str | None = None) -> Iterator[str]:
    """Yield the lines of a file, decoded, without their line endings.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path, or an open binary or text file object (e.g. ``sys.stdin``). A text
        object that has a ``buffer`` attribute is read through that buffer, so that
        ``encoding`` applies and bad bytes are reported with their line.
    encoding : str
        Encoding of the bytes; must be ASCII-compatible (UTF-8, Latin-1, ...).
    name : str, optional
        Name used in error messages (default: the path, or ``"<stdin>"``).

    Yields
    ------
    str
        Line ``i`` (1-based) is the ``i``-th item. LF, CRLF and lone CR all end a
        line; a UTF-8 byte-order mark at the start of the file or of any line
        is dropped. A final line
        without a line ending is yielded; an empty file yields nothing.

    Raises
    ------
    InputError
        The file cannot be opened, or a line is not valid in ``encoding``.
    ValueError
        ``encoding`` is unknown or not ASCII-compatible.

    Notes
    -----
    The input is read in chunks of 64 KiB, so memory stays bounded by the longest
    line however large the file is. The file is opened on the first ``next()``
    and closed when the iteration ends or the generator is closed.
    """
    for text, rest in _line_pieces(source, encoding, name):
        if text is None:
            yield from rest
        else:
            yield from text.split("\n")


def _line_pieces(source, encoding: str, name: str | None):
    """The lines of ``source`` as :func:`_binary_pieces` gives them (text pieces while plain)."""
    codec = _check_encoding(encoding)
    name = source_name(source, name)
    if isinstance(source, (str, os.PathLike)):
        try:
            f = open(source, "rb")
        except OSError as e:
            raise InputError(f"cannot open: {e.strerror or e}", name) from None
        with f:
            yield from _binary_pieces(f.read, codec, name)
        return
    if isinstance(source, io.TextIOBase) and isinstance(getattr(source, "buffer", None),
                                                        io.BufferedIOBase):
        source = source.buffer
    read = source.read
    first = read(_CHUNK)
    if not first:
        return
    pushed = [first]

    def replay(n, _read=read):
        return pushed.pop() if pushed else _read(n)

    if isinstance(first, str):
        yield None, _text_lines(replay, name)
    else:
        yield from _binary_pieces(replay, codec, name)


def _make_splitter(sep: str | None, first_line: str):
    """Return a function splitting a token line into its fields."""
    if sep is None:
        sep = "\t" if "\t" in first_line else " "
    if sep == " ":
        return split_columns

    def split(line: str, _sep=sep) -> list[str]:
        fields = line.split(_sep)
        while fields and fields[-1] == "":
            fields.pop()
        return fields

    return split


def iter_sentences(source, *, sep: str | None = None, encoding: str = "utf-8",
                   name: str | None = None, info: dict | None = None,
                   markers: bool = False) -> Iterator[Sentence]:
    """Read sentences from a CoNLL column file, lazily.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path, or an open binary or text file object such as ``sys.stdin``.
    sep : str, optional
        Field separator. ``None`` (default) detects it from the first token line:
        a TAB there makes the file tab-separated, otherwise fields are separated by
        runs of ASCII spaces and tabs. ``" "`` means such runs; any other string is
        split on literally (``"\\t"``: tokens may then contain spaces). With a
        literal separator, empty fields left by a trailing separator are ignored.
    encoding : str
        Encoding of the file (ASCII-compatible).
    name : str, optional
        Name of the input in error messages (default: the path, or ``"<stdin>"``).
    info : dict, optional
        Receives ``info["sep"]``, the separator in use (``"\t"`` or ``" "``),
        once the first token line has been read.
    markers : bool, default False
        Also yield each document-marker line, in order, as a
        ``Sentence([], line, marker=text)`` (for writers that keep them).

    Yields
    ------
    Sentence
        Non-empty sentences in file order, each with the line of its first token.

    Raises
    ------
    InputError
        A token line has a different number of columns from the first token line
        ("expected 3 columns (as on line 1), found 2"), a line is not valid in
        ``encoding``, or the file cannot be opened; the message names the file and
        the line.

    Notes
    -----
    Streams: time is linear in the input and memory is bounded by the largest
    sentence. Only the line ending is removed from a line; with a literal
    separator, fields keep any spaces around them.

    Examples
    --------
    >>> import io
    >>> [s.tokens for s in iter_sentences(io.StringIO("He PRP\\nruns VBZ\\n\\n. .\\n"))]
    [[('He', 'PRP'), ('runs', 'VBZ')], [('.', '.')]]
    """
    name = source_name(source, name)
    reader = _SentenceReader(_TokenLineSplitter(sep, name, info), name, markers)
    for text, rest in _line_pieces(source, encoding, name):
        if text is None:
            yield from reader.carried()
            yield from reader.lines(rest)
        else:
            yield from reader.text(text)
    yield from reader.end()


#: Longest text of lines with no empty line in it that is carried over to the next piece.
_CARRY_MAX = 1 << 22


class _SentenceReader:
    """The state of :func:`iter_sentences`: lines read one by one, or texts of regular lines in blocks.

    ``lineno`` counts the lines consumed; ``carry`` holds the lines (joined by LF) of a text
    after its last empty line, not yet consumed, to be read with the next text.
    """

    def __init__(self, columns: "_TokenLineSplitter", name: str, markers: bool):
        self.columns, self.name, self.markers = columns, name, markers
        self.tokens: list[tuple[str, ...]] = []
        self.first = 0
        self.lineno = 0
        self.longest = max_sentence_length()
        self.carry: str | None = None

    def lines(self, lines: Iterable[str]) -> Iterator[Sentence]:
        """Read ``lines`` one by one: every rule checked, each fault named with its line."""
        columns, markers, longest, name = self.columns, self.markers, self.longest, self.name
        tokens, first, lineno = self.tokens, self.first, self.lineno
        for line in lines:
            lineno += 1
            if not line or is_blank(line) or line.startswith(DOCUMENT_MARKERS):
                if tokens:
                    self.lineno = lineno
                    yield Sentence(tokens, first)
                    tokens = []
                if markers and line.startswith(DOCUMENT_MARKERS):
                    self.lineno = lineno
                    yield Sentence([], lineno, line.rstrip(ASCII_WHITESPACE))
                continue
            fields = columns.fields(line, lineno)
            if not tokens:
                first = lineno
            elif len(tokens) >= longest:
                raise InputError(f"a sentence of more than {longest:,} tokens (no blank line between sentences?); "
                                 "set CHAINTAG_MAX_SENTENCE to read longer ones", name, first)
            tokens.append(tuple(fields))
        self.tokens, self.first, self.lineno = tokens, first, lineno

    def text(self, text: str) -> Iterator[Sentence]:
        """Read a text of whole lines (joined by LF, no final one): in blocks where it is regular."""
        if self.carry is not None:
            text = self.carry + "\n" + text
            self.carry = None
        while self.columns.split is None or self.tokens:  # up to the end of the sentence read, or the first token line
            cut = text.find("\n\n")
            if cut < 0:
                yield from self.lines(text.split("\n"))
                return
            yield from self.lines(text[:cut + 1].split("\n"))
            text = text[cut + 2:]
        mode = self.columns.mode
        if mode is None:
            yield from self.lines(text.split("\n"))
            return
        cut = text.rfind("\n\n")
        if cut < 0:
            if len(text) > _CARRY_MAX:
                yield from self.lines(text.split("\n"))
            else:
                self.carry = text
            return
        self.carry = text[cut + 2:]
        yield from self._blocks(text[:cut], mode)

    def _blocks(self, body: str, mode: str) -> Iterator[Sentence]:
        """Sentences of ``body`` (whole lines joined by LF) and of the empty line after it.

        Each run of lines between empty lines is split at once when regular
        (:mod:`chaintag.io.column_blocks`), else read line by line.
        """
        from chaintag.io.column_blocks import regular_text, split_sentence
        if not regular_text(body):
            yield from self.lines(body.split("\n") + [""])
            return
        n_columns, longest = self.columns.n_columns, self.longest
        lineno = self.lineno
        for block in body.split("\n\n"):
            if not block:
                lineno += 2
                continue
            n_lines = block.count("\n") + 1
            if n_lines <= longest and not any(m in block for m in DOCUMENT_MARKERS):
                tokens = split_sentence(block, mode, n_columns)
                if tokens is not None:
                    yield Sentence(tokens, lineno + 1)
                    lineno += n_lines + 1  # and the empty line after it
                    continue
            self.lineno = lineno
            yield from self.lines(block.split("\n") + [""])
            lineno = self.lineno
        self.lineno = lineno

    def carried(self) -> Iterator[Sentence]:
        """Read the carried lines, one by one."""
        if self.carry is not None:
            text, self.carry = self.carry, None
            yield from self.lines(text.split("\n"))

    def end(self) -> Iterator[Sentence]:
        """The carried lines and the last sentence."""
        yield from self.carried()
        if self.tokens:
            tokens, self.tokens = self.tokens, []
            yield Sentence(tokens, self.first)


class _TokenLineSplitter:
    """Splits the token lines of a column file, checking each against the first one.

    The first token line decides the separator (when ``sep`` is None) and
    the number of columns; the separator in use goes to ``info["sep"]``
    when ``info`` is given.
    """

    def __init__(self, sep: str | None, name: str, info: dict | None):
        self.sep, self.name, self.info = sep, name, info
        self.split = None
        #: " " (runs of spaces and tabs) or "\t" once the first token line is read; None for other separators
        self.mode = None
        self.n_columns = 0
        self.columns_line = 0
        self.first_line = ""

    def fields(self, line: str, lineno: int) -> list[str]:
        """The fields of token line ``lineno``.

        Raises
        ------
        InputError
            The line has a different number of columns from the first token
            line, or an empty column.
        """
        sep, name = self.sep, self.name
        if self.split is None:
            split = self.split = _make_splitter(sep, line)
            used = sep if sep is not None else ("\t" if "\t" in line else " ")
            self.mode = " " if split is split_columns else ("\t" if used == "\t" else None)
            if self.info is not None:
                self.info["sep"] = "\t" if (sep == "\t" or (sep is None and "\t" in line)) else (sep or " ")
            fields = split(line)
            self.n_columns, self.columns_line, self.first_line = len(fields), lineno, line
        else:
            split, n_columns = self.split, self.n_columns
            fields = split(line)
            if len(fields) != n_columns:
                hint = ("; this looks like CoNLL-U: read it as such (--format conllu, or a .conllu file name)"
                        if _looks_like_conllu(self.first_line, line)
                        else _mixed_separators_hint(split, line, n_columns))
                raise InputError(
                    f"expected {n_columns} column{'s' if n_columns != 1 else ''} "
                    f"(as on line {self.columns_line}), found {len(fields)}{hint}", name, lineno)
        if "" in fields:
            raise InputError(f"column {fields.index('') + 1} is empty (two separators in a row?)",
                             name, lineno)
        return fields


def _mixed_separators_hint(split, line: str, n_columns: int) -> str:
    """A hint naming ``--sep`` when a line of a tab-separated file separates its columns by spaces."""
    if split is split_columns or " " not in line or len(split_columns(line)) != n_columns:
        return ""
    return ("; the file mixes tabs and spaces: its first token line has tabs, so columns are split at tabs "
            "only; give --sep space (sep=' ' in the API) to split at runs of spaces and tabs, or use "
            "tabs on this line")


def _looks_like_conllu(first_line: str, line: str) -> bool:
    """A CoNLL-U comment first (``# key = value``), or a tab-separated line of 10 columns
    starting with a word ID."""
    if first_line.startswith("#") and " = " in first_line:
        return True
    fields = line.split("\t")
    return len(fields) == 10 and fields[0].split("-")[0].split(".")[0].isdigit()


_CONLLU_ID = re.compile(r"\d+(?:-\d+|\.\d+)?")
_CONLLU_COMMENT = re.compile(r"#\s*(?:global\.columns|sent_id|text|newdoc|newpar)\b[^=]*=")


def sniff_conllu(head: bytes | str) -> bool:
    """Whether the start of an input looks like CoNLL-U (or CoNLL-U Plus) rather than a column file.

    Parameters
    ----------
    head : bytes or str
        The first bytes of the input (a few kilobytes are plenty).

    Returns
    -------
    bool
        True when its first token line (the first line not starting with
        ``#``) has a word ID (``3``, ``2-3``, ``4.1``) in its first column
        and exactly the tab-separated columns of CoNLL-U: 10, or as many as
        a ``# global.columns = ...`` header names (CoNLL-U Plus). When the
        head holds comments only, True when the first is a CoNLL-U comment
        (``# sent_id =``, ``# text =``, ``# global.columns =``, ...). A column
        file whose tokens start with ``#`` is not taken for CoNLL-U.
    """
    if isinstance(head, bytes):
        head = head.decode("utf-8", errors="replace")
    lines = [ln for ln in _NEWLINE_TEXT.split(head.lstrip("\ufeff")) if not is_blank(ln)]
    if not lines:
        return False
    declared = None
    for ln in lines:
        if not ln.startswith("#"):
            fields = ln.split("\t")
            return bool(_CONLLU_ID.fullmatch(fields[0])) and len(fields) == (declared or 10)
        if ln.startswith("# global.columns"):
            names = ln.partition("=")[2].split()
            declared = len(names) or None
    return bool(_CONLLU_COMMENT.match(lines[0]))


def peek_stream(stream, size: int = 1 << 16):
    """The first ``size`` bytes (or characters) of a stream, and a stream that still yields them.

    Parameters
    ----------
    stream : binary or text file object
        E.g. ``sys.stdin.buffer``. A stream with ``peek`` (a buffered reader)
        is peeked and returned as it is; any other is read and wrapped.

    Returns
    -------
    head : bytes or str
        At most ``size`` items (fewer at the end of the input, or from ``peek``).
    stream : file object
        Reads the whole input from its start.
    """
    peek = getattr(stream, "peek", None)
    if peek is not None:
        return peek(size)[:size], stream
    head = stream.read(size)
    return head, _Replay(head, stream)


class _Replay:
    """A read-only stream that returns ``head`` and then the rest of ``stream``."""

    def __init__(self, head, stream):
        self._head, self._stream = head, stream

    def read(self, n: int = -1):
        if self._head:
            out, self._head = self._head, self._head[:0]
            return out
        return self._stream.read(n)


def read_sentences(source, **kwargs) -> list[Sentence]:
    """Read every sentence of a column file into a list.

    Parameters
    ----------
    source : str, os.PathLike or file object
        As for :func:`iter_sentences`.
    **kwargs
        ``sep``, ``encoding`` and ``name``, as for :func:`iter_sentences`.

    Returns
    -------
    list of Sentence

    Raises
    ------
    InputError
        As for :func:`iter_sentences`.
    """
    return list(iter_sentences(source, **kwargs))


def _check_fields(fields: Sequence[str], line: str, sep: str) -> None:
    """Refuse a token line that would not read back as ``fields``."""
    if not fields:
        ok = False
    elif sep == " " or len(fields) == 1:
        # space-separated (a single column is read that way whatever sep is)
        parts = split_columns(line)
        ok = (len(parts) == len(fields) and " ".join(parts) == line and "\n" not in line
              and "\r" not in line and not is_blank(line))
    else:
        ok = (line.count(sep) == len(fields) - 1 and "\n" not in line and "\r" not in line
              and fields[-1] != "" and not is_blank(line))
    if not ok:
        raise ValueError(f"cannot write token {tuple(fields)!r} with separator {sep!r}: a value "
                         "is empty or contains the separator, whitespace or a line break")


def format_sentence(tokens: Sequence[Sequence[str]], sep: str = " ") -> str:
    """Format one sentence as column-file text.

    Parameters
    ----------
    tokens : sequence of sequence of str
        One sequence of column values per token.
    sep : str
        Field separator; ``" "`` (default) or ``"\\t"`` for tab-separated output.

    Returns
    -------
    str
        One line per token, fields joined by ``sep``, each line ending in ``"\\n"``,
        followed by one blank line. An empty sentence gives ``""`` (it could not be
        read back).

    Raises
    ------
    ValueError
        A value is empty or contains a line break or the separator (with
        ``sep=" "``, or for a single column: any whitespace), so the file would
        not read back the same.

    Examples
    --------
    >>> format_sentence([("He", "PRP"), ("runs", "VBZ")])
    'He PRP\\nruns VBZ\\n\\n'
    """
    if not tokens:
        return ""
    lines = []
    for fields in tokens:
        line = sep.join(fields)
        _check_fields(fields, line, sep)
        lines.append(line)
    lines.append("")
    lines.append("")
    return "\n".join(lines)


#: A line of nothing but ASCII whitespace other than line breaks (it would read back as a sentence break).
_BLANK_LINE = re.compile(r"^[ \t\x0b\x0c]+$", re.M)


def _blank_line_in(text: str, sep: str) -> bool:
    """Whether ``text`` has a line of ASCII whitespace only, once the other checks of
    :func:`format_labelled` passed: one can then only start with a vertical tab or form feed, or,
    in tab-separated output, a space; the expression runs only when one of these is there."""
    if "\x0b" not in text and "\x0c" not in text and (sep != "\t" or ("\n " not in text and not text.startswith(" "))):
        return False
    return _BLANK_LINE.search(text) is not None


def format_labelled(sentences: Sequence[Sequence[Sequence[str]]], labels: Sequence[Sequence[str]],
                    sep: str = " ") -> str:
    """Format sentences with one more column, their labels: what :func:`format_sentence` gives for
    each sentence's tokens plus its label, for a whole batch at once.

    Parameters
    ----------
    sentences : sequence of sequences of sequences of str
        Per sentence, one sequence of column values per token.
    labels : sequence of sequences of str
        Per sentence, one label per token.
    sep : str
        ``" "`` or ``"\\t"``.

    Returns
    -------
    str
        The text of every sentence in turn, as :func:`format_sentence` writes it.

    Raises
    ------
    ValueError
        As :func:`format_sentence` does, for the first token that would not read back.

    Notes
    -----
    The batch is joined in one go and then checked as a whole: it reads back as written when it
    holds exactly one line break per token plus one per sentence, one separator per column break,
    no carriage return, no tab in space-separated output, no empty field (two separators in a
    row, or one at a line's start or end) and no line of whitespace only. When a check fails, each
    sentence is formatted and checked on its own, which names the token at fault.
    """
    parts = []
    n_lines = n_seps = 0
    for toks, labs in zip(sentences, labels):
        if not toks:
            continue
        parts.append("\n".join([sep.join(tok) + sep + lab for tok, lab in zip(toks, labs)]))
        parts.append("\n\n")
        n_lines += len(toks) + 1
        n_seps += len(toks) * len(toks[0])
    text = "".join(parts)
    other = "\t" if sep == " " else None
    ok = (text.count("\n") == n_lines and text.count(sep) == n_seps and "\r" not in text
          and (other is None or other not in text) and sep + sep not in text and "\n" + sep not in text
          and sep + "\n" not in text and not text.startswith(sep) and not _blank_line_in(text, sep)
          and all(len(set(map(len, toks))) <= 1 for toks in sentences))
    if ok:
        return text
    return "".join(format_sentence([tuple(tok) + (lab,) for tok, lab in zip(toks, labs)], sep)
                   for toks, labs in zip(sentences, labels))


def write_sentences(sentences: Iterable, dest, *, sep: str = " ", encoding: str = "utf-8") -> int:
    """Write sentences as a column file.

    Parameters
    ----------
    sentences : iterable
        Each item is a :class:`Sentence` or a sequence of token tuples.
    dest : str, os.PathLike or text file object
        A path is written atomically (the file appears complete or not at all);
        a file object (e.g. ``sys.stdout``) is written to directly.
    sep : str
        Field separator (``" "`` or ``"\\t"``).
    encoding : str
        Encoding used when ``dest`` is a path.

    Returns
    -------
    int
        Number of sentences written (empty sentences are skipped).

    Raises
    ------
    ValueError
        As for :func:`format_sentence`; with a path, the destination is then
        left untouched.

    Notes
    -----
    Lines end in ``"\\n"``. Reading the output back with :func:`iter_sentences`
    gives the same tokens, except for values the reader treats specially: a first
    column starting with ``-DOCSTART-`` or ``###MEDLINE:``, or a byte-order mark
    opening the first value of a line.
    """
    if isinstance(dest, (str, os.PathLike)):
        with atomic_open(dest, "w", encoding=encoding, newline="\n") as f:
            return _write_all(sentences, f, sep)
    return _write_all(sentences, dest, sep)


def _write_all(sentences: Iterable, f, sep: str) -> int:
    count = 0
    for sentence in sentences:
        tokens = sentence.tokens if isinstance(sentence, Sentence) else sentence
        text = format_sentence(tokens, sep)
        if text:
            f.write(text)
            count += 1
    return count

