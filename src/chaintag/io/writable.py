"""What UTF-8 files and column files can hold: the checks behind ``fit``'s refusals of tokens and labels.

A model file stores its metadata (labels, attribute names) as UTF-8 JSON, and
a column file separates columns by spaces or tabs and tokens by line breaks.
A string with a lone surrogate (bytes decoded with
``errors="surrogateescape"``) is not UTF-8 text; a label with whitespace or a
line break would not read back from a column file as one label.
"""

from __future__ import annotations


def unwritable_text(text: str) -> str | None:
    """Why ``text`` cannot be written as UTF-8 (a lone surrogate), or None.

    A lone surrogate comes from bytes decoded with ``errors="surrogateescape"``
    (or ``"surrogatepass"``): decode the text with its real encoding, or with
    ``errors="replace"``, before training.
    """
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as exc:
        return (f"holds the lone surrogate {text[exc.start]!r} at position {exc.start}, which no UTF-8 file "
                "(a model file, a column file) can hold: decode the text with its real encoding, or with "
                "errors='replace'")


#: Characters that a label cannot hold: column files split on ASCII spaces and tabs, and lines on line breaks.
LABEL_BREAKS = frozenset(" \t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def unwritable_label(label: str) -> str | None:
    """Why ``label`` cannot be written in a column file (empty, whitespace, a line break, a lone surrogate), or None."""
    if label == "":
        return "is empty"
    bad = LABEL_BREAKS.intersection(label)
    if bad:
        c = min(bad)
        kind = "a space" if c == " " else "a tab" if c == "\t" else "a line break" if c in "\n\r\x85\u2028\u2029" \
            else f"the whitespace character {c!r}"
        return (f"holds {kind}, which a column file cannot hold (its columns are separated by spaces or tabs, "
                "its tokens by line breaks): write it without, e.g. with '_' for spaces")
    return unwritable_text(label)


#: What one value of a token written into a column file (or ``"text"`` output, ``word/label`` between spaces)
#: must not hold: the separator and a line break, as the column reader reads them (fields split at ASCII spaces
#: and tabs, lines at CR and LF; U+00A0 and other Unicode spaces belong to the value).
VALUE_BREAKS = {" ": frozenset(" \t\n\r"), "\t": frozenset("\t\n\r"), "text": frozenset(" \t\n\r")}


def unwritable_value(value: str, sep: str = " ") -> bool:
    """Whether a token's value cannot be written as one field of a column file separated by ``sep`` (``" "``,
    ``"\\t"``, or ``"text"`` for ``word/label`` output): it is empty, or holds the separator or a line break.

    Parameters
    ----------
    value : str
    sep : {" ", "\\t", "text"}

    Returns
    -------
    bool
    """
    return not value or not VALUE_BREAKS.get(sep, VALUE_BREAKS[" "]).isdisjoint(value)


def check_output_labels(labels, nbest=None, model_path=None) -> None:
    """Refuse, before any input is read, to tag with a model whose labels a column file cannot hold.

    Models trained before ``fit`` refused such labels may hold them; JSON
    lines (``nbest``) hold any label, so nothing is refused then.

    Raises
    ------
    chaintag.errors.InputError
        Naming the model file and the label.
    """
    if nbest:
        return
    from ..errors import InputError
    for label in labels:
        reason = unwritable_label(label)
        if reason:
            raise InputError(f"the model's label {label!r} {reason.split(':')[0]}, so its output cannot be "
                             "written; retrain on labels without whitespace (e.g. '_' for spaces), or write "
                             "JSON lines with --nbest 1", model_path)
