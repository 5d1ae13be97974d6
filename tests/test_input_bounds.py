"""Inputs that cannot exhaust memory: a line without a line break is bounded."""

from __future__ import annotations

import io

import pytest

from chaintag.errors import InputError
from chaintag.io.columns import iter_lines, iter_sentences, max_line_length


def test_a_line_past_the_bound_stops_the_reader_naming_the_line(monkeypatch):
    monkeypatch.setenv("CHAINTAG_MAX_LINE", "1000")
    assert max_line_length() == 1000
    data = b"a A\nb B\n\n" + b"x" * 5000  # line 4 never ends
    with pytest.raises(InputError, match="a line longer than 1,000 bytes") as err:
        list(iter_sentences(io.BytesIO(data), name="in.txt"))
    assert err.value.line == 4 and err.value.path == "in.txt"
    long_then_end = b"ok O\n" + b"y" * 3000 + b"\nz Z\n"
    with pytest.raises(InputError, match="longer than 1,000") as err:
        list(iter_lines(io.BytesIO(long_then_end), name="t"))
    assert err.value.line == 2


def test_the_bound_can_be_raised_and_text_streams_are_bounded_too(monkeypatch):
    monkeypatch.setenv("CHAINTAG_MAX_LINE", "100")
    with pytest.raises(InputError, match="longer than 100"):
        list(iter_lines(io.StringIO("w" * 1000), name="s"))
    monkeypatch.setenv("CHAINTAG_MAX_LINE", "2000")
    assert [len(x) for x in iter_lines(io.StringIO("w" * 1000 + "\nv\n"), name="s")] == [1000, 1]


def test_the_default_bound_stops_ten_million_bytes_without_a_line_break(monkeypatch):
    monkeypatch.delenv("CHAINTAG_MAX_LINE", raising=False)
    with pytest.raises(InputError, match="a line longer than 1,048,576 bytes"):
        list(iter_lines(io.BytesIO(b"\0" * 10 ** 7), name="zeros"))


def test_a_sentence_past_the_bound_stops_the_reader_naming_its_first_line(monkeypatch):
    from chaintag.io.columns import max_sentence_length
    monkeypatch.setenv("CHAINTAG_MAX_SENTENCE", "5")
    assert max_sentence_length() == 5
    ok = "".join(f"w{i} X\n" for i in range(5)) + "\n"
    assert [len(s.tokens) for s in iter_sentences(io.StringIO(ok))] == [5]
    long = "a A\n\n" + "".join(f"w{i} X\n" for i in range(6))
    with pytest.raises(InputError, match="a sentence of more than 5 tokens") as err:
        list(iter_sentences(io.StringIO(long), name="f.txt"))
    assert err.value.line == 3 and err.value.path == "f.txt"
    monkeypatch.delenv("CHAINTAG_MAX_SENTENCE")
    assert max_sentence_length() == 100_000


def test_the_bound_counts_bytes_wherever_the_line_falls(monkeypatch, tmp_path):
    """A line of 25 bytes (15 characters) is over a bound of 20 bytes, in a plain chunk or after a CR."""
    monkeypatch.setenv("CHAINTAG_MAX_LINE", "20")
    line = "é" * 10 + " NN O"
    for first in ("a NN O\n", "a NN O\r\n", "a NN O\r"):
        path = tmp_path / "f.txt"
        path.write_bytes((first + line + "\nb NN O\n").encode("utf-8"))
        with pytest.raises(InputError, match="a line longer than 20 bytes") as err:
            list(iter_sentences(path))
        assert err.value.line == 2


def test_a_held_back_cr_before_a_last_line_without_ending_ends_its_line():
    """A lone CR at the very end of a 64 KiB read, then a last line with no line ending: two lines."""
    from chaintag.io.columns import _CHUNK
    n = _CHUNK // 7
    head = "a" * (1 + _CHUNK - 7 * n) + " NN O\r" + "a NN O\r" * (n - 1)  # the first token padded
    assert len(head) == _CHUNK and head.endswith("\r")
    text = head + "bb NN O"
    for source in (io.BytesIO(text.encode()), io.StringIO(text)):
        lines = list(iter_lines(source, name="cr"))
        assert lines[-1] == "bb NN O" and len(lines) == text.count("\r") + 1
