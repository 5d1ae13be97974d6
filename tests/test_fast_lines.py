"""The whole-chunk line reader gives exactly the lines, and the errors, of the line-by-line one."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings, strategies as st

from chaintag.errors import InputError
from chaintag.io import columns
from chaintag.io.columns import _decode_lines, _split_chunks, _NEWLINE_BYTES, iter_lines


def _slow(data: bytes, codec="utf-8"):
    return list(_decode_lines(_split_chunks(io.BytesIO(data).read, b"", _NEWLINE_BYTES, b"\r", "x"), codec, "x"))


def _outcome(fn):
    try:
        return ("ok", fn())
    except InputError as exc:
        return ("error", exc.message, exc.line)


PIECES = st.sampled_from(["a b", "\n", "\n\n", "\r\n", "\r", "\ufeff", "\u3000", "é", "-DOCSTART- x", " ", "\t",
                          "word NN B-NP", "#"])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40), st.integers(1, 12), st.booleans())
def test_same_lines_as_line_by_line(pieces, chunk, bad_byte):
    data = "".join(pieces).encode("utf-8")
    if bad_byte and data:
        cut = len(data) // 2
        data = data[:cut] + b"\xff" + data[cut:]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columns, "_BIG_CHUNK", chunk)  # chunk edges everywhere: inside CRLF, BOM, characters
        fast = _outcome(lambda: list(iter_lines(io.BytesIO(data), name="x")))
    assert fast == _outcome(lambda: _slow(data))


def test_long_lines_are_refused_on_the_same_line(monkeypatch):
    monkeypatch.setenv("CHAINTAG_MAX_LINE", "10")
    data = b"short\nok too\n" + b"x" * 40 + b"\nend\n"
    monkeypatch.setattr(columns, "_BIG_CHUNK", 1 << 20)
    fast = _outcome(lambda: list(iter_lines(io.BytesIO(data), name="x")))
    assert fast[0] == "error" and fast[2] == 3
    assert fast == _outcome(lambda: _slow(data))


def test_a_bad_byte_after_plain_chunks_names_its_line(tmp_path, monkeypatch):
    monkeypatch.setattr(columns, "_BIG_CHUNK", 16)
    path = tmp_path / "f.txt"
    path.write_bytes(b"".join(b"tok%d NN\n" % i for i in range(50)) + b"bad \xff NN\n")
    with pytest.raises(InputError) as exc:
        list(iter_lines(path))
    assert exc.value.line == 51 and "0xff" in exc.value.message


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "b", " ", "\t", "\u3000", "\u00a0", "\x0b", "é"]), max_size=12))
def test_split_columns_fast_path_equals_the_expression(line):
    import re
    fields = re.split(r"[ \t]+", line)
    fields = fields[1:] if fields and fields[0] == "" else fields
    fields = fields[:-1] if fields and fields[-1] == "" else fields
    assert columns.split_columns(line) == fields
