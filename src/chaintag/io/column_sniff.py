"""Whether lines of text are those of a column file (CoNLL-2000 / CoNLL-2003 style) or of a CoNLL-U file.

Text input (``tag --format raw``, the text that ``chaintag clusters`` and a folder of unlabeled text give
word2vec) read from such a file would take its tags and labels for words; the readers warn, never refuse,
since short text can look like columns.
"""

from __future__ import annotations

import re

__all__ = ["column_file_kind"]

#: A chunk label: a one-letter prefix and a type, in either order (``B-protein``, ``PER_I``).
_CHUNK_LABEL = re.compile(r"[BIESLUM][-_]\S+|\S+[-_][BIESLUM]")


def column_file_kind(lines: list[str], labels=()) -> str | None:
    """What the first lines of a file look like, when they look like a column or CoNLL-U file.

    Parameters
    ----------
    lines : list of str
        The first non-blank lines of the input.
    labels : collection of str, optional
        Labels known to be tags (a model's); chunk labels and short capitalised tags count anyway.

    Returns
    -------
    str or None
        ``"a CoNLL-U file"`` for a CoNLL-U block (``# sent_id``/``# text`` comments, or token lines of 10
        tab-separated fields with a numeric ID); ``"a column file (its first line is a -DOCSTART- marker)"``;
        ``"a column file (each of its first N lines has K fields, most ending in a tag)"`` for at least 3
        lines (marker lines such as ``###MEDLINE:123`` left out) that all have the same 2 to 6 fields with
        a tag last on at least 80 % of them (a label of ``labels``, a chunk label such as ``B-protein``, or
        at most 12 characters with a capital and no lowercase letter: ``NN``, ``O``; 5 lines at least when
        most tags are only of the last kind) and not all the same tag (unless 10 lines or more); None
        otherwise. Two lines such as ``Thank you O`` and ``See you O`` are not enough, nor lines of words,
        nor three lines ending in ``.``.
    """
    if not lines:
        return None
    first = lines[0].strip()
    fields = [line.split("\t") for line in lines if not line.startswith("#")]
    rows = [line.split() for line in lines
            if not (len(line.split()) == 1 and line.lstrip().startswith(("#", "-DOCSTART-")))]
    if first.startswith(("# sent_id", "# text", "# newdoc")) or (
            fields and all(len(f) == 10 and f[0].split("-")[0].split(".")[0].isdigit() for f in fields)):
        return "a CoNLL-U file"
    if first.split()[:1] == ["-DOCSTART-"]:
        return "a column file (its first line is a -DOCSTART- marker)"
    if len(rows) >= 3 and 2 <= len(rows[0]) <= 6 and all(len(r) == len(rows[0]) for r in rows):
        labels = set(labels)
        strong = sum(r[-1] in labels or _CHUNK_LABEL.fullmatch(r[-1]) is not None for r in rows)
        caps = sum(not (r[-1] in labels or _CHUNK_LABEL.fullmatch(r[-1])) and len(r[-1]) <= 12
                   and not any(c.islower() for c in r[-1]) and any(c.isupper() for c in r[-1]) for r in rows)
        if (5 * (strong + caps) >= 4 * len(rows) and (len({r[-1] for r in rows}) > 1 or len(rows) >= 10)
                and (5 * strong >= 4 * len(rows) or len(rows) >= 5)):
            return f"a column file (each of its first {len(rows)} lines has {len(rows[0])} fields, most ending in a tag)"
    return None
