"""Streamed training (chunks read from the file, arrays on disk) against fit on the corpus in memory."""

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError
from chaintag.learners import make_learner
from chaintag.streaming import fit_streamed
from chaintag.streaming.extract import _merge_pairs

from toy_corpus import LABELS, SENTS


@pytest.fixture
def corpus_file(tmp_path):
    rng = np.random.default_rng(3)
    lines = []
    for k in range(40):
        s = rng.integers(len(SENTS))
        toks = list(SENTS[s])
        if k % 3 == 0:
            toks = toks + [(f"new{k}", "NN")]  # words first seen late: vocabularies grow across chunks
        labs = LABELS[s] + (["I-NP"] if k % 3 == 0 else [])
        lines += [f"{w} {p} {y}" for (w, p), y in zip(toks, labs)] + [""]
    path = tmp_path / "train.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("name,kw", [("perceptron", {}), ("perceptron", {"averaged": False}),
                                     ("mira", {}), ("nbest-mira", {}),
                                     ("perceptron", {"feature_space": "all", "cc": 2})])
@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_streamed_model_equals_fit_in_memory(corpus_file, tmp_path, name, kw, chunk):
    c = chaintag.load_corpus(str(corpus_file))
    dev = (c.tokens[:5], c.labels[:5])
    serial = make_learner(name, features="chunking", columns=c.columns, epochs=3, **kw).fit(c.tokens, c.labels,
                                                                                              dev=dev)
    streamed = fit_streamed(make_learner(name, features="chunking", columns=c.columns, epochs=3, **kw),
                            str(corpus_file), chunk_sentences=chunk, dev=dev)
    serial.save(tmp_path / "a.npz")
    streamed.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


@pytest.mark.parametrize("name", ["sapo", "crf"])
def test_streamed_scaled_learners_differ_by_rounding_only_without_shuffle(corpus_file, name):
    c = chaintag.load_corpus(str(corpus_file))
    serial = make_learner(name, features="chunking", columns=c.columns, epochs=3, shuffle=False).fit(c.tokens, c.labels)
    streamed = fit_streamed(make_learner(name, features="chunking", columns=c.columns, epochs=3, shuffle=False),
                            str(corpus_file), chunk_sentences=6)
    np.testing.assert_allclose(streamed.weights_, serial.weights_, rtol=1e-9, atol=1e-12)
    assert not np.array_equal(serial.weights_, 0 * serial.weights_)


def test_merge_pairs_sums_equal_pairs():
    k, lab, c = _merge_pairs(np.array([5, 3, 5, 3, 5]), np.array([1, 0, 1, 2, 0]), np.array([1, 2, 3, 4, 5]))
    assert list(zip(k.tolist(), lab.tolist(), c.tolist())) == [(3, 0, 2), (3, 2, 4), (5, 0, 5), (5, 1, 4)]


def test_streamed_refuses_what_it_cannot_do(corpus_file):
    with pytest.raises(InputError, match="hash_bits"):
        fit_streamed(make_learner("perceptron", features="chunking", hash_bits=10), str(corpus_file))
    with pytest.raises(InputError, match="standard input"):
        fit_streamed(make_learner("perceptron", features="chunking"), "-")
    with pytest.raises(InputError, match="not maxent"):
        fit_streamed(make_learner("maxent", features="chunking"), str(corpus_file))


def _train(corpus_file, tmp_path, out, *extra, features=("--features", "chunking")):
    from chaintag.cli.main import main
    return main(["train", "--train", str(corpus_file), *features, "--epochs", "3", "--quiet",
                 "--model", str(tmp_path / out), *extra])


@pytest.mark.parametrize("extra", [("--algorithm", "perceptron"), ("--algorithm", "mira", "--dev", "DEV"),
                                   ("--algorithm", "nbest-mira")])
def test_cli_streamed_training_writes_the_in_memory_model(corpus_file, tmp_path, extra, monkeypatch):
    extra = tuple(str(corpus_file) if e == "DEV" else e for e in extra)
    import chaintag.api.train_stream as ts
    calls = []
    real = ts.fit_stream
    monkeypatch.setattr(ts, "fit_stream", lambda *a: calls.append(1) or real(*a))
    assert _train(corpus_file, tmp_path, "mem.npz", *extra) == 0
    assert not calls  # a small file: in memory by default
    assert _train(corpus_file, tmp_path, "st.npz", "--stream", "--stream-dir", str(tmp_path / "chunks"), *extra) == 0
    assert calls == [1]
    assert (tmp_path / "st.npz").read_bytes() == (tmp_path / "mem.npz").read_bytes()
    assert list((tmp_path / "chunks").iterdir()) == []  # its chunk files are removed at the end
    # from AUTO_BYTES on, a run whose model is the same either way streams without being asked
    monkeypatch.setattr(ts, "AUTO_BYTES", 0)
    assert _train(corpus_file, tmp_path, "auto.npz", *extra) == 0
    assert calls == [1, 1]
    assert (tmp_path / "auto.npz").read_bytes() == (tmp_path / "mem.npz").read_bytes()
    assert _train(corpus_file, tmp_path, "no.npz", "--no-stream", *extra) == 0
    assert calls == [1, 1]


def test_cli_streamed_training_chooses_the_default_preset_and_reports_the_corpus(corpus_file, tmp_path, capsys):
    c = chaintag.load_corpus(str(corpus_file))
    assert _train(corpus_file, tmp_path, "a.npz", "--json", features=()) == 0
    mem = capsys.readouterr()
    assert _train(corpus_file, tmp_path, "b.npz", "--json", "--stream", features=()) == 0
    st = capsys.readouterr()
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    import json
    assert json.loads(st.out)["train"]["n_tokens"] == json.loads(mem.out)["train"]["n_tokens"] == c.n_tokens


def test_cli_stream_refuses_what_it_cannot_do(corpus_file, tmp_path):
    for extra in (("--hash-bits", "10"), ("--algorithm", "crf-lbfgs"), ("--order", "2"), ("--dev-fraction", "0.1")):
        assert _train(corpus_file, tmp_path, "x.npz", "--stream", *extra) == 2, extra
    assert not (tmp_path / "x.npz").exists()


def test_stale_chunk_folders_of_dead_runs_are_removed(tmp_path):
    import os
    import subprocess
    import sys
    from chaintag.streaming.train import remove_stale_chunks
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"chaintag-chunks-{dead.pid}-abc_1"
    live = tmp_path / f"chaintag-chunks-{os.getppid()}-xyz"
    other = tmp_path / "chaintag-chunks-notapid"
    for d in (stale, live, other):
        d.mkdir()
        (d / "chunk000000.gold.npy").write_bytes(b"x")
    assert remove_stale_chunks(str(tmp_path)) == [str(stale)]
    assert not stale.exists() and live.exists() and other.exists()
