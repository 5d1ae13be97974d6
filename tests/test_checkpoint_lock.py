"""One training run per checkpoint folder: a second one is refused while the first runs; a dead run
does not keep the folder."""

import signal
import subprocess
import sys

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.learners.checkpoint import folder_lock

from toy_corpus import LABELS, SENTS  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock")
BASE = dict(features=["w[0]", "pos[0]"], columns=("word", "pos"), progress=False)

_HOLDER = """
import sys, time
from chaintag.cli.main import _catch_sigterm
from chaintag.learners.checkpoint import folder_lock
_catch_sigterm()
with folder_lock(sys.argv[1]):
    print("holding", flush=True)
    time.sleep(60)
"""


def _train_argv(tmp_path, ck):
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                 for s, ls in zip(SENTS, LABELS)) + "\n")
    return ["train", "--train", str(train), "--features", "w[0];pos[0]", "--epochs", "2", "-q",
            "--checkpoint-dir", str(ck), "--model", str(tmp_path / "m.npz")]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_second_run_refused_while_the_first_holds_the_folder(sig, tmp_path, capsys):
    ck = tmp_path / "ck"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(ck)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        assert main(_train_argv(tmp_path, ck)) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(ck) in err and f"process {holder.pid}" in err
        assert not (tmp_path / "m.npz").exists() and not (ck / "checkpoint.npz").exists()
        with pytest.raises(InputError, match="another training run"):
            chaintag.StructuredPerceptron(epochs=1, **BASE).fit(SENTS, LABELS, checkpoint_dir=ck, resume=True)
    finally:
        holder.send_signal(sig)
        holder.wait(timeout=20)
    # the dead (or terminated) run does not keep the folder
    assert main(_train_argv(tmp_path, ck)) == 0
    assert (ck / "checkpoint.npz").exists()


def test_lock_is_per_run_in_one_process_too(tmp_path):
    """Another thread of this process is another run; the holding thread may fit in its folder."""
    import threading
    errors = []

    def other_run():
        try:
            chaintag.StructuredPerceptron(epochs=1, **BASE).fit(SENTS, LABELS, checkpoint_dir=tmp_path)
        except InputError as exc:
            errors.append(str(exc))

    with folder_lock(tmp_path):
        t = threading.Thread(target=other_run)
        t.start()
        t.join()
        assert len(errors) == 1 and "another training run" in errors[0]
        chaintag.StructuredPerceptron(epochs=1, **BASE).fit(SENTS, LABELS, checkpoint_dir=tmp_path)
    # released: training goes ahead, and can run again after
    chaintag.StructuredPerceptron(epochs=1, **BASE).fit(SENTS, LABELS, checkpoint_dir=tmp_path)
    chaintag.StructuredPerceptron(epochs=2, **BASE).fit(SENTS, LABELS, checkpoint_dir=tmp_path, resume=True)


def test_two_cli_runs_on_one_checkpoint_folder(tmp_path, capsys):
    """The first `chaintag train` holds the folder from before it reads its data (here: stdin, left
    open) until its model is saved; a second one is refused at once, and the first one ends well."""
    ck = tmp_path / "ck"
    argv = _train_argv(tmp_path, ck)
    data = (tmp_path / "train.txt").read_text()
    first_argv = [a if a != str(tmp_path / "train.txt") else "-" for a in argv]
    first_argv[first_argv.index(str(tmp_path / "m.npz"))] = str(tmp_path / "first.npz")
    first = subprocess.Popen([sys.executable, "-m", "chaintag.cli.main", *first_argv], stdin=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        import time
        deadline = time.time() + 60
        lock = ck / "checkpoint.lock"
        while time.time() < deadline and not (lock.exists() and lock.read_text().strip() == str(first.pid)):
            time.sleep(0.05)
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"process {first.pid}" in err and str(ck) in err
        first.stdin.write(data)
        first.stdin.close()
        assert first.wait(timeout=120) == 0, first.stderr.read()
    finally:
        if first.poll() is None:
            first.kill()
    assert main(argv + ["--resume"]) == 0  # free again
    capsys.readouterr()
    assert main(argv) == 2  # without --resume, the finished run's checkpoint would be replaced: refused
    assert "holds the checkpoint of an earlier run" in capsys.readouterr().err


def test_a_refused_stream_run_makes_no_checkpoint_folder(tmp_path, capsys):
    """`--stream` with `--checkpoint-dir` is refused before the folder and its lock file are made."""
    ck = tmp_path / "ck"
    assert main(_train_argv(tmp_path, ck) + ["--stream"]) == 2
    assert "--stream: it is not offered with --checkpoint-dir" in capsys.readouterr().err
    assert not ck.exists()
