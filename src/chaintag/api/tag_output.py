"""The text that replaces a batch of input sentences in tagged output: columns, JSON lines, CoNLL-U, text.

One function formats every kind of batch (:func:`format_batch`), with or
without constrained decoding and fixed labels, so that the process, worker
and Dask writers (:mod:`chaintag.api.tag_writers`, :mod:`chaintag.api.tag_dask`)
all write the same bytes.
"""

from __future__ import annotations

import io
import json

from ..errors import InputError

__all__ = ["FREE", "format_batch", "check_partial_sentence"]

#: A partial-label cell that leaves the token free.
FREE = ("_", "")


def check_partial_sentence(model, tokens, name: str, line: int | None) -> None:
    """Check one sentence's partial-label column before tagging, naming the file and line.

    Parameters
    ----------
    model : SequenceTagger
        A fitted first-order model.
    tokens : list of tuple of str
        The sentence's tokens, the fixed label (or ``_``) in the last column.
    name : str
        The input's name, for messages.
    line : int or None
        The sentence's first line in the input.

    Raises
    ------
    InputError
        For a sentence without a column after the model's feature columns, or
        a fixed label the model does not have (``NAME:LINE: ...``).
    """
    n = len(model.columns_)
    where = name if line is None else f"{name}:{line}"
    if len(tokens[0]) <= n:
        raise InputError(f"{where}: --partial: the input has {len(tokens[0])} column(s); the fixed labels go in "
                         f"a column after the model's {n} feature column(s) ({', '.join(model.columns_)})")
    known = set(model.labels_)
    for i, tok in enumerate(tokens):
        if tok[-1] not in FREE and tok[-1] not in known:
            at = name if line is None else f"{name}:{line + i}"
            raise InputError(f"{at}: --partial: the model has no label {tok[-1]!r} (give one of its "
                             f"{len(known)} labels, or _ to leave the token free)")


class Batch(list):
    """The sentences of one batch, with the input's name and each sentence's first line (None where
    unknown), so that an error found while tagging the batch names the file and line."""

    def __init__(self, name=None):
        super().__init__()
        self.name = name
        self.lines: list = []

    def add(self, tokens, line) -> None:
        self.append(tokens)
        self.lines.append(line)


def _located(exc: InputError, batch) -> InputError:
    """An error about sentence ``exc.sentence`` of ``batch`` (the constrained search's "no label sequence
    satisfies the fixed labels"), named by the input's file and line instead of the batch's index."""
    s = getattr(exc, "sentence", None)
    lines = getattr(batch, "lines", None)
    if s is None or not lines or s >= len(lines) or lines[s] is None:
        return exc
    text = exc.message.split(": ", 1)[1] if exc.message.startswith("sentence ") else exc.message
    return InputError(f"--partial: {text}", batch.name, lines[s])


def _fixed(model, batch):
    n = len(model.columns_)
    out = []
    for sent in batch:
        if len(sent[0]) <= n:
            raise InputError(f"--partial: the input has {len(sent[0])} column(s); the fixed labels go in a "
                             f"column after the model's {n} feature column(s) ({', '.join(model.columns_)})")
        out.append([None if tok[-1] in FREE else tok[-1] for tok in sent])
    return out


def _pick(batch, picker, model=None):
    """The columns the model reads, in its order, of every token of ``batch`` (``picker`` None: all).

    When they are the first columns of the input and ``model`` reads no document columns,
    ``batch`` is returned as it is: a model reads its columns by position, and wider tokens
    are accepted (:func:`chaintag.learners.tokens.as_rows`).
    """
    if picker is None:
        return batch
    if model is not None and picker == list(range(len(picker))):
        from ..features.document import model_document_columns
        if not model_document_columns(model):
            return batch
    from operator import itemgetter
    get = itemgetter(*picker)
    if len(picker) == 1:
        return [[(get(tok),) for tok in s] for s in batch]
    return [list(map(get, s)) for s in batch]


def format_batch(model, kind: str, batch, picker, sep, options: dict) -> str:
    """Tag ``batch`` with ``model`` and return its output text.

    Parameters
    ----------
    model : SequenceTagger
    kind : {"columns", "conllu", "text"}
        ``text``: ``batch`` holds sentences as lists of column tuples (empty
        ones allowed), written one tagged sentence per line (``word/label``).
        ``columns``: ``batch`` holds sentences as lists of column tuples,
        written back with the predicted label (and ``options``' extra
        column) or as JSON lines for ``nbest``. ``conllu``: ``batch`` holds
        :class:`~chaintag.io.conllu_io.ConlluBlock` objects, written back
        with the labels in ``options["label_field"]``.
    picker : list of int or None
        Columns the model reads from the input, in its order (None: all, as they are). A model
        with document columns (:mod:`chaintag.features.document`) gets them computed on the
        batch, which is then one whole document.
    sep : str
        Column separator of the output.
    options : dict
        ``nbest``, ``confidence``, ``marginals`` (K, K, bool), ``constrain``
        (False, True or a scheme name), ``partial`` (bool: the last input
        column fixes labels) and ``label_field``.

    Returns
    -------
    str
        The output text of the batch, ending with a newline.

    Raises
    ------
    InputError
        For a partially labelled sentence without its label column.
    """
    out = io.StringIO()
    from ..features.document import model_rows  # a model with document columns: the batch is one document
    if kind == "conllu":
        from ..io.conllu_io import format_conllu_block
        labels = iter(model.predict(model_rows(model, [b.sentence.tokens for b in batch if b.sentence.tokens])))
        for block in batch:
            out.write(format_conllu_block(block, next(labels) if block.sentence.tokens else [],
                                          options["label_field"]))
        return out.getvalue()
    rows = model_rows(model, _pick(batch, picker, model))
    if kind == "text":  # one tagged sentence per line (an empty sentence: an empty line)
        from ..io.plain_text import format_tagged_line
        labels = iter(model.predict([r for r in rows if r]))
        for toks, row in zip(batch, rows):
            out.write(format_tagged_line([t[0] for t in toks], next(labels)) if row else "\n")
        return out.getvalue()
    kw = {}
    if options.get("constrain") or options.get("partial"):
        kw = {"constrain": options.get("constrain") or False,
              "fixed": _fixed(model, batch) if options.get("partial") else None}
        try:
            return _format_columns(model, batch, rows, sep, options, kw)
        except InputError as exc:  # a sentence no label sequence fits: named by its file and line
            raise _located(exc, batch) from None
    return _format_columns(model, batch, rows, sep, options, kw)


def _format_columns(model, batch, rows, sep, options: dict, kw: dict) -> str:
    """The column (or n-best JSON) output of a batch, decoded with ``kw`` (constrain, fixed)."""
    from ..io.columns import format_sentence
    out = io.StringIO()
    if options.get("nbest"):
        for toks, cands in zip(batch, model.predict_nbest(rows, options["nbest"], **kw)):
            out.write(json.dumps({"tokens": [list(t) for t in toks],
                                  "nbest": [{"labels": labs, "score": score, "probability": prob}
                                            for labs, score, prob in cands]}, ensure_ascii=False))
            out.write("\n")
    elif options.get("marginals"):
        labels = model.predict(rows, **kw)
        index = {lab: j for j, lab in enumerate(model.labels_)}
        for toks, labs, marg in zip(batch, labels, model.predict_marginals(rows, **kw)):
            out.write(format_sentence([tok + (lab, f"{marg[i, index[lab]]:.4f}")
                                       for i, (tok, lab) in enumerate(zip(toks, labs))], sep))
    elif options.get("confidence"):
        labels, conf = model.predict_confidence(rows, options["confidence"], **kw)
        for toks, labs, cs in zip(batch, labels, conf):
            out.write(format_sentence([tok + (lab, f"{c:.4f}") for tok, lab, c in zip(toks, labs, cs)], sep))
    else:
        from ..io.columns import format_labelled
        out.write(format_labelled(batch, model.predict(rows, **kw), sep))
    return out.getvalue()
