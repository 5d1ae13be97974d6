"""Killed writes: temporary files are removed on SIGTERM, and cleaned up by a later run after SIGKILL."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chaintag import StructuredPerceptron
from chaintag.errors import InputError
from chaintag.io.atomic import atomic_open, clean_stale_temps

from toy_corpus import LABELS, SENTS  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temps_of_dead_processes_are_removed_live_ones_kept(tmp_path):
    dead = tmp_path / f".out.txt.chaintag-{_dead_pid()}.abcd1234.tmp"
    dead.write_text("half")
    mine = tmp_path / f".out.txt.chaintag-{os.getpid()}.abcd1234.tmp"
    mine.write_text("mine")
    other = tmp_path / ".notes.abcd1234.tmp"  # not ours (no target named 'notes' here)
    other.write_text("x")
    foreign = tmp_path / "out.txt.chaintag-1.tmp"  # another pattern altogether
    foreign.write_text("x")
    assert clean_stale_temps(tmp_path) == [str(dead)]
    assert _temps(tmp_path) == sorted([mine.name, other.name, foreign.name])


def test_a_locked_temp_is_kept_even_if_its_pid_looks_dead(tmp_path):
    """A writer in another process namespace (its pid not visible here) still holds the file's lock."""
    import fcntl
    temp = tmp_path / f".out.txt.chaintag-{_dead_pid()}.abcd1234.tmp"
    temp.write_text("being written")
    with open(temp) as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        holder = subprocess.run([sys.executable, "-c", "import sys; from chaintag.io.atomic import "
                                 "clean_stale_temps; print(len(clean_stale_temps(sys.argv[1])))", str(tmp_path)],
                                capture_output=True, text=True, check=True)
        assert holder.stdout.strip() == "0" and temp.exists()
    assert clean_stale_temps(tmp_path) == [str(temp)]


def test_legacy_temps_are_removed_when_a_day_old(tmp_path):
    (tmp_path / "m.npz").write_bytes(b"model")
    old = tmp_path / ".m.npz.k2j4_x9a.tmp"
    new = tmp_path / ".m.npz.p0q1r2s3.tmp"
    old.write_bytes(b"x")
    new.write_bytes(b"x")
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    other = tmp_path / ".notes.txt.ab12cd34.tmp"  # another program's temporary file, named alike
    (tmp_path / "notes.txt").write_text("mine")
    other.write_bytes(b"x")
    os.utime(other, (time.time() - 2 * 86400,) * 2)
    assert clean_stale_temps(tmp_path) == []  # no target: an earlier release's temporaries are left
    assert clean_stale_temps(tmp_path, "m.npz") == [str(old)]  # the file being written: its own only
    assert new.exists() and other.exists()


_WRITER = """
import os, signal, sys, time
from chaintag.cli.main import _catch_sigterm
from chaintag.io.atomic import atomic_open
_catch_sigterm()
try:
    with atomic_open(sys.argv[1]) as f:
        f.write("partial")
        f.flush()
        print("writing", flush=True)
        time.sleep(60)
except KeyboardInterrupt:
    sys.exit(143)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_inside_a_write(sig, tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("before\n")
    p = subprocess.Popen([sys.executable, "-c", _WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "writing"
    temps = _temps(tmp_path)
    assert len(temps) == 1 and temps[0].startswith(f".out.txt.chaintag-{p.pid}.")
    # a live writer's temporary file is never removed
    assert clean_stale_temps(tmp_path) == []
    p.send_signal(sig)
    p.wait(timeout=20)
    assert target.read_text() == "before\n"
    if sig == signal.SIGTERM:
        assert p.returncode == 143 and _temps(tmp_path) == []
    else:
        assert _temps(tmp_path) == temps  # SIGKILL leaves it ...
        with atomic_open(tmp_path / "other.txt") as f:  # ... until the next write into this folder
            f.write("x")
        assert _temps(tmp_path) == []


def _input_lines():
    return "".join(f"{w} {p}\n" for s in SENTS for w, p in s) + "\n"


def test_cli_tag_killed_mid_output(tmp_path):
    """`chaintag tag` writing its output while reading stdin: SIGTERM removes the temporary file
    (exit 143); after SIGKILL the next run writing into the folder removes it."""
    model = tmp_path / "m.npz"
    StructuredPerceptron(features=["w[0]", "pos[0]"], columns=("word", "pos"), epochs=1,
                         progress=False).fit(SENTS, LABELS).save(model)
    out = tmp_path / "tagged.txt"
    cmd = [sys.executable, "-m", "chaintag.cli.main", "tag", "--model", str(model), "--output", str(out),
           "--batch-size", "1", "-q"]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        p.stdin.write(_input_lines())
        p.stdin.flush()
        deadline = time.time() + 60
        while not _temps(tmp_path) and time.time() < deadline:
            time.sleep(0.05)
        assert len(_temps(tmp_path)) == 1
        time.sleep(0.2)
        p.send_signal(sig)
        p.wait(timeout=20)
        p.stdin.close()
        err = p.stderr.read()
        assert not out.exists()
        if sig == signal.SIGTERM:
            assert p.returncode == 143 and "terminated" in err and "Traceback" not in err
            assert _temps(tmp_path) == []
        else:
            assert len(_temps(tmp_path)) == 1
    r = subprocess.run(cmd, input=_input_lines(), capture_output=True, text=True)
    assert r.returncode == 0 and out.exists()
    assert _temps(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to make another user's link")
def test_a_link_planted_by_another_user_in_a_shared_folder_is_not_followed(tmp_path):
    """Found by a security review: the output path's link was resolved by realpath and its target
    replaced, so a link planted in /tmp by another user made a root run overwrite any file."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    link = shared / "tags.txt"
    os.symlink(victim, link)
    os.lchown(link, 65534, 65534)
    with pytest.raises(InputError, match="symbolic link of another user in a shared folder"):
        with atomic_open(link) as f:
            f.write("overwritten")
    assert victim.read_text() == "keep"
    os.lchown(link, os.geteuid(), os.getegid())  # the user's own link is followed, as documented
    with atomic_open(link) as f:
        f.write("mine")
    assert victim.read_text() == "mine"
