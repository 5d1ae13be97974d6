"""A sentence's token lines checked and split with a few C-level string operations.

The line-by-line reader (:func:`chaintag.io.columns.iter_sentences`) checks each
token line on its own. When a sentence's lines are *regular* (each has the file's
number of columns, and no character that only some splitters treat as a space),
``str.split`` cuts all its lines at once and a length check replaces the
per-line one. Whatever is not regular is left to the line-by-line reader, which
gives the same sentences and names the line of any fault; so these checks may
refuse more than they must, never less.

Space-separated files: ``str.split()`` splits at every character Python counts as
whitespace, the column reader only at ASCII spaces and tabs (besides line ends);
a text holding any other such character (:data:`ODD_SPACES`) is not regular.
Tab-separated files: no empty field, no trailing tab, no tab next to a space or
at a line's edge (so a line of spaces and tabs, which is blank, never passes for
a token line), and at least two columns.
"""

from __future__ import annotations

import re

#: The characters ``str.split()`` and ``str.isspace()`` count as whitespace, less space, tab and LF.
ODD_SPACES = ("\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
              "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_ODD_SPACE = re.compile("[" + re.escape(ODD_SPACES) + "]")
_ASCII_ODD = tuple(c for c in ODD_SPACES if c.isascii())
#: Pairs that make a tab-separated sentence irregular (an empty field, a blank-looking line, a trailing tab).
_TAB_ODD = ("\t\t", " \t", "\t ", "\n\t", "\t\n")


def regular_text(text: str) -> bool:
    """Whether ``text`` holds no character of :data:`ODD_SPACES`.

    Parameters
    ----------
    text : str
        Any text (one scan of it; none for the extra check when it is ASCII but a few ``in`` tests).

    Returns
    -------
    bool
    """
    if text.isascii():
        return not any(c in text for c in _ASCII_ODD)
    return _ODD_SPACE.search(text) is None


def split_sentence(block: str, mode: str, n_columns: int) -> list[tuple[str, ...]] | None:
    """The tokens of a sentence's token lines, or None when they are not regular.

    Parameters
    ----------
    block : str
        The lines, joined by LF (no final one), from a text that :func:`regular_text` accepted.
    mode : {" ", "\\t"}
        ``" "``: columns separated by runs of ASCII spaces and tabs; ``"\\t"``: by single tabs.
    n_columns : int
        Columns every line must have.

    Returns
    -------
    list of tuple of str, or None
        One tuple of ``n_columns`` fields per line, as the line-by-line reader splits
        them; None when some line is blank, has another number of columns, or (tabs)
        is not regular.
    """
    lines = block.split("\n")
    if mode == " ":
        fields = list(map(str.split, lines))
    elif mode == "\t":
        if n_columns < 2 or block[0] == "\t" or block[-1] == "\t" or any(p in block for p in _TAB_ODD):
            return None
        fields = [line.split("\t") for line in lines]
    else:
        raise ValueError(f"no block splitting for separator {mode!r}")
    if set(map(len, fields)) != {n_columns}:
        return None
    return list(map(tuple, fields))
