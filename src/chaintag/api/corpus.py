"""Corpus loading with the columns derived from whole documents."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..data.datasets import Corpus
from ..data.datasets import load_corpus as _read_corpus

__all__ = ["load_corpus", "load_source", "sep_value"]


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
        from ..features.document import with_document_columns
        with_document_columns(corpus)
    return corpus


def sep_value(sep: str | None) -> str | None:
    """The reader's separator for a ``--sep`` value (``tab``, ``space``, ``\\t``, or as it is)."""
    if sep is None:
        return None
    return {"tab": "\t", "\\t": "\t", "space": " "}.get(sep, sep)


def load_source(source: str, options, labelled: bool = True, columns=None, log=None) -> Corpus:
    """Load a corpus with the input-data settings of ``options`` (``columns``, ``data_dir``,
    ``label_field``, ``sep``, ``encoding``, ``format``: the ``chaintag train`` options).

    Parameters
    ----------
    source : str
        A path or a dataset reference.
    options : object
        Has the attributes above (``sep`` as ``--sep`` gives it).
    labelled : bool
    columns : str, optional
        Overrides ``options.columns``.
    log : callable, optional
        Gets the warnings about labels with control characters (naming file, line and label).

    Returns
    -------
    Corpus
    """
    from ..data.label_check import describe_control_labels
    corpus = _read_corpus(source, columns=columns if columns is not None else options.columns,
                          data_dir=options.data_dir, label_field=options.label_field or "xpos",
                          sep=sep_value(options.sep), encoding=options.encoding, labelled=labelled,
                          format=getattr(options, "format", None))
    if corpus.labels and log is not None:  # labels with control characters (NUL, ...)
        for warning in describe_control_labels(corpus, corpus.source or source):
            log(warning)
    return corpus


def require_tokens(labels, what: str, name: str | None = None) -> None:
    """Refuse labelled data with no token before it is scored: a score of no token (accuracy 0.00 %) would
    read as a real, very bad one.

    Parameters
    ----------
    labels : list of list of str
        The data's label sequences.
    what : str
        What the data is, for the message (``"test data"``, ``"the file"``).
    name : str, optional
        The file's name.

    Raises
    ------
    chaintag.errors.InputError
    """
    if not any(labels):
        from ..errors import InputError
        raise InputError(f"no token to score: {what} is empty or holds blank lines only", name)
