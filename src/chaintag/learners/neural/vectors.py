"""Pretrained word vectors in the text format of word2vec, GloVe and fastText."""

from __future__ import annotations

import os

import numpy as np

from ...errors import InputError
from ...io.text_lines import numbered_lines
from ...io.vector_lines import VectorLines, is_number


def read_vectors(path, encoding: str = "utf-8") -> tuple[list[str], np.ndarray]:
    """Read a text file of word vectors: one word and its values per line, separated by spaces.

    The word2vec and fastText ``.vec`` files start with a header line
    ``n_words dim``, GloVe files have none; both are read. The header, else
    the first word line, fixes the dimension; a line with more fields takes
    the leading ones as its word (GloVe 840B's ``at name@domain.com``; see
    :mod:`chaintag.io.vector_lines`). A word given twice keeps its first
    vector. A byte-order mark (at the start of the file or of any line) and
    CRLF endings are dropped.

    Parameters
    ----------
    path : str or os.PathLike
    encoding : str, default "utf-8"

    Returns
    -------
    words : list of str
    vectors : float32 array, shape (len(words), dim)

    Raises
    ------
    InputError
        Naming the file and line: a line with another number of values than
        the first, a value that is not a finite number, a header that does not
        match the file, undecodable text, or no vectors at all.
    FileNotFoundError
        If ``path`` does not exist.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such vectors file")
    words: list[str] = []
    rows: list[np.ndarray] = []
    seen: set[str] = set()
    lines = VectorLines(numbered_lines(path, encoding=encoding, what="vectors file"), path)
    for lineno, word, values, _ in lines:
        if not values:
            raise InputError("expected a word followed by its vector values", path, lineno)
        dim = lines.dim
        if len(values) != dim:
            raise InputError(f"{len(values)} values on this line, but the vectors have dimension {dim}",
                             path, lineno)
        try:
            vec = np.array(values, dtype=np.float32)
        except ValueError:
            bad = next(v for v in values if not is_number(v))
            raise InputError(f"the value {bad!r} of word {word!r} is not a number", path, lineno) from None
        if not np.all(np.isfinite(vec)):
            raise InputError(f"word {word!r} has a value that is not finite", path, lineno)
        if word in seen:
            continue
        seen.add(word)
        words.append(word)
        rows.append(vec)
    if not words:
        raise InputError("no word vectors in the file", path)
    header = lines.header
    if header is not None and header[0] != len(words) and header[0] < len(words):
        raise InputError(f"the header announces {header[0]} words but the file has {len(words)}", path, 1)
    return words, np.vstack(rows)



#: Version of :func:`read_vectors` (it keys the cached copies of :func:`load_vectors`): raise it when the
#: same bytes would give other words or values.
READER_VERSION = 1


def load_vectors(path) -> tuple[list[str], np.ndarray]:
    """:func:`read_vectors` of a file, parsed once per file content and then read from the user's cache.

    The cache (:mod:`chaintag.resources.store`, keyed by the file's sha256 and :data:`READER_VERSION`)
    gives back the words and float32 values the reader gives, so a network trained with it is the
    network trained without it. GloVe 6B 50d: about 11 s to parse, under a second from the cache.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    words : list of str
    vectors : float32 array, shape (len(words), dim)

    Raises
    ------
    InputError, FileNotFoundError
        As :func:`read_vectors`.
    """
    if not os.path.exists(os.fspath(path)):
        raise FileNotFoundError(f"{os.fspath(path)}: no such vectors file")
    from ...resources.cached import cached_read
    return cached_read(path, "neural vectors", READER_VERSION, read_vectors)
