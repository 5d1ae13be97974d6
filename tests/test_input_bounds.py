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
    with pytest.raises(InputError, match="a line longer than 1,000 characters") as err:
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
    with pytest.raises(InputError, match="a line longer than 1,048,576 characters"):
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
