"""Reproduction of the SAPO paper's experiments (Sun et al., section 4).

SAPO (top-n search, probabilities over the top n, L2) is compared with the
CRF trained by SGD, the naive and averaged structured perceptron, MIRA and
N-best MIRA, on the test set after every pass (the paper's Figures 1-2),
with the weight complexity (mean absolute weight, Figure 3) and the seconds
per pass (Figures 4-5) of each; then SAPO against every baseline with a
paired t-test on per-sentence token accuracy (as the paper) and an
approximate randomization test on the task's own score; and SAPO with
``n`` in 1 .. 50 on chunking.

Settings as the paper's section 4: ``n = 5`` for SAPO and N-best MIRA, the
CRF's L2 strength for SAPO too (2 for POS, 1 for chunking, 5 for Bio-NER),
the same learning rate for SAPO and the CRF (here 0.1 decayed as
``0.1 / (1 + t / |S|)``, ``t`` = samples seen), every learner trained on the
whole training set for a fixed number of passes. The final table reads the
test score at the last pass (the paper's "convergence state"); for POS, whose
data has a development split, the test score at the pass chosen on it is
given too.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .config import DataRef, Run, has_learner
from .report import (fmt, fmt_p, focus_ylim, invocations_table, line_plots, machine_details, md_table, p_text,
                     record_invocation, write_csv)
from .runner import Runner
from .significance import approximate_randomization, paired_t_test, sentence_accuracy

PAPER = ("X. Sun et al. Towards Easier and Faster Sequence Labeling for Natural Language Processing: "
         "A Search-based Probabilistic Online Learning Framework (SAPO)")

#: Tasks: data, attribute preset, score, L2 strength (the paper's, tuned for its CRF).
TASKS = {
    "chunking": {"title": "Chunking (CoNLL-2000)", "features": "chunking", "metric": "f1", "l2": 1.0,
                 "train": DataRef("conll2000:train"), "dev": None, "test": DataRef("conll2000:test")},
    "pos": {"title": "POS tagging (ptb_sample)", "features": "pos", "metric": "accuracy", "l2": 2.0,
            "train": DataRef("ptb_sample:train"), "dev": DataRef("ptb_sample:dev"),
            "test": DataRef("ptb_sample:test")},
    "np": {"title": "Base-NP chunking (conll2000_np)", "features": "chunking", "metric": "f1", "l2": 1.0,
           "train": DataRef("conll2000_np:train"), "dev": None, "test": DataRef("conll2000_np:test")},
    "ner": {"title": "Bio-NER (JNLPBA)", "features": "ner", "metric": "f1", "l2": 5.0,
            "train": DataRef("jnlpba:train"), "dev": None, "test": DataRef("jnlpba:test")},
    "ud": {"title": "POS tagging (UD English EWT, XPOS)", "features": "pos", "metric": "accuracy", "l2": 2.0,
           "train": DataRef("ud_en_ewt:train"), "dev": DataRef("ud_en_ewt:dev"),
           "test": DataRef("ud_en_ewt:test")},
}
#: Tasks run by default.
DEFAULT_TASKS = ("chunking", "pos")
#: The paper's significance claim for each task (section 4: t-test on accuracy), and the p-value it
#: claims against every baseline (the CRF excepted where ``except_crf``). None: not a task of the paper.
#: The paper's "Phrase Chunking" finds base NPs in the CoNLL-2000 data; both readings are run here.
PAPER_SIGNIFICANCE = {
    "chunking": {"alpha": 0.01, "except_crf": True},
    "np": {"alpha": 0.01, "except_crf": True},
    "pos": {"alpha": 0.01, "except_crf": True},
    "ner": {"alpha": 0.05, "except_crf": False},
    "ud": None,
}
#: Passes of every run (full mode).
EPOCHS = 30
#: Top-n sizes of the n sweep, and its task.
N_SWEEP = (1, 2, 5, 10, 20, 50)
SWEEP_TASK = "chunking"
#: A learner's test curve is "stable" when its last pass is within STABLE_DROP points of its best
#: and its slope over the last 10 passes is above -STABLE_SLOPE points per pass.
STABLE_DROP = 0.15
STABLE_SLOPE = 0.01
#: Learning rate of SAPO and of the CRF (decayed as gamma_0 / (1 + t / |S|)).
LEARNING_RATE = 0.1


def learner_settings(l2: float) -> list[tuple[str, str, str, dict]]:
    """``(key, label, learner, params)`` of SAPO and the baselines for an L2 strength."""
    return [
        ("sapo", "SAPO (n=5)", "sapo", {"n_best": 5, "l2": l2, "learning_rate": LEARNING_RATE,
                                        "lr_schedule": "decay"}),
        ("crf", "CRF (SGD)", "crf", {"l2": l2, "learning_rate": LEARNING_RATE, "lr_schedule": "decay",
                                     "averaged": False}),
        ("perc-naive", "Perc-Naive", "perceptron", {"averaged": False}),
        ("perc-avg", "Perc-Avg", "perceptron", {"averaged": True}),
        ("mira-naive", "MIRA-Naive", "mira", {"averaged": False}),
        ("mira-avg", "MIRA-Avg", "mira", {"averaged": True}),
        ("nbest-mira-naive", "MIRA-Nbest-Naive (n=5)", "nbest-mira", {"averaged": False, "n_best": 5}),
        ("nbest-mira-avg", "MIRA-Nbest-Avg (n=5)", "nbest-mira", {"averaged": True, "n_best": 5}),
    ]


QUICK_LEARNERS = ("sapo", "crf", "perc-naive", "perc-avg")


def _data(task: str, quick: bool) -> dict:
    spec = dict(TASKS[task])
    if quick:
        for part, limit in (("train", 300), ("dev", 100), ("test", 200)):
            if spec[part] is not None:
                d = spec[part]
                spec[part] = DataRef(d.ref, d.start, d.stop, limit=limit)
    return spec


def runs(quick: bool = False, epochs: int | None = None, tasks=DEFAULT_TASKS, sweep: bool = True) -> list[Run]:
    """The runs of the reproduction.

    Parameters
    ----------
    quick : bool
        Tiny version: 300 training sentences, 3 passes, four learners, n in {1, 5, 10}.
    epochs : int, optional
        Passes of every run (default :data:`EPOCHS`, or 3 when quick).
    tasks : sequence of task names (:data:`TASKS`)
    sweep : bool
        Add the n sweep of SAPO on :data:`SWEEP_TASK`.
    """
    epochs = epochs or (3 if quick else EPOCHS)
    out = []
    for task in tasks:
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
        spec = _data(task, quick)
        for key, label, learner, params in learner_settings(spec["l2"]):
            if quick and key not in QUICK_LEARNERS or not has_learner(learner):
                continue
            out.append(Run(key=f"{task}/{key}", label=label, task=task, learner=learner, params=params,
                           features=spec["features"], epochs=epochs, train=spec["train"], dev=spec["dev"],
                           test=spec["test"], metric=spec["metric"]))
    if sweep:
        spec = _data(SWEEP_TASK, quick)
        for n in ((1, 5, 10) if quick else N_SWEEP):
            params = {"n_best": n, "l2": spec["l2"], "learning_rate": LEARNING_RATE, "lr_schedule": "decay"}
            out.append(Run(key=f"sweep/n{n}", label=f"SAPO n={n}", task="sweep", learner="sapo", params=params,
                           features=spec["features"], epochs=epochs, train=spec["train"], dev=spec["dev"],
                           test=spec["test"], metric=spec["metric"]))
    return out


def reproduce(out_dir, *, quick: bool = False, data_dir=None, progress: bool = True, epochs: int | None = None,
              tasks=None, sweep: bool = True, command: str | None = None) -> Path:
    """Run (or read back) every run and write the report into ``out_dir``.

    Returns
    -------
    pathlib.Path
        The Markdown report ``out_dir/README.md``.
    """
    out_dir = Path(out_dir)
    before = machine_details()
    t0 = time.perf_counter()
    tasks = tuple(tasks or DEFAULT_TASKS)
    runner = Runner(out_dir, data_dir=data_dir, progress=progress)
    results = runner.run_all(runs(quick=quick, epochs=epochs, tasks=tasks, sweep=sweep))
    wall = time.perf_counter() - t0
    return write_report(out_dir, results, runner, tasks=tasks, quick=quick, command=command, wall=wall,
                        before=before, after=machine_details())


def _significance(results: dict, task: str, metric: str) -> dict:
    """SAPO against every baseline at the last pass: ``key -> {ar_p, t_p, t, diff}``."""
    sapo = results.get(f"{task}/sapo")
    out = {}
    if sapo is None:
        return out
    sa = sapo.test_stats()
    for key, r in results.items():
        if not key.startswith(task + "/") or key == f"{task}/sapo":
            continue
        sb = r.test_stats()
        ar = approximate_randomization(sa, sb, metric=metric, n_shuffles=1000, random_state=0)
        tt = paired_t_test(sentence_accuracy(sa), sentence_accuracy(sb))
        out[key] = {"ar_p": ar.p_value, "t": tt.statistic, "t_p": tt.p_value, "diff": ar.difference}
    return out


def _tail_slope(values: list, last: int = 10) -> float:
    """Least-squares slope of the last ``last`` values, per pass."""
    ys = np.asarray(values[-last:], dtype=float)
    if len(ys) < 2:
        return 0.0
    return float(np.polyfit(np.arange(len(ys)), ys, 1)[0])


def write_report(out_dir: Path, results: dict, runner: Runner, *, tasks, quick: bool, command: str | None,
                 wall: float, before: dict, after: dict) -> Path:
    """Write ``README.md``, the CSV files and the figures of the reproduction."""
    out_dir.mkdir(parents=True, exist_ok=True)
    any_run = next(iter(results.values()))
    epochs = any_run.run.epochs
    command = command or "chaintag reproduce sapo"
    entries = record_invocation(out_dir, command=command, wall=wall, trained=runner.epochs_trained,
                                before=before, after=after)
    md = ["# Reproduction: SAPO (Sun et al.) against CRF, perceptron and MIRA\n",
          f"{PAPER}, section 4 (Figures 1-5 and the significance tests).",
          "Generated by `chaintag reproduce sapo`" + (" in **quick mode** (tiny subsets; the figures are a smoke "
                                                      "test, not results)" if quick else "") + ".\n",
          "## How it was run\n",
          f"- Command: `{command}`, run from the repository root.",
          f"- Summed wall time of training and scoring over all runs: "
          f"{sum({r.digest: r.summary['wall_seconds'] for r in results.values()}.values()):.0f} s (a run shared "
          "by a table and the n sweep counted once). Each invocation (a later one reads "
          "the finished runs back from `runs/` and only rewrites the report):\n",
          invocations_table(entries),
          f"- Machine: {before['cpus']} CPUs, {before['platform']}; Python {before['python']}, numpy "
          f"{before['numpy']}, numba {before.get('numba', '-')}, chaintag {before['chaintag']}. The machine was "
          "shared with other work (see the load averages): seconds per pass are indicative, and CPU seconds "
          "(process time) are less affected than wall seconds.\n",
          "## Method\n",
          f"- Every learner trains on the training data below for {epochs} passes; after each pass the weights of "
          "that pass tag the test set (training goes pass by pass through the learners' checkpoints, which gives "
          "the same weights as one uninterrupted run). Nothing is chosen on the test set: the final table reads "
          "the **last** pass; its \"best pass\" column only describes the curve.",
          "- Attributes: the library's presets (`chunking`: words and POS tags in a window of 2 with "
          "n-grams; `pos`: words, affixes and word shapes), the `gold` feature space, no count cut-off, "
          "the same for every learner.",
          "- Learners (all on the same attributes): " + "; ".join(
              f"{label}: `{learner}` {', '.join(f'{k}={v}' for k, v in params.items()) or '(defaults)'}"
              for key, label, learner, params in learner_settings("λ")
              if any(k.endswith("/" + key) for k in results)) + ". λ is the task's L2 strength "
          "(the paper's: 1 for chunking, 2 for POS, 5 for Bio-NER). SAPO and the CRF visit the sentences in "
          "a seeded random order; the perceptron and MIRA in file order." + (
              " Left out of this run (quick mode): " + ", ".join(
                  label for key, label, _, _ in learner_settings(1.0)
                  if not any(k.endswith("/" + key) for k in results)) + "." if quick else "") + (
              "" if any(k.startswith("sweep/") for k in results) else " The sweep of n was not run."),
          "- Weight complexity: mean absolute value of the weights used for tagging (the averaged weights "
          "for the averaged learners). Seconds per pass: the learner's own timing of the pass "
          "(training only, no feature extraction or scoring); the tables give the median over the passes, "
          "which leaves out the first pass's one-off start-up cost.",
          "- Significance (SAPO against each baseline, at the last pass, on the test set): paired t-test on "
          "per-sentence token accuracy (`scipy.stats.ttest_rel`; the paper's test, which it also applies to "
          "the F1 tasks through accuracy), and approximate randomization on the task's corpus score "
          "(chunk F1 or accuracy; 1000 shuffles, seed 0).\n"]
    data_rows = []
    for task in tasks:
        spec = _data(task, quick)
        data_rows.append([spec["title"], *(f"{spec[p].describe()}: {runner.size(spec[p])[0]:,} sentences, "
                                           f"{runner.size(spec[p])[1]:,} tokens" if spec[p] else "-"
                                           for p in ("train", "dev", "test")),
                          "chunk F1 (%)" if spec["metric"] == "f1" else "token accuracy (%)", f"{spec['l2']:g}"])
    md.append(md_table(["task", "train", "dev", "test", "score", "λ"], data_rows, align="llllll"))

    claims = {"beats": [], "weights": [], "speed": [], "converge": []}
    for task in tasks:
        md.extend(_task_section(out_dir, results, task, claims))
    if any(k.startswith("sweep/") for k in results):
        md.extend(_sweep_section(out_dir, results))

    md.append("## The paper's claims, checked\n")
    md.append("The paper's text gives its results as figures, without numeric tables, so the comparison with "
              "the published results is claim by claim.\n")
    for name, title in (("beats", "SAPO is more accurate than CRF, perceptron and MIRA"),
                        ("converge", "SAPO and CRF converge; perceptron and MIRA diverge as training goes on"),
                        ("weights", "SAPO's weights stay small"),
                        ("speed", "SAPO is about as fast as the perceptron, and faster than CRF")):
        md.append(f"**{title}.**\n")
        md.extend(claims[name])
        md.append("")
    md.append("## How this setup differs from the paper\n")
    if "pos" in tasks:
        md.append("- **POS data.** `ptb_sample`, the NLTK 10 % WSJ sample (3,396 training sentences), not WSJ "
                  "sections 0-18 (38,219); its test set has about 6,000 tokens, so differences of a few tenths "
                  "of a point are within noise.")
    if "chunking" in tasks or "np" in tasks:
        md.append("- **Chunking data.** The paper's \"Phrase Chunking\" identifies base NPs in the CoNLL-2000 data "
                  "(8,936 / 2,012 sentences). Both readings are run where asked: `chunking` scores all CoNLL-2000 "
                  "chunk types with conlleval, `np` (`conll2000_np`, the same sentences with only the NP chunks) "
                  "base NPs only.")
    if "ud" in tasks:
        md.append("- **UD POS.** `ud_en_ewt` (UD English EWT, PTB-style XPOS tags on web text) is an extra POS "
                  "task, not in the paper: 12,544 training sentences, about a third of the paper's WSJ set.")
    if "ner" in tasks:
        md.append("- **Bio-NER.** JNLPBA's test file is the original; its training file is an approximate "
                  "reconstruction (exact entity annotations, our own tokenization and sentence splitting; "
                  "18,488 sentences against the paper's 17,484), so the figures are close to, not strictly "
                  "comparable with, published ones. The `ner` preset stands in for the paper's word-pattern "
                  "and POS features (the data has no POS column).")
    md.append("- **Attributes.** The library's presets, not exactly the paper's templates (its POS features "
              "also normalize the word; its chunking features are close to ours).")
    md.append("- **CRF.** Plain SGD with the decayed learning rate shared with SAPO and the paper's λ; the "
              "library's default CRF (averaged SGD, Bottou's rate) is usually better than this baseline.")
    md.append("- **Neural baselines** (Bi-LSTM, Bi-LSTM-CRF) are not reproduced." +
              ("" if "ner" in tasks else " Bio-NER is not run by default (`--tasks ... ner` adds it)."))
    md.append("")
    md.append("## Files\n")
    swept = any(k.startswith("sweep/") for k in results)
    md.append("- `final_<task>.csv`: the final tables; `curves_<task>.csv`: test score, weight complexity, "
              "seconds, training errors and loss of every pass of every learner; `significance_<task>.csv`" +
              ("; `nsweep.csv` and `nsweep_curves.csv`: the n sweep." if swept else "."))
    md.append("- `curves_<task>.png` (test score, weight complexity and seconds per pass)" +
              (", `nsweep.png`." if swept else "."))
    md.append("- `runs/<digest>/` (not part of the report): per-run JSON lines, per-sentence test counts and "
              "summaries, reused when the command is run again.")
    path = out_dir / "README.md"
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return path


def _task_section(out_dir: Path, results: dict, task: str, claims: dict) -> list[str]:
    spec = TASKS[task]
    metric = spec["metric"]
    score_name = "F1" if metric == "f1" else "accuracy"
    mine = [(k, r) for k, r in results.items() if k.startswith(task + "/")]
    if not mine:
        return []
    md = [f"## {spec['title']}\n"]
    sig = _significance(results, task, metric)
    perc = results.get(f"{task}/perc-avg")
    perc_cpu = perc.summary["cpu_seconds_per_epoch"] if perc else None
    has_dev = any(r.run.dev is not None for _, r in mine)
    header = ["learner", f"test {score_name}, last pass", "best pass (test)", "last - best"]
    if has_dev:
        header.append(f"test {score_name} at best dev pass")
    header += ["weight complexity, last", "s / pass", "CPU s / pass", "CPU time vs Perc-Avg",
               "t-test p vs SAPO", "AR p vs SAPO"]
    rows, csv_rows = [], []
    for key, r in mine:
        s = r.summary
        sg = sig.get(key, {})
        row = [r.run.label, fmt(s["test_last"]), f"{fmt(s['test_max'])} ({s['test_max_epoch']})",
               fmt(s["test_last"] - s["test_max"])]
        if has_dev:
            row.append(f"{fmt(s['test_at_best'])} ({s['best_epoch']})" if s["best_epoch"] else "-")
        ratio = s["cpu_seconds_per_epoch"] / perc_cpu if perc_cpu else None
        row += [fmt(s["weight_complexity_last"], 4), fmt(s["seconds_per_epoch"], 3),
                fmt(s["cpu_seconds_per_epoch"], 3), f"{ratio:.2f}x" if ratio else "-",
                fmt_p(sg.get("t_p")), fmt_p(sg.get("ar_p"))]
        rows.append(row)
        csv_rows.append([r.run.label, r.run.learner, s["test_last"], s["test_max"], s["test_max_epoch"],
                         s["test_at_best"], s["best_epoch"], s["weight_complexity_last"], s["seconds_per_epoch"],
                         s["cpu_seconds_per_epoch"], sg.get("t"), sg.get("t_p"), sg.get("ar_p")])
    md.append(f"Test {score_name} (%) after the last of {mine[0][1].run.epochs} passes. p-values: SAPO against "
              "that learner on the same test sentences.\n")
    md.append(md_table(header, rows))
    write_csv(out_dir / f"final_{task}.csv",
              ["learner", "algorithm", f"test_{score_name}_last", f"test_{score_name}_best", "best_pass",
               f"test_{score_name}_at_best_dev", "best_dev_pass", "weight_complexity_last", "seconds_per_pass",
               "cpu_seconds_per_pass", "t_vs_sapo", "t_test_p_vs_sapo", "ar_p_vs_sapo"], csv_rows)
    write_csv(out_dir / f"significance_{task}.csv",
              ["baseline", f"sapo_minus_baseline_{score_name}", "t", "t_test_p", "ar_p"],
              [[results[k].run.label, v["diff"], v["t"], v["t_p"], v["ar_p"]] for k, v in sig.items()])
    curve_rows = []
    for _, r in mine:
        for rec in r.records:
            curve_rows.append([r.run.label, rec["epoch"], rec.get("test_score"), rec.get("dev_score"),
                               rec.get("weight_complexity"), rec.get("seconds"), rec.get("cpu_seconds"),
                               rec.get("errors"), rec.get("updates"), rec.get("loss")])
    write_csv(out_dir / f"curves_{task}.csv",
              ["learner", "pass", f"test_{score_name}", f"dev_{score_name}", "weight_complexity", "seconds",
               "cpu_seconds", "training_errors", "updates", "loss"], curve_rows)
    xs = lambda r: list(range(1, len(r.records) + 1))  # noqa: E731
    series = [(r.run.label, xs(r), r.curve("test_score")) for _, r in mine]
    ylim = focus_ylim([v for _, _, ys in series for v in ys], top_share=0.85)
    line_plots(out_dir / f"curves_{task}.png", [
        {"series": series, "title": f"test {score_name} per pass", "xlabel": "training pass (epoch)",
         "ylabel": f"test {'chunk F1' if metric == 'f1' else 'token accuracy'} (%)", "ylim": ylim,
         "legend_loc": "lower right"},
        {"series": [(r.run.label, xs(r), r.curve("weight_complexity")) for _, r in mine],
         "title": "weight complexity per pass", "xlabel": "training pass (epoch)",
         "ylabel": "mean |weight| (log scale)", "logy": True},
        {"series": [(r.run.label, xs(r), r.curve("seconds")) for _, r in mine],
         "title": "training time per pass", "xlabel": "training pass (epoch)", "ylabel": "seconds per pass (wall)"},
    ], suptitle=f"SAPO reproduction: {spec['title']}", shared_legend=True)
    md.append(f"![{spec['title']}](curves_{task}.png)\n")

    # claims
    sapo = results.get(f"{task}/sapo")
    if sapo is None:
        return md
    s0 = sapo.summary
    claim = PAPER_SIGNIFICANCE.get(task)
    alpha = claim["alpha"] if claim else 0.01
    parts, wins, n_tested, sig_t, sig_ar = [], 0, 0, 0, 0
    for key, r in mine:
        if key == f"{task}/sapo":
            continue
        # differences of the scores as shown (two decimals)
        d = round(s0["test_last"], 2) - round(r.summary["test_last"], 2)
        sg = sig[key]
        wins += d > 0
        if not (claim and claim["except_crf"] and key.endswith("/crf")):
            n_tested += 1
            sig_t += d > 0 and sg["t_p"] < alpha
            sig_ar += d > 0 and sg["ar_p"] < alpha
        parts.append(f"{r.run.label} {fmt(r.summary['test_last'])} ({d:+.2f}; t-test {p_text(sg['t_p'])}, "
                     f"AR {p_text(sg['ar_p'])})")
    tested = "the baselines other than the CRF" if claim and claim["except_crf"] else "the baselines"
    if wins < len(parts):
        verdict = f"partly: SAPO ahead of {wins} of {len(parts)} baselines"
    elif sig_t == n_tested:
        verdict = f"confirmed: SAPO ahead of every baseline, t-test p < {alpha:g} against {tested}"
    else:
        verdict = "SAPO ahead of every baseline, but not always significantly"
    sig_text = (f"; t-test p < {alpha:g} against {sig_t} and approximate randomization p < {alpha:g} against "
                f"{sig_ar} of the {n_tested} {'non-CRF ' if claim and claim['except_crf'] else ''}baselines")
    paper = ("not a task of the paper" if claim is None else
             f"SAPO ahead of all, t-test p < {alpha:g} against all" + (" but the CRF" if claim["except_crf"] else ""))
    claims["beats"].append(f"- {spec['title']}: {verdict}{sig_text}. SAPO {fmt(s0['test_last'])} {score_name} at "
                           f"the last pass against " + "; ".join(parts) + f". (The paper: {paper}.)")
    conv, stable = [], {}
    for key, r in mine:
        drop = r.summary["test_last"] - r.summary["test_max"]
        slope = _tail_slope(r.curve("test_score"))
        stable[key] = drop >= -STABLE_DROP and slope >= -STABLE_SLOPE
        conv.append(f"{r.run.label} {drop:+.2f} (slope {slope:+.3f}/pass)")
    sapo_like = [k for k in stable if k.endswith(("/sapo", "/crf"))]
    search = [k for k in stable if k not in sapo_like]
    if all(stable[k] for k in sapo_like) and not any(stable[k] for k in search):
        verdict = "confirmed"
    elif all(stable[k] for k in sapo_like):
        verdict = ("partly: SAPO and CRF are stable, and so are " +
                   ", ".join(results[k].run.label for k in search if stable[k]))
    else:
        verdict = ("not confirmed: unstable here: " +
                   ", ".join(results[k].run.label for k in stable if not stable[k]))
    claims["converge"].append(
        f"- {spec['title']}: {verdict}. Last pass minus best pass, and the slope of the test {score_name} over the "
        f"last {min(10, len(r.records))} passes (\"stable\": ends within {STABLE_DROP} of its best and a slope above "
        f"-{STABLE_SLOPE}/pass): " + "; ".join(conv) + ".")
    wc = {key: r.summary["weight_complexity_last"] for key, r in mine}
    growth = {key: 100.0 * _tail_slope(r.curve("weight_complexity")) / max(wc[key], 1e-12) for key, r in mine}
    others = [k for k in wc if k != f"{task}/sapo"]
    larger = [k for k in others if wc[k] > wc[f"{task}/sapo"]]
    if len(larger) == len(others):
        verdict = "confirmed"
    else:
        verdict = ("partly: SAPO's weights are smaller than those of " +
                   (", ".join(results[k].run.label for k in larger) or "no baseline") + ", larger than those of " +
                   ", ".join(results[k].run.label for k in others if k not in larger))
    claims["weights"].append(
        f"- {spec['title']}: {verdict}. Mean |w| at the last pass (and its growth per pass over the last "
        f"{min(10, len(results[f'{task}/sapo'].records))} passes, in % of that level): SAPO {wc[f'{task}/sapo']:.4f} ({growth[f'{task}/sapo']:+.2f} %), " +
        "; ".join(f"{results[k].run.label} {wc[k]:.4f} ({growth[k]:+.2f} %)" for k in others) + ".")
    if perc is not None:
        ratio = s0["cpu_seconds_per_epoch"] / perc.summary["cpu_seconds_per_epoch"]
        crf = results.get(f"{task}/crf")
        crf_text = ""
        verdict = ("as fast as the perceptron: confirmed" if ratio <= 1.5 else
                   "as fast as the perceptron: roughly (within 3x)" if ratio <= 3 else
                   "as fast as the perceptron: not confirmed")
        if crf is not None:
            crf_ratio = crf.summary["cpu_seconds_per_epoch"] / s0["cpu_seconds_per_epoch"]
            crf_text = (f"; the CRF takes {crf.summary['cpu_seconds_per_epoch']:.3f} s, {crf_ratio:.2f}x SAPO's time "
                        "(the paper: SAPO several times faster than the CRF)")
            verdict += ("; faster than the CRF: confirmed" if crf_ratio >= 2 else
                        "; faster than the CRF: a little" if crf_ratio > 1.05 else
                        "; faster than the CRF: not confirmed")
        claims["speed"].append(
            f"- {spec['title']}: {verdict}. SAPO takes {s0['cpu_seconds_per_epoch']:.3f} CPU s "
            f"per pass, {ratio:.2f}x the averaged perceptron's {perc.summary['cpu_seconds_per_epoch']:.3f} s"
            + crf_text + ".")
    return md


def _sweep_section(out_dir: Path, results: dict) -> list[str]:
    sweep = sorted(((r.run.params["n_best"], r) for k, r in results.items() if k.startswith("sweep/")),
                   key=lambda x: x[0])
    spec = TASKS[SWEEP_TASK]
    metric = spec["metric"]
    score_name = "F1" if metric == "f1" else "accuracy"
    md = [f"## SAPO with n = {', '.join(str(n) for n, _ in sweep)} ({spec['title']})\n",
          "Top-n size n of SAPO, other settings as above (n = 1 is a perceptron-like update with "
          "a learning rate and L2).\n"]
    rows, csv_rows, curve_rows = [], [], []
    for n, r in sweep:
        s = r.summary
        rows.append([n, fmt(s["test_last"]), f"{fmt(s['test_max'])} ({s['test_max_epoch']})",
                     fmt(s["weight_complexity_last"], 4), fmt(s["seconds_per_epoch"], 3),
                     fmt(s["cpu_seconds_per_epoch"], 3)])
        csv_rows.append([n, s["test_last"], s["test_max"], s["test_max_epoch"], s["weight_complexity_last"],
                         s["seconds_per_epoch"], s["cpu_seconds_per_epoch"]])
        for rec in r.records:
            curve_rows.append([n, rec["epoch"], rec["test_score"], rec.get("weight_complexity"), rec.get("seconds"),
                               rec.get("cpu_seconds")])
    md.append(md_table(["n", f"test {score_name}, last pass", "best pass (test)", "weight complexity, last",
                        "s / pass", "CPU s / pass"], rows))
    write_csv(out_dir / "nsweep.csv", ["n", f"test_{score_name}_last", f"test_{score_name}_best", "best_pass",
                                       "weight_complexity_last", "seconds_per_pass", "cpu_seconds_per_pass"], csv_rows)
    write_csv(out_dir / "nsweep_curves.csv", ["n", "pass", f"test_{score_name}", "weight_complexity", "seconds",
                                              "cpu_seconds"], curve_rows)
    ns = [n for n, _ in sweep]
    series = [(f"n={n}", list(range(1, len(r.records) + 1)), r.curve("test_score")) for n, r in sweep]
    line_plots(out_dir / "nsweep.png", [
        {"series": series, "title": f"test {score_name} per pass, by n", "xlabel": "training pass (epoch)",
         "ylabel": f"test {'chunk F1' if metric == 'f1' else 'token accuracy'} (%)",
         "ylim": focus_ylim([v for _, _, ys in series for v in ys], top_share=0.85), "legend_loc": "lower right"},
        {"series": [("last pass", ns, [r.summary["test_last"] for _, r in sweep]),
                    ("best pass", ns, [r.summary["test_max"] for _, r in sweep])],
         "title": f"test {score_name} against n", "xlabel": "n (top-n size, log scale)",
         "ylabel": f"test {'chunk F1' if metric == 'f1' else 'token accuracy'} (%)", "logx": True,
         "integer_x": False, "xticks": ns, "marker": "o"},
        {"series": [("CPU seconds per pass", ns, [r.summary["cpu_seconds_per_epoch"] for _, r in sweep])],
         "title": "training time against n", "xlabel": "n (top-n size, log scale)",
         "ylabel": "CPU seconds per pass", "logx": True, "integer_x": False, "xticks": ns, "marker": "o"},
    ], suptitle=f"SAPO n sweep: {spec['title']}")
    md.append("![n sweep](nsweep.png)\n")
    return md


__all__ = ["PAPER", "TASKS", "DEFAULT_TASKS", "EPOCHS", "N_SWEEP", "learner_settings", "runs", "reproduce",
           "write_report"]
