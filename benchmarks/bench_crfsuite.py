"""chaintag vs CRFsuite on CoNLL-2000 chunking: averaged perceptron, CRF by SGD, CRF by L-BFGS.

``--algorithm ap`` (default) trains chaintag's ``StructuredPerceptron``
(``chunking`` preset) and CRFsuite's averaged perceptron (python-crfsuite,
algorithm ``"ap"``) on the same attributes for the same number of epochs, then
prints attribute extraction time, seconds per epoch, tagging throughput, peak
memory and test F1 of both, with the ratios chaintag / CRFsuite next to their
targets.

``--algorithm l2sgd`` trains chaintag's ``CRF`` (SGD with lazy L2; ``--epochs``,
``--learning-rate``, ``--l2``) against CRFsuite's ``l2sgd`` with its defaults
(c2 = 1, its own learning-rate calibration and stopping rule). ``--algorithm
lbfgs`` trains chaintag's ``CRFLBFGS`` against CRFsuite's ``lbfgs`` (c2 = 1),
both capped at ``--max-iterations``. For these two the main figures are the
total training time (wall clock of ``fit`` / ``Trainer.train``, attribute
extraction and feature generation excluded) and test F1; the table also gives
the epochs or iterations run, seconds per epoch, tagging throughput and peak
memory.

Each system runs in its own child process (this script again, with the hidden
``--only`` flag), so that peak RSS belongs to one system only; the children
send their figures to the parent as JSON on standard output. The parent
imports neither system, so its own small footprint is all a child can inherit
in ``ru_maxrss`` across ``exec``.

Usage::

    python benchmarks/bench_crfsuite.py [--algorithm ap|l2sgd|lbfgs] [--epochs 10]
                                        [--learning-rate 0.1] [--l2 1.0]
                                        [--max-iterations 200] [--data-dir DIR]
                                        [--feature-space gold|all] [--json PATH]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

WARMUP_SENTENCES = 50
"""Sentences of the warm-up run (loads or compiles numba kernels) before the memory baseline."""

L2SGD_F1_TARGET = 93.6
"""Test F1 (%) that chaintag's CRF must reach for the l2sgd target."""

L2SGD_TIME_TARGET = 0.5
"""Largest training-time ratio chaintag / CRFsuite allowed by the l2sgd target."""

# (row title, JSON key, format, direction of the target, target ratio);
# direction "ratio": ratio shown, no target; None: no ratio.
ROWS = [
    ("attribute extraction, train (s)", "extraction_s", "{:.3f}", "<=", 0.5),
    ("seconds / epoch (mean)", "epoch_s", "{:.3f}", "<=", 0.5),
    ("tagging, test (tokens/s)", "tag_tokens_per_s", "{:,.0f}", ">=", 2.0),
    ("peak RSS (MiB)", "peak_mib", "{:.1f}", "<=", 1.0),
    ("peak RSS - baseline (MiB)", "peak_above_base_mib", "{:.1f}", "<=", 1.0),
    ("baseline RSS (MiB)", "base_mib", "{:.1f}", None, None),
    ("state features", "n_state_features", "{:,d}", None, None),
    ("test F1 (%)", "f1", "{:.2f}", None, None),
]
"""Rows of the ``ap`` table."""


def crf_rows(algorithm: str) -> list[tuple]:
    """Rows of the ``l2sgd`` and ``lbfgs`` tables.

    Parameters
    ----------
    algorithm : {"l2sgd", "lbfgs"}

    Returns
    -------
    list of (title, key, format, direction, target) tuples
    """
    step = "epoch" if algorithm == "l2sgd" else "iteration"
    if algorithm == "l2sgd":
        main = ("training time (s, wall)", "train_s", "{:.2f}", "<=", L2SGD_TIME_TARGET)
    else:
        main = ("training time (s, wall)", "train_s", "{:.2f}", "ratio", None)
    rows = [
        main,
        ("training time (s, CPU)", "train_cpu_s", "{:.2f}", "ratio", None),
        (f"{step}s run", "n_epochs", "{:,d}", "ratio", None),
        (f"seconds / {step} (CPU, mean)", "epoch_s", "{:.3f}", "ratio", None),
    ]
    if algorithm == "l2sgd":
        rows.append(("learning-rate calibration (s, CPU)", "calibration_s", "{:.2f}", None, None))
    else:
        rows.append(("objective evaluations", "n_evaluations", "{:,d}", "ratio", None))
    rows += [
        ("fit / train() call, whole (s, wall)", "call_s", "{:.2f}", "ratio", None),
        ("attribute extraction, train (s)", "extraction_s", "{:.3f}", "ratio", None),
        ("tagging, test (tokens/s)", "tag_tokens_per_s", "{:,.0f}", "ratio", None),
        ("peak RSS (MiB)", "peak_mib", "{:.1f}", "ratio", None),
        ("peak RSS - baseline (MiB)", "peak_above_base_mib", "{:.1f}", "ratio", None),
        ("baseline RSS (MiB)", "base_mib", "{:.1f}", None, None),
        ("state features", "n_state_features", "{:,d}", None, None),
        ("test F1 (%)", "f1", "{:.2f}", None, None),
    ]
    return rows


def rows_for(algorithm: str) -> list[tuple]:
    """The table rows of ``algorithm``."""
    return ROWS if algorithm == "ap" else crf_rows(algorithm)


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far.

    Returns
    -------
    float
        ``ru_maxrss`` in MiB (the kernel reports KiB on Linux).
    """
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def crfsuite_attributes(sentence) -> list[list[str]]:
    """Attribute strings of the ``chunking`` preset for CRFsuite.

    Parameters
    ----------
    sentence : sequence of (word, pos) tuples

    Returns
    -------
    list of list of str
        Per token: ``bias``; words at -2..2; word bigrams -1|0 and 0|1; POS at
        -2..2; POS bigrams and trigrams within -2..2. A template with an atom
        outside the sentence does not fire (no BOS/EOS values), as in chaintag.
    """
    w = [tok[0] for tok in sentence]
    p = [tok[1] for tok in sentence]
    n = len(sentence)
    out = []
    for i in range(n):
        f = ["bias"]
        for k in range(-2, 3):
            if 0 <= i + k < n:
                f.append(f"w[{k}]={w[i + k]}")
        if i >= 1:
            f.append(f"w[-1]|w[0]={w[i - 1]}|{w[i]}")
        if i + 1 < n:
            f.append(f"w[0]|w[1]={w[i]}|{w[i + 1]}")
        for k in range(-2, 3):
            if 0 <= i + k < n:
                f.append(f"pos[{k}]={p[i + k]}")
        for k in range(-2, 2):
            if 0 <= i + k and i + k + 1 < n:
                f.append(f"pos[{k}]|pos[{k + 1}]={p[i + k]}|{p[i + k + 1]}")
        for k in range(-2, 1):
            if 0 <= i + k and i + k + 2 < n:
                f.append(f"pos[{k}]|pos[{k + 1}]|pos[{k + 2}]={p[i + k]}|{p[i + k + 1]}|{p[i + k + 2]}")
        out.append(f)
    return out


def run_chaintag(train, test, args) -> dict:
    """Train, tag and score with chaintag; see :func:`child` for the keys."""
    import time
    from chaintag import CRF, CRFLBFGS, StructuredPerceptron, evaluate

    common = {"features": "chunking", "columns": ("word", "pos"), "feature_space": args.feature_space,
              "progress": False}

    def model(e):
        if args.algorithm == "l2sgd":
            return CRF(epochs=e, learning_rate=args.learning_rate, l2=args.l2, **common)
        if args.algorithm == "lbfgs":
            return CRFLBFGS(epochs=e, l2=args.l2, **common)
        return StructuredPerceptron(epochs=e, **common)

    warm = model(1).fit(train.tokens[:WARMUP_SENTENCES], train.labels[:WARMUP_SENTENCES])
    warm.predict(test.tokens[:WARMUP_SENTENCES])
    del warm
    base = peak_rss_mib()
    n_epochs = args.max_iterations if args.algorithm == "lbfgs" else args.epochs
    m = model(n_epochs)
    t0 = time.perf_counter()
    m.fit(train.tokens, train.labels)
    call_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    pred = m.predict(test.tokens)
    tag_s = time.perf_counter() - t0
    out = {"base_mib": base, "extraction_s": (m.extraction_seconds_ + m.extractor_seconds_),
           "epoch_seconds": [h["cpu_seconds"] for h in m.history_],
           "epoch_wall_seconds": [h["seconds"] for h in m.history_], "tag_s": tag_s,
           "n_state_features": int(m.feature_index_.n_features), "f1": evaluate(test.labels, pred).f1}
    if args.algorithm != "ap":
        out.update(call_s=call_s, train_s=call_s - (m.extraction_seconds_ + m.extractor_seconds_),
                   train_cpu_s=sum(out["epoch_seconds"]), n_epochs=len(m.history_), calibration_s=None,
                   epoch_loss=[h["loss"] for h in m.history_])
        if args.algorithm == "lbfgs":
            out["n_evaluations"] = int(m.history_[-1]["evaluations"]) if m.history_ else 0
            out["stop"] = m.optimizer_message_
            out["settings"] = {"tol": m.tol, "memory": m.memory}
        else:
            out["stop"] = f"fixed number of epochs ({n_epochs})"
            out["settings"] = {"lr_schedule": getattr(m, "lr_schedule", None),
                               "averaged": getattr(m, "averaged", None)}
    return out


def crfsuite_trainer(algorithm: str, iterations=None):
    """A CRFsuite trainer for ``algorithm``.

    Parameters
    ----------
    algorithm : {"ap", "l2sgd", "lbfgs"}
    iterations : int, optional
        ``ap``: the number of epochs; ``ap`` stops early only when loss / N <
        ``epsilon``, so ``epsilon`` is set to 0 and it runs all of them.
        ``l2sgd``, ``lbfgs``: ``max_iterations``, if given; otherwise all of
        CRFsuite's defaults are kept (``l2sgd``: at most 1000 epochs, stopping
        rule period 10 / delta 1e-6; ``lbfgs``: no cap).
    """
    import pycrfsuite
    tr = pycrfsuite.Trainer(algorithm=algorithm, verbose=False)
    if algorithm == "ap":
        tr.set_params({"max_iterations": iterations, "epsilon": 0.0})
    elif iterations is not None:
        tr.set_params({"max_iterations": iterations})
    return tr


def crfsuite_log_figures(log: str) -> dict:
    """Figures that python-crfsuite's log parser leaves out, read from the training log.

    Returns
    -------
    dict
        ``train_cpu_s`` (CRFsuite's total optimization time, its CPU clock,
        calibration included), ``calibration_s`` and ``eta`` (``l2sgd`` only,
        else None) and ``stop`` (why the optimizer stopped).
    """
    import re
    total = re.search(r"Total seconds required for (?:SGD|training): ([\d.]+)", log)
    calib = re.search(r"Best learning rate \(eta\): ([\d.]+)\s*Seconds required: ([\d.]+)", log)
    stop = re.search(r"((?:L-BFGS|SGD) (?:resulted in|terminated with)[^\n]*)", log)
    return {"train_cpu_s": float(total.group(1)) if total else None,
            "eta": float(calib.group(1)) if calib else None,
            "calibration_s": float(calib.group(2)) if calib else None,
            "stop": stop.group(1).strip() if stop else None}


def run_crfsuite(train, test, args) -> dict:
    """Train, tag and score with CRFsuite; see :func:`child`."""
    import tempfile
    import time
    import pycrfsuite
    from chaintag import evaluate

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "warm.crfsuite")
        warm = crfsuite_trainer(args.algorithm, 1)
        for s, ls in zip(train.tokens[:WARMUP_SENTENCES], train.labels[:WARMUP_SENTENCES]):
            warm.append(crfsuite_attributes(s), ls)
        warm.train(path)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        for s in test.tokens[:WARMUP_SENTENCES]:
            tagger.tag(crfsuite_attributes(s))
        tagger.close()
        del warm
        base = peak_rss_mib()

        # Append sentence by sentence (no list of all attribute strings held at
        # once), timing only the building of the strings.
        iterations = {"ap": args.epochs, "lbfgs": args.max_iterations}.get(args.algorithm)
        tr = crfsuite_trainer(args.algorithm, iterations)
        extraction_s = 0.0
        for s, ls in zip(train.tokens, train.labels):
            t0 = time.perf_counter()
            x = crfsuite_attributes(s)
            extraction_s += time.perf_counter() - t0
            tr.append(x, ls)
        path = os.path.join(tmp, "model.crfsuite")
        t0 = time.perf_counter()
        tr.train(path)
        call_s = time.perf_counter() - t0
        lp = tr.logparser
        iters = lp.iterations
        if args.algorithm == "ap" and len(iters) != args.epochs:
            raise RuntimeError(f"CRFsuite ran {len(iters)} epochs, not {args.epochs}")
        bigrams = {(a, b) for ls in train.labels for a, b in zip(ls, ls[1:])}
        n_state = lp.featgen_num_features - len(bigrams)

        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        t0 = time.perf_counter()
        pred = [tagger.tag(crfsuite_attributes(s)) for s in test.tokens]
        tag_s = time.perf_counter() - t0
        tagger.close()
    out = {"base_mib": base, "extraction_s": extraction_s,
           "epoch_seconds": [it["time"] for it in iters], "tag_s": tag_s,
           "n_state_features": n_state, "f1": evaluate(test.labels, pred).f1}
    if args.algorithm != "ap":
        featgen_s, storing_s = lp.featgen_seconds or 0.0, lp.storing_seconds or 0.0
        out.update(crfsuite_log_figures("".join(lp.log)))
        out.update(call_s=call_s, featgen_s=featgen_s, storing_s=storing_s,
                   train_s=call_s - featgen_s - storing_s, n_epochs=len(iters),
                   epoch_loss=[it.get("loss") for it in iters])
        if args.algorithm == "lbfgs":
            out["n_evaluations"] = 1 + sum(it.get("linesearch_trials", 0) for it in iters)
    return out


def child(args) -> None:
    """Run one system and print its figures as one JSON line.

    The figures: ``extraction_s``, ``epoch_seconds`` (list), ``tag_s``,
    ``tag_tokens_per_s``, ``base_mib`` (peak RSS after loading the corpus and a
    warm-up run on a few sentences), ``load_mib`` (after loading only),
    ``peak_mib``, ``peak_above_base_mib``, ``n_state_features``, ``f1`` and
    corpus sizes. With ``l2sgd`` and ``lbfgs`` also ``train_s`` (wall-clock
    training time), ``train_cpu_s``, ``call_s`` (the whole ``fit`` /
    ``Trainer.train`` call), ``n_epochs``, ``epoch_loss``, ``stop``, and
    ``calibration_s`` / ``eta`` (CRFsuite ``l2sgd``) or ``n_evaluations`` (``lbfgs``).
    """
    from chaintag import load_corpus
    train = load_corpus("conll2000:train", data_dir=args.data_dir)
    test = load_corpus("conll2000:test", data_dir=args.data_dir)
    load = peak_rss_mib()
    if args.only == "chaintag":
        out = run_chaintag(train, test, args)
    else:
        out = run_crfsuite(train, test, args)
    out["peak_mib"] = peak_rss_mib()
    out["load_mib"] = load
    out["peak_above_base_mib"] = out["peak_mib"] - out["base_mib"]
    out["epoch_s"] = sum(out["epoch_seconds"]) / max(len(out["epoch_seconds"]), 1)
    out["test_tokens"] = sum(len(s) for s in test.tokens)
    out["train_tokens"] = sum(len(s) for s in train.tokens)
    out["tag_tokens_per_s"] = out["test_tokens"] / out["tag_s"]
    print(json.dumps(out))


def run_child(name: str, args) -> dict:
    """Run this script for one system in a fresh interpreter and parse its JSON line."""
    cmd = [sys.executable, os.path.abspath(__file__), "--only", name, "--algorithm", args.algorithm,
           "--epochs", str(args.epochs), "--feature-space", args.feature_space]
    if args.algorithm != "ap":
        cmd += ["--learning-rate", repr(args.learning_rate), "--l2", repr(args.l2),
                "--max-iterations", str(args.max_iterations)]
    if args.data_dir:
        cmd += ["--data-dir", args.data_dir]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"the {name} run failed (exit status {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(ours: dict, theirs: dict, rows=ROWS) -> str:
    """Format the comparison table, ratios and targets included; None prints as ``-``."""
    width = max(34, 3 + max(len(row[0]) for row in rows))
    head = f"{'':{width}}{'chaintag':>12}{'CRFsuite':>12}{'ratio':>9}  target"
    lines = [head, "-" * len(head) + "-" * 10]
    for title, key, fmt, op, goal in rows:
        a, b = ours.get(key), theirs.get(key)
        ratio, target = "", ""
        if op is not None and a is not None and b:
            r = a / b
            ratio = f"{r:.2f}x"
            if goal is not None:
                met = r <= goal if op == "<=" else r >= goal
                target = f"{op} {goal}x  {'ok' if met else 'MISSED'}"
        cells = ["-" if v is None else fmt.format(v) for v in (a, b)]
        lines.append(f"{title:{width}}{cells[0]:>12}{cells[1]:>12}{ratio:>9}  {target}".rstrip())
    return "\n".join(lines)


def l2sgd_check(ours: dict, theirs: dict) -> tuple[bool, str]:
    """The l2sgd target: chaintag test F1 >= 93.6 within half of CRFsuite's training time.

    Returns
    -------
    (bool, str)
        Whether the target is met, and a line that says so.
    """
    r = ours["train_s"] / theirs["train_s"]
    f1_ok, time_ok = ours["f1"] >= L2SGD_F1_TARGET, r <= L2SGD_TIME_TARGET
    met = f1_ok and time_ok
    return met, (f"target (l2sgd): chaintag test F1 >= {L2SGD_F1_TARGET} in <= {L2SGD_TIME_TARGET}x CRFsuite's"
                 f" training time: F1 {ours['f1']:.2f} ({'ok' if f1_ok else 'MISSED'}),"
                 f" time {r:.2f}x ({'ok' if time_ok else 'MISSED'}) -> {'MET' if met else 'MISSED'}")


NOTES = """\
extraction: chaintag = (m.extraction_seconds_ + m.extractor_seconds_) inside fit (interning, attribute table, feature
  index, pruning); CRFsuite = building the attribute strings in Python, sentence by sentence
  (Trainer.append and the feature generation inside CRFsuite's train() are not counted).
seconds / epoch: CPU time per epoch on both sides: chaintag = m.history_[i]["cpu_seconds"]
  (process time; the wall-clock figure is in the JSON); CRFsuite = its own per-iteration
  figure (CPU clock() time, from trainer.logparser).
tagging: attribute extraction + Viterbi for the whole test set (chaintag: m.predict;
  CRFsuite: attribute strings + Tagger.tag per sentence).
memory: ru_maxrss of each child; baseline = after imports, corpus loading and a warm-up
  run on {n} sentences (loads/compiles the numba kernels).
state features: attribute-label pairs (CRFsuite: its feature count minus label bigrams)."""

CRF_NOTES = """\
training time (wall): chaintag = wall clock of fit minus (m.extraction_seconds_ + m.extractor_seconds_); CRFsuite =
  wall clock of Trainer.train minus the feature generation and model storing it logs
  (l2sgd: its learning-rate calibration is included).
training time (CPU): chaintag = sum of m.history_[i]["cpu_seconds"]; CRFsuite = the total
  its trainer logs (clock(); l2sgd: calibration included).
seconds / {step}: CPU time, mean over the {step}s run (CRFsuite: per-iteration figure
  from trainer.logparser; l2sgd: calibration not included).
fit / train() call, whole: chaintag includes attribute extraction; CRFsuite includes its
  feature generation and storing the model, not the Python attribute strings.
extraction, tagging, memory, state features: as for --algorithm ap."""


def header(args, ours: dict, theirs: dict) -> list[str]:
    """Lines printed above the table: corpus, settings of both systems, why each stopped."""
    size = f"CoNLL-2000 chunking: {ours['train_tokens']:,} train / {ours['test_tokens']:,} test tokens"
    if args.algorithm == "ap":
        return [f"{size}, {args.epochs} epochs, feature space {args.feature_space} (CRFsuite: gold)"]
    lines = [f"{size}, feature space {args.feature_space} (CRFsuite: gold)"]
    if args.algorithm == "l2sgd":
        eta = "?" if theirs.get("eta") is None else f"{theirs['eta']:g}"
        sgd = ours["settings"]
        lines += [f"chaintag CRF (SGD): {args.epochs} epochs, learning_rate {args.learning_rate:g}"
                  f" (schedule {sgd['lr_schedule']}, averaged {sgd['averaged']}), l2 {args.l2:g}"
                  f" (= CRFsuite c2 {args.l2 / 2:g})",
                  f"CRFsuite l2sgd: defaults (c2 1, period 10, delta 1e-6, max_iterations 1000);"
                  f" calibrated eta {eta}"]
    else:
        lines += [f"chaintag CRFLBFGS: l2 {args.l2:g} (= CRFsuite c2 {args.l2 / 2:g}),"
                  f" at most {args.max_iterations} iterations, tol {ours['settings']['tol']:g},"
                  f" memory {ours['settings']['memory']}",
                  f"CRFsuite lbfgs: defaults (c2 1, num_memories 6, epsilon 1e-5, period 10,"
                  f" delta 1e-5) but max_iterations {args.max_iterations}"]
    lines.append(f"stopped: chaintag: {ours.get('stop')}; CRFsuite: {theirs.get('stop')}")
    return lines


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, formatted."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None) -> None:
    """Parse options; run both systems in child processes (or one, with ``--only``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--algorithm", choices=("ap", "l2sgd", "lbfgs"), default="ap",
                    help="ap: averaged perceptrons; l2sgd: chaintag CRF vs CRFsuite l2sgd;"
                         " lbfgs: chaintag CRFLBFGS vs CRFsuite lbfgs (default ap)")
    ap.add_argument("--epochs", type=int, default=10,
                    help="training epochs: both systems with ap, chaintag's CRF with l2sgd (default 10)")
    ap.add_argument("--learning-rate", type=float, default=0.1,
                    help="chaintag CRF learning_rate (l2sgd; default 0.1)")
    ap.add_argument("--l2", type=float, default=1.0,
                    help="chaintag l2 (l2sgd, lbfgs; default 1.0); it is the penalty of CRFsuite's"
                         " c2 = l2 / 2 (CRFsuite runs with c2 = 1)")
    ap.add_argument("--max-iterations", type=int, default=200,
                    help="L-BFGS iterations at most, both systems (lbfgs; default 200)")
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA"),
                    help="data directory (default: $CHAINTAG_DATA, else ../shared/data)")
    ap.add_argument("--feature-space", choices=("gold", "all"), default="gold",
                    help="chaintag feature space (default gold, as CRFsuite)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    ap.add_argument("--only", choices=("chaintag", "crfsuite"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.only:
        child(args)
        return
    rows = rows_for(args.algorithm)
    load_before = load_average()
    ours = run_child("chaintag", args)
    theirs = run_child("crfsuite", args)
    load_after = load_average()
    print("\n".join(header(args, ours, theirs)))
    print(table(ours, theirs, rows))
    check = None
    if args.algorithm == "l2sgd":
        check = l2sgd_check(ours, theirs)
        print(check[1])
    if args.algorithm == "ap":
        print(NOTES.format(n=WARMUP_SENTENCES))
    else:
        print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
        print(CRF_NOTES.format(step="epoch" if args.algorithm == "l2sgd" else "iteration"))
    if args.json:
        meta = {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
                "machine": platform.machine(), "cpus": os.cpu_count(), "algorithm": args.algorithm,
                "epochs": args.epochs, "feature_space": args.feature_space}
        if args.algorithm != "ap":
            meta.update(learning_rate=args.learning_rate, l2=args.l2, max_iterations=args.max_iterations,
                        load_average_before=load_before, load_average_after=load_after)
        figures = {"meta": meta, "chaintag": ours, "crfsuite": theirs,
                   "ratios": {key: ours[key] / theirs[key] for _, key, _, op, _ in rows
                              if op and ours.get(key) is not None and theirs.get(key)}}
        if check is not None:
            figures["l2sgd_target_met"] = check[0]
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
