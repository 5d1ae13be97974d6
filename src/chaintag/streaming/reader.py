"""A labelled corpus read in chunks of sentences (the feature columns and labels of each chunk only)."""

from __future__ import annotations

import os


def iter_chunks(source, chunk_sentences: int, *, columns=None, data_dir=None, label_field: str = "xpos",
                sep=None, encoding: str = "utf-8"):
    """Yield the sentences of a labelled file in chunks, as :func:`chaintag.load_corpus` reads them.

    Parameters
    ----------
    source : str or os.PathLike
        Path or dataset reference (not standard input: the file is read more than once).
    chunk_sentences : int
        Sentences per chunk.
    columns, data_dir, label_field, sep, encoding
        As for :func:`chaintag.load_corpus`.

    Yields
    ------
    names : tuple of str
        Names of the feature columns.
    tokens : list of list of tuple of str
        The chunk's sentences (feature columns only).
    labels : list of list of str

    Raises
    ------
    chaintag.errors.InputError
        As :func:`chaintag.load_corpus` does (bad columns, missing labels), naming file and line.
    """
    from ..data.datasets import IGNORE, LABEL, _spec_names, parse_columns, resolve
    from ..errors import InputError
    from ..io.columns import iter_sentences
    from ..io.conllu_io import iter_conllu
    if isinstance(source, str) and source == "-":
        raise InputError("streamed training reads its file more than once: give a file, not standard input")
    found = resolve(source, data_dir)
    name = os.fspath(found.path)
    spec = columns if columns is not None else found.columns
    if found.format == "conllu":
        sentences = iter_conllu(found.path, label_field=label_field, encoding=encoding, name=name)
    else:
        sentences = iter_sentences(found.path, sep=sep if sep is not None else found.sep, encoding=encoding,
                                   name=name)
    feature_idx, label_index, names = None, None, ()
    if spec is not None:
        names = tuple(n for n in _spec_names(spec) if n not in (LABEL, IGNORE))
    tokens, labels = [], []
    for sentence in sentences:
        rows = sentence.tokens
        if feature_idx is None:
            cols, label_index = parse_columns(spec, len(rows[0]), labelled=True, path=name, line=sentence.line)
            feature_idx = [i for i, n in enumerate(cols) if n is not None]
            names = tuple(cols[i] for i in feature_idx)
        tokens.append([tuple(row[i] for i in feature_idx) for row in rows])
        labels.append([row[label_index] for row in rows])
        if len(tokens) >= chunk_sentences:
            yield names, tokens, labels
            tokens, labels = [], []
    if tokens:
        yield names, tokens, labels
