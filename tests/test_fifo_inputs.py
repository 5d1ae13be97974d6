"""Inputs read once: named pipes (and so <(...) and /dev/fd/N) give the regular file's results."""

from __future__ import annotations

import os
import threading

import pytest

import chaintag
from chaintag.cli.main import main

from toy_corpus import LABELS, SENTS

TEXT = "".join("".join(f"{w} {p} {y}\n" for (w, p), y in zip(s, ls)) + "\n" for s, ls in zip(SENTS, LABELS))
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")


def _fifo(tmp_path, name, text):
    path = tmp_path / name
    os.mkfifo(path)

    def write():
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return str(path), t


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "m.npz"
    chaintag.StructuredPerceptron(features="w[0];pos[0]", epochs=3).fit(SENTS, LABELS).save(path)
    return path


def test_tag_reads_a_named_pipe_once(tmp_path, model_file):
    plain = tmp_path / "plain.txt"
    plain.write_text(TEXT, encoding="utf-8")
    assert main(["tag", "--model", str(model_file), str(plain), "-o", str(tmp_path / "a.txt"), "-q"]) == 0
    fifo, writer = _fifo(tmp_path, "in.fifo", TEXT)
    assert main(["tag", "--model", str(model_file), fifo, "-o", str(tmp_path / "b.txt"), "-q"]) == 0
    writer.join(timeout=30)
    assert (tmp_path / "b.txt").read_bytes() == (tmp_path / "a.txt").read_bytes()


def test_train_and_eval_read_a_named_pipe_once(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text(TEXT, encoding="utf-8")
    assert main(["train", "--train", str(plain), "--features", "w[0]", "--epochs", "2", "--model",
                 str(tmp_path / "a.npz"), "-q"]) == 0
    fifo, writer = _fifo(tmp_path, "train.fifo", TEXT)
    assert main(["train", "--train", fifo, "--features", "w[0]", "--epochs", "2", "--model",
                 str(tmp_path / "b.npz"), "-q"]) == 0
    writer.join(timeout=30)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    gold_pred = "".join(f"{w} {y} {y}\n" for s, ls in zip(SENTS, LABELS) for (w, _), y in zip(s, ls))
    fifo, writer = _fifo(tmp_path, "eval.fifo", gold_pred)
    assert main(["eval", fifo, "--json", "-q"]) == 0
    writer.join(timeout=30)


def test_streamed_training_refuses_a_named_pipe(tmp_path, capsys):
    path = tmp_path / "never.fifo"
    os.mkfifo(path)  # no writer: nothing may open it
    assert main(["train", "--train", str(path), "--stream", "--model", str(tmp_path / "m.npz"), "-q"]) == 2
    assert "a named pipe (or <(...)) is read once" in capsys.readouterr().err
