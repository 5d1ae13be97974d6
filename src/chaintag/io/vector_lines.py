"""Lines of text word-vector files (word2vec ``-binary 0``, GloVe, fastText ``.vec``).

A line is a word and its ``dim`` values, separated by single spaces (a tab
is read as a space: files written with one between the word and its values,
or between all fields, are common). Some
public files have words that hold spaces themselves: GloVe's Common Crawl
840B file has ``at name@domain.com`` and ``. . .``. As GloVe's own loaders
read them, the word is then everything before the last ``dim`` fields of the
line, with ``dim`` known from the header line ``N D`` or, without a header,
from the first vector line (whose word is taken to hold no space).

Both readers of vector files (:func:`chaintag.resources.files.read_vectors`
and :func:`chaintag.learners.neural.vectors.read_vectors`) split their lines
here.
"""

from __future__ import annotations

import logging

from chaintag.errors import InputError

__all__ = ["split_vector_line", "log_spaced_words", "VectorLines", "is_number"]

_LOG = logging.getLogger(__name__)


def is_number(field: str) -> bool:
    """Whether a field reads as a float."""
    try:
        float(field)
    except ValueError:
        return False
    return True


def split_vector_line(line: str, dim: int | None) -> tuple[str, list[str], bool]:
    """Split one vector line into its word and its values.

    Parameters
    ----------
    line : str
        The line, without its ending (trailing spaces are ignored).
    dim : int or None
        The dimension of the vectors, when known (from the header or an
        earlier line); None for the first vector line of a file without a
        header.

    Returns
    -------
    word : str
        The first field, or, when the line has more than ``dim + 1`` fields
        and the extra leading ones are not all numbers, the leading fields
        joined by a space (a word holding spaces).
    values : list of str
        The remaining fields, not converted. Their number differs from
        ``dim`` for a malformed line (too few values, or extra fields that
        are all numbers: a line with too many values, not a word with
        spaces); the caller reports it with the file and line.
    spaced : bool
        Whether the word holds spaces.

    Examples
    --------
    >>> split_vector_line(". . . 0.4 0.0 0.1", 3)
    ('. . .', ['0.4', '0.0', '0.1'], True)
    >>> split_vector_line("cat 0 1 2", 2)
    ('cat', ['0', '1', '2'], False)
    """
    fields = line.rstrip(" ").split(" ")
    if dim is None or dim < 1 or len(fields) <= dim + 1:
        return fields[0], fields[1:], False
    head = fields[:-dim]
    if all(is_number(f) for f in head[1:]):
        return fields[0], fields[1:], False
    return " ".join(head), fields[-dim:], True


def log_spaced_words(path, count: int, example: str | None) -> None:
    """Log (logger ``chaintag.io.vector_lines``, level INFO) how many words of a vector file hold spaces."""
    if count:
        _LOG.info("%s: %d word%s with spaces (e.g. %r), each read as the fields before the last values",
                  path, count, "" if count == 1 else "s", example)


class VectorLines:
    """The words and value fields of a vector file's lines, for both readers of vector files.

    Iterating yields ``(line number, word, values, first)`` for every vector line (``values``: the
    fields, not converted; ``first``: the line that fixed the dimension). A first line ``N D`` is
    the header (``header``: ``(N, D)``); the dimension (``dim``) is the header's, else the first
    vector line's number of values. Words holding spaces are split as :func:`split_vector_line`
    does, counted, and logged once the lines are read (:func:`log_spaced_words`).

    Parameters
    ----------
    lines : iterable of (int, str)
        Numbered lines, as :func:`chaintag.io.text_lines.numbered_lines` gives them.
    path : str
        The file, for the log line.
    """

    def __init__(self, lines, path):
        self.lines, self.path = lines, path
        self.header: tuple[int, int] | None = None
        self.dim: int | None = None

    def __iter__(self):
        spaced, example = 0, None
        for lineno, line in self.lines:
            if not line.strip():
                continue
            line = line.replace("\t", " ")  # a tab separates fields as a space does (words hold no tab)
            fields = line.rstrip(" ").split(" ")
            if lineno == 1 and len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
                self.header = (int(fields[0]), int(fields[1]))
                self.dim = self.header[1]
                continue
            word, values, has_space = split_vector_line(line, self.dim)
            if word == "" or (word[0] == " " and word.strip()):  # " 0.1 0.2", " cat 0.1 0.2" (a word all of
                # spaces, "  0.1 0.2" once the dimension is known, is a word of GloVe's Common Crawl files)
                raise InputError("the line starts with a space before its word" if word.strip() else
                                 "the line's word is empty (it starts with a space)", self.path, lineno)
            if has_space:
                spaced += 1
                example = example or word
            first = self.dim is None
            if first:
                self.dim = len(values)
            yield lineno, word, values, first
        log_spaced_words(self.path, spaced, example)
