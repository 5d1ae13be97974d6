"""Lines of text files as editors write them: byte-order marks and CRLF endings removed.

Every reader of a line-oriented file (column files, CoNLL-U, templates, word
vectors, cluster paths, gazetteers, unlabeled text, plain text) cleans its
lines here, so that they all accept the same files:

- the line ending is removed: LF, CRLF, and the CR of a CRLF split off by a
  reader that breaks lines at LF only;
- a UTF-8 byte-order mark (U+FEFF) is removed at the start of the file *and*
  at the start of any line, where files saved by a Windows editor were joined
  with ``cat``. Past the first line, a U+FEFF that stands alone as the line's
  first value (followed by a space, a tab or the end of the line) is kept: it
  is then a token (a zero-width no-break space), as is a U+FEFF anywhere
  else in a line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from chaintag.errors import InputError

__all__ = ["BOM", "strip_bom", "clean_line", "numbered_lines", "refuse_zip"]

#: The byte-order mark as a character (UTF-8 bytes EF BB BF).
BOM = "\ufeff"
#: Signatures that open a zip file (a chaintag model file, ``.npz``, is one).
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
#: The signature that opens a gzip file (``.txt.gz``, ``.vec.gz``).
GZIP_MAGIC = b"\x1f\x8b"


#: Byte-order marks of the encodings whose lines cannot be split at a newline byte (UTF-32 first: its
#: little-endian mark begins with UTF-16's).
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
              (b"\xfe\xff", "UTF-16"))


def _refuse_wide(first: bytes, name: str, encoding: str | None) -> None:
    """Refuse UTF-16 or UTF-32 text (see :func:`refuse_zip`); their byte-order marks are only read as such
    in input read as UTF-8 (in Latin-1, ``b"\\xfe\\xff"`` is the text ``þÿ``)."""
    if encoding is None:
        utf8 = True
    else:
        import codecs
        try:
            utf8 = codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")
        except LookupError:  # refused where the encoding is read
            utf8 = False
    wide = next((enc for bom, enc in _WIDE_BOMS if first.startswith(bom)), None) if utf8 else None
    if wide is not None or b"\x00" in first:
        what = (f"{wide} text (it starts with a {wide} byte-order mark)" if wide else
                "NUL bytes, as UTF-16 or UTF-32 text has (or a binary file)")
        raise InputError(f"this file holds {what}; chaintag reads UTF-8 or another ASCII-compatible "
                         f"encoding: convert it first, e.g. iconv -f {wide or 'UTF-16'} -t UTF-8 FILE > FILE.utf8",
                         name, 1)


def refuse_zip(first: bytes, name: str, encoding: str | None = None) -> None:
    """Refuse a zip file (a chaintag model file above all) given where text is read.

    Parameters
    ----------
    first : bytes
        The first bytes (the first raw line) of the input.
    name : str
        The input's name: a path, or ``"<stdin>"``.
    encoding : str, optional
        The encoding the input is read in (None: UTF-8).

    Raises
    ------
    chaintag.errors.InputError
        When ``first`` opens a zip file: "this is a chaintag model file (npz);
        use --model" when the zip holds a model's ``__meta__.npy`` entry, else
        "this is a zip file, not text"; and when it opens UTF-16 or UTF-32 text
        (a byte-order mark of theirs, or NUL bytes, which text in an
        ASCII-compatible encoding never holds), naming how to convert it;
        and when it opens a gzip file, naming how to decompress it.
        Nothing is raised for other input.
    """
    if first.startswith(GZIP_MAGIC):
        raise InputError("this file is gzip-compressed; chaintag reads text: decompress it first "
                         "(gunzip -k FILE)", name)
    if not first.startswith(ZIP_MAGIC):
        _refuse_wide(first, name, encoding)
        return
    model = b"__meta__.npy" in first[:200]
    if not model and os.path.isfile(name):
        import zipfile
        try:
            with zipfile.ZipFile(name) as zf:
                model = "__meta__.npy" in zf.namelist()
        except (OSError, zipfile.BadZipFile):
            pass
    if model:
        raise InputError("this is a chaintag model file (npz), not text; use --model to give a model (tag "
                         "--model M FILE, eval --model M --test FILE; train's --model is where it saves one); "
                         "data is a text file of sentences", name)
    raise InputError("this is a zip file, not text (a model file? a model is given with --model); data is a "
                     "text file of sentences", name)


def strip_bom(line: str, first: bool = False) -> str:
    """``line`` without the byte-order marks that open it (see the module notes).

    Parameters
    ----------
    line : str
        One line, without its ending.
    first : bool, default False
        Whether it is the first line of the file: its marks are always removed.

    Returns
    -------
    str
        ``line`` less its leading run of U+FEFF, unless (past the first line)
        the run is followed by ASCII whitespace or nothing, i.e. is a value.
    """
    if not line.startswith(BOM):
        return line
    rest = line.lstrip(BOM)
    if first or (rest and rest[0] not in " \t\x0b\x0c"):
        return rest
    return line


def clean_line(line: str, first: bool = False) -> str:
    """A line without its ending and without the byte-order marks that open it.

    Parameters
    ----------
    line : str
        One line as read, with or without ``"\\n"``, ``"\\r\\n"`` or ``"\\r"``.
    first : bool, default False
        Whether it is the first line of the file (see :func:`strip_bom`).

    Returns
    -------
    str
        ``line`` with one line ending removed from its end and the U+FEFF
        marks removed from its start by :func:`strip_bom`.

    Examples
    --------
    >>> clean_line("\\ufeffHe 0.3 0.1\\r\\n")
    'He 0.3 0.1'
    >>> clean_line("a\\ufeffb\\n")
    'a\\ufeffb'
    """
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    return strip_bom(line, first)


def numbered_lines(path, *, encoding: str = "utf-8", what: str = "file") -> Iterator[tuple[int, str]]:
    """Yield ``(line number, cleaned line)`` for each line of a text file.

    Parameters
    ----------
    path : str or os.PathLike
        The file; read in binary and decoded line by line, so that a bad byte
        is reported with its line.
    encoding : str, default "utf-8"
        Encoding of the file (ASCII-compatible).
    what : str, default "file"
        What the file is, for the message when it cannot be opened
        (``"cannot read the gazetteer list: ..."``).

    Yields
    ------
    lineno : int
        1-based line number.
    line : str
        The line cleaned by :func:`clean_line`. Lines end at LF (and CRLF);
        a final line without an ending is yielded.

    Raises
    ------
    chaintag.errors.InputError
        The file cannot be opened or read, or a line is not valid in
        ``encoding``; the message names the file (and the line).
    """
    name = os.fspath(path)
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror or exc}", name) from None
    with fh:
        lineno = 0
        try:
            for raw in fh:
                lineno += 1
                if lineno == 1:
                    refuse_zip(raw, name, encoding)
                try:
                    text = raw.decode(encoding)
                except UnicodeDecodeError as exc:
                    raise InputError(f"not valid {_display(encoding)} text ({exc.reason} at byte {exc.start + 1} "
                                     "of the line)", name, lineno) from None
                yield lineno, clean_line(text, lineno == 1)
        except OSError as exc:
            raise InputError(f"cannot read the {what}: {exc.strerror or exc}", name, lineno or None) from None


def _display(encoding: str) -> str:
    return "UTF-8" if encoding.lower().replace("_", "-") in ("utf-8", "utf8", "utf-8-sig") else encoding
