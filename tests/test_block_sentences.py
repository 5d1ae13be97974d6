"""The column reader's whole-sentence path gives exactly the sentences, line numbers and errors of
the line-by-line one.

A binary input (a path, or bytes) is read in plain chunks and split a sentence at a time
(:mod:`chaintag.io.column_blocks`); a text stream is read line by line. Both must agree on
every input, at every chunk size.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import example, given, settings, strategies as st

from chaintag.errors import InputError
from chaintag.io import columns
from chaintag.io.column_blocks import ODD_SPACES, regular_text, split_sentence
from chaintag.io.columns import iter_sentences


def _outcome(fn):
    try:
        return ("ok", fn())
    except InputError as exc:
        return ("error", exc.message, exc.line)


def _read(source, **kw):
    return [(s.tokens, s.line, s.marker) for s in iter_sentences(source, name="x", **kw)]


def _both(data: str, chunk: int, **kw):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columns, "_BIG_CHUNK", chunk)
        blocks = _outcome(lambda: _read(io.BytesIO(data.encode("utf-8")), **kw))
    by_line = _outcome(lambda: _read(io.StringIO(data), **kw))
    return blocks, by_line


PIECES = st.sampled_from(["a B O", "b C I", "\n", "\n", "\n\n", "\n\n\n", " ", "  ", "\t", "x\ty\tz",
                          "\u3000", "\u00a0", "\x0b", "-DOCSTART- -X- O", "###MEDLINE:1", "\r\n", "q r",
                          "word NN B-NP\n", "one\ttwo\tthree\n", "é ü O", "\ufeff"])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=50), st.sampled_from([1, 3, 8, 64, 1 << 20]), st.booleans(),
       st.sampled_from([None, " ", "\t"]))
def test_same_sentences_as_line_by_line(pieces, chunk, markers, sep):
    blocks, by_line = _both("".join(pieces), chunk, markers=markers, sep=sep)
    assert blocks == by_line


FIELDS = st.text(alphabet=st.sampled_from(["a", "B", "-", "é", "\u3000", "\u00a0", "\x0b", " "]), min_size=1,
                 max_size=3)
LINES = st.one_of(
    st.tuples(st.lists(FIELDS, min_size=1, max_size=4), st.sampled_from([" ", "\t", "  ", " \t"]),
              st.sampled_from(["", " ", "\t"])).map(lambda t: t[0][0] and t[1].join(t[0]) + t[2]),
    st.sampled_from(["", "", " ", "\t", " \t ", "-DOCSTART- -X- O", "###MEDLINE:7 x", "x y z", "x\ty"]))


@settings(max_examples=400, deadline=None)
@example("x y z", ["a\u3000b C"], 1 << 20, None)      # a space that str.split() takes and the reader does not
@example("x\ty", ["a\tB", " \t ", "c\tD"], 4, None)  # a blank line in a tab-separated sentence
@given(st.sampled_from(["x y z", "x\ty", "x\ty\tz"]), st.lists(LINES, max_size=40), st.sampled_from([4, 16, 1 << 20]),
       st.sampled_from([None, " ", "\t"]))
def test_same_sentences_on_lines_of_mixed_columns(first, lines, chunk, sep):
    text = first + "\n\n" + "\n".join(lines) + "\n\n" + first + "\n\n"  # the lines between empty ones
    blocks, by_line = _both(text, chunk, sep=sep, markers=True)
    assert blocks == by_line


def test_line_numbers_after_many_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(columns, "_BIG_CHUNK", 50)
    text = "".join(f"w{i} NN O\nv{i} VB O\n\n\n" if i % 3 else f"-DOCSTART- -X- O\n\nw{i} NN O\n\n"
                   for i in range(40))
    path = tmp_path / "f.txt"
    path.write_text(text + "bad line\n")
    with pytest.raises(InputError) as exc:
        list(iter_sentences(path))
    assert exc.value.line == text.count("\n") + 1
    assert "expected 3 columns" in exc.value.message
    sents = list(iter_sentences(io.BytesIO(text.encode())))
    assert [s.line for s in sents][:4] == [3, 5, 9, 15]


def test_long_sentence_is_refused_at_its_first_line(monkeypatch):
    monkeypatch.setenv("CHAINTAG_MAX_SENTENCE", "3")
    data = "a B\n\n" + "x Y\n" * 5 + "\n"
    blocks, by_line = _both(data, 1 << 20)
    assert blocks == by_line and blocks[0] == "error" and blocks[2] == 3


def test_odd_spaces_are_every_python_whitespace_but_space_tab_and_lf():
    spaces = {chr(c) for c in range(0x110000) if chr(c).isspace()}
    assert set(ODD_SPACES) == spaces - {" ", "\t", "\n"}


@pytest.mark.parametrize("text, regular", [("a b\nc d", True), ("a\u3000b", False), ("a\x0bb", False),
                                           ("é b", True), ("x\u00a0y", False), ("x\ry", False)])
def test_regular_text(text, regular):
    assert regular_text(text) is regular


@pytest.mark.parametrize("block, mode, n, expected", [
    ("a B\nc  D", " ", 2, [("a", "B"), ("c", "D")]),
    ("a B\nc", " ", 2, None),                       # a line of one column
    ("a b\tB\nc\tD", "\t", 2, [("a b", "B"), ("c", "D")]),
    ("a\t\tB", "\t", 2, None),                       # an empty field
    ("a\tB\t", "\t", 2, None),                       # a trailing tab: left to the line reader
    (" \t ", "\t", 2, None),                         # blank: not a token line
])
def test_split_sentence(block, mode, n, expected):
    assert split_sentence(block, mode, n) == expected
