"""The perceptron's epoch with and without full rows (chaintag.features.dense_rows), by threshold.

Trains chaintag's averaged perceptron on one data set for ``--epochs``
epochs, once in the model's own layout and once for each threshold of
``--thresholds`` (an attribute with at least that many features gets a full
row in the kernels' layout), ``--repeats`` times each, interleaved, and
prints the least and the median CPU seconds of an epoch (one thread: run
with ``NUMBA_NUM_THREADS=1``) and the number of features of each layout.
The trained weights are the same in every layout (checked here too).

Usage::

    NUMBA_NUM_THREADS=1 python benchmarks/profile_emissions.py [--data conll2000] [--features chunking]
        [--thresholds 2,3,4,5,8] [--epochs 5] [--repeats 2] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics

import numpy as np

from chaintag import StructuredPerceptron, load_corpus
from chaintag.features import dense_rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="conll2000", help="data set of the data directory (its train part)")
    ap.add_argument("--features", default="chunking", help="feature preset (default chunking)")
    ap.add_argument("--thresholds", default="2,3,4,5,8")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA"))
    args = ap.parse_args(argv)
    train = load_corpus(f"{args.data}:train", data_dir=args.data_dir)
    settings = [None] + [int(t) for t in args.thresholds.split(",")]
    default = dense_rows.full_row_threshold
    cpu = {th: [] for th in settings}
    ref = None
    for _ in range(args.repeats):
        for th in settings:
            StructuredPerceptron._full_rows = th is not None
            dense_rows.full_row_threshold = default if th is None else (lambda n_labels, th=th: th)
            m = StructuredPerceptron(features=args.features, epochs=args.epochs, progress=False).fit(
                train.tokens, train.labels)
            cpu[th] += [h["cpu_seconds"] for h in m.history_]
            if ref is None:
                ref = m.weights_
            elif not np.array_equal(ref, m.weights_):
                raise SystemExit(f"threshold {th}: the weights differ from those of the model's layout")
    index = m.feature_index_
    print(f"{args.data} train, {args.features}, {index.n_labels} labels, {index.n_features:,} features; default "
          f"threshold {default(index.n_labels)}; load average {os.getloadavg()[0]:.2f}")
    for th in settings:
        lay = None if th is None else dense_rows.row_layout(index, th)
        n = index.n_features if lay is None else lay.index.n_features
        name = "model's layout" if th is None else f"full rows from {th}"
        print(f"{name:22} {n:>10,} features   epoch CPU s: min {min(cpu[th]):.3f}  "
              f"median {statistics.median(cpu[th]):.3f}")


if __name__ == "__main__":
    main()
