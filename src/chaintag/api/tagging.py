"""Tagging files and streams with a saved model: batches, document markers, writers, atomic output.

:func:`tag_file` is what ``chaintag tag`` does; :func:`tag_stream` tags
sentences already read and writes into an open text file. Both stream:
memory stays flat however large the input.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable

from ..errors import InputError
from .tag_input import (check_text_options, explained, feature_picker, looks_like_text,
                        open_sentences)
from .tag_constraints import constraint_options
from .tag_output import check_partial_sentence

__all__ = ["MAX_K", "tag_file", "tag_stream"]

#: Largest K of ``nbest`` / ``confidence`` (the search keeps K paths per sentence).
MAX_K = 10000


def tag_stream(model, sentences: Iterable, out, *, kind: str = "columns", options: dict | None = None,
               columns: str | None = None, sep: str | dict = " ", input_format: str = "columns",
               batch_size: int = 2000, name: str = "<input>",
               writer=None, progress: Callable[[int], None] | None = None,
               warn: Callable[[str], None] | None = None) -> int:
    """Tag sentences in batches and write the output, in input order, into ``out``.

    Parameters
    ----------
    model : SequenceTagger, str or os.PathLike
        A fitted model, or its file (or a known model's name).
    sentences : iterable
        Sentences as lists of tokens (strings, or tuples of column strings), or
        :class:`~chaintag.io.columns.Sentence` objects (``tokens``: tuples of columns; ``marker``:
        a document-marker line, copied through; ``line``: for messages), e.g. from
        :func:`chaintag.io.columns.iter_sentences` with ``markers=True``; or, with
        ``kind="conllu"``, :class:`~chaintag.io.conllu_io.ConlluBlock` objects.
    out : text file
        Where the output goes.
    kind : {"columns", "text", "conllu"}
        Output of :func:`chaintag.api.tag_output.format_batch`.
    options : dict, optional
        ``nbest``, ``confidence``, ``marginals``, ``constrain``, ``partial``, ``label_field``.
    columns : str, optional
        The input's column roles (``word,pos,_``); default: the model's columns come first.
    sep : str or dict
        The output's column separator, or a dict whose ``"sep"`` is filled while reading
        (the reader's ``info``): the output keeps the input's separator.
    input_format : str
        The input's format; a one-column model given a column file whose lines look like
        free text gets a warning.
    batch_size : int
        Sentences per batch (a model with document columns takes one document per batch).
    name : str
        The input's name in messages.
    writer : OrderedWriter or DaskOrderedWriter, optional
        Default: formatting in this process.
    progress : callable, optional
        Called with 1 for every sentence (or document marker) read.
    warn : callable, optional
        Called with a warning's text (default: none printed).

    Returns
    -------
    int
        The number of sentences tagged (document markers and empty lines not counted).

    Raises
    ------
    chaintag.errors.InputError
        For input the model cannot read, naming ``name`` and the line.
    """
    from ..features.document import model_document_columns
    from ..learners import as_model
    from .tag_writers import OrderedWriter
    model = as_model(model)
    if kind != "conllu":
        # Python tokens are checked against what the output can hold: the columns' separator, or (text
        # output: word/label between spaces) a space
        sentences = _as_sentences(sentences, (sep.get("sep", " ") if isinstance(sep, dict) else sep)
                                  if kind == "columns" else "text")
    options = dict(options or {})
    own = writer is None
    if own:
        writer = OrderedWriter(out, model, "", 1, options)
    # a model with document columns is given one whole document per batch (markers end a batch)
    whole_documents = bool(model_document_columns(model))
    with writer if own else contextlib.nullcontext(writer):
        if kind == "conllu":
            return _tag_blocks(model, sentences, writer, columns, name, batch_size, whole_documents, progress)
        return _tag_sentences(model, sentences, writer, kind, options, columns, sep, input_format, batch_size,
                              name, whole_documents, progress, warn)


def tag_file(model, source="-", output="-", *, model_path=None, format: str | None = None,
             output_format: str | None = None, sep: str | None = None, columns: str | None = None,
             encoding: str = "utf-8", data_dir=None, nbest: int | None = None, confidence: int | None = None,
             marginals: bool = False, constrain: bool = False, scheme: str | None = None, partial: bool = False,
             label_field: str | None = None, batch_size: int = 2000, jobs: int = 1, workers: int | None = None,
             scheduler: str | None = None, progress: Callable[[int], None] | None = None,
             warn: Callable[[str], None] | None = None, lang: str | None = None, pos_model=None) -> int:
    """Tag a file, a dataset split or standard input with a model, as ``chaintag tag`` does.

    Parameters
    ----------
    model : SequenceTagger, str or os.PathLike
        A fitted model, or its file, or a model's name (``"en-pos"``; see :func:`chaintag.load`).
    source : str or os.PathLike
        A column file, CoNLL-U file, plain text (``format="text"``), dataset reference, or ``-`` (stdin).
    output : str or os.PathLike
        The output file, written atomically, or ``-`` for stdout.
    model_path : str, optional
        The model's file when ``model`` is an object (needed by ``jobs > 1`` and Dask workers).
    format, output_format : str, optional
        Input format (``columns``, ``conllu``, ``text``, or raw text: ``raw``, ``pretokenized``) and
        output format (``columns``, ``conllu``, ``text``; for raw text also ``spans``, the default,
        and ``conll``: see :func:`chaintag.api.text_tagging.tag_text_file`); see ``chaintag tag --help``.
    sep, columns, encoding, data_dir
        How to read the input (``sep``: ``"\\t"`` or ``" "``, default detected).
    nbest, confidence, marginals
        At most one: the K best sequences as JSON lines, each token's label probability from
        the top K, or its forward-backward marginal, as an extra column. ``1 <= K <= MAX_K``.
    constrain, scheme, partial
        Constrained decoding under the chunk scheme (detected, or ``scheme``), and fixed labels
        from the input's last column (``_``: free).
    label_field : {"xpos", "upos"}, optional
        The CoNLL-U column written (default: the one the model was trained on, else xpos).
    batch_size, jobs, workers, scheduler
        Sentences per batch; processes of this machine; or a Dask cluster.
    progress, warn
        As for :func:`tag_stream`.
    lang : {"en", "es", "nl", "de"}, optional
        The tokenizer's conventions for ``format="raw"`` (default English); refused with other formats.
    pos_model : SequenceTagger, str or os.PathLike, optional
        For raw or pretokenized text and a model that reads words and POS tags (a chunker): the model
        that gives the tags (``"en-pos"``); refused with other formats, whose files hold the tags.

    Returns
    -------
    int
        The number of sentences tagged.

    Raises
    ------
    chaintag.errors.InputError
        For bad options, or input the model cannot read (naming the file and line).
    """
    from .text_tagging import TEXT_FORMATS, TEXT_OUTPUTS
    if format in TEXT_FORMATS:
        refused = [opt for opt, v in (("--nbest", nbest), ("--confidence", confidence), ("--marginals", marginals),
                                      ("--partial", partial), ("--columns", columns), ("--sep", sep),
                                      ("--jobs", jobs > 1), ("--workers", workers), ("--scheduler", scheduler))
                   if v]
        if refused:
            why = (" (each span carries its confidence: --output-format spans)"
                   if refused[0] in ("--nbest", "--confidence", "--marginals") else " (it is for column input)")
            raise InputError(f"{refused[0]} is not an option of --format {format}{why}")
        from .text_tagging import tag_text_file
        return tag_text_file(model if model is not None else model_path, source, output, format=format,
                             output_format=output_format, lang=lang or "en", encoding=encoding, constrain=constrain,
                             scheme=scheme, progress=progress, warn=warn, pos_model=pos_model)
    if lang is not None:
        raise InputError("--lang sets the tokenizer of --format raw; this input is not raw text")
    if pos_model is not None:
        raise InputError("--pos-model tags raw or pretokenized text (--format raw); a column file holds its "
                         "POS column")
    if output_format in TEXT_OUTPUTS and output_format not in ("columns", "text"):
        raise InputError(f"--output-format {output_format} is an output of raw text: add --format raw (or "
                         "--format pretokenized)")
    given = model_path
    if isinstance(model, (str, os.PathLike)):  # a file, or a model's name (en-pos): its file
        from ..models.resolve import resolve_model
        given = model
        model_path, model = os.fspath(resolve_model(model)), None
    chosen = _check_options(source, output, model_path, nbest, confidence, marginals, batch_size, jobs,
                            workers, scheduler)
    if model is None:
        from ..learners import load
        model = load(given)  # by its name, so that a cached model is checked against its catalog entry
    from .tag_input import refuse_dict_model
    refuse_dict_model(model, None if os.fspath(source) == "-" else os.fspath(source))
    from ..io.writable import check_output_labels
    check_output_labels(getattr(model, "labels_", []), nbest, model_path)  # labels with whitespace, line breaks
    if marginals and getattr(model, "span_confidence", None) == "top-n" and warn is not None:
        warn(f"warning: {getattr(model, 'algorithm', 'this learner')} is not trained for the probabilities of "
             "the whole lattice, so its forward-backward marginals are spread thin (near one over the number of "
             "labels); --confidence K gives the top-K probabilities it is trained on")
    trained_on = getattr(model, "label_field_", None)
    if label_field is None:
        label_field = trained_on or "xpos"
    elif trained_on and label_field != trained_on and warn is not None:
        warn(f"warning: the model was trained on {trained_on.upper()} labels; they are written into the "
             f"{label_field.upper()} column")
    sentences, info, name, kind, options = _plan(model, source, format, output_format, sep, encoding, data_dir,
                                                 nbest, confidence, marginals, constrain, scheme, partial,
                                                 label_field, chosen)
    return _write(model, model_path, sentences, output, kind, options, columns, info, name, batch_size, jobs,
                  workers, scheduler, progress, warn)


def _check_tokens_writable(tokens, i: int, sep) -> None:
    """Refuse a token of a Python sentence that the output could not hold (an empty value, or the separator
    or a line break in one; ``sep`` ``"text"``: text output, word/label between spaces), naming sentence
    ``i`` and the token.

    Raises
    ------
    InputError
    """
    from ..io.writable import unwritable_value
    values = [v for tok in tokens for v in tok]
    if all(values) and not unwritable_value("\x00".join(values), sep):  # the whole sentence at once
        return
    for j, tok in enumerate(tokens):
        if any(unwritable_value(v, sep) for v in tok):
            hint = (": write tab-separated output (sep='\\t', --sep tab), whose values may hold spaces"
                    if sep == " " and not any(unwritable_value(v, "\t") for v in tok) else "")
            what = "a tab or a line break" if sep == "\t" else "a space, a tab or a line break"
            where = {" ": "a column file separated by spaces", "\t": "a column file separated by tabs",
                     "text": "text output (word/label between spaces)"}.get(sep, "the output")
            if sep == "text":
                hint = ": write columns separated by tabs (kind='columns', sep='\\t')"
            raise InputError(f"sentence {i}, token {j}: token {tok!r} holds an empty value or {what}, which "
                             f"{where} cannot hold{hint}")


def _as_sentences(sentences, sep=None):
    """Reader sentences as they are; a plain sentence (a list of tokens: strings or tuples of column
    strings) as a reader's sentence, checked against the column output's separator ``sep`` (None: not
    written as columns)."""
    from ..io.columns import Sentence
    for i, sent in enumerate(sentences):
        if isinstance(sent, Sentence):
            yield sent
        elif isinstance(sent, (list, tuple)):
            tokens = [(tok,) if isinstance(tok, str) else tuple(tok) for tok in sent]
            if sep is not None:
                _check_tokens_writable(tokens, i, sep)
            yield Sentence(tokens, None)
        else:
            raise InputError(f"sentence {i}: give a list of tokens (strings, or tuples of column strings) or "
                             f"the reader's sentences (chaintag.io.columns.iter_sentences), not {type(sent).__name__}")


def _marker_line(marker: str, kind: str, options: dict, n_fields: int | None) -> str:
    """A document marker as written back: a CoNLL-2002/2003 ``-DOCSTART- -DOCSTART- O`` line with as many
    fields as the file's token lines (``n_fields``) gets the predicted label ``O`` too, as they get theirs,
    so that the output keeps one number of fields on every line (the ``conlleval`` script stops on a line
    with another)."""
    fields = marker.split()
    if (kind != "columns" or fields[:1] != ["-DOCSTART-"] or len(fields) != n_fields
            or options.get("confidence")):
        return marker
    return marker + ("\t" if "\t" in marker else " ") + "O"


def _tag_sentences(model, sentences, writer, kind, options, columns, sep, input_format, batch_size, name,
                   whole_documents, progress, warn) -> int:
    """Sentences of a column file or text tagged in batches; markers copied through; the sentences tagged."""
    from .tag_output import Batch
    nbest, n = options.get("nbest"), 0
    batch = Batch(name)
    picker = "unset"
    out_sep = None
    n_fields, held = None, []  # the fields of a token line; markers before the first one wait for it

    def marker(text):
        writer.text(_marker_line(text, kind, options, n_fields) + ("\n" if kind == "text" else "\n\n"))

    for sent in sentences:
        if progress is not None:
            progress(1)
        if sent.marker is not None:
            # document markers are copied through, each followed by a blank line
            if batch:
                writer.batch(kind, batch, None if picker == "unset" else picker, out_sep)
                batch = Batch(name)
            if not nbest:
                if n_fields is None:
                    held.append(sent.marker)
                else:
                    marker(sent.marker)
            continue
        if n_fields is None and sent.tokens:
            n_fields = len(sent.tokens[0])
            for text in held:
                marker(text)
            held = []
        if not sent.tokens:  # a blank line of plain text: an empty line of text output
            if kind == "text":
                batch.add([], sent.line)
            continue
        if picker == "unset":
            picker = feature_picker(model, columns, len(sent.tokens[0]), name, sent.line)
            if input_format == "columns" and not columns and looks_like_text(model, sent.tokens):
                from ..features.document import input_columns
                raise InputError(f"this looks like free text, not a column file (its column "
                                 f"{len(input_columns(model)) + 1} holds words, not labels or tags): tag raw "
                                 f"text with --format raw (sentences split and tokenized), or text already "
                                 f"tokenized with --format pretokenized; for a column file whose extra columns "
                                 f"hold words, name its columns with --columns", name, sent.line)
            # the output keeps the input's separator (tab-separated tokens may hold spaces)
            out_sep = sep.get("sep", " ") if isinstance(sep, dict) else sep
        if options.get("partial"):
            check_partial_sentence(model, sent.tokens, name, sent.line)
        batch.add(sent.tokens, sent.line)
        n += 1
        if len(batch) >= batch_size and not whole_documents:
            writer.batch(kind, batch, picker, out_sep)
            batch = Batch(name)
    if batch:
        writer.batch(kind, batch, None if picker == "unset" else picker, out_sep)
    for text in held:  # a file of markers alone
        marker(text)
    return n


def _tag_blocks(model, blocks, writer, columns, name, batch_size, whole_documents, progress) -> int:
    """CoNLL-U blocks tagged in batches and written back whole; the number of sentences."""
    feature_picker(model, columns, 1, name, None)  # the words of CoNLL-U input: one column, FORM
    batch, n = [], 0
    for block in blocks:
        if progress is not None:
            progress(1)
        batch.append(block)
        n += bool(block.sentence.tokens)
        if len(batch) >= batch_size and not whole_documents:
            writer.batch("conllu", batch, None, "\t")
            batch = []
    if batch:
        writer.batch("conllu", batch, None, "\t")
    return n


def _plan(model, source, format, output_format, sep, encoding, data_dir, nbest, confidence, marginals, constrain,
          scheme, partial, label_field, chosen):
    """Open the input and decide the output: the sentences (or CoNLL-U blocks), the reader's info, the
    input's name, the kind of output and the batch options."""
    blocks = format in (None, "conllu") and (output_format or "conllu") == "conllu"
    sentences, info, name = open_sentences(source, format=format, sep=sep, encoding=encoding, data_dir=data_dir,
                                           conllu_blocks=blocks)
    extra = [opt for opt, v in (("--confidence", confidence), ("--marginals", marginals or None),
                                ("--constrain", constrain or None), ("--partial", partial or None)) if v is not None]
    text_out = check_text_options(model, info["format"], output_format, nbest, extra, name) == "text"
    if info["format"] == "columns":
        sentences = explained(sentences, model, name)
    if output_format == "conllu" and info["format"] != "conllu":
        raise InputError("--output-format conllu needs CoNLL-U input (--format conllu or a .conllu file)")
    if nbest and output_format:
        raise InputError("--nbest writes JSON lines: leave out --output-format")
    kind = "text" if text_out and not nbest else "columns"
    options = {"nbest": nbest, "confidence": confidence, "marginals": marginals, "label_field": label_field}
    if info["format"] == "conllu" and (output_format or "conllu") == "conllu":
        if chosen and chosen[0] != "--nbest":
            raise InputError(f"{chosen[0]} adds a column to a column file: add --output-format columns")
        if not nbest:
            kind, options = "conllu", {"label_field": label_field}
        else:
            sentences = (block.sentence for block in sentences if block.sentence.tokens)
    if kind != "conllu" and (constrain or partial or scheme):
        options.update(constraint_options(model, constrain, scheme, partial, info["format"]))
    return sentences, info, name, kind, options


def _check_options(source, output, model_path, nbest, confidence, marginals, batch_size, jobs, workers,
                   scheduler) -> list[str]:
    """Refuse options that cannot go together or out of bounds; the extra outputs chosen (at most one)."""
    chosen = [opt for opt, v in (("--nbest", nbest), ("--confidence", confidence),
                                 ("--marginals", marginals or None)) if v is not None]
    if len(chosen) > 1:
        raise InputError(f"use one of {', '.join(chosen)}, not several")
    for opt, k, low in (("--nbest", nbest, 1), ("--confidence", confidence, 2)):
        if k is not None and not low <= k <= MAX_K:
            why = (" (a probability over the top-1 sequence is always 1; the marginals of the model's scores: "
                   "--marginals)" if opt == "--confidence" and k == 1 else "")
            raise InputError(f"{opt} takes K between {low} and {MAX_K} (got {k}){why}")
    if isinstance(output, (str, os.PathLike)) and not os.fspath(output):
        raise InputError("--output: an empty path; give a file name, or - for standard output")
    if isinstance(output, (str, os.PathLike)) and os.fspath(output) != "-":
        from ..io.atomic import refuse_inputs_as_output
        refuse_inputs_as_output(output, [model_path, None if os.fspath(source) == "-" else source], "--output")
    if batch_size < 1:
        raise InputError("--batch-size must be at least 1")
    if jobs < 1:
        raise InputError("--jobs must be at least 1")
    if (jobs > 1 or workers is not None or scheduler) and not model_path:
        raise InputError("tagging in several processes loads the model from its file: give model_path")
    return chosen


def _write(model, model_path, sentences, output, kind, options, columns, info, name, batch_size, jobs, workers,
           scheduler, progress, warn) -> int:
    """Tag into the output file (atomically) or stdout, with the writer the settings ask for."""
    from ..io.atomic import atomic_open
    from .tag_dask import make_writer
    opened = (contextlib.nullcontext(sys.stdout) if os.fspath(output) == "-"
              else atomic_open(output, "w", encoding="utf-8", newline="\n"))
    with opened as out, make_writer(out, model, model_path, options, jobs=jobs, workers=workers,
                                    scheduler=scheduler) as writer:
        return tag_stream(model, sentences, out, kind=kind, options=options, columns=columns,
                          sep=info if kind != "conllu" else "\t", input_format=info["format"],
                          batch_size=batch_size, name=name, writer=writer,
                          progress=progress, warn=warn)
