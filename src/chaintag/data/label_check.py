"""Suspicious labels: control characters (NUL, other C0 and C1 characters, DEL) inside a label.

Such a label is almost always a damaged or mis-encoded file (a NUL from a
binary file, a stray escape), and it is invisible in most terminals, so it
is reported with the file and line where it first occurs.
"""

from __future__ import annotations

import unicodedata

__all__ = ["has_control", "control_char_labels", "describe_control_labels"]


def has_control(label: str) -> bool:
    """Whether ``label`` holds a control character (Unicode category Cc)."""
    return any(unicodedata.category(ch) == "Cc" for ch in label)


def control_char_labels(corpus) -> list[tuple[int | None, str]]:
    """Labels of ``corpus`` holding a control character, each with the line it first occurs on.

    Parameters
    ----------
    corpus : chaintag.Corpus
        A labelled corpus (``labels`` not None).

    Returns
    -------
    list of (int or None, str)
        ``(line, label)`` for each distinct such label, in file order. For
        column files the line is exact (one token per line); for CoNLL-U it
        is the first line of the sentence; None when lines are unknown.
    """
    labels = corpus.labels or []
    distinct = {lab for sent in labels for lab in sent}
    bad = {lab for lab in distinct if has_control(lab)}
    if not bad:
        return []
    exact = getattr(corpus, "format", "columns") != "conllu" and getattr(corpus, "label_field", None) is None
    found: list[tuple[int | None, str]] = []
    seen: set[str] = set()
    lines = getattr(corpus, "lines", None) or []
    for i, sent in enumerate(labels):
        for t, lab in enumerate(sent):
            if lab in bad and lab not in seen:
                seen.add(lab)
                line = None
                if i < len(lines):
                    line = lines[i] + t if exact else lines[i]
                found.append((line, lab))
        if len(seen) == len(bad):
            break
    return found


def describe_control_labels(corpus, name: str) -> list[str]:
    """Warning lines (``file:line: label ...``) for the labels :func:`control_char_labels` finds."""
    out = []
    for line, lab in control_char_labels(corpus):
        where = f"{name}:{line}" if line is not None else name
        codes = ", ".join(f"U+{ord(ch):04X}" for ch in dict.fromkeys(lab) if unicodedata.category(ch) == "Cc")
        out.append(f"warning: {where}: label {lab!r} holds a control character ({codes}); "
                   "is the file damaged or in another encoding?")
    return out
