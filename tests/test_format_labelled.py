"""Formatting a tagged batch at once gives the text, and the errors, of formatting each sentence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from chaintag.io.columns import format_labelled, format_sentence

VALUES = st.sampled_from(["a", "NN", "B-NP", "x y", "", "t\tb", "l\nm", "c\r", "\u3000", "é", " ", "\x0b", "\x0c", " \x0c"])


def _outcome(fn):
    try:
        return ("ok", fn())
    except ValueError as exc:
        return ("error", str(exc))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.lists(VALUES, min_size=2, max_size=2), max_size=4), max_size=4),
       st.sampled_from([" ", "\t"]))
def test_batch_equals_sentence_by_sentence(sents, sep):
    toks = [[tuple(tok[:-1]) for tok in s] for s in sents]
    labels = [[tok[-1] for tok in s] for s in sents]
    whole = _outcome(lambda: format_labelled(toks, labels, sep))
    each = _outcome(lambda: "".join(format_sentence([t + (lab,) for t, lab in zip(ts, ls)], sep)
                                    for ts, ls in zip(toks, labels)))
    assert whole == each


def test_plain_batch():
    assert format_labelled([[("He", "PRP"), ("runs", "VBZ")], [], [(".", ".")]],
                           [["B-NP", "B-VP"], [], ["O"]]) == "He PRP B-NP\nruns VBZ B-VP\n\n. . O\n\n"
