"""Choosing defaults on development data: SAPO's learning rate, boundary sentinels.

Each setting is trained on the training part of a task and scored on its
development part after every epoch; a setting's figure is its best dev score
over the epochs (the epoch is chosen on dev too). The test sets are never
read. Tasks (see :data:`TASKS`):

- ``chunking``: CoNLL-2000, whose training file has no development part: a
  seeded random 10 % of its training sentences (seed 0) is held out as dev,
  the other 90 % are trained on;
- ``pos``: ``ptb_sample`` with its own train / dev split.

Settings swept (the library's defaults are marked in the report):

- SAPO's initial learning rate ``gamma_0`` in :data:`LEARNING_RATES`
  (decayed as ``gamma_0 / (1 + t / |S|)``), n = 5, the task's L2 strength
  (the SAPO paper's: 1 for chunking, 2 for POS);
- the same grid for the CRF trained by plain SGD (the SAPO reproduction's
  CRF baseline): the SAPO paper tuned the learning rate for its CRF and
  reused it for SAPO, and the reproduction does the same with the rate
  chosen here (the highest mean dev score over the tasks);
- boundary sentinels (CRF++-style ``<S-1>``, ``<E+1>`` atoms for positions
  outside the sentence) on or off, for the averaged perceptron and SAPO.

The rule (:func:`choose`): a default is changed only when another setting
has a higher dev score on every task, significantly (approximate
randomization on the dev sentences, 1000 shuffles, p < 0.05) on at least
one; otherwise the current default is kept.

Run ``python -m chaintag_research.defaults docs/results/defaults``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from .config import DataRef
from .report import fmt, fmt_p, md_table, write_csv
from .significance import approximate_randomization, corpus_score, sentence_stats

#: Tasks: train and dev data (never test), preset, score, SAPO's L2 strength.
TASKS = {
    "chunking": {"title": "Chunking (CoNLL-2000)", "features": "chunking", "metric": "f1", "l2": 1.0,
                 "train": DataRef("conll2000:train", 0.0, 0.9, seed=0),
                 "dev": DataRef("conll2000:train", 0.9, 1.0, seed=0)},
    "pos": {"title": "POS tagging (ptb_sample)", "features": "pos", "metric": "accuracy", "l2": 2.0,
            "train": DataRef("ptb_sample:train"), "dev": DataRef("ptb_sample:dev")},
}
#: Initial learning rates of SAPO tried (decayed schedule).
LEARNING_RATES = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
#: The library's defaults being checked.
DEFAULT_LEARNING_RATE = 0.1
DEFAULT_SENTINELS = False
#: Epochs of every run (the best dev epoch is taken).
EPOCHS = 20


@contextlib.contextmanager
def _sentinels(on: bool):
    """Make the learners build their attribute extractor with ``sentinels=on``."""
    from chaintag.features.extract import AttributeExtractor
    from chaintag.learners import base

    original = base.AttributeExtractor

    class _Extractor(AttributeExtractor):
        def __init__(self, templates, columns, sentinels=False):
            super().__init__(templates, columns, sentinels=on)

    base.AttributeExtractor = _Extractor
    try:
        yield
    finally:
        base.AttributeExtractor = original


def _load(ref: DataRef, data_dir=None):
    from chaintag.data.datasets import load_corpus
    corpus = load_corpus(ref.ref, data_dir=data_dir)
    idx = ref.indices(len(corpus.tokens))
    return [corpus.tokens[i] for i in idx], [corpus.labels[i] for i in idx], corpus.columns


def _run(task: str, learner: str, params: dict, sentinels: bool, epochs: int, data, progress: bool) -> dict:
    from chaintag.learners import make_learner
    spec = TASKS[task]
    (tr_x, tr_y, columns), (dv_x, dv_y, _) = data
    model = make_learner(learner, features=spec["features"], columns=columns, epochs=epochs, progress=False,
                         **params)
    t0 = time.perf_counter()
    with _sentinels(sentinels):
        model.fit(tr_x, tr_y, dev=(dv_x, dv_y))
    seconds = time.perf_counter() - t0
    curve = [rec.get("dev_score") for rec in model.history_]
    best = int(np.argmax(curve))
    stats = sentence_stats(dv_y, model.predict(dv_x))  # the kept weights: the best dev epoch's
    return {"task": task, "learner": learner, "params": params, "sentinels": sentinels,
            "dev_curve": curve, "best_epoch": best + 1, "dev_best": float(curve[best]),
            "dev_check": corpus_score(stats, spec["metric"]), "seconds": seconds, "_stats": stats}


def settings() -> list[tuple[str, str, dict, bool]]:
    """``(name, learner, params, sentinels)`` of every setting, per task L2 filled in later."""
    out = [(f"sapo-lr{lr:g}", "sapo", {"n_best": 5, "learning_rate": lr, "lr_schedule": "decay"},
            DEFAULT_SENTINELS) for lr in LEARNING_RATES]
    out += [(f"crf-lr{lr:g}", "crf", {"learning_rate": lr, "lr_schedule": "decay", "averaged": False},
             DEFAULT_SENTINELS) for lr in LEARNING_RATES]
    for on in (False, True):
        out.append((f"perceptron-sentinels-{'on' if on else 'off'}", "perceptron", {"averaged": True}, on))
    out.append(("sapo-sentinels-on", "sapo", {"n_best": 5, "learning_rate": DEFAULT_LEARNING_RATE,
                                              "lr_schedule": "decay"}, True))
    return out


def choose(scores: dict, default: str, candidates, p_values: dict | None = None,
           alpha: float = 0.05) -> tuple[str, str]:
    """Apply the rule: ``(chosen, reason)``.

    Parameters
    ----------
    scores : dict
        ``task -> {candidate -> dev score}`` (higher is better).
    default : str
        The current default's candidate name.
    candidates : iterable of str
    p_values : dict, optional
        ``task -> {candidate -> p-value of its difference from the default}`` on that task's dev data.
    alpha : float, default 0.05

    Returns
    -------
    tuple of str
        The candidate kept or chosen, and a sentence saying why. Another candidate replaces the
        default only if its dev score is higher on every task and, when ``p_values`` are given,
        significantly so (``p < alpha``) on at least one task; among several, the highest mean score.
    """
    tasks = list(scores)
    better = [c for c in candidates if c != default and all(scores[t][c] > scores[t][default] for t in tasks)]
    if p_values is not None:
        higher = better
        better = [c for c in higher if any(p_values[t][c] < alpha for t in tasks)]
        if higher and not better:
            return default, (f"{', '.join(f'`{c}`' for c in higher)} score higher than the default `{default}` on "
                             f"the dev data of every task, but on none significantly (p < {alpha:g})")
    if not better:
        return default, f"no setting beats the default `{default}` on the dev data of every task"
    best = max(better, key=lambda c: np.mean([scores[t][c] for t in tasks]))
    return best, f"`{best}` beats the default `{default}` on the dev data of every task" + (
        f", significantly (p < {alpha:g}) on at least one" if p_values is not None else "")


def sweep(out_dir, *, data_dir=None, epochs: int = EPOCHS, tasks=tuple(TASKS), progress: bool = True) -> Path:
    """Run every setting on every task and write ``README.md``, ``dev_scores.csv``, ``dev_curves.csv``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    load_before = os.getloadavg()
    results = {}
    for task in tasks:
        spec = TASKS[task]
        data = None
        for name, learner, params, on in settings():
            params = dict(params, **({"l2": spec["l2"]} if learner in ("sapo", "crf") else {}))
            if progress:
                print(f"defaults: {task} {name}", file=sys.stderr, flush=True)
            cache = out_dir / "runs" / f"{task}-{name}-{epochs}"
            if (cache / "run.json").exists():
                run = json.loads((cache / "run.json").read_text(encoding="utf-8"))
                run["_stats"] = np.load(cache / "dev.npy")
            else:
                data = data or (_load(spec["train"], data_dir), _load(spec["dev"], data_dir))
                run = _run(task, learner, params, on, epochs, data, progress)
                cache.mkdir(parents=True, exist_ok=True)
                np.save(cache / "dev.npy", run["_stats"])
                (cache / "run.json").write_text(json.dumps({k: v for k, v in run.items() if k != "_stats"}),
                                                encoding="utf-8")
            results[(task, name)] = run
    wall = time.perf_counter() - t_start
    return write_report(out_dir, results, tasks, epochs=epochs, wall=wall, loads=(load_before, os.getloadavg()))


def write_report(out_dir: Path, results: dict, tasks, *, epochs: int, wall: float, loads) -> Path:
    """Write the report of :func:`sweep`'s ``results`` (``(task, name) -> run dict``)."""
    lr_names = [f"sapo-lr{lr:g}" for lr in LEARNING_RATES]
    default_lr = f"sapo-lr{DEFAULT_LEARNING_RATE:g}"
    score = {t: {n: results[(t, n)]["dev_best"] for (tt, n) in results if tt == t} for t in tasks}
    def ar(task, a, b):
        return approximate_randomization(results[(task, a)]["_stats"], results[(task, b)]["_stats"],
                                         metric=TASKS[task]["metric"], n_shuffles=1000, random_state=0).p_value

    lr_p = {t: {n: (1.0 if n == default_lr else ar(t, n, default_lr)) for n in lr_names} for t in tasks}
    lr_choice, lr_reason = choose({t: {n: score[t][n] for n in lr_names} for t in tasks}, default_lr, lr_names,
                                  lr_p)
    sent = {}
    for learner, off, on in (("perceptron", "perceptron-sentinels-off", "perceptron-sentinels-on"),
                             ("sapo", default_lr, "sapo-sentinels-on")):
        sent[learner] = choose({t: {"off": score[t][off], "on": score[t][on]} for t in tasks}, "off", ("off", "on"),
                               {t: {"off": 1.0, "on": ar(t, on, off)} for t in tasks})

    md = ["# Defaults chosen on development data\n",
          "Generated by `python -m chaintag_research.defaults docs/results/defaults`. Every figure is a "
          "score on **development** data; no test set is read.\n",
          f"- Summed training time of the {len(results)} runs (each fit with its dev scoring): "
          f"{sum(r['seconds'] for r in results.values()):.0f} s, on 2 cores shared with other work (load "
          "average 9 to 15 while they ran). The runs are cached under `runs/`; this invocation took "
          f"{wall:.0f} s (load average {', '.join(f'{x:.2f}' for x in loads[0])} at its start).",
          f"- Each setting trains for {epochs} epochs; its figure is the best dev score over the epochs "
          "(the epoch is chosen on dev as well).",
          "- Rule: a default is changed only when another setting has a higher dev score on every task "
          "and a significantly higher one (approximate randomization, 1000 shuffles, seed 0, p < 0.05, "
          "between the two settings at each one's best dev epoch) on at least one task. The first version "
          "of this sweep applied the rule without the significance condition; it would have moved SAPO's "
          "rate to the largest value tried (1.0, the edge of the grid) on differences of 0.02 to 0.16 "
          "points that no test distinguishes from noise, so the condition was added, after seeing these "
          "figures; every figure is in the tables, for any other rule.",
          "- The CRF's rate for the SAPO reproduction is the one with the highest mean dev score (the "
          "paper's procedure: tuned for the CRF, reused for SAPO).\n"]
    md.append(md_table(["task", "train", "dev", "score"],
                       [[TASKS[t]["title"], TASKS[t]["train"].describe(), TASKS[t]["dev"].describe(),
                         "chunk F1 (%)" if TASKS[t]["metric"] == "f1" else "token accuracy (%)"] for t in tasks],
                       align="llll"))
    md.append("")
    md.append("## SAPO's learning rate\n")
    md.append("SAPO, n = 5, the task's L2 strength (1 chunking, 2 POS), decayed rate "
              "`gamma_0 / (1 + t / |S|)`, default sentence order (shuffled, seed 0).\n")
    rows, csv_rows = [], []
    for name, lr in zip(lr_names, LEARNING_RATES):
        row = [f"{lr:g}" + (" (default)" if name == default_lr else "")]
        for t in tasks:
            r = results[(t, name)]
            row += [f"{fmt(r['dev_best'])} ({r['best_epoch']})", "-" if name == default_lr else fmt_p(ar(t, name, default_lr))]
            csv_rows.append([t, name, r["dev_best"], r["best_epoch"], r["seconds"]])
        rows.append(row)
    md.append(md_table(["gamma_0"] + [h for t in tasks for h in (f"{t}: best dev score (epoch)", f"{t}: AR p vs 0.1")],
                       rows))
    md.append(f"\n**Decision:** {lr_reason}; the default learning rate "
              + ("stays 0.1." if lr_choice == default_lr else f"becomes {lr_choice.removeprefix('sapo-lr')}.") + "\n")
    crf_names = [f"crf-lr{lr:g}" for lr in LEARNING_RATES]
    crf_mean = {n: float(np.mean([score[t][n] for t in tasks])) for n in crf_names}
    crf_choice = max(crf_names, key=lambda n: crf_mean[n])
    md.append("## The CRF's learning rate (for the SAPO reproduction)\n")
    md.append("CRF trained by plain SGD (no averaging), the task's L2 strength, the same decayed schedule. The SAPO "
              "paper tuned its learning rate for the CRF and reused it for SAPO; the SAPO reproduction does the "
              "same with the rate of the highest mean dev score over the tasks.\n")
    rows = []
    for name, lr in zip(crf_names, LEARNING_RATES):
        row = [f"{lr:g}"]
        for t in tasks:
            r = results[(t, name)]
            row.append(f"{fmt(r['dev_best'])} ({r['best_epoch']})")
            csv_rows.append([t, name, r["dev_best"], r["best_epoch"], r["seconds"]])
        rows.append(row + [fmt(crf_mean[name])])
    md.append(md_table(["gamma_0"] + [f"{t}: best dev score (epoch)" for t in tasks] + ["mean"], rows))
    md.append(f"\n**Decision:** the CRF's best mean dev score is at gamma_0 = {crf_choice.removeprefix('crf-lr')}; "
              "the SAPO reproduction uses it for SAPO and the CRF.\n")
    md.append("## Boundary sentinels\n")
    md.append("Atoms that read outside the sentence (`w[-2]` on the first token, ...) either do not fire "
              "(off, the default) or read CRF++-style sentinels `<S-1>`, `<E+1>` (on).\n")
    rows = []
    for learner, off, on in (("averaged perceptron", "perceptron-sentinels-off", "perceptron-sentinels-on"),
                             ("SAPO (gamma_0 = 0.1)", default_lr, "sapo-sentinels-on")):
        row = [learner]
        for t in tasks:
            a, b = results[(t, off)], results[(t, on)]
            row += [f"{fmt(a['dev_best'])} ({a['best_epoch']})", f"{fmt(b['dev_best'])} ({b['best_epoch']})",
                    fmt_p(ar(t, on, off))]
            csv_rows.append([t, on, b["dev_best"], b["best_epoch"], b["seconds"]])
        rows.append(row)
    for name in ("perceptron-sentinels-off",):
        for t in tasks:
            r = results[(t, name)]
            csv_rows.append([t, name, r["dev_best"], r["best_epoch"], r["seconds"]])
    md.append(md_table(["learner"] + [h for t in tasks for h in (f"{t}: off", f"{t}: on", f"{t}: AR p")], rows))
    md.append("")
    for learner, (choice, reason) in sent.items():
        md.append(f"**Decision ({learner}):** {reason.replace('`off`', 'off').replace('`on`', 'on')}; sentinels "
                  + ("stay off." if choice == "off" else "would be turned on.") + "\n")
    write_csv(out_dir / "dev_scores.csv", ["task", "setting", "dev_best", "best_epoch", "seconds"], csv_rows)
    write_csv(out_dir / "dev_curves.csv", ["task", "setting", "epoch", "dev_score"],
              [[t, n, e + 1, v] for (t, n), r in results.items() for e, v in enumerate(r["dev_curve"])])
    (out_dir / "choices.json").write_text(json.dumps(
        {"learning_rate": {"chosen": lr_choice, "reason": lr_reason},
         "crf_learning_rate": {"chosen": crf_choice, "mean_dev": crf_mean},
         "sentinels": {k: {"chosen": v[0], "reason": v[1]} for k, v in sent.items()}}, indent=1) + "\n",
        encoding="utf-8")
    path = out_dir / "README.md"
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":  # pragma: no cover
    print(sweep(sys.argv[1] if len(sys.argv) > 1 else "results/defaults").read_text(encoding="utf-8"))
