"""chaintag vs CRFsuite averaged perceptron on CoNLL-2000 chunking.

Trains chaintag's ``StructuredPerceptron`` (``chunking`` preset) and CRFsuite's
averaged perceptron (python-crfsuite, algorithm ``"ap"``) on the same
attributes for the same number of epochs, then prints attribute extraction
time, seconds per epoch, tagging throughput, peak memory and test F1 of both,
with the ratios chaintag / CRFsuite next to their targets.

Each system runs in its own child process (this script again, with the hidden
``--only`` flag), so that peak RSS belongs to one system only; the children
send their figures to the parent as JSON on standard output. The parent
imports neither system, so its own small footprint is all a child can inherit
in ``ru_maxrss`` across ``exec``.

Usage::

    python benchmarks/bench_crfsuite.py [--epochs 10] [--data-dir DIR]
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

# (row title, JSON key, format, direction of the target, target ratio)
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


def run_chaintag(train, test, epochs: int, space: str) -> dict:
    """Train, tag and score with chaintag; see :func:`child` for the keys."""
    import time
    from chaintag import StructuredPerceptron, evaluate

    def model(e):
        return StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=e,
                                    feature_space=space, progress=False)

    warm = model(1).fit(train.tokens[:WARMUP_SENTENCES], train.labels[:WARMUP_SENTENCES])
    warm.predict(test.tokens[:WARMUP_SENTENCES])
    base = peak_rss_mib()
    m = model(epochs).fit(train.tokens, train.labels)
    t0 = time.perf_counter()
    pred = m.predict(test.tokens)
    tag_s = time.perf_counter() - t0
    return {"base_mib": base, "extraction_s": m.extraction_seconds_,
            "epoch_seconds": [h["cpu_seconds"] for h in m.history_],
            "epoch_wall_seconds": [h["seconds"] for h in m.history_], "tag_s": tag_s,
            "n_state_features": int(m.feature_index_.n_features), "f1": evaluate(test.labels, pred).f1}


def run_crfsuite(train, test, epochs: int) -> dict:
    """Train, tag and score with CRFsuite's averaged perceptron; see :func:`child`."""
    import tempfile
    import time
    import pycrfsuite
    from chaintag import evaluate

    def trainer(e):
        tr = pycrfsuite.Trainer(algorithm="ap", verbose=False)
        # 'ap' stops early only when loss / N < epsilon; with epsilon 0 it runs all epochs.
        tr.set_params({"max_iterations": e, "epsilon": 0.0})
        return tr

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "warm.crfsuite")
        warm = trainer(1)
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
        tr = trainer(epochs)
        extraction_s = 0.0
        for s, ls in zip(train.tokens, train.labels):
            t0 = time.perf_counter()
            x = crfsuite_attributes(s)
            extraction_s += time.perf_counter() - t0
            tr.append(x, ls)
        path = os.path.join(tmp, "model.crfsuite")
        tr.train(path)
        iters = tr.logparser.iterations
        if len(iters) != epochs:
            raise RuntimeError(f"CRFsuite ran {len(iters)} epochs, not {epochs}")
        bigrams = {(a, b) for ls in train.labels for a, b in zip(ls, ls[1:])}
        n_state = tr.logparser.featgen_num_features - len(bigrams)

        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        t0 = time.perf_counter()
        pred = [tagger.tag(crfsuite_attributes(s)) for s in test.tokens]
        tag_s = time.perf_counter() - t0
        tagger.close()
    return {"base_mib": base, "extraction_s": extraction_s,
            "epoch_seconds": [it["time"] for it in iters], "tag_s": tag_s,
            "n_state_features": n_state, "f1": evaluate(test.labels, pred).f1}


def child(args) -> None:
    """Run one system and print its figures as one JSON line.

    The figures: ``extraction_s``, ``epoch_seconds`` (list), ``tag_s``,
    ``tag_tokens_per_s``, ``base_mib`` (peak RSS after loading the corpus and a
    warm-up run on a few sentences), ``load_mib`` (after loading only),
    ``peak_mib``, ``peak_above_base_mib``, ``n_state_features``, ``f1`` and
    corpus sizes.
    """
    from chaintag import load_corpus
    train = load_corpus("conll2000:train", data_dir=args.data_dir)
    test = load_corpus("conll2000:test", data_dir=args.data_dir)
    load = peak_rss_mib()
    if args.only == "chaintag":
        out = run_chaintag(train, test, args.epochs, args.feature_space)
    else:
        out = run_crfsuite(train, test, args.epochs)
    out["peak_mib"] = peak_rss_mib()
    out["load_mib"] = load
    out["peak_above_base_mib"] = out["peak_mib"] - out["base_mib"]
    out["epoch_s"] = sum(out["epoch_seconds"]) / len(out["epoch_seconds"])
    out["test_tokens"] = sum(len(s) for s in test.tokens)
    out["train_tokens"] = sum(len(s) for s in train.tokens)
    out["tag_tokens_per_s"] = out["test_tokens"] / out["tag_s"]
    print(json.dumps(out))


def run_child(name: str, args) -> dict:
    """Run this script for one system in a fresh interpreter and parse its JSON line."""
    cmd = [sys.executable, os.path.abspath(__file__), "--only", name, "--epochs", str(args.epochs),
           "--feature-space", args.feature_space]
    if args.data_dir:
        cmd += ["--data-dir", args.data_dir]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"the {name} run failed (exit status {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(ours: dict, theirs: dict) -> str:
    """Format the comparison table, ratios and targets included."""
    head = f"{'':34}{'chaintag':>12}{'CRFsuite':>12}{'ratio':>9}  target"
    lines = [head, "-" * len(head) + "-" * 10]
    for title, key, fmt, op, goal in ROWS:
        a, b = ours[key], theirs[key]
        ratio, target = "", ""
        if op is not None:
            r = a / b
            met = r <= goal if op == "<=" else r >= goal
            ratio, target = f"{r:.2f}x", f"{op} {goal}x  {'ok' if met else 'MISSED'}"
        lines.append(f"{title:34}{fmt.format(a):>12}{fmt.format(b):>12}{ratio:>9}  {target}".rstrip())
    return "\n".join(lines)


NOTES = """\
extraction: chaintag = m.extraction_seconds_ inside fit (interning, attribute table, feature
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


def main(argv=None) -> None:
    """Parse options; run both systems in child processes (or one, with ``--only``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=10, help="training epochs for both (default 10)")
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
    ours = run_child("chaintag", args)
    theirs = run_child("crfsuite", args)
    print(f"CoNLL-2000 chunking: {ours['train_tokens']:,} train / {ours['test_tokens']:,} test tokens,"
          f" {args.epochs} epochs, feature space {args.feature_space} (CRFsuite: gold)")
    print(table(ours, theirs))
    print(NOTES.format(n=WARMUP_SENTENCES))
    if args.json:
        meta = {"date": datetime.date.today().isoformat(), "python": platform.python_version(),
                "machine": platform.machine(), "cpus": os.cpu_count(), "epochs": args.epochs,
                "feature_space": args.feature_space}
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "chaintag": ours, "crfsuite": theirs,
                       "ratios": {key: ours[key] / theirs[key] for _, key, _, op, _ in ROWS if op}},
                      f, indent=2)


if __name__ == "__main__":
    main()
