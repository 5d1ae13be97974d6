"""Lines of text word-vector files (word2vec ``-binary 0``, GloVe, fastText ``.vec``).

A line is a word and its ``dim`` values, separated by single spaces. Some
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

__all__ = ["split_vector_line", "log_spaced_words"]

_LOG = logging.getLogger(__name__)


def _is_number(field: str) -> bool:
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
    if all(_is_number(f) for f in head[1:]):
        return fields[0], fields[1:], False
    return " ".join(head), fields[-dim:], True


def log_spaced_words(path, count: int, example: str | None) -> None:
    """Log (logger ``chaintag.io.vector_lines``, level INFO) how many words of a vector file hold spaces."""
    if count:
        _LOG.info("%s: %d word%s with spaces (e.g. %r), each read as the fields before the last values",
                  path, count, "" if count == 1 else "s", example)
