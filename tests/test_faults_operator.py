"""An operator's long runs: what an interrupted run says it saved, resume advice, full or unwritable chunk
folders, refusals to resume that name what differs, and a second Ctrl-C during the clean-up."""

from __future__ import annotations

import os
import signal
import time
from types import SimpleNamespace

import pytest

from chaintag.cli.interrupt import train_hint
from chaintag.cli.main import main
from cli_helpers import fails

TRAIN = "He PRP B-NP\nruns VBZ B-VP\n. . O\n\nShe PRP B-NP\nsings VBZ B-VP\n\n" * 10


@pytest.fixture()
def train(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text(TRAIN, encoding="utf-8")
    return path



def test_an_interrupt_after_the_model_is_saved_says_so(train, tmp_path, capsys, monkeypatch):
    """Ctrl-C while the test report was printed said "nothing was saved" of a whole model file."""
    from chaintag.cli import train_cmd

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(train_cmd, "report", interrupted)
    model, history = tmp_path / "m.npz", tmp_path / "h.jsonl"
    assert main(["train", "-a", "perceptron", "--features", "w[0]", "--train", str(train), "--test", str(train),
                 "--epochs", "1", "--model", str(model)]) == 130
    err = capsys.readouterr().err
    assert f"the model was saved whole to {model} before the interrupt" in err and "nothing was saved" not in err
    # a file at the path that this run did not write (a model with a clock ahead, copied in) is not its
    future = tmp_path / "future.npz"
    future.write_bytes(model.read_bytes())
    os.utime(future, (time.time() + 600, time.time() + 600))
    monkeypatch.setattr(train_cmd, "_run", lambda args: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert main(["train", "-a", "perceptron", "--train", str(train), "--model", str(future)]) == 130
    assert "nothing was saved" in capsys.readouterr().err
    hint = train_hint(SimpleNamespace(model=str(model), model_saved=True, history=str(history)))
    assert hint.endswith(f"the history ({history}) was not written")
    hint = train_hint(SimpleNamespace(model=str(model), model_saved=True, history=str(history), history_written=True))
    assert hint == f"the model was saved whole to {model} before the interrupt"


def test_the_advice_after_a_checkpointed_run_that_finished_its_epochs(train, tmp_path):
    """It said "holds epochs 1-3: resume at epoch 4" when the 3 epochs asked for were done."""
    ck = tmp_path / "ck"
    assert main(["train", "-q", "-a", "perceptron", "--features", "w[0]", "--train", str(train), "--epochs", "1",
                 "--model", str(tmp_path / "m.npz"), "--checkpoint-dir", str(ck)]) == 0
    args = SimpleNamespace(model=None, checkpoint_dir=str(ck), argv=["train", "--epochs", "1"], epochs=1)
    assert train_hint(args) == (f"the checkpoint in {ck} holds all the epochs (epoch 1): write the model "
                                "without training again with: chaintag train --epochs 1 --resume")
    args.epochs = 3
    assert train_hint(args).startswith(f"the checkpoint in {ck} holds epoch 1: resume at epoch 2")
    # interrupted before the learner is made, without --epochs: the checkpoint's own count of epochs asked for,
    # named in the advised command (whose default could be fewer)
    args.epochs, args.argv = None, ["train"]
    assert train_hint(args).endswith("holds all the epochs (epoch 1): write the model without training again "
                                     "with: chaintag train --resume --epochs 1")


def test_a_streamed_run_is_not_advised_a_checkpoint_it_cannot_take():
    hint = train_hint(SimpleNamespace(model=None, checkpoint_dir=None, streamed_run=True))
    assert "--no-stream" in hint and "--checkpoint-dir" in hint


def test_a_large_file_held_in_memory_for_a_checkpoint_is_said(train, tmp_path, capsys, monkeypatch):
    """--checkpoint-dir turned off the default streaming of a large file: 4 times the memory, no word."""
    from chaintag.api import train_stream
    monkeypatch.setattr(train_stream, "AUTO_BYTES", 10)
    assert main(["train", "-a", "perceptron", "--features", "w[0]", "--train", str(train), "--epochs", "1",
                 "--model", str(tmp_path / "m.npz"), "--checkpoint-dir", str(tmp_path / "ck")]) == 0
    err = capsys.readouterr().err
    assert "training data held in memory, not streamed" in err and "--checkpoint-dir" in err, err


def test_a_chunk_folder_that_cannot_be_written_is_named(train, tmp_path, capsys, monkeypatch):
    """A full --stream-dir said "2260087 requested and 798688 written"; a read-only one gave a raw errno."""
    import shutil
    from chaintag.streaming import extract

    def partial(*a, **k):
        raise OSError("2260087 requested and 798688 written")
    monkeypatch.setattr(extract.np, "save", partial)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: SimpleNamespace(total=1, used=1, free=0))
    folder = tmp_path / "chunks"
    folder.mkdir()
    argv = ["train", "-a", "perceptron", "--features", "w[0]", "--train", str(train), "--epochs", "1",
            "--model", str(tmp_path / "m.npz"), "--stream", "--stream-dir", str(folder)]
    fails(capsys, argv, f"{folder}: cannot write the training data's arrays to the chunk folder (no space left "
                         "on device); free some space or give another --stream-dir")
    monkeypatch.undo()
    import tempfile

    def refused(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(tempfile, "TemporaryDirectory", refused)
    fails(capsys, argv, f"{folder}: cannot write the training data's arrays to the chunk folder (Permission "
                         "denied); give another --stream-dir (a folder you can write)")
    assert not (tmp_path / "m.npz").exists()


def test_a_refusal_to_resume_names_the_settings_that_differ(train, tmp_path, capsys):
    ck, model = tmp_path / "ck", tmp_path / "m.npz"
    base = ["train", "-q", "-a", "sapo", "--features", "w[0]", "--train", str(train), "--model", str(model),
            "--checkpoint-dir", str(ck)]
    assert main(base + ["--epochs", "1", "-p", "l2=2"]) == 0
    fails(capsys, base + ["--epochs", "2", "--resume"],
           "this checkpoint was made with other settings (l2 (--l2): 2.0 in the checkpoint, 1.0 now)")
    other = tmp_path / "other.txt"
    other.write_text(TRAIN.replace("sings", "dances"), encoding="utf-8")
    argv = base + ["--epochs", "2", "-p", "l2=2", "--resume"]
    argv[argv.index(str(train))] = str(other)
    fails(capsys, argv, "other training data (the same settings and counts, other words or values)")
    # a model file is no checkpoint; nor may the model overwrite the checkpoint
    (ck / "checkpoint.npz").write_bytes(model.read_bytes())
    fails(capsys, base + ["--epochs", "2", "-p", "l2=2", "--resume"], "this is not a checkpoint but a model file")
    argv = base + ["--epochs", "2"]
    argv[argv.index(str(model))] = str(ck / "checkpoint.npz")
    fails(capsys, argv, "would overwrite the checkpoint of --checkpoint-dir")
    for name in ("checkpoint.npz", "checkpoint.lock"):
        fails(capsys, base + ["--epochs", "2", "--history", str(ck / name)],
               f"--history {ck / name} would overwrite the checkpoint")
    fails(capsys, base[:-2] + ["--history", "-"], "--history -: the history is a file")
    # settings and data both differ: both said, and no advice that would fail on the data
    (ck / "checkpoint.npz").unlink()
    assert main(base + ["--epochs", "1", "-p", "l2=2"]) == 0
    argv = base + ["--epochs", "2", "--threads", "2", "-p", "l2=2", "--resume"]
    argv[argv.index(str(train))] = str(other)
    fails(capsys, argv, "n_jobs (--threads): 1 in the checkpoint, 2 now", "and other training data")
    # a setting that shapes the vocabulary changed: no claim about the data, and the advice to resume
    argv = base + ["--epochs", "2", "-p", "l2=2", "--resume"]
    argv[argv.index("w[0]")] = "w[0];w[-1]"
    err = fails(capsys, argv, "features (--features): 'w[0]' in the checkpoint, 'w[0];w[-1]' now",
                "; resume with its settings, or remove it")
    assert "other training data" not in err


def test_a_second_ctrl_c_during_the_report_of_the_first_is_ignored(train, tmp_path, monkeypatch):
    """A second Ctrl-C while the interrupt was reported ended in a traceback and exit -2."""
    from chaintag.cli import main as main_module, train_cmd

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    def impatient(args):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the signal is handled here, inside the report of the first
        return "advice"
    monkeypatch.setattr(train_cmd, "_run", interrupted)
    monkeypatch.setattr(main_module, "_resume_hint", impatient)
    before = signal.getsignal(signal.SIGINT)
    try:
        rc = main(["train", "-a", "perceptron", "--train", str(train), "--model", str(tmp_path / "m.npz")])
    except KeyboardInterrupt:
        pytest.fail("the second Ctrl-C escaped the clean-up")
    assert rc == 130 and signal.getsignal(signal.SIGINT) == before


def test_a_ctrl_c_inside_a_compiled_function_is_an_interrupt(train, tmp_path, capsys, monkeypatch):
    """numba reports a Ctrl-C inside a compiled function (attribute extraction of a large file) as a
    SystemError whose context is the KeyboardInterrupt: a traceback, and no advice."""
    from chaintag.cli import train_cmd

    def compiled(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("CPUDispatcher(<function table_to_csr>) returned a result with an exception set")
    monkeypatch.setattr(train_cmd, "_run", compiled)
    assert main(["train", "-a", "perceptron", "--train", str(train), "--model", str(tmp_path / "m.npz")]) == 130
    err = capsys.readouterr().err
    assert "interrupted; nothing was saved" in err and "Traceback" not in err

    def broken(args):
        raise SystemError("a real fault")
    monkeypatch.setattr(train_cmd, "_run", broken)
    with pytest.raises(SystemError, match="a real fault"):
        main(["train", "-a", "perceptron", "--train", str(train), "--model", str(tmp_path / "m.npz")])
