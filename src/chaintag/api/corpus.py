"""Corpus loading with the columns derived from whole documents."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..data.datasets import Corpus
from ..data.datasets import load_corpus as _read_corpus
from ..features.document import with_document_columns

__all__ = ["load_corpus"]


def load_corpus(source, *, columns: str | Sequence[str] | None = None,
                data_dir: str | os.PathLike | None = None, label_field: str = "xpos",
                sep: str | None = None, encoding: str = "utf-8", labelled: bool = True,
                format: str | None = None, document_columns: bool = False) -> Corpus:
    """Read a whole corpus into memory, optionally with its document columns.

    Parameters
    ----------
    source, columns, data_dir, label_field, sep, encoding, labelled, format
        As :func:`chaintag.data.datasets.load_corpus`.
    document_columns : bool, default False
        Append the document columns ``abbr``, ``docnext``, ``doccap``
        (:mod:`chaintag.features.document`) to every token, computed from the
        words of its document (``Corpus.documents``). Models whose templates
        read them need them; ``chaintag train``, ``tag`` and ``evaluate`` add
        them by themselves.

    Returns
    -------
    Corpus
        The sentences, their labels (when ``labelled``) and document indices.

    Raises
    ------
    chaintag.errors.InputError
        As :func:`chaintag.data.datasets.load_corpus`, naming the file and line.
    """
    corpus = _read_corpus(source, columns=columns, data_dir=data_dir, label_field=label_field, sep=sep,
                          encoding=encoding, labelled=labelled, format=format)
    if document_columns:
        with_document_columns(corpus)
    return corpus
