"""Stacked sequential learning (Cohen and Carvalho 2005): dev trials only.

Stage 1 is a SAPO model with the task's features; its labels become a column
of the tokens, ``y1``, that stage 2's templates read in a window (the labels of
the neighbours beyond the one the chain links, and their conjunctions). On the
training sentences ``y1`` is jackknifed: the sentences are cut into ``--folds``
contiguous blocks and each block is tagged by a stage-1 model trained on the
others, so stage 2 learns how far stage-1 labels on new text can be trusted;
the dev sentences are tagged by a stage-1 model trained on all the training
sentences. Dev is as in ``bench_vectors.py`` (the seeded carve, the last 10 %
with ``--contiguous-dev``, or the task's dev split).

Usage::

    python benchmarks/bench_stacking.py --task conll2000 --features chunking+kmvec \\
        --vectors conll-vt.tsv conll2000-w2v100.txt --set feature_space=all --epochs 30 --stage1-epochs 28
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaintag  # noqa: E402
from bench_neural import TASKS, _load, _loadavg  # noqa: E402
from bench_vectors import _value, dev_split, write_json  # noqa: E402

STACK_TEMPLATES = {
    "w2": ["y1[-2]", "y1[-1]", "y1[0]", "y1[1]", "y1[2]", "y1[-1]|y1[0]", "y1[0]|y1[1]"],
    "w3": ["y1[-3]", "y1[-2]", "y1[-1]", "y1[0]", "y1[1]", "y1[2]", "y1[3]", "y1[-2]|y1[-1]", "y1[-1]|y1[0]",
           "y1[0]|y1[1]", "y1[1]|y1[2]"],
    # with --documents: the label stage 1 gives most often to the token's word elsewhere in its document
    "doc": ["y1[-2]", "y1[-1]", "y1[0]", "y1[1]", "y1[2]", "y1[-1]|y1[0]", "y1[0]|y1[1]", "dmaj[0]",
            "dmaj[0]|y1[0]", "dmaj[-1]", "dmaj[1]"],
    "doconly": ["dmaj[0]", "dmaj[0]|y1[0]", "dmaj[-1]", "dmaj[1]"],
    "w2x": ["y1[-2]", "y1[-1]", "y1[0]", "y1[1]", "y1[2]", "y1[-1]|y1[0]", "y1[0]|y1[1]", "y1[0]|lower(w[0])",
            "y1[-1]|y1[0]|y1[1]"],
}


def _learner(args, features, epochs, columns, seed):
    features = features + "".join(f";@clusters={os.path.abspath(v)}" for v in args.vectors)
    params = {k: _value(v) for k, v in (s.split("=", 1) for s in args.set)}
    return chaintag.make_learner(args.algorithm, features=features, epochs=epochs, random_state=seed,
                                 columns=columns, **params)


def _with(tokens, predicted, docs=None):
    """The tokens with the stage-1 label column (and, given each sentence's document, ``dmaj``)."""
    if docs is None:
        return [[tuple(tok) + (y,) for tok, y in zip(sent, ys)] for sent, ys in zip(tokens, predicted)]
    majority = document_majority(tokens, predicted, docs)
    return [[tuple(tok) + (y, m) for tok, y, m in zip(sent, ys, ms)]
            for sent, ys, ms in zip(tokens, predicted, majority)]


def document_majority(tokens, predicted, docs):
    """Per token: the stage-1 label most often given to the same lowercased word at its other
    occurrences in the document (ties: the first label in sorted order), ``-`` when there are none
    (Krishnan and Manning 2006, token-majority features)."""
    from collections import Counter, defaultdict
    counts: dict = defaultdict(Counter)
    for sent, ys, d in zip(tokens, predicted, docs):
        for tok, y in zip(sent, ys):
            counts[(d, tok[0].lower())][y] += 1
    out = []
    for sent, ys, d in zip(tokens, predicted, docs):
        row = []
        for tok, y in zip(sent, ys):
            c = counts[(d, tok[0].lower())].copy()
            c[y] -= 1
            best = sorted(((-n, lab) for lab, n in c.items() if n > 0))
            row.append(best[0][1] if best else "-")
        out.append(row)
    return out


def fold_models(args, tokens, labels, columns):
    """Yield (block, held-out sentence indices, a stage-1 model trained on the other blocks) for each
    of ``args.folds`` contiguous blocks of the training sentences."""
    n = len(tokens)
    fold = (np.arange(n) * args.folds) // n
    for k in range(args.folds):
        tr = np.flatnonzero(fold != k)
        m = _learner(args, args.features, args.stage1_epochs, columns, args.seed)
        m.fit([tokens[i] for i in tr], [labels[i] for i in tr])
        yield k, np.flatnonzero(fold == k), m


def jackknife(args, tokens, labels, columns):
    """Stage-1 labels of every training sentence from a model that did not see its block."""
    out: list = [None] * len(tokens)
    for k, held_out, m in fold_models(args, tokens, labels, columns):
        for i, ys in zip(held_out, m.predict([tokens[i] for i in held_out])):
            out[i] = ys
        print(f"stage 1 fold {k + 1}/{args.folds} done", file=sys.stderr, flush=True)
    return out


def stage2_record(model, t0: float, c0: float) -> dict:
    """The stage-2 figures: best dev score and epoch, the dev curve, seconds per epoch (wall and CPU),
    the whole run's seconds since ``t0`` / ``c0`` and the load average."""
    hist = model.history_
    return {"score": round(hist[model.best_epoch_ - 1]["dev_score"], 2), "best_epoch": model.best_epoch_,
            "curve": [round(h["dev_score"], 2) for h in hist],
            "seconds_per_epoch": round(float(np.mean([h["seconds"] for h in hist])), 3),
            "cpu_seconds_per_epoch": round(float(np.mean([h["cpu_seconds"] for h in hist])), 3),
            "total_seconds": round(time.perf_counter() - t0, 1), "total_cpu": round(time.process_time() - c0, 1),
            "loadavg": _loadavg()}


def add_two_stage_options(p, task: str, epochs: int, stage1_epochs: int) -> None:
    """The options of the two-stage dev scripts (this one and ``bench_autotags.py``)."""
    p.add_argument("--task", choices=sorted(TASKS), default=task)
    p.add_argument("--data-dir", default=None)
    p.add_argument("--algorithm", "-a", default="sapo")
    p.add_argument("--features", required=True)
    p.add_argument("--vectors", nargs="*", default=[])
    p.add_argument("--set", nargs="*", default=[], metavar="K=V")
    p.add_argument("--epochs", type=int, default=epochs, help="stage-2 epochs (dev score after each)")
    p.add_argument("--stage1-epochs", type=int, default=stage1_epochs)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--contiguous-dev", action="store_true")
    p.add_argument("--out", default=None)


def run(args) -> dict:
    train_ref, _, _, options = TASKS[args.task]
    docs = ddocs = None
    if args.documents:
        if not args.contiguous_dev:
            raise SystemExit("--documents needs --contiguous-dev (whole documents on each side)")
        corpus = chaintag.load_corpus(train_ref, data_dir=args.data_dir, document_columns=True, **options)
        tokens, labels, docs = corpus.tokens, corpus.labels, list(corpus.documents)
    else:
        tokens, labels = _load(train_ref, args.data_dir, options)
    n_all = len(tokens)
    tokens, labels, dt, dl, where = dev_split(args, tokens, labels)
    if docs is not None:
        docs, ddocs = docs[:len(tokens)], docs[len(tokens):n_all]
    columns = (("word", "abbr", "docnext", "doccap") if args.documents
               else ("word", "pos")[:len(tokens[0][0])])
    t0, c0 = time.perf_counter(), time.process_time()
    y1_train = jackknife(args, tokens, labels, columns)
    m1 = _learner(args, args.features, args.stage1_epochs, columns, args.seed)
    m1.fit(tokens, labels)
    y1_dev = m1.predict(dt)
    stage1_dev = m1.evaluate(dt, dl)
    stage1_seconds = time.perf_counter() - t0
    features = args.features + ";" + ";".join(STACK_TEMPLATES[args.stack])
    extra = ("y1", "dmaj") if args.documents else ("y1",)
    m2 = _learner(args, features, args.epochs, columns + extra, args.seed)
    m2.fit(_with(tokens, y1_train, docs), labels, dev=(_with(dt, y1_dev, ddocs), dl))
    score = stage1_dev.f1 if stage1_dev.is_chunking else stage1_dev.accuracy
    return {"task": args.task, "features": args.features, "stack": args.stack,
            "stack_templates": STACK_TEMPLATES[args.stack], "vectors": args.vectors, "set": args.set,
            "seed": args.seed, "folds": args.folds, "stage1_epochs": args.stage1_epochs, "epochs": args.epochs,
            "scored_on": where, "stage1_dev": round(score, 2), "stage1_seconds": round(stage1_seconds, 1),
            **stage2_record(m2, t0, c0)}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_two_stage_options(p, "conll2000", epochs=30, stage1_epochs=28)
    p.add_argument("--stack", choices=sorted(STACK_TEMPLATES), default="w2")
    p.add_argument("--documents", action="store_true",
                   help="read the document columns and documents (load_corpus(..., document_columns=True)); "
                        "stage 2 may read dmaj (--stack doc); needs --contiguous-dev")
    args = p.parse_args(argv)
    write_json(run(args), args.out)


if __name__ == "__main__":
    main()
