"""SAPO with word-vector attributes (``vec(...)`` templates, kmN clusters of the vectors): dev trials and one test run.

Dev data is the seeded 10 % of the training sentences that ``bench_neural.py``
carves (the same split: the word vectors of its recipe were induced without
those sentences), or the task's dev split where it has one. ``dev`` trains on
the rest with the dev score after every epoch and reports the best epoch;
with several ``--seeds`` it trains one run per shuffle seed for ``--epochs``
epochs and scores the average of their weights (the runs share one feature
index: the attributes do not depend on the seed). ``test`` trains on the
whole training split for the given epochs (averaging the seeds' weights the
same way) and scores the test split once.

Usage::

    python benchmarks/bench_vectors.py dev --task conll2000 --features 'chunking;vec(norm(lower(w[0])))' \\
        --vectors /path/w2v100.txt --epochs 30 --out trial.json
    python benchmarks/bench_vectors.py test --task conll2000 --features ... --vectors ... --epochs 22 --out test.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaintag  # noqa: E402
from bench_neural import TASKS, _load, _loadavg, carve_dev  # noqa: E402


def _value(text: str):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)


def _fit(args, tokens, labels, dev, seed, epochs):
    features = args.features + "".join(f";@clusters={os.path.abspath(v)}" for v in args.vectors)
    params = {k: _value(v) for k, v in (s.split("=", 1) for s in args.set)}
    m = chaintag.make_learner(args.algorithm, features=features, epochs=epochs, random_state=seed, **params)
    return m.fit(tokens, labels, dev=dev)


def _score(model, weights, tokens, labels):
    saved = model.weights_
    model.weights_ = weights
    try:
        r = model.evaluate(tokens, labels)
    finally:
        model.weights_ = saved
    return r.f1 if r.is_chunking else r.accuracy


def dev_split(args, tokens, labels):
    """(train tokens, train labels, dev tokens, dev labels, where): the task's dev split, else the last
    10 % of the training sentences (``--contiguous-dev``: whole documents) or the seeded 10 % carve."""
    train_ref, dev_ref, _, options = TASKS[args.task]
    if dev_ref is None and args.contiguous_dev:
        cut = len(tokens) - int(round(len(tokens) * 0.1))
        return (tokens[:cut], labels[:cut], tokens[cut:], labels[cut:],
                f"last 10% of {train_ref} (contiguous: whole documents)")
    if dev_ref is None:
        (tokens, labels), (dt, dl) = carve_dev(tokens, labels)
        return tokens, labels, dt, dl, f"seeded 10% of {train_ref} (bench_neural.carve_dev, seed 0)"
    dt, dl = _load(dev_ref, args.data_dir, options)
    return tokens, labels, dt, dl, dev_ref


def write_json(out: dict, path: str | None) -> None:
    """Print ``out`` as JSON, and write it to ``path`` (atomically) when given."""
    text = json.dumps(out, indent=1)
    print(text)
    if path:
        tmp = path + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(text + "\n")
        os.replace(tmp, path)


def run(args) -> dict:
    train_ref, dev_ref, test_ref, options = TASKS[args.task]
    tokens, labels = _load(train_ref, args.data_dir, options)
    if args.mode == "dev":
        tokens, labels, dt, dl, where = dev_split(args, tokens, labels)
    else:
        dt, dl = _load(test_ref, args.data_dir, options)
        where = test_ref
    t0, c0 = time.perf_counter(), time.process_time()
    runs = []
    if args.mode == "dev" and len(args.seeds) == 1:
        m = _fit(args, tokens, labels, (dt, dl), args.seeds[0], args.epochs)
        runs.append(m)
        score, best = m.history_[m.best_epoch_ - 1]["dev_score"], m.best_epoch_
        curve = [round(h["dev_score"], 2) for h in m.history_]
    else:
        for seed in args.seeds:
            runs.append(_fit(args, tokens, labels, None, seed, args.epochs))
        m = runs[0]
        w = np.mean([r.weights_ for r in runs], axis=0)
        singles = [round(_score(r, r.weights_, dt, dl), 2) for r in runs] if args.mode == "dev" else []
        score, best, curve = _score(m, w, dt, dl), args.epochs, singles
    hist = [h for r in runs for h in r.history_]
    out = {"mode": args.mode, "task": args.task, "algorithm": args.algorithm, "features": args.features,
           "vectors": args.vectors, "set": args.set, "seeds": args.seeds, "epochs": args.epochs,
           "scored_on": where, "score": round(score, 2), "best_epoch": best,
           "curve_or_single_scores": curve,
           "n_attributes": m.extractor_.n_attributes, "n_features": m.feature_index_.n_features,
           "extraction_seconds": round(float((m.extraction_seconds_ + m.extractor_seconds_)), 2),
           "seconds_per_epoch": round(float(np.mean([h["seconds"] for h in hist])), 3),
           "cpu_seconds_per_epoch": round(float(np.mean([h["cpu_seconds"] for h in hist])), 3),
           "total_seconds": round(time.perf_counter() - t0, 1), "total_cpu": round(time.process_time() - c0, 1),
           "loadavg": _loadavg()}
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=["dev", "test"])
    p.add_argument("--task", choices=sorted(TASKS), default="conll2000")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--algorithm", "-a", default="sapo")
    p.add_argument("--features", required=True)
    p.add_argument("--vectors", nargs="*", default=[], help="word resource files (vectors, cluster tables)")
    p.add_argument("--set", nargs="*", default=[], metavar="K=V", help="learner settings")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--contiguous-dev", action="store_true",
                   help="dev = the last 10%% of the training sentences (whole documents) instead of the seeded carve")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    write_json(run(args), args.out)


if __name__ == "__main__":
    main()
