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
fills the kernel cache, ``chaintag tag`` end to end on a large file, and the
BiLSTM-CRF's epoch (:mod:`neural_epoch`; with the ``neural`` extra). It
prints every ratio of the speed targets with its target, wall clock and CPU
time side by side, and the load average before and after (wall-clock ratios
only mean something on idle cores).

Usage::

    python benchmarks/bench_speed.py [--epochs 10] [--repeats 3] [--mode both|cpu|wall] [--threads N]
                                     [--e2e-copies 20] [--neural-epochs 2] [--neural-device cpu]
                                     [--data-dir DIR] [--json PATH]

Each system runs ``--repeats`` times, the systems interleaved; every figure is
a median with its min and max. The CPU mode runs one thread and compares CPU
times (they hold on a shared machine); the wall mode runs ``--threads``
(default -1: all cores: the ``n_jobs`` of chaintag's perceptron and SAPO and
numba's thread count for tagging) and compares wall clocks, flagged when the
load average shows that other work shared the cores. The processor's name is
printed with the figures.
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
from neural_epoch import neural_epochs, neural_line  # noqa: E402

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


def run_child(name: str, args, threads: int) -> dict:
    """This script for one system in a fresh interpreter, with ``threads``; its parsed JSON line."""
    cmd = [sys.executable, os.path.abspath(__file__), "--only", name, "--epochs", str(args.epochs)]
    cmd += ["--threads", str(threads)]
    if args.data_dir:
        cmd += ["--data-dir", args.data_dir]
    # idle OpenMP threads sleep, as in the chaintag command line (cli.lean_numba.passive_threads):
    # spinning threads only steal the core from the thread that has work when the machine is shared
    env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
    if threads == 1:
        env["NUMBA_NUM_THREADS"] = "1"
    load = os.getloadavg()[0]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"the {name} run failed (exit status {proc.returncode})")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["load_1min"] = max(load, os.getloadavg()[0])
    return out


def end_to_end(args, tmp: str) -> dict:
    """``chaintag tag`` of a column file (CoNLL-2000 test repeated) to a file, on one thread.

    Reading the columns, extracting attributes, tagging and writing the columns back: tokens per
    wall second and per CPU second of the command, and its peak RSS (median of ``args.repeats`` runs
    after an untimed one).
    """
    import resource
    from chaintag import StructuredPerceptron, load_corpus
    train = load_corpus("conll2000:train", data_dir=args.data_dir)
    model_path = os.path.join(tmp, "ap.npz")
    StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2, progress=False).fit(
        train.tokens, train.labels).save(model_path)
    from chaintag.data.datasets import resolve
    test_path = resolve("conll2000:test", args.data_dir).path
    with open(test_path, "rb") as f:
        block = f.read()
    if not block.endswith(b"\n\n"):
        block = block.rstrip(b"\n") + b"\n\n"
    big = os.path.join(tmp, "big.txt")
    with open(big, "wb") as f:
        for _ in range(args.e2e_copies):
            f.write(block)
    tokens = sum(1 for line in block.splitlines() if line.strip()) * args.e2e_copies
    exe = os.path.join(os.path.dirname(sys.executable), "chaintag")
    cmd = ([exe] if os.path.exists(exe) else [sys.executable, "-m", "chaintag.cli.main"])
    cmd += ["tag", "--model", model_path, big, "--output", os.path.join(tmp, "out.txt"), "--quiet"]
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"}
    subprocess.run(cmd, check=True, env=env)
    walls, cpus, rss = [], [], []
    for _ in range(args.repeats):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env)
        _, status, ru = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - t0)
        cpus.append(ru.ru_utime + ru.ru_stime)
        rss.append(ru.ru_maxrss / 1024.0)
        if status != 0:
            sys.exit("the end-to-end tagging run failed")
        del r0
    return {"tokens": tokens, "bytes": len(block) * args.e2e_copies,
            "tokens_per_s": [tokens / w for w in walls], "tokens_per_cpu_s": [tokens / c for c in cpus],
            "peak_mib": rss}


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


def processor() -> str:
    """The processor's model name (``/proc/cpuinfo``), else the platform's."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def spread(values) -> tuple[float, float, float]:
    """(median, min, max)."""
    return statistics.median(values), min(values), max(values)


def _ratios(runs_a, runs_b, key, inverse=False) -> list[float]:
    """Run-by-run ratios ``a[key] / b[key]`` (run i of one side against run i of the other)."""
    return [(b[key] / a[key]) if inverse else (a[key] / b[key]) for a, b in zip(runs_a, runs_b)]


def ratio_rows(f: dict, mode: str) -> list[tuple]:
    """(what, ratios over the repeats, direction, target) for every target; ``mode`` "cpu" compares
    CPU times (one thread), "wall" wall-clock times (all threads)."""
    p, s, c, cs = f["perceptron"], f["sapo"], f["crf"], f["crfsuite"]
    ep = "epoch_cpu_s" if mode == "cpu" else "epoch_wall_s"
    tag = "tag_tokens_per_cpu_s" if mode == "cpu" else "tag_tokens_per_s"
    rows = [
        ("perceptron s/epoch / CRFsuite ap s/epoch", _ratios(p, cs, ep), "<=", 0.25),
        ("SAPO n=5 s/pass / perceptron s/epoch", _ratios(s, p, ep), "<=", 1.5),
        ("CRF (SGD) s/epoch / SAPO n=5 s/pass", _ratios(c, s, ep), ">=", 3.0),
        ("tagging tokens/s / CRFsuite's", _ratios(p, cs, tag), ">=", 12.0),
    ]
    if mode == "cpu":
        rows += [("peak RSS perceptron / CRFsuite", _ratios(p, cs, "peak_mib"), "<=", 0.6),
                 ("peak RSS SAPO / CRFsuite", _ratios(s, cs, "peak_mib"), "<=", 0.6),
                 ("peak RSS CRF / CRFsuite", _ratios(c, cs, "peak_mib"), "<=", 0.6)]
    return rows


def _fmt(values, digits=2) -> str:
    med, lo, hi = spread(values)
    return f"{med:.{digits}f} [{lo:.{digits}f}-{hi:.{digits}f}]"


def report(f: dict, mode: str, cores: int) -> str:
    """The figures and ratios of one mode as text: medians with [min-max] over the repeats."""
    clock = "CPU" if mode == "cpu" else "wall"
    lines = [f"{'':18}{'s/epoch ' + clock:>26}{'tag tok/' + ('CPU s' if mode == 'cpu' else 's'):>30}"
             f"{'peak MiB':>10}{'test F1':>9}{'load':>6}"]
    for name in ("perceptron", "sapo", "crf", "crfsuite"):
        runs = f[name]
        ep = [r["epoch_cpu_s" if mode == "cpu" else "epoch_wall_s"] for r in runs]
        tag = ([r["tag_tokens_per_cpu_s" if mode == "cpu" else "tag_tokens_per_s"] for r in runs]
               if name in ("perceptron", "crfsuite") else None)
        title = {"perceptron": "chaintag AP", "sapo": "chaintag SAPO n=5", "crf": "chaintag CRF SGD",
                 "crfsuite": "CRFsuite AP"}[name]
        lines.append(f"{title:18}{_fmt(ep, 3):>26}{(_fmt(tag, 0) if tag else '-'):>30}"
                     f"{statistics.median(r['peak_mib'] for r in runs):>10.1f}{runs[0]['f1']:>9.2f}"
                     f"{max(r['load_1min'] for r in runs):>6.2f}")
    lines.append("")
    head = f"{'target (' + clock + ')':44}{'median [min-max]':>24}  goal"
    lines += [head, "-" * (len(head) + 16)]
    for what, ratios, op, goal in ratio_rows(f, mode):
        med = statistics.median(ratios)
        met = med <= goal if op == "<=" else med >= goal
        lines.append(f"{what:44}{_fmt(ratios):>24}  {op} {goal:g}  {'ok' if met else 'MISSED'}")
    if mode == "wall":
        worst = max(r["load_1min"] for name in ("perceptron", "sapo", "crf", "crfsuite") for r in f[name])
        if worst > cores - 0.5:
            lines.append(f"(!) the load average reached {worst:.2f} on {cores} cores during these runs: other "
                         f"work shared the cores, so the wall-clock figures above say little; use the CPU-time "
                         f"table (one thread)")
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
ratios: run i of one system against run i of the other (the systems' runs interleave), median
  [min-max] over the repeats; 'ok'/'MISSED' judge the median. CPU-time ratios (one thread) hold
  on a shared machine; wall-clock ratios (all threads) only mean something while the load
  average stays below the number of cores, and the report says when it did not.
end to end: `chaintag tag` of the CoNLL-2000 test file repeated, read and written as files, with
  NUMBA_NUM_THREADS=1; CPU and peak RSS from the child's rusage."""


def main(argv=None) -> None:
    """Parse options; run the children (each several times) and the command timings; print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=10, help="epochs / passes of every learner (default 10)")
    ap.add_argument("--repeats", type=int, default=3,
                    help="runs of each system (and of the commands timed); medians with min and max (default 3)")
    ap.add_argument("--mode", choices=("both", "cpu", "wall"), default="both",
                    help="cpu: CPU-time ratios with one thread; wall: wall-clock ratios with all threads "
                         "(default: both)")
    ap.add_argument("--threads", type=int, default=-1,
                    help="threads of the wall mode (n_jobs of chaintag's perceptron and SAPO, tagging "
                         "threads); -1: all cores (default). The CPU mode always runs one thread")
    ap.add_argument("--e2e-copies", type=int, default=20,
                    help="copies of the CoNLL-2000 test file tagged end to end, file in, file out "
                         "(default 20: about 1 M tokens; 0: skip)")
    ap.add_argument("--neural-epochs", type=int, default=2,
                    help="epochs of the BiLSTM-CRF timed on CoNLL-2000 (default 2: the median of those after "
                         "the first is reported; 0: skip; needs PyTorch)")
    ap.add_argument("--neural-device", default="cpu",
                    help="device of the BiLSTM-CRF's epochs: cpu (PyTorch's threads, every core; default) or "
                         "cuda (absolute seconds, with the GPU's utilisation)")
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA"),
                    help="data directory (default: $CHAINTAG_DATA, else ../shared/data)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    ap.add_argument("--only", choices=("perceptron", "sapo", "crf", "crfsuite"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.only:
        child(args)
        return
    cores = os.cpu_count() or 1
    load_before = load_average()
    modes = ("cpu", "wall") if args.mode == "both" else (args.mode,)
    figures: dict = {"meta": {}}
    for mode in modes:
        threads = 1 if mode == "cpu" else args.threads
        figures[mode] = {name: [] for name in ("perceptron", "sapo", "crf", "crfsuite")}
        for _ in range(args.repeats):  # interleaved, so that a busy spell hits every system alike
            for name in ("perceptron", "sapo", "crf", "crfsuite"):
                figures[mode][name].append(run_child(name, args, threads))
    with tempfile.TemporaryDirectory() as tmp:
        figures["startup"] = startup(args, tmp)
        if args.e2e_copies:
            figures["end_to_end"] = end_to_end(args, tmp)
    if args.neural_epochs:
        figures["neural"] = neural_epochs(args.neural_epochs, args.neural_device, args.data_dir)
    load_after = load_average()
    print(f"CoNLL-2000 chunking, chunking preset, gold feature space, {args.epochs} epochs, "
          f"{args.repeats} runs of each; {processor()}, {cores} cores")
    for mode in modes:
        print()
        print("CPU time, one thread (chaintag n_jobs=1, NUMBA_NUM_THREADS=1):" if mode == "cpu" else
              f"wall clock, threads {'all' if args.threads == -1 else args.threads} (perceptron and SAPO "
              "epochs, tagging; the CRF's epochs are serial):")
        print(report(figures[mode], mode, cores))
    st = figures["startup"]
    print()
    print(f"startup of `chaintag tag` on 10 tokens (median of {STARTUP_RUNS}): {st['wall_s']:.2f} s wall, "
          f"{st['cpu_s']:.2f} s CPU  (goal <= 0.4 s)")
    if args.e2e_copies:
        e = figures["end_to_end"]
        print(f"end to end, `chaintag tag` file in, file out, one thread, {e['tokens']:,} tokens "
              f"({e['bytes'] / 2**20:.0f} MiB): {_fmt(e['tokens_per_s'], 0)} tokens/s wall, "
              f"{_fmt(e['tokens_per_cpu_s'], 0)} tokens/CPU s, peak {statistics.median(e['peak_mib']):.0f} MiB "
              f"(goal >= 300,000 tokens/s)")
    if args.neural_epochs:
        print(neural_line(figures["neural"]))
    print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
    print(NOTES.format(n=WARMUP_SENTENCES))
    if args.json:
        figures["meta"] = {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
                           "machine": platform.machine(), "processor": processor(), "cpus": cores,
                           "epochs": args.epochs, "repeats": args.repeats, "threads": args.threads,
                           "load_average_before": load_before, "load_average_after": load_after}
        figures["ratios"] = {mode: {what: {"median": statistics.median(r), "min": min(r), "max": max(r),
                                           "target": f"{op} {g}"}
                                    for what, r, op, g in ratio_rows(figures[mode], mode)} for mode in modes}
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=2)


if __name__ == "__main__":
    main()
