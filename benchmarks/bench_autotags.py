"""Labels of unlabeled text as word attributes (dev trials only).

A model with the task's settings tags the unlabeled text (``unlabeled_en``,
one sentence a line); each word (lowercased, digits mapped to 0) gets the
label the model gave it most often there, ``atag``, and its two most frequent
labels, ``atag2`` (``-`` for a word the text lacks). The columns give a word
unseen in training the labels its occurrences in raw text took, as tag
dictionaries induced from automatically tagged text do. On the training
sentences the columns are jackknifed: the sentences are cut into ``--folds``
contiguous blocks, and a block's words read the profile from the text as
tagged by a model trained on the other blocks (otherwise a training word's
profile would repeat its own gold labels); the dev sentences read the
profile of a model trained on all the training sentences.

Usage::

    python benchmarks/bench_autotags.py --task ud_en_ewt --features 'pos+clustersvec;@vecdim=25' \\
        --vectors ud-vt.tsv ud-w2v100.txt --set l2=2 feature_space=all --epochs 20 --stage1-epochs 20
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time
from collections import Counter, defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_neural import TASKS, _load  # noqa: E402
from bench_stacking import _learner, add_two_stage_options, fold_models, stage2_record  # noqa: E402
from bench_vectors import dev_split, write_json  # noqa: E402

_DIGITS = re.compile(r"\d")
TEMPLATES = {
    "a1": ["atag[0]"],
    "a3": ["atag[-1]", "atag[0]", "atag[1]", "atag2[0]"],
    "a7": ["atag[-1]", "atag[0]", "atag[1]", "atag2[-1]", "atag2[0]", "atag2[1]", "atag[-1]|atag[0]|atag[1]"],
}


def norm(word: str) -> str:
    return _DIGITS.sub("0", word.lower())


def unlabeled(data_dir) -> list[list[str]]:
    from chaintag.data.datasets import resolve_data_dir
    folder = os.path.join(os.fspath(resolve_data_dir(data_dir)), "unlabeled_en")
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*.txt"))):
        with open(path, encoding="utf-8") as fh:
            out.extend(ln.split() for ln in fh if ln.strip())
    return out


def profile(model, text, width: int) -> dict[str, tuple[str, str]]:
    """word -> (most frequent label, the two most frequent labels) over the tagged text."""
    rows = [[(w,) + ("",) * (width - 1) for w in s] for s in text]
    counts: dict = defaultdict(Counter)
    for sent, ys in zip(text, model.predict(rows)):
        for w, y in zip(sent, ys):
            counts[norm(w)][y] += 1
    out = {}
    for w, c in counts.items():
        top = [lab for lab, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:2]]
        out[w] = (top[0], "|".join(sorted(top)))
    return out


def with_profile(tokens, prof):
    return [[tuple(tok) + prof.get(norm(tok[0]), ("-", "-")) for tok in sent] for sent in tokens]


def run(args) -> dict:
    train_ref, _, _, options = TASKS[args.task]
    tokens, labels = _load(train_ref, args.data_dir, options)
    tokens, labels, dt, dl, where = dev_split(args, tokens, labels)
    width = len(tokens[0][0])
    columns = ("word", "pos")[:width] if width <= 2 else None
    text = unlabeled(args.data_dir)[:args.text_limit]
    t0, c0 = time.perf_counter(), time.process_time()
    train_rows: list = [None] * len(tokens)
    for k, held_out, m in fold_models(args, tokens, labels, columns):
        prof = profile(m, text, width)
        for i in held_out:
            train_rows[i] = with_profile([tokens[i]], prof)[0]
        print(f"fold {k + 1}/{args.folds}: {len(prof)} words profiled", file=sys.stderr, flush=True)
    m1 = _learner(args, args.features, args.stage1_epochs, columns, args.seed)
    m1.fit(tokens, labels)
    dev_rows = with_profile(dt, profile(m1, text, width))
    stage1 = m1.evaluate(dt, dl)
    stage1_seconds = time.perf_counter() - t0
    features = args.features + ";" + ";".join(TEMPLATES[args.templates])
    cols = (columns or tuple(f"c{j}" for j in range(width))) + ("atag", "atag2")
    m2 = _learner(args, features, args.epochs, cols, args.seed)
    m2.fit(train_rows, labels, dev=(dev_rows, dl))
    covered = float(np.mean([tok[-2] != "-" for s in dev_rows for tok in s]))
    return {"task": args.task, "features": args.features, "templates": TEMPLATES[args.templates],
            "vectors": args.vectors, "set": args.set, "seed": args.seed, "folds": args.folds,
            "stage1_epochs": args.stage1_epochs, "epochs": args.epochs, "scored_on": where,
            "stage1_dev": round(stage1.f1 if stage1.is_chunking else stage1.accuracy, 2),
            "dev_tokens_profiled": round(covered, 4), "stage1_seconds": round(stage1_seconds, 1),
            **stage2_record(m2, t0, c0)}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_two_stage_options(p, "ud_en_ewt", epochs=20, stage1_epochs=20)
    p.add_argument("--templates", choices=sorted(TEMPLATES), default="a3")
    p.add_argument("--text-limit", type=int, default=None, help="read only the first N unlabeled sentences")
    args = p.parse_args(argv)
    write_json(run(args), args.out)


if __name__ == "__main__":
    main()
