"""Chunk F1 with and without constrained decoding (label-scheme rules), on fixed settings.

The averaged perceptron is trained for a fixed number of epochs (no choice
made on any data) and the test split is tagged twice: plain Viterbi, and
Viterbi restricted to the sequences the label scheme allows
(``predict(..., constrain=True)``). It also counts the invalid transitions
of the plain output.

    python benchmarks/bench_constrained.py            # conll2000 (chunking) and jnlpba (ner)
    python benchmarks/bench_constrained.py --tasks conll2000
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import chaintag
from chaintag.decoding.constraints import is_valid_path, scheme_masks

TASKS = {"conll2000": ("conll2000:train", "conll2000:test", "chunking"),
         "jnlpba": ("jnlpba:train", "jnlpba:test", "ner")}


def invalid_sentences(model, predicted) -> int:
    _, *masks = scheme_masks(model.labels_)
    ix = {lab: j for j, lab in enumerate(model.labels_)}
    return sum(not is_valid_path([ix[x] for x in s], *masks) for s in predicted)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--data-dir", default=None)
    args = ap.parse_args()
    rows = []
    for name in args.tasks:
        train_ref, test_ref, features = TASKS[name]
        train = chaintag.load_corpus(train_ref, data_dir=args.data_dir)
        test = chaintag.load_corpus(test_ref, data_dir=args.data_dir)
        t0 = time.perf_counter()
        model = chaintag.StructuredPerceptron(features=features, columns=train.columns, epochs=args.epochs)
        model.fit(train.tokens, train.labels)
        train_s = time.perf_counter() - t0
        row = {"task": name, "features": features, "epochs": args.epochs, "train_seconds": round(train_s, 1)}
        for constrain in (False, True):
            t0 = time.perf_counter()
            pred = model.predict(test.tokens, constrain=constrain)
            secs = time.perf_counter() - t0
            result = chaintag.evaluate(test.labels, pred)
            key = "constrained" if constrain else "plain"
            row[f"{key}_f1"] = round(result.f1, 2)
            row[f"{key}_invalid_sentences"] = invalid_sentences(model, pred)
            row[f"{key}_tag_seconds"] = round(secs, 2)
        rows.append(row)
        print(json.dumps(row), flush=True)
    with open("/proc/loadavg") as f:
        print("loadavg:", f.read().strip())


if __name__ == "__main__":
    main()
