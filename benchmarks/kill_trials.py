"""Kill -9 one Dask worker during ``chaintag train --workers 2`` and record what each run ends in.

Each trial starts ``chaintag train ... --workers 2 --checkpoint-dir DIR`` (half
of them with ``--no-nanny``), waits until both worker processes exist, waits a
delay that varies from trial to trial (so the kill falls before the first
epoch, inside an epoch, while weights are sent, between epochs, or near the
end), sends SIGKILL to one worker process and waits for the run. Outcomes:

- ``identical``: exit 0 and a model file byte-identical to an undisturbed run;
- ``clean error``: exit 2, one ``error:`` line naming the epoch and ``--resume``,
  no traceback; the resumed run is then checked for identical bytes too;
- ``other``: anything else (a traceback, another exit status, different bytes, a
  run past ``--limit`` seconds: a hang).

Usage::

    CHAINTAG_DATA=../shared/data python benchmarks/kill_trials.py --trials 28 --out trials.md
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import psutil

CHAINTAG = os.path.join(os.path.dirname(sys.executable), "chaintag")


def slice_corpus(n_sentences: int, path: str) -> None:
    """The first ``n_sentences`` sentences of CoNLL-2000 train into ``path``."""
    src = os.path.join(os.environ.get("CHAINTAG_DATA", "../shared/data"), "conll2000", "train.txt")
    n = 0
    with open(src, encoding="utf-8") as fin, open(path, "w", encoding="utf-8") as out:
        for line in fin:
            out.write(line)
            if not line.strip():
                n += 1
                if n >= n_sentences:
                    return


def command(train, model, ck, epochs, nanny, resume=False):
    cmd = [CHAINTAG, "train", "--train", train, "--features", "chunking", "--epochs", str(epochs),
           "--workers", "2", "--model", model, "--checkpoint-dir", ck]
    return cmd + ([] if nanny else ["--no-nanny"]) + (["--resume"] if resume else [])


def worker_pids(pid: int) -> list[int]:
    """The Dask worker processes under ``pid`` (spawned by multiprocessing; not its resource tracker)."""
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for k in kids:
        try:
            line = " ".join(k.cmdline())
        except psutil.Error:
            continue
        if "spawn_main" in line:
            out.append(k.pid)
    return sorted(out)


def run_trial(cmd, delay, limit: float, times=None, after_epoch=False):
    """Start ``cmd``, kill one worker ``delay`` s after both exist (``after_epoch``: after the
    first epoch's line; None: no kill); returns
    (rc, output, epochs seen at the kill, wall). ``times``, a dict, gets the seconds from the start
    to both workers ("workers"), the first epoch line ("first") and the end ("end")."""
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    times = {} if times is None else times

    def read():
        for ln in iter(proc.stdout.readline, ""):
            lines.append(ln)
            if "epoch 1/" in ln and "first" not in times:
                times["first"] = time.monotonic() - t0

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    seen, killed = None, False
    while proc.poll() is None and time.monotonic() - t0 < limit:
        pids = worker_pids(proc.pid)
        if len(pids) >= 2 and "workers" not in times:
            times["workers"] = time.monotonic() - t0
        ready = len(pids) >= 2 and (not after_epoch or "first" in times)
        if ready and not killed and delay is not None:
            time.sleep(delay)
            pids = worker_pids(proc.pid)
            if pids:
                seen = sum("epoch" in ln and "/" in ln and "training errors" in ln for ln in lines)
                os.kill(pids[-1], signal.SIGKILL)
                killed = True
        time.sleep(0.05)
    try:
        rc = proc.wait(timeout=max(1.0, limit - (time.monotonic() - t0)))
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "hang"
    reader.join(5)
    times["end"] = time.monotonic() - t0
    return rc, "".join(lines), seen, time.monotonic() - t0


def classify(rc, text, model, reference):
    if rc == 0:
        same = open(model, "rb").read() == reference
        return "identical" if same else "other (different bytes)"
    errors = [ln for ln in text.splitlines() if "error:" in ln]
    if rc == 2 and "Traceback" not in text and len(errors) == 1 and "epoch" in errors[0] and "--resume" in errors[0]:
        return "clean error"
    return f"other (exit {rc})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=28)
    ap.add_argument("--sentences", type=int, default=8000)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--limit", type=float, default=300.0, help="seconds after which a run counts as a hang")
    ap.add_argument("--out", default=None, help="Markdown table written here too")
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="chaintag-kill-")
    train = os.path.join(tmp, "train.txt")
    slice_corpus(args.sentences, train)
    ref = os.path.join(tmp, "ref.npz")
    times: dict = {}
    rc, _, _, span = run_trial(command(train, ref, os.path.join(tmp, "ref-ck"), args.epochs, True), None,
                               args.limit, times)
    assert rc == 0, rc
    # kills at the workers' start, during the shards' preparation, then swept over the epochs
    epochs_span = max(0.5, span - times.get("first", span))
    reference = open(ref, "rb").read()
    rows = ["| trial | workers | kill (s) | epochs done at the kill | outcome | resumed | wall (s) |",
            "|---:|---|---:|---:|---|---|---:|"]
    counts: dict = {}
    for t in range(args.trials):
        nanny = t % 2 == 0
        step, pairs = t // 2, max(3, (args.trials + 1) // 2)
        after = step >= 2
        delay = [0.0, 2.0][step] if not after else epochs_span * (step - 2) / (pairs - 2)
        model, ck = os.path.join(tmp, f"m{t}.npz"), os.path.join(tmp, f"ck{t}")
        rc, text, seen, wall = run_trial(command(train, model, ck, args.epochs, nanny), delay, args.limit,
                                         after_epoch=after)
        outcome, resumed = classify(rc, text, model, reference), ""
        if outcome == "clean error":
            r = subprocess.run(command(train, model, ck, args.epochs, nanny, resume=True), capture_output=True,
                               text=True, timeout=args.limit)
            ok = r.returncode == 0 and open(model, "rb").read() == reference
            resumed = "identical" if ok else f"NOT identical (exit {r.returncode})"
        if outcome.startswith("other"):
            print(text[-3000:], file=sys.stderr)
        counts[outcome] = counts.get(outcome, 0) + 1
        when = f"{delay:.1f} after epoch 1" if after else f"{delay:.1f} after the workers start"
        row = (f"| {t + 1} | {'nanny' if nanny else 'no nanny'} | {when} | {'-' if seen is None else seen} | "
               f"{outcome} | {resumed} | {wall:.1f} |")
        rows.append(row)
        print(row, flush=True)
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    text = "\n".join(rows) + (f"\n\n{args.trials} trials; {summary}; undisturbed run {span:.1f} s (workers up at "
                              f"{times['workers']:.1f} s, first epoch line at {times.get('first', 0):.1f} s)\n")
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
