"""Progress and logs: bars on a terminal, plain lines otherwise; interrupt and resume messages."""

from __future__ import annotations

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag_research.compare import compare
from chaintag.learners.perceptron import StructuredPerceptron
from chaintag.progress import progress_mode
from toy_corpus import LABELS, SENTS


def _file(tmp_path, name, sents, labels):
    path = tmp_path / name
    path.write_text("".join("".join(" ".join(t) + f" {lab}\n" for t, lab in zip(s, ls)) + "\n"
                            for s, ls in zip(sents, labels)), encoding="utf-8")
    return str(path)


def test_progress_modes(monkeypatch):
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert progress_mode(None) is None and progress_mode(False) is None
    assert progress_mode(True) == "log" and progress_mode("bar") == "bar"
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    assert progress_mode(None) == "bar" and progress_mode(True) == "bar" and progress_mode("log") == "log"
    with pytest.raises(ValueError):
        progress_mode("verbose")


def test_log_lines_one_per_epoch_and_step(capsys):
    StructuredPerceptron(features="w[0]", columns=("word", "pos"), epochs=3, progress=True).fit(
        SENTS, LABELS, dev=(SENTS, LABELS))
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = err.splitlines()
    epochs = [line for line in lines if line.startswith("perceptron epoch ")]
    assert [line.split(":")[0] for line in epochs] == [f"perceptron epoch {k}/3" for k in (1, 2, 3)]
    assert all("dev " in line and "training errors" in line for line in epochs)
    assert any(line.startswith("attribute extraction (5 sentences, 16 tokens): ") for line in lines)
    assert any(line.startswith("compiled kernels") for line in lines)


def test_library_default_is_silent_off_a_terminal(capsys):
    StructuredPerceptron(features="w[0]", columns=("word", "pos"), epochs=2).fit(SENTS, LABELS)
    chaintag.MaxEnt(features="w[0]", columns=("word", "pos")).fit(SENTS, LABELS)
    assert capsys.readouterr().err == ""


def test_resumed_run_says_from_which_epoch(tmp_path, capsys):
    kw = dict(features="w[0]", columns=("word", "pos"), progress="log")
    StructuredPerceptron(epochs=2, **kw).fit(SENTS, LABELS, checkpoint_dir=tmp_path, resume=True)
    assert "no checkpoint in" in capsys.readouterr().err
    StructuredPerceptron(epochs=4, **kw).fit(SENTS, LABELS, checkpoint_dir=tmp_path, resume=True)
    err = capsys.readouterr().err
    assert "epochs 1-2 restored, continuing at epoch 3 of 4" in err
    assert "perceptron epoch 3/4" in err and "perceptron epoch 1/4" not in err


def test_cli_train_logs_and_interrupt_says_how_to_resume(tmp_path, capsys, monkeypatch):
    train = _file(tmp_path, "train.txt", SENTS, LABELS)
    model = str(tmp_path / "m.npz")
    ck = str(tmp_path / "ck")
    argv = ["train", "--train", train, "-a", "perceptron", "--features", "w[0]", "--epochs", "5", "--model", model,
            "--checkpoint-dir", ck]
    real = StructuredPerceptron._run_epoch
    calls = {"n": 0}

    def stop_in_epoch_3(self, state, data, order):
        if len(order):  # the warm-up epoch has no sentences
            calls["n"] += 1
            if calls["n"] == 3:
                raise KeyboardInterrupt
        return real(self, state, data, order)

    monkeypatch.setattr(StructuredPerceptron, "_run_epoch", stop_in_epoch_3)
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "\r" not in err and "perceptron epoch 2/5" in err
    assert "interrupted; the checkpoint in" in err and "holds epochs 1-2: resume at epoch 3" in err
    assert "--checkpoint-dir " + ck + " --resume" in err
    monkeypatch.setattr(StructuredPerceptron, "_run_epoch", real)
    assert main(argv + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "continuing at epoch 3 of 5" in err and "perceptron epoch 5/5" in err
    # without a checkpoint folder the advice is how to make one
    monkeypatch.setattr(StructuredPerceptron, "_run_epoch", stop_in_epoch_3)
    calls["n"] = 0
    assert main(argv[:-2]) == 130
    assert "run it with --checkpoint-dir DIR, then again with --resume" in capsys.readouterr().err


def test_compare_logs_one_line_per_run(tmp_path, capsys):
    train = _file(tmp_path, "train.txt", SENTS, LABELS)
    compare(tmp_path / "cmp", ["perceptron", "mira"], features="w[0]", train=train, test=train, epochs=2,
            progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err
    assert [line.split(" (")[0] for line in err.splitlines() if ": run " in line] == \
        ["compare: run 1/2 perceptron", "compare: run 2/2 mira"]


def test_cli_train_terminated_says_how_to_resume(tmp_path, capsys, monkeypatch):
    from chaintag.cli.main import Terminated

    train = _file(tmp_path, "train.txt", SENTS, LABELS)
    ck = str(tmp_path / "ck")
    argv = ["train", "--train", train, "-a", "perceptron", "--features", "w[0]", "--epochs", "5", "--model",
            str(tmp_path / "m.npz"), "--checkpoint-dir", ck]
    real = StructuredPerceptron._run_epoch
    calls = {"n": 0}

    def stop_in_epoch_2(self, state, data, order):
        if len(order):
            calls["n"] += 1
            if calls["n"] == 2:
                raise Terminated
        return real(self, state, data, order)

    monkeypatch.setattr(StructuredPerceptron, "_run_epoch", stop_in_epoch_2)
    assert main(argv) == 143
    err = capsys.readouterr().err
    assert "terminated; the checkpoint in" in err and "holds epoch 1: resume at epoch 2" in err
