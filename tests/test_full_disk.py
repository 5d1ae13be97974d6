"""A full disk or a file-size limit at the final save: the file is named, the trained state kept,
and the exit code says what was written (3: model saved, history not; 4: model not saved, state kept)."""

import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

import chaintag
from chaintag.cli.main import main

from toy_corpus import LABELS, SENTS  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")
FULL = "/dev/full"  # every write fails with ENOSPC
needs_dev_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full")


@pytest.fixture()
def train_file(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                for s, ls in zip(SENTS, LABELS)) + "\n")
    return path


def _cmd(train_file, model, *extra):
    return ["train", "--train", str(train_file), "--features", "chunking", "--epochs", "3", "--shuffle",
            "--model", str(model), "-q", *map(str, extra)]


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@needs_dev_full
def test_full_disk_at_the_model_saves_a_rescue_copy(train_file, tmp_path, capsys, monkeypatch):
    rescue = tmp_path / "rescue"
    rescue.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(rescue))
    assert main(_cmd(train_file, FULL)) == 4
    line = _one_error_line(capsys.readouterr().err)
    assert FULL in line and "No space left on device" in line
    saved = list(rescue.iterdir())
    assert len(saved) == 1 and str(saved[0]) in line
    assert main(_cmd(train_file, tmp_path / "ok.npz")) == 0
    assert saved[0].read_bytes() == (tmp_path / "ok.npz").read_bytes()  # the very model, not lost


@needs_dev_full
def test_full_disk_everywhere_says_the_model_is_lost(train_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    monkeypatch.setenv("HOME", str(tmp_path / "missing"))
    assert main(_cmd(train_file, FULL)) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert FULL in line and "lost" in line


@needs_dev_full
def test_full_disk_at_the_history_exits_3_with_the_model_saved(train_file, tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert main(_cmd(train_file, model, "--history", FULL)) == 3
    line = _one_error_line(capsys.readouterr().err)
    assert FULL in line and str(model) in line and "history was not written" in line
    assert chaintag.load(model).predict(SENTS)


def _limited(limit: int):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def _run(argv, **kw):
    return subprocess.run([sys.executable, "-m", "chaintag.cli.main", *argv], capture_output=True, text=True, **kw)


def test_size_limit_at_the_model_keeps_the_checkpoint(train_file, tmp_path):
    """The checkpoints (about 3 kB) fit under the limit, the model (about 13 kB) does not."""
    ck = tmp_path / "ck"
    model = tmp_path / "m.npz"
    r = _run(_cmd(train_file, model, "--checkpoint-dir", ck), preexec_fn=_limited(8000))
    assert r.returncode == 4, r.stderr
    line = _one_error_line(r.stderr)
    assert str(model) in line and "File too large" in line and str(ck / "checkpoint.npz") in line
    assert not model.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    # the kept state writes the model without training again; it equals an uninterrupted run's
    assert main(_cmd(train_file, model, "--checkpoint-dir", ck, "--resume")) == 0
    assert main(_cmd(train_file, tmp_path / "ref.npz")) == 0
    assert model.read_bytes() == (tmp_path / "ref.npz").read_bytes()


def test_size_limit_at_a_checkpoint_names_it(train_file, tmp_path):
    ck = tmp_path / "ck"
    r = _run(_cmd(train_file, tmp_path / "m.npz", "--checkpoint-dir", ck), preexec_fn=_limited(1000))
    assert r.returncode == 2
    line = _one_error_line(r.stderr)
    assert str(ck / "checkpoint.npz") in line and "File too large" in line and "after epoch 1" in line


def test_full_tmpfs_at_the_model_keeps_the_checkpoint(train_file, tmp_path):
    """A real full file system: a 4 kB tmpfs mounted in a private mount namespace (skipped where that
    is not allowed)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("no unshare")
    small = tmp_path / "small"
    small.mkdir()
    probe = subprocess.run([unshare, "-rm", "sh", "-c", f"mount -t tmpfs -o size=4k none {small}"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    ck = tmp_path / "ck"
    argv = _cmd(train_file, small / "m.npz", "--checkpoint-dir", ck)
    script = (f"mount -t tmpfs -o size=4k none {small} && exec {sys.executable} -m chaintag.cli.main "
              + " ".join(f"'{a}'" for a in argv))
    r = subprocess.run([unshare, "-rm", "sh", "-c", script], capture_output=True, text=True)
    assert r.returncode == 4, r.stderr
    line = _one_error_line(r.stderr)
    assert str(small / "m.npz") in line and "No space left on device" in line
    assert str(ck / "checkpoint.npz") in line
    assert main(_cmd(train_file, tmp_path / "m.npz", "--checkpoint-dir", ck, "--resume")) == 0
    assert main(_cmd(train_file, tmp_path / "ref.npz")) == 0
    assert (tmp_path / "m.npz").read_bytes() == (tmp_path / "ref.npz").read_bytes()
