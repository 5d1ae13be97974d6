"""Cached experiment runs: a damaged cache file is noticed (warning naming it) and recomputed,
never read back as other values."""

import random

import numpy as np
import pytest

from chaintag_research import Runner
from chaintag_research.runner import _load_stats

from test_experiments import _toy_run, toy_files  # noqa: F401  (the fixture)

TIMING = ("seconds", "cpu_seconds", "fit_seconds", "eval_seconds")


def _untimed(records):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in records]


def _flip(path, pos, bit=0x10):
    b = bytearray(path.read_bytes())
    b[pos] ^= bit
    path.write_bytes(bytes(b))


def test_every_flip_of_a_cache_file_is_caught_or_harmless(toy_files, tmp_path):  # noqa: F811
    train, test = toy_files
    run = _toy_run(train, test, epochs=3)
    first = Runner(tmp_path, progress=False)
    res = first.run_one(run)
    folder = res.folder
    # test counts: every byte of the header and random bytes of the data, flipped, are refused
    stats_path = folder / "test-002.npy"
    raw = stats_path.read_bytes()
    header = 10 + int.from_bytes(raw[8:10], "little")
    lines = (folder / "epochs.jsonl").read_text().splitlines()
    import json
    sha = json.loads(lines[1])["test_stats_sha256"]
    assert _load_stats(stats_path, sha) is not None
    for pos in list(range(header)) + random.Random(2).sample(range(header, len(raw)), 150):
        _flip(stats_path, pos, 1 << (pos % 8))
        assert _load_stats(stats_path, sha) is None
        stats_path.write_bytes(raw)
    # epochs.jsonl and summary.json: a flipped byte is caught, or leaves the values as they were
    for name in ("epochs.jsonl", "summary.json"):
        path = folder / name
        original = path.read_bytes()
        # every byte of the check fields' names (a damaged name must not pass for a line of an
        # earlier release, which has no check), some of their values, and random bytes
        text = original.decode()
        rng = random.Random(name)
        starts = [j for key in ('"check": "', '"test_stats_sha256": "') for j in range(len(text))
                  if text.startswith(key, j)]
        names = [i for j in starts for i in range(j, text.index(":", j))]
        values = [i for j in starts for i in range(text.index(":", j) + 3, text.index(":", j) + 67)]
        for pos in names + rng.sample(values, 30) + rng.sample(range(len(original)), 40):
            _flip(path, pos, 1 << (pos % 7))
            if name == "summary.json":
                got = Runner._read_summary(path)
                assert got is None or got == res.summary
            else:
                got = Runner._read_records(folder, 3)
                assert _untimed(got) == _untimed(res.records[:len(got)]) and got == res.records[:len(got)]
            path.write_bytes(original)


def test_damaged_cache_files_are_recomputed_with_a_warning(toy_files, tmp_path, capsys):  # noqa: F811
    train, test = toy_files
    run = _toy_run(train, test, epochs=3)
    res = Runner(tmp_path, progress=False).run_one(run)
    folder = res.folder
    # a digit of epoch 2's test score changed: still valid JSON, caught by the line's check
    lines = (folder / "epochs.jsonl").read_text().splitlines()
    i = lines[1].index('"test_score": ') + len('"test_score": ') + 1
    lines[1] = lines[1][:i] + ("1" if lines[1][i] != "1" else "2") + lines[1][i + 1:]
    (folder / "epochs.jsonl").write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    again = Runner(tmp_path, progress=False)
    out = again.run_one(run)
    err = capsys.readouterr().err
    assert f"{folder / 'epochs.jsonl'}:2" in err and "damaged" in err
    assert again.epochs_trained == 2
    assert _untimed(out.records) == _untimed(res.records)
    # a damaged test counts file: named, its epoch and the later ones recomputed
    _flip(folder / "test-003.npy", 200)
    again = Runner(tmp_path, progress=False)
    out = again.run_one(run)
    assert str(folder / "test-003.npy") in capsys.readouterr().err and again.epochs_trained == 1
    np.testing.assert_array_equal(out.test_stats(3), res.test_stats(3))
    # a damaged summary: named, recomputed from the records (nothing trained)
    text = (folder / "summary.json").read_text()
    (folder / "summary.json").write_text(text.replace('"epochs_done": 3', '"epochs_done": 4'))
    again = Runner(tmp_path, progress=False)
    out = again.run_one(run)
    assert str(folder / "summary.json") in capsys.readouterr().err and again.epochs_trained == 0
    assert out.summary["epochs_done"] == 3


def test_finished_reads_back_finished_runs_and_never_trains(toy_files, tmp_path, monkeypatch):  # noqa: F811
    train, test = toy_files
    run = _toy_run(train, test, epochs=2)
    runner = Runner(tmp_path, progress=False)
    assert runner.finished(run) is None  # nothing there: None, and nothing trained
    assert not any((tmp_path / "runs").glob("*/summary.json")) if (tmp_path / "runs").exists() else True
    done = runner.run_one(run)
    monkeypatch.setattr(Runner, "_train_epoch", lambda *a, **k: (_ for _ in ()).throw(AssertionError("trained")))
    got = Runner(tmp_path, progress=False).finished(run)
    assert got is not None and got.summary == done.summary and _untimed(got.records) == _untimed(done.records)
    # a longer run of the same settings is not finished (its later epochs are missing)
    assert Runner(tmp_path, progress=False).finished(_toy_run(train, test, epochs=3)) is None


def test_a_run_another_process_trains_waits_and_a_dead_lock_is_taken_over(toy_files, tmp_path,  # noqa: F811
                                                                          monkeypatch):
    import socket
    import subprocess
    import sys

    from chaintag_research import runner as runner_module
    train, test = toy_files
    a = _toy_run(train, test, epochs=1, key="toy/a")
    b = _toy_run(train, test, epochs=1, key="toy/b", params={"averaged": False})
    c = _toy_run(train, test, epochs=1, key="toy/c", params={"shuffle": True})
    runner = Runner(tmp_path, progress=False)
    locks = tmp_path / "runs" / "locks"
    locks.mkdir(parents=True)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        host = socket.gethostname()
        (locks / (runner.digest(b, code=False)[:16] + ".lock")).write_text(f"{other.pid} {host}\n")
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout.split()[0]
        (locks / (runner.digest(c, code=False)[:16] + ".lock")).write_text(f"{dead} {host}\n")
        trained, sleeps = [], []
        real = Runner.run_one
        monkeypatch.setattr(Runner, "run_one", lambda self, run, bar=None: trained.append(run.key) or real(self, run))

        def sleep(seconds):  # while b waits, its other process ends
            sleeps.append(seconds)
            other.kill()
            other.wait()
        monkeypatch.setattr(runner_module.time, "sleep", sleep)
        out = runner.run_all([a, b, c])
    finally:
        other.kill()
    assert trained == ["toy/a", "toy/c", "toy/b"]  # b after the others: its lock was alive
    assert sleeps == [runner_module.LOCK_POLL_SECONDS]  # one wait, when b alone was left
    assert list(out) == ["toy/a", "toy/b", "toy/c"] and list(locks.iterdir()) == []


def test_an_unfinished_run_of_older_code_is_continued_with_reuse_older_code(toy_files, tmp_path,  # noqa: F811
                                                                            monkeypatch):
    from chaintag_research import config
    train, test = toy_files
    run = _toy_run(train, test, epochs=4)
    whole = Runner(tmp_path / "whole", progress=False).run_one(run)
    # older code, stopped after 2 epochs (its process ended)
    monkeypatch.setattr(config, "code_digest", lambda: "older")
    real = Runner._train_epoch
    calls = []

    def stop_after_two(self, *a, **k):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(1)
        return real(self, *a, **k)
    monkeypatch.setattr(Runner, "_train_epoch", stop_after_two)
    with pytest.raises(KeyboardInterrupt):
        Runner(tmp_path / "r", progress=False).run_one(run)
    # newer code: without reuse_older_code, all 4 epochs again; with it, epochs 3 and 4 only
    monkeypatch.setattr(config, "code_digest", lambda: "newer")
    counted = []
    monkeypatch.setattr(Runner, "_train_epoch", lambda self, *a, **k: counted.append(1) or real(self, *a, **k))
    res = Runner(tmp_path / "r", progress=False, reuse_older_code=True).run_one(run)
    assert len(counted) == 2
    assert _untimed(res.records) == _untimed(whole.records)
    assert res.summary["older_code"] is True and res.summary["older_code_epochs"] == 2
    assert res.summary["test_last"] == whole.summary["test_last"]
