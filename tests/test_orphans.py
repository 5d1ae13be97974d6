"""`chaintag tag --jobs N`: the worker processes end when their parent is killed."""

import signal
import subprocess
import sys
import time

import pytest

from chaintag import StructuredPerceptron

from toy_corpus import LABELS, SENTS  # noqa: E402

psutil = pytest.importorskip("psutil")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _alive(proc) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_with_a_killed_parent(sig, tmp_path):
    model = tmp_path / "m.npz"
    StructuredPerceptron(features=["w[0]", "pos[0]"], columns=("word", "pos"), epochs=1,
                         progress=False).fit(SENTS, LABELS).save(model)
    p = subprocess.Popen([sys.executable, "-m", "chaintag.cli.main", "tag", "--model", str(model), "--jobs", "2",
                          "--batch-size", "1", "-q", "--output", str(tmp_path / "out.txt")],
                         stdin=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    # some batches (more than the reader's buffer), and stdin left open: the command then waits for
    # more input with its workers started
    p.stdin.write(("".join(f"{w} {pos}\n" for s in SENTS for w, pos in s) + "\n") * 2000)
    p.stdin.flush()
    parent = psutil.Process(p.pid)
    deadline = time.time() + 60
    children = []
    while time.time() < deadline:
        children = [c for c in parent.children(recursive=True) if _alive(c)]
        workers = [c for c in children if "spawn_main" in " ".join(c.cmdline())]
        # both workers started and busy past their start-up (they import chaintag and load the model)
        if len(workers) >= 2 and all(sum(c.cpu_times()[:2]) > 0.3 for c in workers):
            break
        time.sleep(0.1)
    assert len(workers) >= 2, "the workers did not start"
    time.sleep(0.5)
    p.send_signal(sig)
    p.wait(timeout=30)
    deadline = time.time() + 15
    while time.time() < deadline and any(_alive(c) for c in children):
        time.sleep(0.1)
    left = [c.pid for c in children if _alive(c)]
    for pid in left:  # do not leave them behind if the test fails
        psutil.Process(pid).kill()
    p.stdin.close()
    assert left == []
