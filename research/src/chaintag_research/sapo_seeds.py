"""SAPO's remaining settings and the IOBES label encoding, on dev data over several seeds.

The rounds of :mod:`chaintag_research.kind_defaults` chose SAPO's L2 strength and feature space per kind
from one seed. This round weighs, on the chunking and NER tasks of that module (dev data only: the last
10 % of the training file, or the task's dev file; the test sets are never read), the settings of SAPO not
yet weighed, each against SAPO's default for the kind on the same seeds:

- ``averaged``: tag with the average of the weights after every step (a variant of the authors' code);
- ``structure_reg=1.5``: structure regularization (Sun 2014) with the authors' mean piece length;
- ``n_best=2`` and ``n_best=10``: the size of the top-n (default 5);
- ``iobes``: the training file's IOB2 chunk labels rewritten as IOBES (``S-X`` for a one-token chunk,
  ``E-X`` for a chunk's last token; Ratinov and Roth 2009 found this encoding better for NER) with the
  library's own :func:`chaintag.evaluation.chunks.span_labels`; chunk F1 does not depend on the scheme the
  labels are written in, so the dev scores compare directly.

Every trial is ``chaintag.train(TRAIN, algorithm="sapo", resources="none", epochs=20, seed=S, ...)``: the
kind's default attributes and SAPO's settings for the kind, the epoch chosen on dev. One JSON line per
trial goes to ``trials.jsonl`` (a rerun skips those there), then ``README.md``.

Run ``python -m chaintag_research.sapo_seeds OUT [--data-dir DIR] [--seeds 0 1 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from .kind_defaults import EPOCHS, TASKS, add_names_tasks
from .report import fmt, md_table

#: The candidates: SAPO's parameters given to :func:`chaintag.train`, or ``None`` for the IOBES labels.
CANDIDATES = {"SAPO's default": {}, "iobes": None, "averaged": {"averaged": True},
              "structure_reg=1.5": {"structure_reg": 1.5}, "n_best=2": {"n_best": 2}, "n_best=10": {"n_best": 10}}
KINDS = ("chunking", "ner")


def _blocks(path: Path):
    """The lines of a column file as blocks: ``("tokens", [fields...])`` or ``("line", text)`` for blank and
    marker lines (``###MEDLINE:``, ``-DOCSTART-``), kept as they are."""
    block = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            text = line.rstrip("\n")
            if not text.strip() or text.startswith(("###", "-DOCSTART-")):
                if block:
                    yield "tokens", block
                    block = []
                yield "line", text
            else:
                block.append(text.split())
    if block:
        yield "tokens", block


def write_iobes(src: Path, dst: Path) -> Path:
    """Write ``src`` (a column file, chunk labels last, IOB2) to ``dst`` with its labels in IOBES."""
    from chaintag.evaluation.chunks import label_spans, span_labels
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        for kind, value in _blocks(src):
            if kind == "line":
                out.write(value + "\n")
                continue
            labels = [f[-1] for f in value]
            new = span_labels(len(labels), label_spans([labels], scheme="iob2")[0], scheme="iobes")
            out.writelines(" ".join(f[:-1] + [lab]) + "\n" for f, lab in zip(value, new))
    os.replace(tmp, dst)
    return dst


def _resolve(name: str, data_dir) -> Path:
    """A dataset split name (``conll2000:train``) or a path, as a path."""
    if Path(name).exists():
        return Path(name)
    from chaintag.data.datasets import resolve
    return Path(resolve(name, data_dir).path)


def _iobes_task(task: str, train: str, dev, data_dir):
    from chaintag.models.cache import cache_dir
    root = cache_dir() / "research" / "iobes" / task
    new_train = write_iobes(_resolve(train, data_dir), root / "train.txt")
    new_dev = dev if isinstance(dev, float) else str(write_iobes(_resolve(dev, data_dir), root / "dev.txt"))
    return str(new_train), new_dev


def _trial(train, dev, seed: int, params: dict, data_dir) -> dict:
    import chaintag
    settings = dict(algorithm="sapo", resources="none", epochs=EPOCHS, seed=seed, data_dir=data_dir,
                    quiet=True, **params)
    settings["dev_fraction" if isinstance(dev, float) else "dev"] = dev
    t0 = time.perf_counter()
    rep = chaintag.train(str(train), **settings).report
    curve = [h.get("dev_score") for h in rep["history"]]
    return {"dev_score": max(s for s in curve if s is not None), "best_epoch": rep.get("best_epoch"),
            "dev_curve": curve, "seconds": time.perf_counter() - t0}


def run(out_dir, data_dir=None, seeds=(0, 1, 2), candidates=None) -> Path:
    """Every candidate on every chunking and NER task for every seed (skipping the trials of
    ``trials.jsonl``), then the report."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "trials.jsonl"
    trials = _read(log_path)
    done = {(r["task"], r["candidate"], r["seed"]) for r in trials}
    for kind in KINDS:
        for task, train, dev in TASKS[kind]:
            for cand in candidates or CANDIDATES:
                params = CANDIDATES[cand]
                for seed in seeds:
                    if (task, cand, seed) in done:
                        continue
                    t_train, t_dev = (train, dev) if params is not None else _iobes_task(task, train, dev, data_dir)
                    rec = dict(kind=kind, task=task, candidate=cand, seed=seed,
                               **_trial(t_train, t_dev, seed, params or {}, data_dir))
                    print(f"{task} {cand} seed {seed}: dev {rec['dev_score']:.2f} (epoch {rec['best_epoch']})",
                          file=sys.stderr, flush=True)
                    with open(log_path, "a", encoding="utf-8") as fh:
                        fh.write(json.dumps(rec) + "\n")
                    trials.append(rec)
    return write_report(out, trials)


def _read(log_path: Path) -> list[dict]:
    if not log_path.exists():
        return []
    return [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line.strip()]


def differences(trials: list[dict]) -> dict:
    """Per kind and candidate: ``{task: (mean dev score, mean difference from SAPO's default on the same
    seeds, seeds)}`` and the sum of the mean differences over the kind's tasks (``"sum"``)."""
    base = {(r["task"], r["seed"]): r["dev_score"] for r in trials if r["candidate"] == "SAPO's default"}
    out = {}
    for r in trials:
        key = (r["task"], r["seed"])
        if key in base:
            out.setdefault((r["kind"], r["candidate"]), {}).setdefault(r["task"], []).append(
                (r["dev_score"], r["dev_score"] - base[key], r["seed"]))
    table = {}
    for (kind, cand), tasks in out.items():
        row = {task: (sum(v[0] for v in vals) / len(vals), sum(v[1] for v in vals) / len(vals),
                      sorted(v[2] for v in vals)) for task, vals in tasks.items()}
        row["sum"] = sum(v[1] for v in row.values())
        table[(kind, cand)] = row
    return table


def write_report(out: Path, trials: list[dict]) -> Path:
    """``README.md``: per kind, each candidate's mean dev score and its mean difference from SAPO's default
    on the same seeds, per task and summed."""
    table = differences(trials)
    md = ["# SAPO's remaining settings and the IOBES label encoding, over seeds (dev data)\n",
          "Generated by `python -m chaintag_research.sapo_seeds`; see the module's docstring. Each cell: the "
          "mean dev score over the seeds (the best epoch of 20), and in brackets its mean difference from "
          "SAPO's default for the kind on the same seeds; `sum` adds the differences over the kind's tasks. "
          "Dev data only; no test set was read.\n"]
    for kind in KINDS:
        tasks = [t[0] for t in TASKS[kind]]
        rows = []
        for (k, cand), row in sorted(table.items(), key=lambda kv: -kv[1]["sum"]):
            if k != kind:
                continue
            rows.append([cand, *(f"{fmt(row[t][0])} ({row[t][1]:+.2f}; seeds {len(row[t][2])})" if t in row
                                 else "-" for t in tasks), f"{row['sum']:+.2f}"])
        if rows:
            md += [f"## {kind}\n", md_table(["candidate", *tasks, "sum of differences"], rows), ""]
    path = out / "README.md"
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA"))
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--candidates", nargs="+", choices=tuple(CANDIDATES))
    args = ap.parse_args(argv)
    add_names_tasks(args.data_dir)
    print(run(args.out, args.data_dir, tuple(args.seeds), args.candidates))
    return 0


if __name__ == "__main__":
    sys.exit(main())
