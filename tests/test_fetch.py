"""Tests for chaintag.data.fetch, against a local HTTP server serving tiny fabricated files."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import threading
import urllib.parse
import zipfile
from pathlib import Path

import pytest

from chaintag.cli.main import main
from chaintag.data import fetch as fetch_mod
from chaintag.data.fetch import (FetchError, convert_treebank, derive_np, fetch, read_trees,
                                 rebase_url, tree_tokens)
from chaintag.errors import ChaintagError, InputError

CONLL_TRAIN = (b"Confidence NN B-NP\n"
               b"in IN B-PP\n"
               b"the DT B-NP\n"
               b"pound NN I-NP\n"
               b"is VBZ B-VP\n"
               b"widely RB I-VP\n"
               b". . O\n"
               b"\n"
               b"He PRP B-NP\n"
               b"left VBD B-VP\n"
               b"\n")
CONLL_TEST = (b"Rockwell NNP B-NP\n"
              b"said VBD B-VP\n"
              b"so RB B-ADVP\n"
              b"\n")
NP_TRAIN = (b"Confidence NN B-NP\n"
            b"in IN O\n"
            b"the DT B-NP\n"
            b"pound NN I-NP\n"
            b"is VBZ O\n"
            b"widely RB O\n"
            b". . O\n"
            b"\n"
            b"He PRP B-NP\n"
            b"left VBD O\n"
            b"\n")
NP_TEST = (b"Rockwell NNP B-NP\n"
           b"said VBD O\n"
           b"so RB O\n"
           b"\n")

MRG_0001 = """
( (S
    (NP-SBJ (NNP Pierre) (NNP Vinken) )
    (VP (MD will)
      (VP (VB join)
        (NP (DT the) (NN board) )
        (NP-TMP (NNP Nov.) (CD 29) )))
    (. .) ))
( (S
    (NP-SBJ-1 (NNP Mr.) (NNP Vinken) )
    (VP (VBZ is)
      (S (NP-SBJ (-NONE- *-1) )
        (NP-PRD (NN chairman) )))
    (. .) ))
"""
MRG_0160 = """( (S (NP-SBJ (-NONE- *) ) (VP (VB Buy) (NP (CD 1\\/2) ) ) (. .) ))
( (FRAG (NP (-NONE- *T*-2) ) ))
"""
MRG_0180 = "( (S (NP-SBJ (PRP It) ) (VP (VBD rose) (NP (-LRB- -LRB-) (NN x) (-RRB- -RRB-) ))))\n"
PTB_TRAIN = ("Pierre NNP\nVinken NNP\nwill MD\njoin VB\nthe DT\nboard NN\nNov. NNP\n29 CD\n. .\n\n"
             "Mr. NNP\nVinken NNP\nis VBZ\nchairman NN\n. .\n\n")
PTB_DEV = "Buy VB\n1\\/2 CD\n. .\n\n"
PTB_TEST = "It PRP\nrose VBD\n-LRB- -LRB-\nx NN\n-RRB- -RRB-\n\n"
PTB_IDS = ("split\tsentence\tfileid\n"
           "train\t0\twsj_0001\ntrain\t1\twsj_0001\ndev\t0\twsj_0160\ntest\t0\twsj_0180\n")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make_zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests: list[str]

    def do_GET(self):  # noqa: N802 - http.server naming
        self.requests.append(self.path)
        super().do_GET()

    def log_message(self, format, *args):  # keep the test output clean
        pass


class Mirror:
    """A folder laid out like the real hosts' paths, served over HTTP on 127.0.0.1."""

    def __init__(self, root: Path, monkeypatch):
        self.root = root
        self.monkeypatch = monkeypatch
        self.requests: list[str] = []
        handler = type("Handler", (_Handler,), {"requests": self.requests})
        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def put(self, key: str, data: bytes, *, expected: str | None = None) -> None:
        """Serve ``data`` at the path of ``URLS[key]`` and expect its sha256."""
        path = self.root / urllib.parse.urlsplit(fetch_mod.URLS[key]).path.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.expect(key, expected if expected is not None else sha(data))

    def expect(self, key: str, digest: str) -> None:
        self.monkeypatch.setitem(fetch_mod.SHA256, key, digest)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


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


def put_conll2000(mirror: Mirror) -> None:
    mirror.put("conll2000/conll2000.zip", make_zip({
        "conll2000/": b"",
        "conll2000/README": b"fabricated\n",
        "conll2000/train.txt": CONLL_TRAIN,
        "conll2000/test.txt": CONLL_TEST,
    }))
    mirror.expect("conll2000/train.txt", sha(CONLL_TRAIN))
    mirror.expect("conll2000/test.txt", sha(CONLL_TEST))


def all_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# --------------------------------------------------------------------------- downloads


def test_fetch_conll2000_downloads_checks_and_extracts(mirror, data_dir):
    put_conll2000(mirror)
    folder = fetch("conll2000", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert folder == data_dir / "conll2000"
    assert (folder / "train.txt").read_bytes() == CONLL_TRAIN
    assert (folder / "test.txt").read_bytes() == CONLL_TEST
    # the archive and any temporary file are gone
    assert all_files(data_dir) == ["conll2000/test.txt", "conll2000/train.txt"]
    assert mirror.requests == [urllib.parse.urlsplit(fetch_mod.URLS["conll2000/conll2000.zip"]).path]


def test_sha256_mismatch_raises_and_leaves_nothing(mirror, data_dir):
    put_conll2000(mirror)
    wrong = "0" * 64
    mirror.expect("conll2000/conll2000.zip", wrong)
    with pytest.raises(FetchError) as info:
        fetch("conll2000", data_dir=data_dir, base_url=mirror.url, quiet=True)
    msg = str(info.value)
    zip_path = urllib.parse.urlsplit(fetch_mod.URLS["conll2000/conll2000.zip"]).path
    assert mirror.url + zip_path in msg
    assert wrong in msg
    assert sha((mirror.root / zip_path.lstrip("/")).read_bytes()) in msg
    assert isinstance(info.value, ChaintagError)
    assert all_files(data_dir) == []
    assert not (data_dir / "conll2000").exists()


def test_extracted_member_mismatch_leaves_nothing(mirror, data_dir):
    put_conll2000(mirror)
    mirror.expect("conll2000/test.txt", "f" * 64)
    with pytest.raises(FetchError, match="f{64}"):
        fetch("conll2000", data_dir=data_dir, base_url=mirror.url, quiet=True)
    # train.txt was verified and may stay; nothing partial or temporary remains
    assert "conll2000/test.txt" not in all_files(data_dir)
    assert not [f for f in all_files(data_dir) if f.endswith((".part", ".zip"))]


def test_download_mismatch_keeps_existing_file(mirror, data_dir):
    mirror.put("jnlpba/Genia4EReval1.iob2", b"a\tO\n\n", expected="1" * 64)
    dest = data_dir / "Genia4EReval1.iob2"
    dest.write_bytes(b"old\n")
    url = rebase_url(fetch_mod.URLS["jnlpba/Genia4EReval1.iob2"], mirror.url)
    with pytest.raises(FetchError, match="sha256 mismatch"):
        fetch_mod.download(url, dest, "jnlpba/Genia4EReval1.iob2", quiet=True)
    assert dest.read_bytes() == b"old\n"
    assert all_files(data_dir) == ["Genia4EReval1.iob2"]


def test_refetch_skips_download_and_repairs_damaged_file(mirror, data_dir):
    put_conll2000(mirror)
    fetch("conll2000", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert len(mirror.requests) == 1
    fetch("conll2000", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert len(mirror.requests) == 1
    (data_dir / "conll2000" / "test.txt").write_bytes(b"damaged\n")
    fetch("conll2000", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert len(mirror.requests) == 2
    assert (data_dir / "conll2000" / "test.txt").read_bytes() == CONLL_TEST


def test_http_error_names_url_and_leaves_nothing(mirror, data_dir):
    mirror.expect("conll2000/conll2000.zip", "0" * 64)  # nothing served
    with pytest.raises(FetchError, match=r"could not download http://127\.0\.0\.1.*404"):
        fetch("conll2000", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert all_files(data_dir) == []


def test_base_url_from_environment(mirror, data_dir, monkeypatch):
    put_conll2000(mirror)
    monkeypatch.setenv(fetch_mod.BASE_URL_ENV, mirror.url)
    folder = fetch("conll2000", data_dir=data_dir, quiet=True)
    assert (folder / "train.txt").read_bytes() == CONLL_TRAIN


def test_ud_en_ewt_and_jnlpba(mirror, data_dir, capsys):
    for f in ("train", "dev", "test"):
        mirror.put(f"ud_en_ewt/en_ewt-ud-{f}.conllu",
                   f"# sent_id = {f}\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n".encode())
    folder = fetch("ud_en_ewt", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert sorted(p.name for p in folder.iterdir()) == [
        "en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu", "en_ewt-ud-train.conllu"]

    mirror.put("jnlpba/Genia4EReval1.iob2", b"IL-2\tB-protein\n\n")
    mirror.put("jnlpba/Genia4EReval2.iob2", b"###MEDLINE:1\n\nIL-2\tB-protein\n\n")
    folder = fetch("jnlpba", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert (folder / "Genia4EReval2.iob2").read_bytes() == b"###MEDLINE:1\n\nIL-2\tB-protein\n\n"
    err = capsys.readouterr().err
    assert "cannot be fetched" in err
    assert "jnlpba:train " in err and "jnlpba:train_gold " in err
    assert str(folder / "train.reconstructed.iob2") in err

    # once the user has supplied the training files there is nothing to warn about
    (folder / "train.reconstructed.iob2").write_text("IL-2\tB-protein\n\n")
    (folder / "train_gold_subset.iob2").write_text("IL-2\tB-protein\n\n")
    fetch("jnlpba", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert "cannot be fetched" not in capsys.readouterr().err


def test_unknown_dataset(data_dir):
    with pytest.raises(FetchError, match="unknown dataset 'nope'.*conll2000"):
        fetch("nope", data_dir=data_dir)


def test_rebase_url():
    url = "https://raw.githubusercontent.com/a/b/c.zip"
    assert rebase_url(url, None) == url
    assert rebase_url(url, "http://127.0.0.1:8000") == "http://127.0.0.1:8000/a/b/c.zip"
    assert rebase_url(url, "http://h:1/mirror/") == "http://h:1/mirror/a/b/c.zip"
    with pytest.raises(FetchError, match="scheme and a host"):
        rebase_url(url, "127.0.0.1:8000")


def test_source_table_covers_every_download():
    assert set(fetch_mod.URLS) <= set(fetch_mod.SHA256)
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in fetch_mod.SHA256.values())
    assert all(u.startswith(("https://raw.githubusercontent.com/", "https://files.pythonhosted.org/"))
               for u in fetch_mod.URLS.values())


# --------------------------------------------------------------------------- conll2000_np


def test_derive_np():
    assert derive_np(CONLL_TRAIN.decode()) == NP_TRAIN.decode()
    assert derive_np("a DT B-NP\n  \nb NN B-VP") == "a DT B-NP\n\nb NN O\n"
    with pytest.raises(InputError, match="I-NP does not follow"):
        derive_np("a DT B-VP\nb NN I-NP\n")
    with pytest.raises(InputError, match=":2: expected 'word POS chunk'"):
        derive_np("a DT B-NP\nb NN\n", "x.txt")


def test_fetch_conll2000_np_fetches_conll2000_first(mirror, data_dir):
    put_conll2000(mirror)
    mirror.expect("conll2000_np/train.txt", sha(NP_TRAIN))
    mirror.expect("conll2000_np/test.txt", sha(NP_TEST))
    folder = fetch("conll2000_np", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert folder == data_dir / "conll2000_np"
    assert (folder / "train.txt").read_bytes() == NP_TRAIN
    assert (folder / "test.txt").read_bytes() == NP_TEST
    assert (data_dir / "conll2000" / "train.txt").read_bytes() == CONLL_TRAIN
    n = len(mirror.requests)
    fetch("conll2000_np", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert len(mirror.requests) == n


def test_conll2000_np_mismatch_leaves_nothing(mirror, data_dir):
    put_conll2000(mirror)
    mirror.expect("conll2000_np/train.txt", "2" * 64)
    mirror.expect("conll2000_np/test.txt", sha(NP_TEST))
    with pytest.raises(FetchError, match="2{64}"):
        fetch("conll2000_np", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert not [f for f in all_files(data_dir) if f.startswith("conll2000_np/")]


# --------------------------------------------------------------------------- treebank


def test_read_trees_and_tokens():
    trees = list(read_trees(MRG_0001))
    assert len(trees) == 2
    assert trees[0][0] is None and trees[0][1][0] == "S"
    assert tree_tokens(trees[1]) == [("Mr.", "NNP"), ("Vinken", "NNP"), ("is", "VBZ"),
                                     ("chairman", "NN"), (".", ".")]
    assert tree_tokens(next(read_trees("(A (B x) (-NONE- *) (C (D y)))"))) == [("x", "B"),
                                                                               ("y", "D")]


@pytest.mark.parametrize("bad", ["(S (NN x)", "(S (NN x)))", "word (S (NN x))"])
def test_read_trees_rejects_unbalanced(bad):
    with pytest.raises(InputError, match="t.mrg"):
        list(read_trees(bad, "t.mrg"))


def test_convert_treebank_drops_none_and_splits_by_file():
    out = convert_treebank({"wsj_0180": MRG_0180, "wsj_0001": MRG_0001, "wsj_0160": MRG_0160})
    assert out == {"train.txt": PTB_TRAIN, "dev.txt": PTB_DEV, "test.txt": PTB_TEST,
                   "fileids.tsv": PTB_IDS}


def test_fetch_ptb_sample(mirror, data_dir):
    mirror.put("ptb_sample/treebank.zip", make_zip({
        "treebank/README": b"fabricated\n",
        "treebank/combined/wsj_0001.mrg": MRG_0001.encode(),
        "treebank/combined/wsj_0160.mrg": MRG_0160.encode(),
        "treebank/combined/wsj_0180.mrg": MRG_0180.encode(),
        "treebank/tagged/wsj_0001.pos": b"[ Pierre/NNP ]\n",
    }))
    for name, text in (("train.txt", PTB_TRAIN), ("dev.txt", PTB_DEV), ("test.txt", PTB_TEST),
                       ("fileids.tsv", PTB_IDS)):
        mirror.expect(f"ptb_sample/{name}", sha(text.encode()))
    folder = fetch("ptb_sample", data_dir=data_dir, base_url=mirror.url, quiet=True)
    assert (folder / "train.txt").read_text() == PTB_TRAIN
    assert (folder / "dev.txt").read_text() == PTB_DEV
    assert (folder / "test.txt").read_text() == PTB_TEST
    assert all_files(data_dir) == ["ptb_sample/dev.txt", "ptb_sample/fileids.tsv",
                                   "ptb_sample/test.txt", "ptb_sample/train.txt"]


# --------------------------------------------------------------------------- command line


def test_cli_fetch(mirror, data_dir, capsys):
    put_conll2000(mirror)
    rc = main(["data", "fetch", "conll2000", "--data-dir", str(data_dir), "--base-url",
               mirror.url, "--quiet"])
    assert rc == 0
    assert (data_dir / "conll2000" / "train.txt").read_bytes() == CONLL_TRAIN
    assert capsys.readouterr().err == ""


def test_cli_fetch_mismatch_exits_2(mirror, data_dir, capsys):
    put_conll2000(mirror)
    mirror.expect("conll2000/conll2000.zip", "3" * 64)
    rc = main(["data", "fetch", "conll2000", "--data-dir", str(data_dir), "--base-url",
               mirror.url, "--quiet"])
    assert rc == 2
    assert "sha256 mismatch" in capsys.readouterr().err
    assert all_files(data_dir) == []
