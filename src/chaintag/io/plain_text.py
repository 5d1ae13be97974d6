"""Plain text for tagging: one sentence per line, tokens separated by spaces.

Tokens are separated by runs of ASCII spaces and tabs only (as columns are in
column files, :func:`chaintag.io.columns.split_columns`); other Unicode spaces
stay inside their tokens. A line holding nothing but ASCII whitespace is an
empty sentence, kept so that the output has one line per input line.
"""

from __future__ import annotations

from collections.abc import Iterator

from chaintag.io.columns import Sentence, is_blank, iter_lines, source_name, split_columns

__all__ = ["iter_text_sentences", "format_tagged_line"]


def iter_text_sentences(source, *, encoding: str = "utf-8", name: str | None = None) -> Iterator[Sentence]:
    """Read plain text, one sentence per line, lazily.

    Parameters
    ----------
    source : str, os.PathLike or file object
        A path, or an open binary or text file object such as ``sys.stdin``.
    encoding : str
        Encoding of the input (ASCII-compatible).
    name : str, optional
        Name of the input in error messages.

    Yields
    ------
    Sentence
        One per input line, in order: its tokens as one-column tuples
        ``(word,)``, and its line number. A blank line gives a sentence
        without tokens.

    Raises
    ------
    InputError
        A line is not valid in ``encoding`` or the file cannot be opened.

    Examples
    --------
    >>> import io
    >>> [s.tokens for s in iter_text_sentences(io.StringIO("The cat .\\n\\nA dog\\n"))]
    [[('The',), ('cat',), ('.',)], [], [('A',), ('dog',)]]
    """
    name = source_name(source, name)
    for lineno, line in enumerate(iter_lines(source, encoding=encoding, name=name), 1):
        yield Sentence([] if is_blank(line) else [(w,) for w in split_columns(line)], lineno)


def format_tagged_line(words, labels, sep: str = "/") -> str:
    """One tagged sentence on one line: ``word/label`` pairs separated by single spaces.

    Parameters
    ----------
    words, labels : sequences of str of the same length
    sep : str
        What joins a word and its label (default ``/``, as in the Penn
        Treebank's tagged text).

    Returns
    -------
    str
        The line, ending in ``"\\n"`` (just ``"\\n"`` for an empty sentence).

    Examples
    --------
    >>> format_tagged_line(["The", "cat"], ["DT", "NN"])
    'The/DT cat/NN\\n'
    """
    return " ".join(f"{w}{sep}{lab}" for w, lab in zip(words, labels)) + "\n"
