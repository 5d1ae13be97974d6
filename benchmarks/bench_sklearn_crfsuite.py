"""A pipeline written for sklearn-crfsuite, run with sklearn-crfsuite and with chaintag.

The pipeline is the usual sklearn-crfsuite one: each token becomes a dict of
features (the word lowercased, its last 2 and 3 characters, case and digit
flags, the POS tag and its first 2 characters, the same for the previous and
next tokens, BOS/EOS flags, a bias), ``fit(X_train, y_train)``,
``predict(X_test)``. Only the import and the estimator differ between the
two runs:

- ``sklearn-crfsuite``: ``sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.1,
  c2=0.1, max_iterations=100, all_possible_transitions=True)``, the settings
  of sklearn-crfsuite's tutorial;
- ``chaintag``: ``chaintag.StructuredPerceptron(epochs=10)`` (the settings of
  chaintag's main command; nothing chosen on test data), or any of the
  ``CANDIDATES`` below with ``--systems chaintag:NAME``, among them the direct
  translation ``chaintag.CRFLBFGS(l1=0.1, l2=0.2, epochs=100)`` (the same
  L1 + L2 objective, ``l2 = 2 * c2``).

Chunk F1 (conlleval semantics, ``chaintag.evaluate``) on CoNLL-2000 test,
training seconds, wall clock and CPU (``fit`` only; building the dicts is the
same Python code on both sides and is timed apart) and tagging seconds. Each system runs in its
own process.

    pip install sklearn-crfsuite        # only for this comparison
    python benchmarks/bench_sklearn_crfsuite.py [--data-dir DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def read_conll(path):
    """Sentences of (word, pos) and their chunk labels from a CoNLL-2000 file."""
    sents, labels, cur, lab = [], [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts:
                if cur:
                    sents.append(cur)
                    labels.append(lab)
                cur, lab = [], []
                continue
            cur.append((parts[0], parts[1]))
            lab.append(parts[-1])
    if cur:
        sents.append(cur)
        labels.append(lab)
    return sents, labels


def word2features(sent, i):
    word, postag = sent[i]
    features = {
        "bias": 1.0,
        "word.lower()": word.lower(),
        "word[-3:]": word[-3:],
        "word[-2:]": word[-2:],
        "word.isupper()": word.isupper(),
        "word.istitle()": word.istitle(),
        "word.isdigit()": word.isdigit(),
        "postag": postag,
        "postag[:2]": postag[:2],
    }
    for offset, prefix, inside in ((-1, "-1:", i > 0), (1, "+1:", i < len(sent) - 1)):
        if inside:
            w, p = sent[i + offset]
            features.update({
                prefix + "word.lower()": w.lower(),
                prefix + "word.istitle()": w.istitle(),
                prefix + "word.isupper()": w.isupper(),
                prefix + "postag": p,
                prefix + "postag[:2]": p[:2],
            })
        else:
            features["BOS" if offset < 0 else "EOS"] = True
    return features


def sent2features(sent):
    return [word2features(sent, i) for i in range(len(sent))]


#: chaintag estimators tried by --choose-on-dev (the first is the default)
CANDIDATES = {
    "perceptron": lambda chaintag: chaintag.StructuredPerceptron(epochs=10),
    "perceptron-20": lambda chaintag: chaintag.StructuredPerceptron(epochs=20),
    "perceptron-30": lambda chaintag: chaintag.StructuredPerceptron(epochs=30),
    "sapo": lambda chaintag: chaintag.SAPO(epochs=10),
    "sapo-20": lambda chaintag: chaintag.SAPO(epochs=20),
    "sapo-30": lambda chaintag: chaintag.SAPO(epochs=30),
    "nbest-mira": lambda chaintag: chaintag.NBestMIRA(epochs=10),
    # the direct translation of the sklearn-crfsuite estimator: c1 -> l1, c2 -> l2 = 2 * c2
    "crf-lbfgs-l1": lambda chaintag: chaintag.CRFLBFGS(l1=0.1, l2=0.2, epochs=100),
    # the same without its L1 part
    "crf-lbfgs": lambda chaintag: chaintag.CRFLBFGS(l2=0.2, epochs=100),
}


def run_one(system: str, data_dir: str, dev: bool = False) -> dict:
    train_sents, y_train = read_conll(os.path.join(data_dir, "conll2000", "train.txt"))
    if dev:
        # a dev split carved from the training data: its last 10% of sentences
        cut = len(train_sents) * 9 // 10
        test_sents, y_test = train_sents[cut:], y_train[cut:]
        train_sents, y_train = train_sents[:cut], y_train[:cut]
    else:
        test_sents, y_test = read_conll(os.path.join(data_dir, "conll2000", "test.txt"))
    t0 = time.perf_counter()
    X_train = [sent2features(s) for s in train_sents]
    X_test = [sent2features(s) for s in test_sents]
    dict_seconds = time.perf_counter() - t0

    if system == "sklearn-crfsuite":
        import sklearn_crfsuite
        estimator = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=0.1, c2=0.1, max_iterations=100,
                                         all_possible_transitions=True)
    else:
        import chaintag
        estimator = CANDIDATES[system.split(":", 1)[1] if ":" in system else "perceptron"](chaintag)

    t0, c0 = time.perf_counter(), time.process_time()
    estimator.fit(X_train, y_train)
    fit_seconds, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    y_pred = estimator.predict(X_test)
    predict_seconds = time.perf_counter() - t0

    from chaintag import evaluate
    result = evaluate(y_test, [list(p) for p in y_pred])
    return {"system": system, "split": "dev (last 10% of train)" if dev else "test", "f1": round(result.f1, 2), "accuracy": round(result.accuracy, 2),
            "fit_seconds": round(fit_seconds, 1), "fit_cpu_seconds": round(fit_cpu, 1), "predict_seconds": round(predict_seconds, 2),
            "dict_building_seconds": round(dict_seconds, 1), "n_train_sentences": len(X_train)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA", "../shared/data"))
    ap.add_argument("--systems", nargs="+", default=["sklearn-crfsuite", "chaintag"],
                    choices=["sklearn-crfsuite", "chaintag"] + [f"chaintag:{c}" for c in CANDIDATES],
                    help="chaintag = chaintag:perceptron (or the dev choice with --choose-on-dev)")
    ap.add_argument("--choose-on-dev", action="store_true",
                    help="first score the chaintag candidates (%s) on a dev split carved from the "
                         "training data and use the best one on test" % ", ".join(CANDIDATES))
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--only", help=argparse.SUPPRESS)
    ap.add_argument("--dev", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.only:
        print(json.dumps(run_one(args.only, args.data_dir, args.dev)))
        return

    def child(system, dev=False):
        cmd = [sys.executable, __file__, "--only", system, "--data-dir", args.data_dir] + (["--dev"] if dev else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        print(json.dumps(row), flush=True)
        return row

    rows = []
    chosen = "chaintag"
    if args.choose_on_dev and "chaintag" in args.systems:
        dev_rows = [child(f"chaintag:{name}", dev=True) for name in CANDIDATES]
        rows += dev_rows
        best = max(dev_rows, key=lambda r: r["f1"])  # first one on ties
        chosen = best["system"]
    for system in args.systems:
        rows.append(child(chosen if system == "chaintag" else system))
    with open("/proc/loadavg") as f:
        load = f.read().strip()
    print("loadavg:", load)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "loadavg": load}, f, indent=1)


if __name__ == "__main__":
    main()
