"""Speed targets in one run: chaintag's perceptron, SAPO and CRF against CRFsuite, tagging, memory, startup.

On CoNLL-2000 chunking (same attributes on both sides, ``chunking`` preset,
gold feature space) this script runs, each in a child process of its own (so
that every peak RSS belongs to one system only):

- chaintag ``StructuredPerceptron`` (averaged), ``--epochs`` epochs, then
  tagging of the test set;
- chaintag ``SAPO`` (n = 5, exact A*), ``--epochs`` passes;
- chaintag ``CRF`` (SGD), ``--epochs`` epochs;
- CRFsuite's averaged perceptron (python-crfsuite, algorithm ``ap``), the same
  number of epochs, then tagging of the test set;

and then times ``chaintag tag`` on a 10-token file, after a first run that
fills the kernel cache. It prints every ratio of the speed targets with its
target, wall clock and CPU time side by side, and the load average before and
after (wall-clock ratios only mean something on idle cores).

Usage::

    python benchmarks/bench_speed.py [--epochs 10] [--threads N] [--data-dir DIR] [--json PATH]

``--threads`` (default -1: all cores) is the ``n_jobs`` of chaintag's
perceptron and SAPO (lock-free epochs) and numba's thread count for tagging;
``--threads 1`` measures the serial epochs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_crfsuite import WARMUP_SENTENCES, crfsuite_attributes, crfsuite_trainer, peak_rss_mib  # noqa: E402

STARTUP_RUNS = 5
"""Timed runs of ``chaintag tag`` on the 10-token file (the median is reported)."""


def warm_tag_sentences(sentences):
    """The first sentences of ``sentences`` that make the untimed tagging warm-up.

    Enough of them that tagging takes its parallel kernels (more than one
    chunk of sentences, enough tokens for the parallel attribute lookup), so
    that every kernel the timed tagging runs is compiled or loaded from the
    cache before the clock starts; short inputs take serial twins.
    """
    from chaintag.decoding.scoring import SENTENCES_PER_CHUNK
    from chaintag.features.keys import PARALLEL_LOOKUP_MIN
    n, tokens = 0, 0
    while n < len(sentences) and (n <= 2 * SENTENCES_PER_CHUNK or tokens < 2 * PARALLEL_LOOKUP_MIN):
        tokens += len(sentences[n])
        n += 1
    return sentences[:n]


def thread_cpu_pair():
    """(wall, process CPU) clocks now."""
    return time.perf_counter(), time.process_time()


def run_chaintag(name: str, train, test, args) -> dict:
    """Train (and for the perceptron, tag) with one chaintag learner; figures as a dict."""
    from chaintag import CRF, SAPO, StructuredPerceptron, evaluate
    common = {"features": "chunking", "columns": ("word", "pos"), "progress": False}
    import numba
    threads = numba.config.NUMBA_NUM_THREADS if args.threads == -1 else args.threads
    numba.set_num_threads(threads)  # tagging; the epochs of the perceptron and SAPO take n_jobs

    def model(e):
        if name == "sapo":
            return SAPO(epochs=e, n_best=5, n_jobs=threads, **common)
        if name == "crf":
            return CRF(epochs=e, **common)
        return StructuredPerceptron(epochs=e, n_jobs=threads, **common)

    # untimed warm-up in this process: compiles (or loads from numba's cache) the epoch kernels of
    # the threads asked for and the parallel and serial tagging kernels
    warm = model(1).fit(train.tokens[:WARMUP_SENTENCES], train.labels[:WARMUP_SENTENCES])
    warm.predict(test.tokens[:WARMUP_SENTENCES])
    warm.predict(warm_tag_sentences(test.tokens))
    del warm
    base = peak_rss_mib()
    m = model(args.epochs)
    m.fit(train.tokens, train.labels)
    w0, c0 = thread_cpu_pair()
    pred = m.predict(test.tokens)
    w1, c1 = thread_cpu_pair()
    return {"base_mib": base, "epoch_wall": [h["seconds"] for h in m.history_],
            "epoch_cpu": [h["cpu_seconds"] for h in m.history_], "tag_wall": w1 - w0, "tag_cpu": c1 - c0,
            "f1": evaluate(test.labels, pred).f1}


def run_crfsuite(train, test, args) -> dict:
    """Train and tag with CRFsuite's averaged perceptron; figures as a dict."""
    import pycrfsuite
    from chaintag import evaluate
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "warm.crfsuite")
        warm = crfsuite_trainer("ap", 1)
        for s, ls in zip(train.tokens[:WARMUP_SENTENCES], train.labels[:WARMUP_SENTENCES]):
            warm.append(crfsuite_attributes(s), ls)
        warm.train(path)
        del warm
        tagger = pycrfsuite.Tagger()  # the same untimed tagging warm-up as chaintag's
        tagger.open(path)
        for s in warm_tag_sentences(test.tokens):
            tagger.tag(crfsuite_attributes(s))
        tagger.close()
        base = peak_rss_mib()
        tr = crfsuite_trainer("ap", args.epochs)
        for s, ls in zip(train.tokens, train.labels):
            tr.append(crfsuite_attributes(s), ls)
        path = os.path.join(tmp, "model.crfsuite")
        w0 = time.perf_counter()
        tr.train(path)
        call = time.perf_counter() - w0
        lp = tr.logparser
        iters = lp.iterations
        if len(iters) != args.epochs:
            raise RuntimeError(f"CRFsuite ran {len(iters)} epochs, not {args.epochs}")
        # wall clock of the epochs alone: the call less the feature generation and storing it logs
        epochs_wall = call - (lp.featgen_seconds or 0.0) - (lp.storing_seconds or 0.0)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        w0, c0 = thread_cpu_pair()
        pred = [tagger.tag(crfsuite_attributes(s)) for s in test.tokens]
        w1, c1 = thread_cpu_pair()
        tagger.close()
    n = len(iters)
    return {"base_mib": base, "epoch_wall": [epochs_wall / n] * n, "epoch_cpu": [it["time"] for it in iters],
            "tag_wall": w1 - w0, "tag_cpu": c1 - c0, "f1": evaluate(test.labels, pred).f1}


def child(args) -> None:
    """Run one system (``args.only``) and print its figures as one JSON line."""
    from chaintag import load_corpus
    train = load_corpus("conll2000:train", data_dir=args.data_dir)
    test = load_corpus("conll2000:test", data_dir=args.data_dir)
    if args.only == "crfsuite":
        out = run_crfsuite(train, test, args)
    else:
        out = run_chaintag(args.only, train, test, args)
    out["peak_mib"] = peak_rss_mib()
    out["epoch_wall_s"] = statistics.fmean(out["epoch_wall"])
    out["epoch_cpu_s"] = statistics.fmean(out["epoch_cpu"])
    out["test_tokens"] = sum(len(s) for s in test.tokens)
    out["tag_tokens_per_s"] = out["test_tokens"] / out["tag_wall"]
    out["tag_tokens_per_cpu_s"] = out["test_tokens"] / max(out["tag_cpu"], 1e-9)
    print(json.dumps(out))


def run_child(name: str, args) -> dict:
    """This script for one system in a fresh interpreter; its parsed JSON line."""
    cmd = [sys.executable, os.path.abspath(__file__), "--only", name, "--epochs", str(args.epochs)]
    cmd += ["--threads", str(args.threads)]
    if args.data_dir:
        cmd += ["--data-dir", args.data_dir]
    # idle OpenMP threads sleep, as in the chaintag command line (cli.lean_numba.passive_threads):
    # spinning threads only steal the core from the thread that has work when the machine is shared
    env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"the {name} run failed (exit status {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def startup(args, tmp: str) -> dict:
    """Wall and CPU seconds of ``chaintag tag`` on a 10-token file (median of runs after a first one)."""
    import resource
    from chaintag import StructuredPerceptron
    model_path = os.path.join(tmp, "tiny.npz")
    text = os.path.join(tmp, "ten.txt")
    sent = [("He", "PRP", "B-NP"), ("reckons", "VBZ", "B-VP"), ("the", "DT", "B-NP"),
            ("current", "JJ", "I-NP"), ("account", "NN", "I-NP"), ("deficit", "NN", "I-NP"),
            ("will", "MD", "B-VP"), ("narrow", "VB", "I-VP"), ("sharply", "RB", "B-ADVP"), (".", ".", "O")]
    StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=1, progress=False).fit(
        [[t[:2] for t in sent]], [[t[2] for t in sent]]).save(model_path)
    with open(text, "w", encoding="utf-8") as f:
        f.write("".join(f"{w} {p}\n" for w, p, _ in sent))
    exe = os.path.join(os.path.dirname(sys.executable), "chaintag")
    cmd = [exe] if os.path.exists(exe) else [sys.executable, "-m", "chaintag.cli.main"]
    cmd += ["tag", "--model", model_path, text]
    # as a default Python installation runs it: the first run fills numba's kernel cache and
    # Python's bytecode cache (which PYTHONDONTWRITEBYTECODE, if set here, would switch off)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)  # first run: fills the caches
    walls, cpus = [], []
    for _ in range(STARTUP_RUNS):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return {"wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus), "runs": walls}


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, formatted."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def ratio_rows(f: dict) -> list[tuple]:
    """(what, wall ratio, CPU ratio, direction, target) for every target."""
    p, s, c, cs = f["perceptron"], f["sapo"], f["crf"], f["crfsuite"]

    def r(a, b, key):
        return a[key] / b[key]
    return [
        ("perceptron s/epoch / CRFsuite ap s/epoch", r(p, cs, "epoch_wall_s"), r(p, cs, "epoch_cpu_s"), "<=", 0.2),
        ("SAPO n=5 s/pass / CRFsuite ap s/epoch", r(s, cs, "epoch_wall_s"), r(s, cs, "epoch_cpu_s"), "<=", 0.2),
        ("SAPO n=5 s/pass / perceptron s/epoch", r(s, p, "epoch_wall_s"), r(s, p, "epoch_cpu_s"), "<=", 1.5),
        ("CRF (SGD) s/epoch / SAPO n=5 s/pass", r(c, s, "epoch_wall_s"), r(c, s, "epoch_cpu_s"), ">=", 3.0),
        ("tagging tokens/s / CRFsuite's", r(p, cs, "tag_tokens_per_s"), r(p, cs, "tag_tokens_per_cpu_s"), ">=", 6.0),
        ("peak RSS perceptron / CRFsuite", r(p, cs, "peak_mib"), None, "<=", 0.5),
        ("peak RSS SAPO / CRFsuite", r(s, cs, "peak_mib"), None, "<=", 0.5),
        ("peak RSS CRF / CRFsuite", r(c, cs, "peak_mib"), None, "<=", 0.5),
        ("chaintag tag startup, 10 tokens (s)", f["startup"]["wall_s"], f["startup"]["cpu_s"], "<=", 0.5),
    ]


def report(f: dict) -> str:
    """The figures table and the ratios table, as text."""
    lines = [f"{'':18}{'s/epoch wall':>13}{'s/epoch CPU':>13}{'tag tok/s':>11}{'tag tok/CPU s':>14}"
             f"{'base MiB':>10}{'peak MiB':>10}{'test F1':>9}"]
    for name in ("perceptron", "sapo", "crf", "crfsuite"):
        x = f[name]
        tag = (f"{x['tag_tokens_per_s']:>11,.0f}{x['tag_tokens_per_cpu_s']:>14,.0f}"
               if name in ("perceptron", "crfsuite") else f"{'-':>11}{'-':>14}")
        title = {"perceptron": "chaintag AP", "sapo": "chaintag SAPO n=5", "crf": "chaintag CRF SGD",
                 "crfsuite": "CRFsuite AP"}[name]
        lines.append(f"{title:18}{x['epoch_wall_s']:>13.3f}{x['epoch_cpu_s']:>13.3f}{tag}"
                     f"{x['base_mib']:>10.1f}{x['peak_mib']:>10.1f}{x['f1']:>9.2f}")
    lines.append(f"startup of `chaintag tag` on 10 tokens (median of {STARTUP_RUNS}): "
                 f"{f['startup']['wall_s']:.2f} s wall, {f['startup']['cpu_s']:.2f} s CPU")
    lines.append("")
    head = f"{'target':44}{'wall':>8}{'CPU':>8}  goal"
    lines += [head, "-" * (len(head) + 16)]
    for what, wall, cpu, op, goal in ratio_rows(f):
        met = wall <= goal if op == "<=" else wall >= goal
        cpu_s = "-" if cpu is None else f"{cpu:.2f}"
        lines.append(f"{what:44}{wall:>8.2f}{cpu_s:>8}  {op} {goal:g}  {'ok' if met else 'MISSED'} (wall)")
    return "\n".join(lines)


NOTES = """\
s/epoch: chaintag = mean of m.history_[i]["seconds"] (wall) and ["cpu_seconds"] (process CPU,
  all threads); CRFsuite = (wall of Trainer.train less its logged feature generation and
  storing) / epochs, and its own per-iteration clock() CPU time.
tagging: attribute extraction + decoding of the test set, held in memory as token lists (no file
  reading or writing on either side; chaintag: m.predict of the perceptron; CRFsuite: attribute
  strings + Tagger.tag per sentence), after an untimed warm-up on the first sentences of the test
  set (every kernel compiled or loaded before the clock starts); tok/CPU s uses process CPU time.
threads: the children run with OMP_WAIT_POLICY=PASSIVE (unless set), as the command line does.
memory: ru_maxrss of each child; base = after imports, corpus and a warm-up run on {n} sentences.
startup: `chaintag tag --model M ten.txt` in a fresh process after one untimed run, which fills
  numba's kernel cache and Python's bytecode cache (PYTHONDONTWRITEBYTECODE is left out of
  the command's environment, as in a default installation).
'ok'/'MISSED' judge the wall-clock ratio, which is only meaningful when the load average
is below the number of cores."""


def main(argv=None) -> None:
    """Parse options; run the four children and the startup timing; print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=10, help="epochs / passes of every learner (default 10)")
    ap.add_argument("--threads", type=int, default=-1,
                    help="threads of chaintag's perceptron and SAPO epochs (n_jobs, lock-free) and of its "
                         "tagging; -1: all cores (default); 1: the serial epochs")
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA"),
                    help="data directory (default: $CHAINTAG_DATA, else ../shared/data)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    ap.add_argument("--only", choices=("perceptron", "sapo", "crf", "crfsuite"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.only:
        child(args)
        return
    load_before = load_average()
    figures = {name: run_child(name, args) for name in ("perceptron", "sapo", "crf", "crfsuite")}
    with tempfile.TemporaryDirectory() as tmp:
        figures["startup"] = startup(args, tmp)
    load_after = load_average()
    print(f"CoNLL-2000 chunking, chunking preset, gold feature space, {args.epochs} epochs; "
          f"{os.cpu_count()} cores; chaintag threads {'all' if args.threads == -1 else args.threads}"
          " (perceptron and SAPO epochs, tagging; the CRF's epochs are serial)")
    print(report(figures))
    print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
    print(NOTES.format(n=WARMUP_SENTENCES))
    if args.json:
        figures["meta"] = {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
                           "machine": platform.machine(), "cpus": os.cpu_count(), "epochs": args.epochs,
                           "threads": args.threads, "load_average_before": load_before,
                           "load_average_after": load_after}
        figures["ratios"] = {what: {"wall": w, "cpu": c, "target": f"{op} {g}"}
                             for what, w, c, op, g in ratio_rows(figures)}
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=2)


if __name__ == "__main__":
    main()
