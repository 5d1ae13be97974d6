"""Seconds per training epoch of chaintag's learners, side by side, on one corpus.

Not a unit test. Trains every requested learner on the same attributes (the
same extracted corpus) for the same number of epochs and prints the mean CPU
seconds per epoch, the ratio to the averaged perceptron, the final test score
and the weight complexity (mean absolute weight).

Usage
-----
    python benchmarks/bench_learners.py                       # CoNLL-2000, 5 epochs
    python benchmarks/bench_learners.py --epochs 10 --learners perceptron sapo sapo-beam
    python benchmarks/bench_learners.py --train ptb_sample:train --test ptb_sample:test --features pos
"""

from __future__ import annotations

import argparse
import json
import time

import chaintag

LEARNERS = {
    "perceptron": ("perceptron", {}),
    "perceptron-naive": ("perceptron", {"averaged": False}),
    "sapo": ("sapo", {"n_best": 5}),
    "sapo-n1": ("sapo", {"n_best": 1}),
    "sapo-n10": ("sapo", {"n_best": 10}),
    "sapo-beam": ("sapo", {"n_best": 5, "search": "beam", "beam_width": 50}),
}


def run(name: str, train, test, features: str, epochs: int) -> dict:
    """Train one learner and return its figures.

    Returns
    -------
    dict
        ``epoch_cpu_s`` (mean CPU seconds per epoch), ``epoch_wall_s``,
        ``score`` (test F1 for chunk labels, accuracy otherwise, percent),
        ``weight_complexity``, ``fit_s`` (whole fit, wall clock).
    """
    algorithm, params = LEARNERS[name]
    model = chaintag.make_learner(algorithm, features=features, columns=train.columns, epochs=epochs,
                                  progress=False, **params)
    t0 = time.perf_counter()
    model.fit(train.tokens, train.labels)
    fit_s = time.perf_counter() - t0
    hist = model.history_
    # the first epoch may include loading compiled kernels: report the mean of the others
    rest = hist[1:] or hist
    return {"learner": name, "epoch_cpu_s": sum(h["cpu_seconds"] for h in rest) / len(rest),
            "epoch_wall_s": sum(h["seconds"] for h in rest) / len(rest),
            "score": model.score(test.tokens, test.labels),
            "weight_complexity": hist[-1]["weight_complexity"], "fit_s": fit_s}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--train", default="conll2000:train")
    p.add_argument("--test", default="conll2000:test")
    p.add_argument("--features", default="chunking")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--learners", nargs="+", default=["perceptron", "sapo"], choices=sorted(LEARNERS))
    p.add_argument("--data-dir")
    p.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = p.parse_args(argv)
    train = chaintag.load_corpus(args.train, data_dir=args.data_dir)
    test = chaintag.load_corpus(args.test, data_dir=args.data_dir)
    # warm the compiled kernels so that no learner pays for loading them
    for name in args.learners:
        run(name, chaintag.Corpus(train.columns, train.tokens[:20], train.labels[:20]),
            chaintag.Corpus(test.columns, test.tokens[:5], test.labels[:5]), args.features, 1)
    rows = [run(name, train, test, args.features, args.epochs) for name in args.learners]
    base = next((r for r in rows if r["learner"] == "perceptron"), rows[0])
    print(f"{args.train} -> {args.test}, features {args.features}, {args.epochs} epochs "
          f"(mean of epochs 2..{args.epochs})")
    print(f"{'learner':<18}{'s/epoch (CPU)':>14}{'x perceptron':>14}{'test score':>12}{'weight cplx':>13}")
    for r in rows:
        r["ratio"] = r["epoch_cpu_s"] / base["epoch_cpu_s"]
        print(f"{r['learner']:<18}{r['epoch_cpu_s']:>14.3f}{r['ratio']:>13.2f}x{r['score']:>12.2f}"
              f"{r['weight_complexity']:>13.4f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
