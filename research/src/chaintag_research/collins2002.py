"""Reproduction of Collins (2002), section 4: perceptron against maximum entropy.

Settings (the paper's table of development results): the perceptron averaged
or not ("Perc, avg" / "Perc, noavg") with count cut-off cc = 0 or 5, and the
maximum-entropy tagger (ME) with cc = 0 or 5, on POS tagging and base-NP
chunking (and, as a larger POS data set, UD English EWT with its PTB-style
XPOS tags). For each setting the number of training passes is chosen on the
development data (Collins's "Numits"), and the test score is read at that
pass.

Data (see :data:`TASKS`):

- POS: ``ptb_sample`` (the NLTK 10 % sample of the WSJ treebank; train
  wsj_0001-0159, dev wsj_0160-0179, test wsj_0180-0199). Collins: WSJ
  sections 0-18 / 19-21 / 22-24, about 12 times more training data.
- Base NP: ``conll2000_np`` (CoNLL-2000 sentences, WSJ sections 15-18 for
  training and 20 for test, chunks reduced to NP). Its training file has no
  development part, so a seeded random 10 % of its sentences (seed 0) is
  held out for choosing the pass, and the other 90 % are trained on.
  Collins: the Ramshaw-Marcus files of the same sections, with section 21
  for development.
- UD POS: ``ud_en_ewt`` XPOS (English Web Treebank: web text, Penn
  Treebank tag set; its own train / dev / test split). Collins has no
  figures for it: it checks the paper's claims on a second, 2.5 times larger
  POS training set of another genre.

The maximum-entropy tagger has no passes: its counterpart of Collins's
"Numits" (GIS iterations, stopped on dev) is the inverse L2 strength ``C``,
chosen on dev from :data:`ME_C_GRID`.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from chaintag.errors import InputError
from .config import DataRef, Run, has_learner
from .report import (check_report_folder, fmt, focus_ylim, invocations_table, line_plots, machine_details, md_table,
                     p_text, record_invocation, write_csv)
from .runner import Runner
from .significance import approximate_randomization, holm, paired_t_test, sentence_accuracy

PAPER = ("M. Collins. Discriminative Training Methods for Hidden Markov Models: Theory and "
         "Experiments with Perceptron Algorithms. EMNLP 2002")

#: The tasks: data, attribute preset, score, and which of Collins's experiments
#: (a key of :data:`PUBLISHED_DEV`, or None) the published figures come from.
TASKS = {
    "pos": {"title": "POS tagging", "data": "ptb_sample", "features": "pos", "metric": "accuracy",
            "published": "pos",
            "train": DataRef("ptb_sample:train"), "dev": DataRef("ptb_sample:dev"),
            "test": DataRef("ptb_sample:test")},
    "np": {"title": "Base-NP chunking", "data": "conll2000_np", "features": "chunking", "metric": "f1",
           "published": "np",
           "train": DataRef("conll2000_np:train", 0.0, 0.9, seed=0),
           "dev": DataRef("conll2000_np:train", 0.9, 1.0, seed=0),
           "test": DataRef("conll2000_np:test")},
    "ud": {"title": "POS tagging (UD English EWT, XPOS)", "data": "ud_en_ewt", "features": "pos",
           "metric": "accuracy", "published": None,
           "train": DataRef("ud_en_ewt:train"), "dev": DataRef("ud_en_ewt:dev"),
           "test": DataRef("ud_en_ewt:test")},
}
#: Tasks run when none are named.
DEFAULT_TASKS = ("pos", "np", "ud")

#: Collins (2002), development results: (setting, score, Numits). NP: F-measure on
#: WSJ section 21; POS: error rate (%) on sections 19-21.
PUBLISHED_DEV = {
    "np": {"perc-avg-cc0": (93.53, 13), "perc-noavg-cc0": (93.04, 35), "perc-avg-cc5": (93.33, 9),
           "perc-noavg-cc5": (91.88, 39), "me-cc0": (92.34, 900), "me-cc5": (92.65, 200)},
    "pos": {"perc-avg-cc0": (2.93, 10), "perc-noavg-cc0": (3.68, 20), "perc-avg-cc5": (3.03, 6),
            "perc-noavg-cc5": (4.04, 17), "me-cc0": (3.40, 100), "me-cc5": (3.28, 200)},
}
#: Collins (2002), test results of the averaged perceptron (cc=0) and ME: NP F-measure
#: (section 20), POS error rate in % (sections 22-24).
PUBLISHED_TEST = {"np": {"perc": 93.63, "me": 93.29}, "pos": {"perc": 2.89, "me": 3.28}}

PERC_SETTINGS = [("perc-avg-cc0", "Perc, avg, cc=0", True, 0), ("perc-noavg-cc0", "Perc, noavg, cc=0", False, 0),
                 ("perc-avg-cc5", "Perc, avg, cc=5", True, 5), ("perc-noavg-cc5", "Perc, noavg, cc=5", False, 5)]
#: Inverse L2 strengths tried for the maximum-entropy tagger (chosen on dev).
ME_C_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)
#: Passes of the perceptron runs (full mode); Collins's best were at 6 to 39.
EPOCHS = 40
#: Passes of the second-order (trigram) perceptron row, retrained per pass (no checkpoints).
EPOCHS_SECOND_ORDER = 15
#: Significance level of the verdicts.
ALPHA = 0.05
#: Collins's averaged perceptron reached its best development score within this many passes
#: (his Numits for "Perc, avg": 13 and 9 on NP, 10 and 6 on POS).
COLLINS_MAX_PASSES = 13


def _task_data(task: str, quick: bool) -> dict:
    spec = dict(TASKS[task])
    if quick:  # the same parts (the seeded dev split's seed included), fewer sentences
        from dataclasses import replace
        spec["train"] = replace(spec["train"], limit=300)
        spec["dev"] = replace(spec["dev"], limit=100)
        spec["test"] = replace(spec["test"], limit=200)
    return spec


def runs(quick: bool = False, epochs: int | None = None, tasks=DEFAULT_TASKS) -> list[Run]:
    """The runs of the reproduction.

    Parameters
    ----------
    quick : bool
        Tiny version (300 training sentences, 3 passes, ME with C = 1 only)
        for smoke tests.
    epochs : int, optional
        Passes of the perceptron runs (default :data:`EPOCHS`, or 3 when quick).
    tasks : sequence of {"pos", "np", "ud"}

    Raises
    ------
    ValueError
        If a task is not one of :data:`TASKS`.
    """
    epochs = epochs or (3 if quick else EPOCHS)
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise ValueError(f"unknown task(s) {', '.join(unknown)} for collins2002; choose from {', '.join(TASKS)}")
    out = []
    for task in tasks:
        spec = _task_data(task, quick)
        common = dict(task=task, features=spec["features"], train=spec["train"], dev=spec["dev"],
                      test=spec["test"], metric=spec["metric"])
        for key, label, averaged, cc in PERC_SETTINGS:
            out.append(Run(key=f"{task}/{key}", label=label, learner="perceptron",
                           params={"averaged": averaged, "cc": cc}, epochs=epochs, **common))
        if has_learner("maxent"):
            for cc in (0, 5):
                for c in ((1.0,) if quick else ME_C_GRID):
                    out.append(Run(key=f"{task}/me-cc{cc}-C{c:g}", label=f"ME, cc={cc}, C={c:g}",
                                   learner="maxent", params={"cc": cc, "C": c}, epochs=1, **common))
        if spec["metric"] == "accuracy" and not quick and has_learner("perceptron2"):
            out.append(Run(key=f"{task}/perc2-avg-cc0", label="Perc, avg, cc=0, second order",
                           learner="perceptron2", params={"averaged": True, "cc": 0},
                           epochs=min(epochs, EPOCHS_SECOND_ORDER), **common))
    return out


def _as_reported(task: str, score: float | None) -> float | None:
    """Our score in Collins's unit: F1 for chunking, error rate (%) for POS tagging."""
    if score is None:
        return None
    return 100.0 - score if TASKS[task]["metric"] == "accuracy" else score


def _best_me(results: dict, task: str, cc: int | None = None):
    """The ME run of ``task`` (and cut-off ``cc``) with the best dev score."""
    cands = [r for k, r in results.items() if k.startswith(f"{task}/me-") and
             (cc is None or k.startswith(f"{task}/me-cc{cc}-"))]
    return max(cands, key=lambda r: r.summary["dev_best"]) if cands else None


def _compare(a, b, metric: str, epoch_a: int, epoch_b: int) -> dict:
    sa, sb = a.test_stats(epoch_a), b.test_stats(epoch_b)
    ar = approximate_randomization(sa, sb, metric=metric, n_shuffles=1000, random_state=0)
    tt = paired_t_test(sentence_accuracy(sa), sentence_accuracy(sb))
    return {"ar_p": ar.p_value, "t": tt.statistic, "t_p": tt.p_value, "diff": ar.difference}


def reproduce(out_dir, *, quick: bool = False, data_dir=None, progress: bool = True,
              epochs: int | None = None, tasks=None, command: str | None = None) -> Path:
    """Run (or read back) every run and write the report into ``out_dir``.

    Parameters
    ----------
    out_dir : path-like
        Report folder; finished runs are cached under ``out_dir/runs``.
    quick : bool
        Tiny subsets and few passes (a smoke test; the figures are not results).
    data_dir : path-like, optional
        Data directory of the datasets.
    progress : bool
        Show progress bars.
    epochs : int, optional
        Passes of the perceptron runs (default :data:`EPOCHS`).
    tasks : sequence of str, optional
        Keys of :data:`TASKS` (default :data:`DEFAULT_TASKS`).
    command : str, optional
        The command line, as written into the report.

    Raises
    ------
    ValueError
        If a task is unknown.

    Returns
    -------
    pathlib.Path
        The Markdown report, ``out_dir/README.md``; CSV files and PNG figures
        lie next to it, run results under ``out_dir/runs``.
    """
    check_report_folder(out_dir)
    out_dir = Path(out_dir)
    before = machine_details()
    t0 = time.perf_counter()
    the_runs = runs(quick=quick, epochs=epochs, tasks=tuple(tasks or DEFAULT_TASKS))
    runner = Runner(out_dir, data_dir=data_dir, progress=progress)
    results = runner.run_all(the_runs)
    wall = time.perf_counter() - t0
    after = machine_details()
    return write_report(out_dir, results, runner, quick=quick, command=command, wall=wall,
                        before=before, after=after)


def write_report(out_dir: Path, results: dict, runner: Runner, *, quick: bool, command: str | None,
                 wall: float, before: dict, after: dict) -> Path:
    """Write ``README.md``, the CSV files and the figures of the reproduction."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tasks = [t for t in TASKS if any(k.startswith(t + "/") for k in results)]
    md = ["# Reproduction: Collins (2002), perceptron vs maximum entropy\n",
          f"{PAPER}, section 4 and its table of development results.",
          "Generated by `chaintag reproduce collins2002`" + (" in **quick mode** (tiny subsets; the figures "
                                                             "are a smoke test, not results)" if quick else "") + ".\n"]
    md.append("## How it was run\n")
    command = command or "chaintag reproduce collins2002"
    entries = record_invocation(out_dir, command=command, wall=wall, trained=runner.epochs_trained,
                                before=before, after=after)
    total_train = sum(r.summary["wall_seconds"] for r in results.values())
    md.append(f"- Command: `{command}`, run from the repository root.")
    md.append(f"- Summed wall time of training and scoring over all runs: {total_train:.0f} s. Each invocation "
              "(a later one reads the finished runs back from `runs/` and only rewrites the report):\n")
    md.append(invocations_table(entries))
    md.append(f"- Machine: {before['cpus']} CPUs, {before['platform']}; Python {before['python']}, "
              f"numpy {before['numpy']}, numba {before.get('numba', '-')}, scikit-learn {before.get('scikit-learn', '-')}, "
              f"chaintag {before['chaintag']}" + (f" (commit {before['commit']})" if before.get("commit") else "")
              + ". The machine was shared with other work (see the load averages), "
              "so timings are indicative.\n")

    md.append("## Method\n")
    md.append("- Every run trains on the training part only. After each pass the weights of that pass tag "
              "the development and the test data (training goes pass by pass through the learners' "
              "checkpoints, which gives the same weights as one uninterrupted run). The pass with the best "
              "development score is Numits (first one on ties), and the **test score is read at that pass**; "
              "the test data never chooses anything.")
    md.append("- Perceptron: first-order (bigram label transitions) structured perceptron, sentences in "
              "file order for every perceptron run (one order regime for all; ME has no sample order), `gold` "
              "feature space (attribute-label pairs seen in training), cc = count cut-off on those pairs.")
    md.append("- How every setting was chosen: the settings compared (averaging, cc = 0 / 5) are Collins's; the "
              f"number of passes (up to {epochs_of(results)}) and ME's `C` are chosen on the development data "
              "of each task; the attribute presets are the library's defaults, checked on development data "
              "([defaults/](../defaults/README.md)); NP's dev data is a seeded random 10 % of the training "
              "sentences (seed 0). Nothing was chosen on a test set.")
    md.append("- Significance: approximate randomization on the test score (F1 or accuracy; 1000 shuffles, "
              "seed 0) between the two runs at each one's dev-chosen pass, and a paired t-test on per-sentence "
              "accuracy; verdicts counting several comparisons use Holm-adjusted p-values, level "
              f"{ALPHA:g}.")
    if any(k.endswith("/me-cc0-C1") for k in results):
        md.append("- ME: maximum-entropy (locally normalized, first-order) tagger over the same attributes "
                  "plus the previous label, trained by scikit-learn's `LogisticRegression` (saga, L2), "
                  "decoded by Viterbi over the local log-probabilities. Collins trained ME by GIS and chose "
                  "the number of iterations on dev; here the L2 strength `C` is chosen on dev "
                  + (f"(grid {', '.join(f'{c:g}' for c in ME_C_GRID)})" if not quick
                     else "(quick mode: C = 1 only)") + ", and Numits shows the chosen `C` and the solver's "
                  "iterations.")
    else:
        md.append("- ME: the maximum-entropy learner is not available in this installation; its rows are missing.")
    md.append("")
    md.append(md_table(["task", "train", "dev", "test", "attributes", "score"],
                       [[TASKS[t]["title"], _size_text(runner, results, t, "train"),
                         _size_text(runner, results, t, "dev"), _size_text(runner, results, t, "test"),
                         f"`{TASKS[t]['features']}` preset", "chunk F1 (%)" if TASKS[t]["metric"] == "f1"
                         else "error rate (%) = 100 - token accuracy"] for t in tasks], align="llllll"))

    claims = {name: [] for name, _ in CLAIMS}
    for task in tasks:
        md.extend(_task_section(out_dir, results, task, claims))
    md.append("## The paper's claims, checked\n")
    md.append("Each verdict names its figures and its test; where a verdict counts several tests, their p-values "
              "are adjusted by Holm's method within that verdict.\n")
    for i, (name, title) in enumerate(CLAIMS, 1):
        md.append(f"**{i}. {title}.**\n")
        md.extend(claims[name] or ["- Not run here."])
        md.append("")
    if claims["passes"]:
        md.append("Why our best passes may come later than Collins's: (a) less training data per pass "
                  "(`ptb_sample` is about a twelfth of WSJ sections 0-18, conll2000_np's 90 % about the same "
                  "size as his NP set), so a pass makes fewer updates and more passes are needed for the same "
                  "number of them; (b) small dev sets give flat, noisy dev curves late in training, where the "
                  "maximum lands by chance (the dev test above says whether the later maximum is significantly "
                  "better); (c) other attributes (the library's presets, the `gold` feature space) and, for "
                  "POS, a first-order tagger where Collins's is second-order; (d) Collins does not say how many "
                  "passes he tried, and the averaged perceptron's dev score rises slowly after it levels off, so "
                  "a longer run can find a later maximum.")
        md.append("")
    md.append("")
    md.append("## Why the figures differ from the paper\n")
    if "pos" in tasks:
        n_dev = runner.size(TASKS["pos"]["dev"])[1] if not quick else None
        md.append("- **POS data.** `ptb_sample` is the 10 % WSJ sample distributed with NLTK: "
                  f"{_size_text(runner, results, 'pos', 'train')} for training, against about 38,000 sentences "
                  "(about 912,000 tokens) in WSJ sections 0-18. Less training data means more unknown words and "
                  "higher error rates than Collins's." + (
                      f" The dev set has {n_dev:,} tokens, so one point of error rate is about {n_dev // 100} "
                      "tokens, and the standard error of an error rate near 4 % is about "
                      f"{100 * (0.04 * 0.96 / n_dev) ** 0.5:.2f} points." if n_dev else ""))
    if "np" in tasks:
        md.append("- **NP data.** `conll2000_np` has the same WSJ sentences, words and Brill POS tags as the "
                  "Ramshaw-Marcus files Collins used (sections 15-18 train, 20 test), but its NP chunks come "
                  "from the CoNLL-2000 conversion script (chunklink), so chunk boundaries differ in places. "
                  "Collins tuned on section 21; we tune on a seeded random 10 % of the training sentences "
                  f"({_size_text(runner, results, 'np', 'dev')}) and train on the other 90 %.")
    if "ud" in tasks:
        md.append("- **UD POS data.** Collins has no experiment on `ud_en_ewt`: it is a second POS data set "
                  "for checking his claims, with the same tag set (Penn Treebank XPOS) but web text (blogs, "
                  "reviews, e-mail, answers) instead of newswire, and its own train / dev / test split "
                  f"({_size_text(runner, results, 'ud', 'train')} for training; the whole training file, "
                  "12,544 sentences and 204,577 tokens, is 2.5 times `ptb_sample`'s and less than a quarter of "
                  "WSJ sections 0-18). Its rows have no published figures; the nearest are Collins's WSJ POS "
                  "figures (" + ("above" if "pos" in tasks else
                                 f"dev error {PUBLISHED_DEV['pos']['perc-avg-cc0'][0]} % for the averaged "
                                 f"perceptron, {PUBLISHED_DEV['pos']['me-cc0'][0]} % for ME") + ").")
    if any(TASKS[t]["metric"] == "accuracy" for t in tasks):
        second = any(k.endswith("/perc2-avg-cc0") for k in results)
        md.append("- **POS features.** Collins's POS tagger is a trigram tagger (label pairs in the history) "
                  "with Ratnaparkhi's attributes; ours is first-order with the library's `pos` preset" +
                  (" (a second-order row is added for comparison)." if second else
                   " (the second-order row is left out in this run)."))
    if "np" in tasks:
        md.append("- **NP features.** Close to Collins's list, not equal to it: the `chunking` preset has the words "
                  "and POS tags in a window of 2, the POS bigrams and trigrams, and the word bigrams w[-1]w[0] and "
                  "w[0]w[+1]; Collins's list also has w[-2]w[-1] and w[+1]w[+2].")
    md.append("- **ME.** Collins's ME tagger (Ratnaparkhi's) has the two previous labels in its history, "
              "trained by Generalized Iterative Scaling without a prior, with iterations as the knob; ours "
              "has the previous label and an L2 prior (`C`). A well-regularized ME is a stronger baseline "
              "than GIS stopped early, which narrows the perceptron's margin.")
    md.append("")
    md.append("## Files\n")
    md.append("- `dev_<task>.csv`: the tables above; `curves_<task>.csv`: dev and test score, weight "
              "complexity, training errors, updates and seconds of every pass of every run; "
              "`me_grid_<task>.csv`: every ME run; `test.csv`: the test comparison.")
    md.append("- `curves_<task>.png`: dev and test score per pass, and weight complexity per pass.")
    md.append("- `runs/<digest>/` (not part of the report): per-run JSON lines, per-sentence test counts and "
              "summaries, reused when the command is run again.")
    _write_test_csv(out_dir, results, tasks)
    path = out_dir / "README.md"
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return path


def _size_text(runner: Runner, results: dict, task: str, part: str) -> str:
    run = next(r.run for k, r in results.items() if k.startswith(task + "/"))
    ref = getattr(run, part)
    n_sent, n_tok = runner.size(ref)
    return f"{ref.describe()}: {n_sent:,} sentences, {n_tok:,} tokens"


def _task_section(out_dir: Path, results: dict, task: str, claims: list) -> list[str]:
    spec = TASKS[task]
    metric = spec["metric"]
    unit = "F1" if metric == "f1" else "error %"
    md = [f"## {spec['title']}\n"]
    rows, csv_rows = [], []
    published = PUBLISHED_DEV.get(spec["published"], {})
    perc = {key: results.get(f"{task}/{key}") for key, *_ in PERC_SETTINGS}
    for key, label, _, _ in PERC_SETTINGS:
        r = perc[key]
        if r is None:
            continue
        s = r.summary
        pub = published.get(key, (None, None))
        rows.append([label, fmt(_as_reported(task, s["dev_best"])), s["best_epoch"],
                     fmt(_as_reported(task, s["test_at_best"])), fmt(pub[0]), pub[1] if pub[1] is not None else "-"])
        csv_rows.append([label, _as_reported(task, s["dev_best"]), s["best_epoch"],
                         _as_reported(task, s["test_at_best"]), pub[0], pub[1], r.run.epochs])
    for cc in (0, 5):
        r = _best_me(results, task, cc)
        if r is None:
            continue
        s = r.summary
        pub = published.get(f"me-cc{cc}", (None, None))
        numits = f"C={r.run.params['C']:g} ({s.get('n_iter', '-')} it.)"
        rows.append([f"ME, cc={cc}", fmt(_as_reported(task, s["dev_best"])), numits,
                     fmt(_as_reported(task, s["test_at_best"])), fmt(pub[0]), pub[1] if pub[1] is not None else "-"])
        csv_rows.append([f"ME, cc={cc}", _as_reported(task, s["dev_best"]), numits,
                         _as_reported(task, s["test_at_best"]), pub[0], pub[1], 1])
    second = results.get(f"{task}/perc2-avg-cc0")
    if second is not None:
        s = second.summary
        rows.append([second.run.label + f" ({second.run.epochs} passes)", fmt(_as_reported(task, s["dev_best"])),
                     s["best_epoch"], fmt(_as_reported(task, s["test_at_best"])), "-", "-"])
        csv_rows.append([second.run.label, _as_reported(task, s["dev_best"]), s["best_epoch"],
                         _as_reported(task, s["test_at_best"]), None, None, second.run.epochs])
    md.append(f"Development {unit} and the pass that reached it (Numits), then the test {unit} at that pass; " +
              ("Collins's development figures on the right (his data; see below).\n" if published else
               "Collins reports no figures for this data (see below).\n"))
    md.append(md_table(["method", f"dev {unit}", "Numits", f"test {unit} (at Numits)",
                        f"Collins dev {unit}", "Collins Numits"], rows))
    write_csv(out_dir / f"dev_{task}.csv", ["method", f"dev_{'f1' if metric == 'f1' else 'error'}", "numits",
                                            f"test_{'f1' if metric == 'f1' else 'error'}_at_numits",
                                            f"collins_dev_{'f1' if metric == 'f1' else 'error'}", "collins_numits",
                                            "passes_run"], csv_rows)

    me_all = sorted((r for k, r in results.items() if k.startswith(f"{task}/me-")),
                    key=lambda r: (r.run.params["cc"], r.run.params["C"]))
    if me_all:
        write_csv(out_dir / f"me_grid_{task}.csv",
                  ["cc", "C", f"dev_{unit.split()[0].lower()}", f"test_{unit.split()[0].lower()}", "solver_iterations",
                   "converged", "seconds"],
                  [[r.run.params["cc"], r.run.params["C"], _as_reported(task, r.summary["dev_best"]),
                    _as_reported(task, r.summary["test_at_best"]), r.summary.get("n_iter"),
                    r.summary.get("converged"), r.summary["train_seconds"]] for r in me_all])

    # test comparison: averaged perceptron cc=0 against the best ME
    avg = perc.get("perc-avg-cc0")
    me = _best_me(results, task)
    pub_test = PUBLISHED_TEST.get(spec["published"], {})
    if avg is not None:
        test_rows = [["Perc, avg, cc=0", fmt(_as_reported(task, avg.summary["test_at_best"])),
                      fmt(pub_test.get("perc"))]]
        if me is not None:
            test_rows.append([f"ME (best on dev: cc={me.run.params['cc']}, C={me.run.params['C']:g})",
                              fmt(_as_reported(task, me.summary["test_at_best"])), fmt(pub_test.get("me"))])
        md.append(f"Test {unit}: ours at the dev-chosen pass; Collins's test figures" +
                  (" (his data).\n" if pub_test else " (none for this data).\n"))
        md.append(md_table(["method", f"test {unit}", f"Collins test {unit}"], test_rows))
    # curves
    series_dev, series_test, series_wc = [], [], []
    curve_rows = []
    for key, label, _, _ in PERC_SETTINGS:
        r = perc.get(key)
        if r is None:
            continue
        xs = list(range(1, len(r.records) + 1))
        series_dev.append((label, xs, r.curve("dev_score")))
        series_test.append((label, xs, r.curve("test_score")))
        series_wc.append((label, xs, r.curve("weight_complexity")))
    for r in [perc.get(k) for k, *_ in PERC_SETTINGS] + ([second] if second else []) + me_all:
        if r is None:
            continue
        for rec in r.records:
            curve_rows.append([r.run.label, rec["epoch"], rec.get("dev_score"), rec.get("test_score"),
                               rec.get("weight_complexity"), rec.get("errors"), rec.get("updates"),
                               rec.get("seconds"), rec.get("cpu_seconds")])
    write_csv(out_dir / f"curves_{task}.csv",
              ["run", "pass", f"dev_{'f1' if metric == 'f1' else 'accuracy'}",
               f"test_{'f1' if metric == 'f1' else 'accuracy'}", "weight_complexity", "training_errors", "updates",
               "seconds", "cpu_seconds"], curve_rows)
    if series_test:
        score_name = "chunk F1 (%)" if metric == "f1" else "token accuracy (%)"
        hl = [("ME best on dev (test)", me.summary["test_at_best"])] if me is not None else []
        all_vals = [v for _, _, ys in series_dev + series_test for v in ys]
        ylim = focus_ylim(all_vals + [h[1] for h in hl], top_share=0.9)
        line_plots(out_dir / f"curves_{task}.png", [
            {"series": series_dev, "title": f"{spec['title']}: development score per pass",
             "xlabel": "training pass (epoch)", "ylabel": score_name, "ylim": ylim},
            {"series": series_test, "hlines": hl, "title": f"{spec['title']}: test score per pass",
             "xlabel": "training pass (epoch)", "ylabel": score_name, "ylim": ylim},
            {"series": series_wc, "title": f"{spec['title']}: weight complexity",
             "xlabel": "training pass (epoch)", "ylabel": "mean |weight| (tagging weights)", "logy": True},
        ], suptitle=f"Collins (2002) reproduction, {spec['title']} ({_data_name(task)})", shared_legend=True)
        md.append(f"![{spec['title']} curves](curves_{task}.png)\n")

    # claims
    def dev(key):
        return perc[key].summary["dev_best"] if perc.get(key) else None

    def test(key):
        return perc[key].summary["test_at_best"] if perc.get(key) else None

    unit_word = "F1" if metric == "f1" else "error"
    test_name = "F1" if metric == "f1" else "accuracy"

    def show(v):
        return fmt(_as_reported(task, v))

    def at_numits(a: str, b: str) -> dict:
        ra, rb = perc[a], perc[b]
        return _compare(ra, rb, metric, ra.summary["best_epoch"], rb.summary["best_epoch"])

    if all(perc.get(k) for k, *_ in PERC_SETTINGS):
        for claim, pairs, title in (
                ("averaging", [(f"perc-avg-cc{cc}", f"perc-noavg-cc{cc}", f"cc={cc}") for cc in (0, 5)],
                 "averaging helps"),
                ("cutoff", [(f"perc-{av}-cc0", f"perc-{av}-cc5", av) for av in ("avg", "noavg")],
                 "cc=0 beats cc=5 for the perceptron")):
            tests = {name: at_numits(a, b) for a, b, name in pairs}
            adj = dict(zip(tests, holm([t["ar_p"] for t in tests.values()])))
            verdict = pairwise_verdict({n: t["diff"] for n, t in tests.items()}, adj, ALPHA)
            claims[claim].append(
                f"- **{spec['title']}: {title}** — {verdict} (approximate randomization on test {test_name} at each "
                f"run's Numits, 1000 shuffles, Holm-adjusted over the {len(pairs)} comparisons, level {ALPHA:g}). " +
                "; ".join(f"{name}: test {unit_word} {show(test(a))} vs {show(test(b))} (AR adjusted "
                          f"{p_text(adj[name])}, t-test {p_text(tests[name]['t_p'])}), dev {show(dev(a))} vs "
                          f"{show(dev(b))}, Numits {perc[a].summary['best_epoch']} vs {perc[b].summary['best_epoch']}"
                          for a, b, name in pairs) + ".")
    avg = perc.get("perc-avg-cc0")
    if avg is not None:
        s = avg.summary
        early = _best_early(avg, COLLINS_MAX_PASSES)
        p_early = None
        if early is not None and early != s["best_epoch"]:
            try:
                ar = approximate_randomization(avg.dev_stats(s["best_epoch"]), avg.dev_stats(early), metric=metric,
                                               n_shuffles=1000, random_state=0)
                p_early = ar.p_value
            except (FileNotFoundError, InputError):  # no dev counts kept (runs of an earlier release)
                p_early = None
        verdict = passes_verdict(s["best_epoch"], COLLINS_MAX_PASSES, p_early, ALPHA, n_passes=avg.run.epochs)
        claims["passes"].append(
            f"- **{spec['title']}: the averaged perceptron's best pass comes within about 10-13 passes** — {verdict}. "
            f"Our Numits (Perc, avg, cc=0): {s['best_epoch']} of {avg.run.epochs}; Collins: "
            f"{PUBLISHED_DEV.get(spec['published'], {}).get('perc-avg-cc0', (None, '-'))[1] if spec['published'] else '-'} "
            f"(his range for the averaged perceptron: 6-{COLLINS_MAX_PASSES}). " + (
                f"The best dev pass within the first {COLLINS_MAX_PASSES} is pass {early}, dev {unit_word} "
                f"{show(avg.records[early - 1]['dev_score'])} against {show(s['dev_best'])} at pass {s['best_epoch']}: "
                f"approximate randomization on the dev sentences {p_text(p_early)}; test {unit_word} at pass {early}: "
                f"{show(avg.records[early - 1]['test_score'])} against {show(s['test_at_best'])}."
                if p_early is not None else ""))
    if avg is not None and me is not None:
        cmp_ = _compare(avg, me, metric, avg.summary["best_epoch"], 1)
        verdict = me_verdict(avg.summary["test_at_best"] - me.summary["test_at_best"],
                             avg.summary["dev_best"] - me.summary["dev_best"], cmp_["ar_p"], ALPHA)
        rel = _relative_error_reduction(task, avg.summary["test_at_best"], me.summary["test_at_best"])
        claims["me"].append(
            f"- **{spec['title']}: the averaged perceptron (cc=0) beats ME** — {verdict}. "
            f"Test {unit_word} {show(avg.summary['test_at_best'])} vs {show(me.summary['test_at_best'])} "
            f"(ME cc={me.run.params['cc']}, C={me.run.params['C']:g}), relative error reduction "
            f"{rel:+.1f} %{_published_rer_text(task)}; dev {show(avg.summary['dev_best'])} vs "
            f"{show(me.summary['dev_best'])}. Approximate randomization on test "
            f"{test_name} (1000 shuffles): {p_text(cmp_['ar_p'])}; paired "
            f"t-test on per-sentence accuracy: {p_text(cmp_['t_p'])}.")
    return md


def _best_early(result, max_pass: int) -> int | None:
    """The pass (1-based) with the best dev score among the first ``max_pass`` (first on ties)."""
    devs = [rec.get("dev_score") for rec in result.records[:max_pass]]
    if not devs or any(d is None for d in devs):
        return None
    return int(np.argmax(devs)) + 1


def pairwise_verdict(diffs: dict, p_adjusted: dict, alpha: float = ALPHA) -> str:
    """Verdict on "A is better than B" over several comparisons (e.g. at cc = 0 and at cc = 5).

    Parameters
    ----------
    diffs : dict
        ``comparison -> score of A minus score of B`` (F1 or accuracy points: higher is better).
    p_adjusted : dict
        ``comparison -> p-value``, already adjusted for the number of comparisons (Holm).
    alpha : float

    Returns
    -------
    str
        ``confirmed`` (A ahead in every comparison, each significantly), ``same direction, not
        significant in k of m``, ``contradicted`` (B significantly ahead somewhere) or ``not confirmed``
        (mixed directions, none significant against A).
    """
    m = len(diffs)
    if any(d < 0 and p_adjusted[k] < alpha for k, d in diffs.items()):
        return "contradicted: significantly the other way in " + ", ".join(
            k for k, d in diffs.items() if d < 0 and p_adjusted[k] < alpha)
    ahead = [k for k, d in diffs.items() if d > 0]
    if len(ahead) == m:
        n_sig = sum(p_adjusted[k] < alpha for k in ahead)
        return "confirmed" if n_sig == m else f"same direction, not significant in {m - n_sig} of {m}"
    return f"not confirmed: ahead in {len(ahead)} of {m}, none significant the other way"


def passes_verdict(numits: int, max_pass: int, p_early: float | None, alpha: float = ALPHA,
                   n_passes: int | None = None) -> str:
    """Verdict on "the best pass comes within about 10-13 passes".

    ``not testable`` when no more than ``max_pass`` passes were run (``n_passes``: the best of them is
    always within ``max_pass``, whatever a longer run would show);
    ``reproduced`` when ``numits`` is at most ``max_pass``; otherwise ``not reproduced``, with whether the
    best dev score among the first ``max_pass`` passes is significantly below the overall best
    (``p_early``, approximate randomization on the dev sentences; None when not computed).

    Parameters
    ----------
    numits : int
        The dev-chosen pass.
    max_pass : int
        The end of the claimed range (13).
    p_early : float or None
    alpha : float
    n_passes : int, optional
        Passes run (None: not known, never "not testable").

    Returns
    -------
    str
    """
    if n_passes is not None and n_passes <= max_pass:
        return (f"not testable: {n_passes} passes run, and the best of at most {max_pass} passes is always within "
                f"{max_pass} (run more than {max_pass} passes)")
    if numits <= max_pass:
        return "reproduced"
    if p_early is None:
        return "not reproduced"
    if p_early < alpha:
        return f"not reproduced: the dev score is significantly better after pass {max_pass}"
    return (f"not reproduced, but the best dev score within {max_pass} passes is not significantly lower "
            "(the dev curve is flat there, and the later maximum may be noise)")


def me_verdict(test_diff: float, dev_diff: float, p: float, alpha: float = ALPHA) -> str:
    """Verdict on "the averaged perceptron beats ME" from the test and dev differences and the test p-value."""
    if test_diff > 0 and p < alpha:
        return "confirmed" if dev_diff > 0 else "confirmed on test (not on dev)"
    if test_diff > 0:
        return "same direction on test, not significant"
    if p < alpha:
        return "not confirmed: ME is significantly better here"
    return "not confirmed (ME ahead, not significant)"


CLAIMS = (("averaging", "Averaging the perceptron's weights helps"),
          ("cutoff", "No count cut-off (cc = 0) is better than cc = 5 for the perceptron"),
          ("me", "The averaged perceptron beats the maximum-entropy tagger"),
          ("passes", "The averaged perceptron's best pass comes within about 10-13 passes"))


def epochs_of(results: dict) -> int:
    """The most passes of any perceptron run in ``results`` (0 without one)."""
    return max((r.run.epochs for r in results.values() if r.run.learner == "perceptron"), default=0)


def _data_name(task: str) -> str:
    return TASKS[task]["data"]


def _relative_error_reduction(task: str, ours: float, base: float) -> float:
    """Relative reduction (%) of the error (100 - accuracy, or 100 - F1) of ``ours`` against ``base``."""
    e_ours, e_base = 100.0 - ours, 100.0 - base
    return 100.0 * (e_base - e_ours) / e_base if e_base else 0.0


def _published_rer_text(task: str) -> str:
    """Collins's relative error reduction for the task's experiment, as `` (Collins: +x.x %)``, or ""."""
    published = TASKS[task]["published"]
    if published is None:
        return ""
    return f" (Collins: {_published_rer(published):+.1f} %)"


def _published_rer(published: str) -> float:
    """Collins's relative error reduction (%) of the perceptron against ME, experiment ``published``."""
    pub = PUBLISHED_TEST[published]
    if published == "pos":
        return 100.0 * (pub["me"] - pub["perc"]) / pub["me"]
    return 100.0 * ((100 - pub["me"]) - (100 - pub["perc"])) / (100 - pub["me"])


def _write_test_csv(out_dir: Path, results: dict, tasks) -> None:
    rows = []
    for task in tasks:
        avg = results.get(f"{task}/perc-avg-cc0")
        me = _best_me(results, task)
        pub = PUBLISHED_TEST.get(TASKS[task]["published"], {})
        unit = "f1" if TASKS[task]["metric"] == "f1" else "error"
        if avg is not None:
            rows.append([task, "Perc, avg, cc=0", unit, _as_reported(task, avg.summary["test_at_best"]),
                         pub.get("perc")])
        if me is not None:
            rows.append([task, f"ME, cc={me.run.params['cc']}, C={me.run.params['C']:g}", unit,
                         _as_reported(task, me.summary["test_at_best"]), pub.get("me")])
    write_csv(out_dir / "test.csv", ["task", "method", "unit", "ours", "collins"], rows)


__all__ = ["PAPER", "TASKS", "DEFAULT_TASKS", "PUBLISHED_DEV", "PUBLISHED_TEST", "ME_C_GRID", "EPOCHS", "runs", "reproduce",
           "write_report", "pairwise_verdict", "passes_verdict", "me_verdict"]
