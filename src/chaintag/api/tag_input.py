"""The input of tagging: opening a source in its format, and checking it against what the model reads."""

from __future__ import annotations

import os

from ..errors import InputError
from ..io.column_sniff import column_file_kind

__all__ = ["open_sentences", "feature_picker", "expected_input", "explained", "looks_like_text",
           "column_input_warning", "check_text_options"]


def open_sentences(source="-", *, format: str | None = None, sep: str | None = None, encoding: str = "utf-8",
                   data_dir=None, conllu_blocks: bool = True):
    """Open a tagging input lazily, in its format.

    Parameters
    ----------
    source : str, os.PathLike or "-"
        A column file, a CoNLL-U file, a dataset reference (``conll2000:test``) or ``-`` for stdin.
    format : {"columns", "conllu", "text"}, optional
        Default: from the reference or the file name (``.conllu``, ...), else detected from the content.
    sep : str, optional
        Column separator (``"\\t"`` or ``" "``; default: detected).
    encoding : str
    data_dir : str, optional
        The data directory for dataset references.
    conllu_blocks : bool, default True
        For CoNLL-U input: yield whole blocks (every line kept, for writing CoNLL-U back) rather
        than sentences.

    Returns
    -------
    sentences : iterator
        :class:`~chaintag.io.columns.Sentence` objects (document markers included, as sentences
        with ``marker`` set), or :class:`~chaintag.io.conllu_io.ConlluBlock` objects.
    info : dict
        ``format``, and ``sep`` once known (filled while reading column files).
    name : str
        The input's name for messages.

    Raises
    ------
    InputError
        For a missing file or an unknown dataset reference.
    """
    from ..data.datasets import is_dataset_ref, resolve
    from ..io.columns import iter_sentences
    from ..io.conllu_io import iter_conllu

    if os.fspath(source) == "-":
        from ..data.datasets import stdin_source
        source, fmt = stdin_source(format)
        name = "<stdin>"
    else:
        ref = source
        found = resolve(source, data_dir)
        source, fmt, name = found.path, format or found.format, os.fspath(found.path)
        sep = sep if sep else (found.sep if is_dataset_ref(ref) else None)
        if fmt is None:  # a named pipe or <(...): opened once, its format sniffed from the same stream
            from ..data.datasets import open_stream
            source, fmt = open_stream(found.path)
    info = {"sep": "\t", "format": fmt} if fmt == "conllu" else {"format": fmt}
    if fmt == "text":
        from ..io.plain_text import iter_text_sentences
        return iter_text_sentences(source, encoding=encoding, name=name), {"format": "text", "sep": " "}, name
    if fmt == "conllu":
        if conllu_blocks:
            from ..io.conllu_io import iter_conllu_blocks
            return iter_conllu_blocks(source, encoding=encoding, name=name), info, name
        return iter_conllu(source, label_field=None, encoding=encoding, name=name), info, name
    return (iter_sentences(source, sep=sep, encoding=encoding, name=name, info=info, markers=True),
            info, name)


def refuse_dict_model(model, name=None) -> None:
    """Refuse a model trained on feature dicts (python-crfsuite style) for a file: no column or text
    file gives its tokens, which only Python builds.

    Raises
    ------
    chaintag.errors.InputError
    """
    from ..features.dicts import DICT_COLUMNS
    if tuple(getattr(model, "columns_", ())) == DICT_COLUMNS:
        raise InputError("the model was trained on feature dicts in Python: no column or text file gives "
                         "its tokens; tag and score it from Python (model.predict, model.evaluate) or "
                         "through chaintag serve, with tokens as feature dicts", name)


def feature_picker(model, columns, n_columns: int, name: str, line: int | None):
    """The input columns the model reads, in its order.

    Parameters
    ----------
    model : SequenceTagger
    columns : str or None
        Column roles of the input (``word,pos,_``), or None: the model's columns come first.
    n_columns : int
        Columns of the input's first token.
    name, line
        Where the first sentence is, for messages.

    Returns
    -------
    list of int or None
        Column indices, or None when the input's columns are the model's, as they are.

    Raises
    ------
    InputError
        When the input lacks a column the model reads.
    """
    from ..data.datasets import parse_columns
    from ..features.document import input_columns
    want = list(input_columns(model))  # the document columns are computed, not read
    if columns:
        names, _ = parse_columns(columns, n_columns, labelled=False, path=name, line=line)
        missing = [c for c in want if c not in names]
        if missing:
            raise InputError(f"--columns does not name the model's column(s) {', '.join(missing)}", name, line)
        idx = [names.index(c) for c in want]
    elif n_columns >= len(want):
        idx = list(range(len(want)))
    else:
        raise InputError(f"the model reads {len(want)} column(s) ({', '.join(want)}), "
                         f"but the input has {n_columns}: {expected_input(model)}", name, line)
    if idx == list(range(n_columns)):
        return None
    return idx


def expected_input(model) -> str:
    """What input the model can tag, in words."""
    from ..features.document import input_columns, model_document_columns
    cols = list(input_columns(model))
    text = (f"give a column file: one token per line, its {', '.join(cols)} column{'s' if len(cols) > 1 else ''} "
            "first (separated by spaces or tabs; more columns are copied through), a blank line between sentences")
    if len(cols) == 1:
        text += (", or raw text with --format raw (split into sentences and tokens), or text already "
                 "tokenized (one sentence per line, tokens separated by spaces) with --format pretokenized")
    if model_document_columns(model):
        text += ("; the document columns (abbr, docnext, doccap) are computed from the documents that "
                 "-DOCSTART- / ###MEDLINE: lines start (a file without them is one document)")
    return text


def explained(sentences, model, name):
    """The sentences, with a column-count error in the first sentence explained by what the input must
    look like (later, after whole sentences of the expected columns, the error alone names the line)."""
    read = 0
    try:
        for sent in sentences:
            read += bool(sent.tokens)
            yield sent
    except InputError as exc:
        if not exc.message.startswith("expected ") or "CoNLL-U" in exc.message or read:
            raise
        raise InputError(f"{exc.message}: this is not a column file (the same columns on every line); "
                         f"{expected_input(model)}", exc.path, exc.line) from None


def looks_like_text(model, tokens) -> bool:
    """Whether a column file's first sentence is lines of free text rather than columns.

    The test is what the model reads and knows, not how regular the lines look. The input columns the
    model reads are taken as they are; the columns after them must hold labels or other tags: a
    column holds tags when at least half of its values are labels of the model, or when most of its
    values have no lowercase letter (part-of-speech tags, chunk and entity labels). A column of
    words (most values with a lowercase letter, few of them labels) means free text: one sentence
    per line read as one token per line. A sentence of one line with several columns whose last
    value is not a label of the model is free text too.

    Parameters
    ----------
    model : SequenceTagger
    tokens : list of tuple of str
        The first sentence's tokens as read from the column file.

    Returns
    -------
    bool
    """
    from ..features.document import input_columns
    n = len(input_columns(model))
    width = len(tokens[0]) if tokens else 0
    if width <= n:
        return False
    labels = set(getattr(model, "labels_", ()))
    if len(tokens) == 1 and tokens[0][-1] not in labels:
        return True
    for k in range(n, width):
        values = [tok[k] for tok in tokens if len(tok) > k]
        known = sum(v in labels for v in values)
        lower = sum(any(c.islower() for c in v) for v in values)
        if 2 * known < len(values) and 2 * lower > len(values):
            return True
    return False


def column_input_warning(model, lines: list[str], fmt: str = "raw") -> str | None:
    """A warning when text input begins like a column or CoNLL-U file (the mistake opposite to
    :func:`looks_like_text`); never a refusal, since short text can look like columns.

    Parameters
    ----------
    model : SequenceTagger
    lines : list of str
        The first non-blank lines of the input (those of its first blocks, see
        :func:`chaintag.api.text_tagging.iter_documents`).
    fmt : {"raw", "pretokenized"}

    Returns
    -------
    str or None
        The warning, or None: when :func:`chaintag.io.column_sniff.column_file_kind` finds the lines
        those of a column or CoNLL-U file (the model's labels count as tags).
    """
    what = column_file_kind(lines, getattr(model, "labels_", ()))
    if what is None:
        return None
    return (f"warning: this input looks like {what}, but --format {fmt} reads it as text, every line "
            f"{'a sentence of tokens' if fmt == 'pretokenized' else 'text to split'}; leave out --format to "
            "tag it as columns")


def check_text_options(model, fmt: str, output_format: str | None, nbest, extra: list[str], name: str):
    """Refuse plain-text input or output that the model or the other options cannot give.

    Parameters
    ----------
    model : SequenceTagger
    fmt : str
        The input's format.
    output_format : str or None
        The output format asked for.
    nbest : int or None
    extra : list of str
        The options given that add a column (``--confidence``, ``--marginals``, ``--constrain``, ``--partial``).
    name : str

    Returns
    -------
    str or None
        The output format (``text`` for text input by default).

    Raises
    ------
    InputError
    """
    from ..features.document import input_columns
    cols = input_columns(model)
    if fmt == "text" and len(cols) != 1:
        raise InputError(f"plain text gives each token one column (the word), but this model reads "
                         f"{len(cols)} ({', '.join(cols)}): {expected_input(model)}", name)
    out = output_format or ("text" if fmt == "text" else None)
    if out == "text" and fmt == "conllu":
        raise InputError("--output-format text is for column or text input; CoNLL-U input is written back as "
                         "CoNLL-U or as columns")
    if out == "text" and not nbest and extra:
        raise InputError(f"{extra[0]} needs column output: add --output-format columns")
    return out
