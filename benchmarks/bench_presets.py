"""Score the dev-chosen presets once on test: SAPO against the averaged perceptron, the CRF and today's SAPO.

Reads a configuration (JSON) of the settings chosen on dev data by
``chaintag tune`` (nothing here chooses anything), trains each learner on
the whole training split, tags the test split once, and writes a Markdown
table per task with p-values (paired t-test on per-sentence token accuracy,
approximate randomization on the corpus score; SAPO with the chosen settings
against each other row) and the median training seconds per epoch.

Usage::

    python benchmarks/bench_presets.py docs/results/presets/config.json \
        --clusters resources/clusters-en.tsv --out docs/results/presets [--tasks chunking ner]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

import chaintag
from chaintag_research.significance import (approximate_randomization, corpus_score, paired_t_test,
                                               sentence_accuracy, sentence_stats)
from chaintag.features.spec import with_clusters


def run_task(name: str, task: dict, clusters: str | None, data_dir: str | None, out: str) -> list[dict]:
    train = chaintag.load_corpus(task["train"], data_dir=data_dir)
    test = chaintag.load_corpus(task["test"], data_dir=data_dir)
    rows = []
    for row in task["rows"]:
        feats = row["features"]
        if row.get("clusters", False):
            feats = with_clusters(feats, [clusters])
        params = dict(row.get("params", {}))
        model = chaintag.make_learner(row["learner"], features=feats, columns=train.columns,
                                      epochs=row["epochs"], progress=False, **params)
        load = os.getloadavg()
        t0 = time.perf_counter()
        model.fit(train.tokens, train.labels)
        fit_s = time.perf_counter() - t0
        stats = sentence_stats(test.labels, model.predict(test.tokens))
        rows.append({"task": name, "label": row["label"], "learner": row["learner"], "features": row["features"],
                     "params": params, "epochs": row["epochs"], "score": corpus_score(stats, task["metric"]),
                     "seconds_per_epoch": float(np.median([r["seconds"] for r in model.history_])),
                     "cpu_seconds_per_epoch": float(np.median([r["cpu_seconds"] for r in model.history_])),
                     "extraction_seconds": (model.extraction_seconds_ + model.extractor_seconds_), "fit_seconds": fit_s,
                     "n_features": int(model.feature_index_.n_features), "loadavg": load, "_stats": stats})
        print(f"{name}: {row['label']}: {rows[-1]['score']:.2f} ({rows[-1]['seconds_per_epoch']:.3f} s/epoch, "
              f"load {load[0]:.1f})", file=sys.stderr, flush=True)
        if len(rows) > 1:
            ref, r = rows[0]["_stats"], rows[-1]
            r["t_p"] = paired_t_test(sentence_accuracy(ref), sentence_accuracy(r["_stats"])).p_value
            r["ar_p"] = approximate_randomization(ref, r["_stats"], task["metric"]).p_value
        write(out, name, task, rows)  # after every row: a slow last row loses nothing
    return rows


def write(out: str, name: str, task: dict, rows: list[dict]) -> None:
    with open(os.path.join(out, f"{name}.md"), "w", encoding="utf-8") as f:
        f.write(markdown(name, task, rows))
    with open(os.path.join(out, f"{name}.json"), "w", encoding="utf-8") as f:
        json.dump([{k: v for k, v in r.items() if k != "_stats"} for r in rows], f, indent=1)
        f.write("\n")


def markdown(name: str, task: dict, rows: list[dict]) -> str:
    metric = "F1" if task["metric"] == "f1" else "accuracy"
    out = [f"### {task['title']}", "",
           f"Train `{task['train']}`, settings chosen on {task['dev']}, test `{task['test']}` scored once.", "",
           f"| system | features | settings | epochs | test {metric} | s / epoch | CPU s / epoch | p (t-test) | p (AR) |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        settings = ", ".join(f"{k}={v}" for k, v in r["params"].items()) or "defaults"
        p_t = "-" if "t_p" not in r else ("<0.001" if r["t_p"] < 0.001 else f"{r['t_p']:.3f}")
        p_a = "-" if "ar_p" not in r else ("<0.001" if r["ar_p"] < 0.001 else f"{r['ar_p']:.3f}")
        out.append(f"| {r['label']} | `{r['features']}` | {settings} | {r['epochs']} | {r['score']:.2f} | "
                   f"{r['seconds_per_epoch']:.3f} | {r['cpu_seconds_per_epoch']:.3f} | {p_t} | {p_a} |")
    if task.get("bilstm"):
        out.append(f"| BiLSTM-CRF (reference) | - | - | - | {task['bilstm']} | {task.get('bilstm_seconds', '-')} | - | - | - |")
    out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("config")
    p.add_argument("--clusters", help="the cluster table the chosen presets read")
    p.add_argument("--out", required=True)
    p.add_argument("--tasks", nargs="*")
    p.add_argument("--data-dir")
    args = p.parse_args(argv)
    with open(args.config, encoding="utf-8") as f:
        config = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    for name, task in config["tasks"].items():
        if args.tasks and name not in args.tasks:
            continue
        run_task(name, task, args.clusters, args.data_dir, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
