"""Scoring a saved model on labelled data: what ``chaintag eval --model`` does.

Before tagging, the gold labels are compared with the model's: none in common
(another column, another task), no chunk type in common, or the same chunk
types written in another notation (``PER-B`` against the model's ``B-PER``),
which would otherwise score 0 F1 without a word. The last case is mended: the
gold labels are read in the model's notation, as the note says.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import InputError

__all__ = ["score_model", "load_test_data", "gold_label_notes", "in_notation"]


def in_notation(label: str, source: str, target: str) -> str:
    """A chunk label written in ``source`` notation, rewritten in ``target`` notation.

    Parameters
    ----------
    label : str
    source, target : str
        Notations of :data:`chaintag.evaluation.schemes.NOTATIONS` (``"B-X"``, ``"B_X"``, ``"X-B"``,
        ``"X_B"``).

    Returns
    -------
    str
        ``"PER-B"`` from ``"X-B"`` to ``"B-X"`` gives ``"B-PER"``; ``O`` and labels that are not
        typed chunk labels in ``source`` come back unchanged.

    Examples
    --------
    >>> in_notation("PER-B", "X-B", "B-X"), in_notation("B_LOC", "B_X", "X-B"), in_notation("NN", "X-B", "B-X")
    ('B-PER', 'LOC-B', 'NN')
    """
    from ..evaluation.schemes import _parse, write_label
    kind, prefix, typ = _parse(label, source)
    return write_label(prefix, typ, target) if kind == "typed" else label


def gold_label_notes(gold, model_labels, source: str = "<test>", scheme: str | None = None,
                     model_scheme: str | None = None, ref: str = "the model", check_types: bool = True):
    """Compare gold labels with a model's labels; rewrite them in the model's notation and chunk scheme
    where that is all that differs.

    Parameters
    ----------
    gold : list of list of str
        Gold label sequences.
    model_labels : sequence of str
        The model's labels (``model.labels_``).
    source : str
        Where the gold labels come from, for the messages.
    scheme : str, optional
        ``--scheme``; a scheme or a label format given (``iob2``, ``auto:X-B``) says how the labels are
        read, and then nothing is rewritten.
    model_scheme : str, optional
        The chunk scheme of the model's training labels (recorded with it); default: detected from
        ``model_labels``.
    ref : str, default "the model"
        What the labels are compared with, for the messages (``"the training data"``).
    check_types : bool, default True
        Warn about gold chunk types that ``model_labels`` lack (False when they are a part of the
        labels: the first chunk of streamed training data).

    Returns
    -------
    gold : list of list of str
        The gold labels, rewritten when they hold the model's chunk types in another notation
        (``PER-B`` against ``B-PER``) or another scheme (BMES against BILOU, IOB2 against IOBES):
        the same chunks (:func:`chaintag.evaluation.chunks.label_spans`) written as the model writes
        them (:func:`chaintag.evaluation.chunks.span_labels`), so that chunk F1 and token accuracy
        compare like with like. A scheme is written only with prefixes the model's labels have (a
        model trained with ``--scheme iobes`` on IOB2 labels keeps IOB2 gold), and gold labels that
        fit no prefix (strays) stay as they are.
    notes : list of str
        Lines to show, each starting with ``warning:`` or ``note:``; empty when the labels agree.
    """
    from ..evaluation.chunks import label_spans, span_labels
    from ..evaluation.schemes import (TRAINING_TYPO_PREFIXES, _example, _parse, detect_scheme, resolve_scheme,
                                      split_scheme_spec)
    gold_set = {lab for sent in gold for lab in sent}
    model_set = set(model_labels)
    if not gold_set:
        return gold, []
    name, fmt = split_scheme_spec(scheme)
    told = fmt != "auto" or resolve_scheme(name) != "auto"
    g = detect_scheme(gold, typo_prefixes=TRAINING_TYPO_PREFIXES)  # one S- typo does not make IOB2 gold IOBES
    m = detect_scheme([sorted(model_set)], (), model_scheme or "auto")
    if g.is_chunking and m.is_chunking and g.typed != m.typed:
        bare, typed = (("gold labels", f"labels of {ref}") if not g.typed else (f"labels of {ref}", "gold labels"))
        return gold, [f"warning: the {bare} are chunk prefixes without types (B, I, O) and the {typed} have "
                      f"types (B-NP, B-PER, ...): no chunk of one can match one of the other ({source})"]
    types = lambda s: {t for (_, t) in s.read.values() if t}  # noqa: E731
    if (g.is_chunking and m.is_chunking and g.typed and (g.notation, g.name) != (m.notation, m.name)
            and not told and types(g) & types(m)):
        model_prefixes = {_parse(lab, m.notation)[1] for lab in model_set} - {"O"}
        target = m.name
        spans = label_spans(gold, g.name, g.notation)
        rewritten = [span_labels(len(sent), sp, target, m.notation) for sent, sp in zip(gold, spans)]
        if not {_parse(lab, m.notation)[1] for sent in rewritten for lab in sent} - {"O"} <= model_prefixes:
            target = g.name  # the model's labels are not written in its scheme: the notation alone
            if g.notation == m.notation:
                return gold, _type_notes(types(g), types(m), source, ref) if check_types else []
            rewritten = [span_labels(len(sent), sp, target, m.notation) for sent, sp in zip(gold, spans)]
        rewritten = [[lab if lab in g.stray else new for lab, new in zip(sent, out)]  # strays stay
                     for sent, out in zip(gold, rewritten)]
        how = []
        if g.notation != m.notation:
            how.append(f"written {_example(g.notation)}, {ref}'s {_example(m.notation)}")
        if g.name != target:
            how.append(f"in the {g.name.upper()} scheme, {ref}'s in {target.upper()}")
        return rewritten, ([f"note: the gold labels of {source} are {' and '.join(how)}: their chunks are read "
                            f"and written as {ref}'s labels are"]
                           + (_type_notes(types(g), types(m), source, ref) if check_types else []))
    if not check_types:
        return gold, []
    if not gold_set & model_set:
        return gold, [f"warning: none of the {len(gold_set)} gold labels of {source} is a label of {ref} "
                      "(wrong --label-field or --columns?)"]
    return gold, _type_notes(types(g), types(m), source, ref)


def _type_notes(gold_types: set, model_types: set, source: str, ref: str) -> list[str]:
    """A warning when the gold chunk types are not all types of the model's labels."""
    if not gold_types or not model_types or gold_types <= model_types:
        return []
    missing = sorted(gold_types - model_types)
    shown = ", ".join(missing[:6]) + (", ..." if len(missing) > 6 else "")
    if not gold_types & model_types:
        return [f"warning: none of the chunk types of the gold labels of {source} ({shown}) is a type of the "
                f"labels of {ref} ({', '.join(sorted(model_types)[:6])}): are they labels of the same task? "
                "(wrong --columns?)"]
    return [f"warning: the gold labels of {source} have chunk types that the labels of {ref} lack: {shown}; "
            "their chunks cannot be found (recall 0 on them)"]


def score_model(model, test, *, scheme: str | None = None, log: Callable[[str], None] | None = None):
    """Tag labelled data with a model and score it (token accuracy, chunk P/R/F1, conlleval semantics).

    Parameters
    ----------
    model : SequenceTagger, str or os.PathLike
        A fitted model, or its file (or a known model's name, ``"en-chunk"``).
    test : chaintag.data.datasets.Corpus
        Labelled data, read with the model's columns in mind (``--columns``, ``--label-field``).
    scheme : str, optional
        Chunk scheme (``--scheme``; default: the model's ``eval_scheme``, ``auto``).
    log : callable, optional
        Receives the notes and warnings of :func:`gold_label_notes`.

    Returns
    -------
    chaintag.evaluation.EvalResult

    Raises
    ------
    chaintag.errors.InputError
        When the data has no token, or lacks a column the model reads, naming the file.
    """
    from ..features.document import DOCUMENT_COLUMNS, model_document_columns, with_document_columns
    from ..learners import as_model
    from .corpus import require_tokens
    model = as_model(model)
    from .tag_input import refuse_dict_model
    refuse_dict_model(model, test.source)  # a column file holds no feature dicts
    require_tokens(test.labels, "the test data", test.source)
    if model_document_columns(model) and not any(c in test.columns for c in DOCUMENT_COLUMNS):
        with_document_columns(test)  # computed from the file's documents (its marker lines)
    missing = [c for c in model.columns_ if c not in test.columns]
    if test.n_sentences and missing:
        raise InputError(f"the model reads the column(s) {', '.join(model.columns_)}, but this file "
                         f"has {', '.join(test.columns) or 'none'} besides the labels (set --columns)",
                         test.source)
    recorded = (getattr(model, "training_summary_", None) or {}).get("label_scheme")
    labels, notes = gold_label_notes(test.labels, model.labels_, test.source, scheme,
                                     model_scheme=recorded if recorded not in (None, "none") else None)
    for line in notes:
        (log or (lambda _: None))(line)
    tokens = test.tokens
    if test.n_sentences:
        idx = [test.columns.index(c) for c in model.columns_]
        if idx != list(range(len(test.columns))):
            tokens = [[tuple(tok[i] for i in idx) for tok in s] for s in tokens]
    result = model.evaluate(tokens, labels, scheme=scheme)
    if labels is not test.labels:  # the scheme line describes the rewritten labels, not the file's
        result.gold_rewritten = True
    return result


def load_test_data(model, source: str, options, log: Callable[[str], None] | None = None):
    """Labelled data to score a model on, read with the column roles named at training.

    Parameters
    ----------
    model : SequenceTagger
    source : str
        A path or a dataset reference.
    options : object
        The input-data settings of :func:`chaintag.api.corpus.load_source` (``columns``, ...).
    log : callable, optional
        Receives the note saying the training's roles were used, and the reader's warnings.

    Returns
    -------
    chaintag.data.datasets.Corpus
        Read with ``options.columns`` when given; else with the ``--columns`` roles the model was
        trained with (``training_summary_["column_spec"]``) when the file has as many columns; else
        as the file says (the last column holds the labels).

    Raises
    ------
    chaintag.errors.InputError
        For a file that cannot be read, naming it and the line.
    """
    from .corpus import load_source
    spec = (getattr(model, "training_summary_", None) or {}).get("column_spec")
    if getattr(options, "columns", None) or not spec:
        return load_source(source, options, log=log)
    try:
        test = load_source(source, options, columns=spec, log=log)
    except InputError:  # another layout: read as the options say
        return load_source(source, options, log=log)
    if log is not None:
        log(f"note: the columns of {test.source} are read as at training: --columns {spec} "
            "(give --columns to choose)")
    return test
