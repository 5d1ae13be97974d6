"""Reproduction of the SAPO paper's experiments (Sun et al., section 4).

SAPO (top-n search, probabilities over the top n, L2) is compared with the
CRF trained by SGD, the naive and averaged structured perceptron, MIRA and
N-best MIRA, on the test set after every pass (the paper's Figures 1-2),
with the weight complexity (mean absolute weight, Figure 3) and the seconds
per pass (Figures 4-5) of each; then SAPO against every baseline with a
paired t-test on per-sentence token accuracy (as the paper) and an
approximate randomization test on the task's own score. Further: SAPO with
``n`` in 1 .. 50 (on two tasks, neighbouring ``n`` tested against each
other), exact A* search against a beam of width 50, and, when the neural
learners are installed, the BiLSTM and BiLSTM-CRF taggers the paper also
compares with.

Settings as the paper's section 4: ``n = 5`` for SAPO and N-best MIRA, the
CRF's L2 strength for SAPO too (2 for POS, 1 for chunking, 5 for Bio-NER),
the same learning rate for SAPO and the CRF (:data:`LEARNING_RATE` decayed as
``gamma_0 / (1 + t / |S|)``, ``t`` = samples seen; tuned for the CRF on
development data and reused for SAPO, as the paper did, see
:mod:`chaintag_research.defaults`), every learner
trained for a fixed number of passes, every learner visiting the sentences
in the same regime (a seeded random order by default). Tasks without a
development part hold out a seeded random 10 % of their training sentences
(seed 0) as dev and train on the rest. The main tables read the test score
at the last pass (the paper's "convergence state"; nothing chosen) and at the
pass chosen on dev; the neural rows, which run fewer passes, are compared at
the dev-chosen pass.

The verdict rules are plain functions of small tables (``*_verdict``), so
that they can be tested on hand-made figures.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import numpy as np

from .config import DataRef, Run, has_learner
from .report import (check_report_folder, fmt, fmt_p, focus_ylim, invocations_table, line_plots, machine_details,
                     md_table, p_text, record_invocation, write_csv)
from .runner import Runner
from .sapo_neural import EXTRA_HEADS, HEADS, SEEDS, find_embeddings, head_runs, heads_section
from .significance import approximate_randomization, holm, paired_t_test, sentence_accuracy, timing_test

PAPER = ("X. Sun et al. Towards Easier and Faster Sequence Labeling for Natural Language Processing: "
         "A Search-based Probabilistic Online Learning Framework (SAPO)")


def _split(ref: str) -> tuple[DataRef, DataRef]:
    """A seeded random 90 % / 10 % train / dev split of a training file."""
    return DataRef(ref, 0.0, 0.9, seed=DEV_SEED), DataRef(ref, 0.9, 1.0, seed=DEV_SEED)


#: Seed of the random dev split carved from training files that have no dev part.
DEV_SEED = 0
#: Tasks: data, attribute preset, score, L2 strength (the paper's, tuned for its CRF).
TASKS = {
    "chunking": {"title": "Chunking (CoNLL-2000)", "features": "chunking", "metric": "f1", "l2": 1.0,
                 "train": _split("conll2000:train")[0], "dev": _split("conll2000:train")[1],
                 "test": DataRef("conll2000:test")},
    "pos": {"title": "POS tagging (ptb_sample)", "features": "pos", "metric": "accuracy", "l2": 2.0,
            "train": DataRef("ptb_sample:train"), "dev": DataRef("ptb_sample:dev"),
            "test": DataRef("ptb_sample:test")},
    "np": {"title": "Base-NP chunking (conll2000_np)", "features": "chunking", "metric": "f1", "l2": 1.0,
           "train": _split("conll2000_np:train")[0], "dev": _split("conll2000_np:train")[1],
           "test": DataRef("conll2000_np:test")},
    "ner": {"title": "Bio-NER (JNLPBA)", "features": "ner", "metric": "f1", "l2": 5.0,
            "train": _split("jnlpba:train")[0], "dev": _split("jnlpba:train")[1], "test": DataRef("jnlpba:test")},
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
#: Significance level of the claims for which the paper states none.
ALPHA = 0.05
#: Passes of every run (full mode).
EPOCHS = 30
#: Top-n sizes of the n sweep, and its tasks (when they are run).
N_SWEEP = (1, 2, 5, 10, 20, 50)
SWEEP_TASKS = ("chunking", "pos")
#: Beam width of the approximate top-n search compared with A*, and the tasks where it runs (when run).
BEAM_WIDTH = 50
BEAM_TASKS = ("chunking", "ner")
#: Passes of the neural learners (full mode; each costs about 15 s per CoNLL-2000 pass on 2 cores).
NEURAL_EPOCHS = 10
#: A learner's test curve is "stable" (converged) when its last pass is within STABLE_DROP points of
#: its best, its slope over the last 10 passes is within +-STABLE_SLOPE points per pass (a curve still
#: rising has not converged either), and those passes span at most STABLE_SPREAD points (a curve that
#: swings from pass to pass has not converged, whatever its last pass).
STABLE_DROP = 0.15
STABLE_SLOPE = 0.01
STABLE_SPREAD = 0.5
#: The passes at the end of a curve that the stability rule reads; a run of fewer passes cannot show that
#: a curve has settled, so its verdict on convergence is "not testable".
STABLE_WINDOW = 10
#: "Several times faster" (the paper on SAPO against the CRF): a time ratio of at least this.
SEVERAL_TIMES = 2.0
#: Learning rate of SAPO and of the CRF (decayed as gamma_0 / (1 + t / |S|)): as in the paper, tuned for
#: the CRF on dev data (the best mean dev score, docs/results/defaults) and reused for SAPO.
LEARNING_RATE = 0.5
#: Sentence order regimes: every learner shuffled (seeded), every learner in file order, or both.
ORDERS = ("shuffled", "file", "both")
#: Keys of the learners without regularization, against which SAPO's weight growth is judged.
UNREGULARIZED = ("perc-naive", "perc-avg", "mira-naive", "mira-avg", "nbest-mira-naive", "nbest-mira-avg")


def learner_settings(l2, shuffle: bool = True) -> list[tuple[str, str, str, dict]]:
    """``(key, label, learner, params)`` of SAPO and the baselines for an L2 strength.

    Every learner gets the same order regime: ``shuffle`` (seeded, ``random_state=0``) or file order.
    """
    order = {"shuffle": shuffle, "random_state": 0}
    return [
        ("sapo", "SAPO (n=5)", "sapo", {"n_best": 5, "l2": l2, "learning_rate": LEARNING_RATE,
                                        "lr_schedule": "decay", **order}),
        ("crf", "CRF (SGD)", "crf", {"l2": l2, "learning_rate": LEARNING_RATE, "lr_schedule": "decay",
                                     "averaged": False, **order}),
        ("perc-naive", "Perc-Naive", "perceptron", {"averaged": False, **order}),
        ("perc-avg", "Perc-Avg", "perceptron", {"averaged": True, **order}),
        ("mira-naive", "MIRA-Naive", "mira", {"averaged": False, **order}),
        ("mira-avg", "MIRA-Avg", "mira", {"averaged": True, **order}),
        ("nbest-mira-naive", "MIRA-Nbest-Naive (n=5)", "nbest-mira", {"averaged": False, "n_best": 5, **order}),
        ("nbest-mira-avg", "MIRA-Nbest-Avg (n=5)", "nbest-mira", {"averaged": True, "n_best": 5, **order}),
    ]


#: The neural learners (PyTorch, the optional ``neural`` extra): one encoder with three output layers
#: (softmax, CRF, SAPO's top-n update), over seeds: :mod:`chaintag_research.sapo_neural`.
NEURAL_SETTINGS = HEADS

#: Neural rows that are not baselines of the paper (its conclusion proposes SAPO on an LSTM): in the
#: tables and curves, not in the verdict of its claim against the neural taggers.
BEYOND_PAPER = tuple(key for key, _, _, _ in HEADS + EXTRA_HEADS if key.startswith("bilstm-sapo"))

QUICK_LEARNERS = ("sapo", "crf", "perc-naive", "perc-avg")


def neural_available() -> bool:
    """Whether the BiLSTM learners are registered and PyTorch is importable."""
    return all(has_learner(learner) for _, _, learner, _ in NEURAL_SETTINGS) and \
        importlib.util.find_spec("torch") is not None


def _data(task: str, quick: bool) -> dict:
    spec = dict(TASKS[task])
    if quick:
        for part, limit in (("train", 300), ("dev", 100), ("test", 200)):
            if spec[part] is not None:
                d = spec[part]
                spec[part] = DataRef(d.ref, d.start, d.stop, limit=limit, seed=d.seed)
    return spec


def _run(key, label, task, learner, params, spec, epochs) -> Run:
    return Run(key=key, label=label, task=task, learner=learner, params=params, features=spec["features"],
               epochs=epochs, train=spec["train"], dev=spec["dev"], test=spec["test"], metric=spec["metric"])


def runs(quick: bool = False, epochs: int | None = None, tasks=DEFAULT_TASKS, sweep: bool = True,
         order: str = "shuffled", beam: bool = True, neural: bool = True, neural_epochs: int | None = None,
         neural_tasks=None, presets: dict | None = None, data_dir=None, neural_seeds: int | None = None,
         embeddings: str | bool | None = None) -> list[Run]:
    """The runs of the reproduction.

    Parameters
    ----------
    quick : bool
        Tiny version: 300 training sentences, 3 passes, four learners, n in {1, 5, 10}.
    epochs : int, optional
        Passes of every run but the neural ones (default :data:`EPOCHS`, or 3 when quick).
    tasks : sequence of task names (:data:`TASKS`)
    sweep : bool
        Add the n sweep of SAPO on those of :data:`SWEEP_TASKS` that are run.
    order : {"shuffled", "file", "both"}
        Sentence order of every learner: seeded random order, file order, or both (the file-order runs
        are extra rows).
    beam : bool
        Add SAPO with a beam of width :data:`BEAM_WIDTH` on those of :data:`BEAM_TASKS` that are run.
    neural : bool
        Add the BiLSTM and BiLSTM-CRF rows (when :func:`neural_available`).
    neural_epochs : int, optional
        Their passes (default :data:`NEURAL_EPOCHS`, or 2 when quick).
    neural_tasks : sequence of str, optional
        Tasks that get the neural rows (default: every task run).
    neural_seeds : int, optional
        Seeds of every neural run (0 .. k-1; default 3, or 1 when quick).
    embeddings : str or bool, optional
        Word vectors of the neural learners: a file, False for none, or None (default) for the data
        directory's GloVe file when it is there.
    presets : dict, optional
        Add SAPO with each task's dev-chosen recipe (:mod:`chaintag_research.sapo_presets`): ``{task:
        [resource file, ...]}``, empty lists (or no entry) for recipes that read no clusters or vectors.
        None (default): no preset rows.
    data_dir : str, optional
        The data directory (its unlabeled text for recipes that read it).

    Raises
    ------
    ValueError
        For an unknown task or order, neural tasks that are not run, or a preset that needs resource files
        not given.
    """
    epochs = epochs or (3 if quick else EPOCHS)
    neural_epochs = neural_epochs or (2 if quick else NEURAL_EPOCHS)
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; choose from {', '.join(ORDERS)}")
    for task in tasks:
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    neural_tasks = tuple(tasks) if neural_tasks is None else tuple(neural_tasks)
    stray = [t for t in neural_tasks if t not in tasks]
    if stray:
        raise ValueError(f"neural task(s) {', '.join(stray)} are not among the tasks run ({', '.join(tasks)})")
    if neural_seeds is not None and neural_seeds < 1:
        raise ValueError("neural_seeds must be at least 1")
    seeds = SEEDS[:1] if quick and neural_seeds is None else tuple(range(neural_seeds or len(SEEDS)))
    embeddings = find_embeddings(data_dir) if neural and embeddings is None else (embeddings or None)
    if embeddings and not Path(embeddings).is_file():
        raise ValueError(f"word vectors file not found: {embeddings}")
    out, neural_out = [], []
    for task in tasks:
        spec = _data(task, quick)
        regimes = [("", order == "shuffled" or order == "both")] + ([("@file", False)] if order == "both" else [])
        for suffix, shuffle in regimes:
            for key, label, learner, params in learner_settings(spec["l2"], shuffle=shuffle):
                if quick and key not in QUICK_LEARNERS or not has_learner(learner):
                    continue
                out.append(_run(f"{task}/{key}{suffix}", label + (" (file order)" if suffix else ""), task,
                                learner, params, spec, epochs))
        if beam and task in BEAM_TASKS:
            params = dict(learner_settings(spec["l2"], shuffle=order != "file")[0][3], search="beam",
                          beam_width=BEAM_WIDTH)
            out.append(_run(f"beam/{task}", f"SAPO (n=5), beam {BEAM_WIDTH}", task, "sapo", params, spec, epochs))
        if neural and task in neural_tasks and neural_available():
            neural_out += head_runs(task, spec, neural_epochs, seeds, order != "file", embeddings, _run)
    if sweep:
        for task in (t for t in SWEEP_TASKS if t in tasks):
            spec = _data(task, quick)
            base = learner_settings(spec["l2"], shuffle=order != "file")[0][3]
            for n in ((1, 5, 10) if quick else N_SWEEP):
                out.append(_run(f"sweep/{task}/n{n}", f"SAPO n={n}", task, "sapo", dict(base, n_best=n), spec,
                                epochs))
    out += neural_out  # after every linear run: the neural ones take hours, seed by seed
    if presets is not None:
        from .sapo_presets import preset_runs
        out += preset_runs(tasks, presets, lambda t: _data(t, quick), quick=quick, data_dir=data_dir)
    return out


def reproduce(out_dir, *, quick: bool = False, data_dir=None, progress: bool = True, epochs: int | None = None,
              tasks=None, sweep: bool = True, order: str = "shuffled", beam: bool = True, neural: bool = True,
              neural_epochs: int | None = None, neural_tasks=None, presets: dict | None = None,
              command: str | None = None, neural_seeds: int | None = None,
              embeddings: str | bool | None = None, reuse_older_code: bool = False,
              finished_only: bool = False) -> Path:
    """Run (or read back) every run and write the report into ``out_dir``.

    Parameters are those of :func:`runs`, plus ``out_dir`` (the report folder; finished runs are cached
    under ``out_dir/runs``), ``data_dir``, ``progress``, ``command`` (as written into the report) and
    ``reuse_older_code`` (:class:`~chaintag_research.runner.Runner`'s: finished runs trained by earlier code
    are read back; the report names them) and ``finished_only`` (train nothing: the report of the runs
    already finished, which names the runs left out).

    Returns
    -------
    pathlib.Path
        The Markdown report ``out_dir/README.md``.

    Raises
    ------
    ValueError
        See :func:`runs`.
    """
    check_report_folder(out_dir)
    out_dir = Path(out_dir)
    before = machine_details()
    t0 = time.perf_counter()
    tasks = tuple(tasks or DEFAULT_TASKS)
    the_runs = runs(quick=quick, epochs=epochs, tasks=tasks, sweep=sweep, order=order, beam=beam, neural=neural,
                    neural_epochs=neural_epochs, neural_tasks=neural_tasks, presets=presets, data_dir=data_dir,
                    neural_seeds=neural_seeds, embeddings=embeddings)
    if any(r.key.startswith("neural/") for r in the_runs):
        import torch
        torch.set_num_threads(1)  # every learner on one core, so that times per pass compare
    runner = Runner(out_dir, data_dir=data_dir, progress=progress, reuse_older_code=reuse_older_code)
    if finished_only:
        done = {r.key: runner.finished(r) for r in the_runs}
        missing = [k for k, v in done.items() if v is None]
        results = {k: v for k, v in done.items() if v is not None}
        if not results:
            raise ValueError(f"--finished-only: no run of these settings has finished in {out_dir}: run it "
                             "without --finished-only first")
        neural_tasks = sorted({k.split("/")[1] for k in results if k.startswith("neural/")})
        partial = (f"**Partial report** (`--finished-only`): {len(results)} of {len(the_runs)} runs finished; "
                   f"left out: {', '.join(missing) if missing else 'none'}. Rerun without `--finished-only` to "
                   "train the rest (finished runs are read back).")
    else:
        partial = None
        results = runner.run_all(the_runs)
    wall = time.perf_counter() - t0
    path = write_report(out_dir, results, runner, tasks=tasks, quick=quick, command=command, wall=wall,
                        before=before, after=machine_details(), order=order,
                        neural_requested=neural, neural_tasks=neural_tasks)
    if partial:  # said under the title, before anything is read as complete
        lines = path.read_text(encoding="utf-8").split("\n")
        lines[1:1] = ["", partial]
        path.write_text("\n".join(lines), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------- tests

def _compare(a, b, metric: str, epoch_a: int | None = None, epoch_b: int | None = None) -> dict:
    """``a`` against ``b`` on the test sentences: ``{diff, ar_p, t, t_p}`` (default: last passes)."""
    sa, sb = a.test_stats(epoch_a), b.test_stats(epoch_b)
    ar = approximate_randomization(sa, sb, metric=metric, n_shuffles=1000, random_state=0)
    tt = paired_t_test(sentence_accuracy(sa), sentence_accuracy(sb))
    return {"ar_p": ar.p_value, "t": tt.statistic, "t_p": tt.p_value, "diff": ar.difference}


def _significance(results: dict, task: str, metric: str) -> dict:
    """SAPO against every other learner of the task's table.

    ``key -> {ar_p, t_p, t, diff}`` at the last passes, plus ``dev_ar_p``, ``dev_t_p``, ``dev_diff``: at the
    passes each one's dev score chose.
    """
    sapo = results.get(f"{task}/sapo")
    out = {}
    if sapo is None:
        return out
    for key in _table_keys(results, task):
        if key == f"{task}/sapo":
            continue
        r = results[key]
        last = _compare(sapo, r, metric)
        chosen = _compare(sapo, r, metric, sapo.summary["best_epoch"], r.summary["best_epoch"]) \
            if sapo.summary["best_epoch"] and r.summary["best_epoch"] else {}
        out[key] = {**last, **{f"dev_{k}": v for k, v in chosen.items()}}
    return out


def _table_keys(results: dict, task: str) -> list[str]:
    """Keys of a task's main table: the learners, then their file-order runs, then the neural learners."""
    keys = [k for k in results if k.startswith(task + "/") and "@" not in k]
    keys += [k for k in results if k.startswith(task + "/") and "@" in k]
    keys += [k for k in results if k.startswith(f"neural/{task}/") and "@" not in k
             and k.rsplit("/", 1)[1] in {key for key, _, _, _ in HEADS}]
    return keys


def _tail_slope(values: list, last: int = 10) -> float:
    """Least-squares slope of the last ``last`` values, per pass."""
    ys = np.asarray([v for v in values[-last:] if v is not None], dtype=float)
    if len(ys) < 2:
        return 0.0
    return float(np.polyfit(np.arange(len(ys)), ys, 1)[0])


#: Fewest timed passes of each learner for the verdicts on speed: with 4 and 4, the smallest two-sided
#: Mann-Whitney p is 0.029, below the 0.05 level; with fewer it cannot reach it.
MIN_TIMED_PASSES = 4


def stability(values: list, last: int = STABLE_WINDOW) -> dict:
    """How a test curve ends: ``drop`` (last pass minus best), ``slope`` (per pass, over the last
    ``last`` passes), ``spread`` (max minus min over them) and ``stable`` (see :data:`STABLE_DROP`)."""
    ys = [v for v in values if v is not None]
    tail = ys[-last:]
    drop = ys[-1] - max(ys) if ys else 0.0
    slope = _tail_slope(ys, last)
    spread = (max(tail) - min(tail)) if tail else 0.0
    stable = drop >= -STABLE_DROP and abs(slope) <= STABLE_SLOPE and spread <= STABLE_SPREAD
    return {"drop": drop, "slope": slope, "spread": spread, "stable": stable}


def still_improving(r) -> bool:
    """Whether a run's best dev pass is its last (of more than one): it had not finished improving, so
    no verdict may say another learner is ahead of it."""
    return r.run.epochs > 1 and r.summary.get("best_epoch") == r.run.epochs


def _pass_seconds(r, clock: str = "cpu_seconds") -> list:
    """CPU seconds (or ``clock="seconds"``: wall) of every pass but the first (which carries one-off
    start-up costs)."""
    return [x for x in r.curve(clock)[1:] if x is not None]


def _clock_curve(r) -> list:
    """A run's CPU seconds per pass, or its wall seconds where a pass has no CPU time recorded."""
    cpu = r.curve("cpu_seconds")
    return cpu if cpu and None not in cpu else r.curve("seconds")


def _per_pass(r, clock: str = "cpu_seconds") -> float:
    """The median seconds per pass of the tables and the claims alike: over the passes after the first
    (:func:`_pass_seconds`), or the only pass of a one-pass run."""
    seconds = _pass_seconds(r, clock) or [x for x in r.curve(clock) if x is not None]
    return float(np.median(seconds)) if seconds else float("nan")


# ------------------------------------------------------------------------------------ verdict rules

def ahead_verdict(diffs: dict, p_adjusted: dict, alpha: float) -> str:
    """Verdict on "SAPO is more accurate than each of these learners".

    Parameters
    ----------
    diffs : dict
        ``learner -> SAPO's score minus the learner's`` (points).
    p_adjusted : dict
        ``learner -> p-value`` of the difference (already adjusted for multiple comparisons).
    alpha : float
        Significance level.

    Returns
    -------
    str
        ``confirmed`` (ahead of every one, each significantly), ``same direction, not all significant``
        (ahead of every one), ``contradicted`` (one is significantly ahead of SAPO), ``partly: ahead of
        k of m`` (0 < k < m), or ``not confirmed`` (ahead of none, none significantly behind).
    """
    m = len(diffs)
    ahead = [k for k, d in diffs.items() if d > 0]
    if any(d < 0 and p_adjusted[k] < alpha for k, d in diffs.items()):
        behind = [k for k, d in diffs.items() if d < 0 and p_adjusted[k] < alpha]
        return f"contradicted: significantly behind {', '.join(behind)}"
    if len(ahead) == m and all(p_adjusted[k] < alpha for k in ahead):
        return "confirmed"
    if len(ahead) == m:
        n_sig = sum(p_adjusted[k] < alpha for k in ahead)
        return f"same direction, not all significant (significantly ahead of {n_sig} of {m})"
    if not ahead:
        return f"not confirmed: ahead of none of {m}, none significantly behind"
    return f"partly: ahead of {len(ahead)} of {m}, none significantly behind"


def weights_verdict(growth: dict, sapo: str, others) -> str:
    """Verdict on "SAPO's weights stay bounded while the unregularized learners' keep growing".

    Judged on *relative* growth (per pass, in % of the current level): scaling all of a perceptron's
    weights by a constant changes none of its predictions, so the levels of different learners are not
    comparable, and only whether a learner's weights keep growing matters.

    Parameters
    ----------
    growth : dict
        ``learner -> relative growth of the mean |weight| per pass (%)``.
    sapo : str
        SAPO's key in ``growth``.
    others : sequence of str
        The unregularized learners compared with.

    Returns
    -------
    str
        ``confirmed`` (SAPO's relative growth is below every other's), ``partly: ...`` or ``not confirmed``.
    """
    others = list(others)
    slower = [k for k in others if growth[sapo] < growth[k]]
    if len(slower) == len(others):
        return "confirmed"
    if slower:
        return (f"partly: SAPO's weights grow more slowly than those of {len(slower)} of {len(others)} "
                "unregularized learners")
    return "not confirmed"


def speed_verdict(sapo: list, perceptron: list, crf: list | None = None, alpha: float = ALPHA) -> dict:
    """Verdict on "SAPO is about as fast as the perceptron, and faster than the CRF".

    Parameters
    ----------
    sapo, perceptron, crf : lists of float
        CPU seconds of each training pass (the first left out).
    alpha : float

    Returns
    -------
    dict
        ``ratio`` (SAPO's median time per pass over the perceptron's), ``p`` (Mann-Whitney test of the two
        samples), ``as_fast`` (``not testable`` when a side has fewer than :data:`MIN_TIMED_PASSES` timed
        passes, too few for the test to reach the level; else ``confirmed`` when SAPO's median pass is not slower;
        ``not confirmed`` when significantly slower, else ``not refuted`` (a non-significant difference is
        no proof of equality)); with ``crf``: ``crf_ratio`` (the CRF's median
        over SAPO's), ``crf_p``, ``faster_than_crf`` (the paper: "several times faster": ``confirmed``
        when SAPO is significantly faster by at least :data:`SEVERAL_TIMES`, ``not confirmed: faster,
        not several times`` when significantly faster by less, ``contradicted`` when significantly
        slower, ``not testable`` with too few passes, else ``not confirmed``). The ratios are reported
        against the paper's words.
    """
    ratio = float(np.median(sapo) / np.median(perceptron))
    p = timing_test(sapo, perceptron)
    few = min(len(sapo), len(perceptron)) < MIN_TIMED_PASSES
    as_fast = (f"not testable: {min(len(sapo), len(perceptron))} timed passes, too few for the test" if few else
               "confirmed" if ratio <= 1 else
               "not confirmed" if p < alpha else "not refuted (slower, not significantly)")
    out = {"ratio": ratio, "p": p, "as_fast": as_fast}
    if crf is not None:
        crf_ratio = float(np.median(crf) / np.median(sapo))
        crf_p = timing_test(crf, sapo)
        few = min(len(crf), len(sapo)) < MIN_TIMED_PASSES
        out.update(crf_ratio=crf_ratio, crf_p=crf_p,
                   faster_than_crf=("not testable: too few timed passes for the test" if few else
                                    "confirmed" if crf_ratio >= SEVERAL_TIMES and crf_p < alpha else
                                    f"not confirmed: faster ({crf_ratio:.2f}x), not several times"
                                    if crf_ratio > 1 and crf_p < alpha else
                                    "contradicted" if crf_ratio < 1 and crf_p < alpha else "not confirmed"))
    return out


def n_verdict(ns, scores, p_adjusted, alpha: float = ALPHA) -> str:
    """Verdict on "n = 5 to 10 suffices" from neighbouring values of n.

    Parameters
    ----------
    ns : sequence of int
        The values of n, increasing.
    scores : sequence of float
        Test score of each.
    p_adjusted : sequence of float
        For each neighbouring pair ``(ns[i], ns[i + 1])``, the p-value of their difference (adjusted for
        the ``len(ns) - 1`` comparisons).
    alpha : float

    Returns
    -------
    str
        ``not confirmed`` when some step beyond n = 10 is a significant gain, ``confirmed for n = 10`` when
        the step 5 -> 10 is one, else ``confirmed``, each saying up to which n it was tested (or that no
        larger n was run); a note follows when a step beyond n = 5 is a significant loss.
    """
    ns, scores = list(ns), list(scores)
    gains = [(ns[i], ns[i + 1]) for i in range(len(ns) - 1)
             if scores[i + 1] > scores[i] and p_adjusted[i] < alpha]
    losses = [(ns[i], ns[i + 1]) for i in range(len(ns) - 1)
              if scores[i + 1] < scores[i] and p_adjusted[i] < alpha and ns[i] >= 5]
    beyond = [(a, b) for a, b in gains if a >= 10]
    if beyond:
        verdict = "not confirmed: " + ", ".join(f"n = {b} is significantly better than n = {a}" for a, b in beyond)
    elif any(a >= 5 for a, _ in gains):
        verdict = ("confirmed for n = 10 (n = 10 is significantly better than n = 5; "
                   + (f"no significant gain beyond, up to n = {ns[-1]})" if ns[-1] > 10 else
                      "no n above 10 was run, so a gain beyond it is not tested)"))
    else:
        verdict = "confirmed (no significant gain beyond n = 5" + (f", up to n = {ns[-1]})" if ns[-1] > 5 else
                                                                   "; no n above 5 was run)")
    if losses:
        verdict += "; " + ", ".join(f"n = {b} is significantly worse than n = {a}" for a, b in losses)
    return verdict


def same_verdict(diffs: dict, p_adjusted: dict, alpha: float = ALPHA) -> str:
    """Verdict on "it makes no difference" (A* against beam search) over tasks.

    Returns ``confirmed (no significant difference on any task)`` or ``not confirmed: ...`` naming the
    tasks with a significant difference and its sign. A non-significant difference is no proof of
    equality; the report gives the differences themselves.
    """
    differ = [k for k in diffs if p_adjusted[k] < alpha]
    if not differ:
        return "confirmed (no significant difference on any task)"
    return "not confirmed: " + "; ".join(
        f"{k}: {'beam' if diffs[k] > 0 else 'A*'} significantly better" for k in differ)


def stable_verdict(stable: dict, sapo_like, search) -> str:
    """Verdict on "SAPO and the CRF converge; perceptron and MIRA diverge" from per-learner stability."""
    if all(stable[k] for k in sapo_like) and not any(stable[k] for k in search):
        return "confirmed"
    if all(stable[k] for k in sapo_like):
        return "partly: SAPO and CRF are stable, and so are " + ", ".join(k for k in search if stable[k])
    return "not confirmed: unstable here: " + ", ".join(k for k in stable if not stable[k])


# -------------------------------------------------------------------------------------------- report

CLAIMS = (("crf", "SAPO is more accurate than the CRF"),
          ("beats", "SAPO is more accurate than the perceptron and MIRA variants"),
          ("neural", "SAPO is as accurate as the BiLSTM and BiLSTM-CRF taggers, and much faster"),
          ("converge", "SAPO and CRF converge; perceptron and MIRA diverge as training goes on"),
          ("weights", "SAPO's weights stay bounded, the perceptron's keep growing (judged on the growth per "
                      "pass; the paper's \"small\" is not judged: the levels of learners with different "
                      "update scales are not comparable)"),
          ("speed", "SAPO is about as fast as the perceptron, and faster than the CRF"),
          ("n", "A top-n of n = 5 to 10 suffices"),
          ("beam", "Exact A* search and a beam of width 50 give the same accuracy"))


def write_report(out_dir: Path, results: dict, runner: Runner, *, tasks, quick: bool, command: str | None,
                 wall: float, before: dict, after: dict, order: str = "shuffled", neural_requested: bool = True,
                 neural_tasks=None) -> Path:
    """Write ``README.md``, the CSV files and the figures of the reproduction."""
    out_dir.mkdir(parents=True, exist_ok=True)
    main = [r for k, r in results.items() if "/" in k and k.split("/")[0] in TASKS]
    epochs = main[0].run.epochs if main else next(iter(results.values())).run.epochs
    neural_runs = {k: r for k, r in results.items() if k.startswith("neural/")}
    command = command or "chaintag reproduce sapo"
    entries = record_invocation(out_dir, command=command, wall=wall, trained=runner.epochs_trained,
                                before=before, after=after)
    regime = {"shuffled": "a seeded random order (a new permutation every pass, seed 0)",
              "file": "file order", "both": "a seeded random order (seed 0), and again in file order (extra "
              "rows marked \"file order\")"}[order]
    md = ["# Reproduction: SAPO (Sun et al.) against CRF, perceptron, MIRA and BiLSTM taggers\n",
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
          *_older_code_lines(results),
          f"- Machine: {before['cpus']} CPUs, {before['platform']}; Python {before['python']}, numpy "
          f"{before['numpy']}, numba {before.get('numba', '-')}, chaintag {before['chaintag']}"
          + (f" (commit {before['commit']})" if before.get("commit") else "") + ". The machine was "
          "shared with other work (see the load averages): seconds per pass are indicative, and CPU seconds "
          "(process time) are less affected than wall seconds.\n",
          "## Method\n",
          f"- Every learner but the neural ones trains for {epochs} passes; after each pass the weights of that "
          "pass tag the dev and the test set (training goes pass by pass through the learners' checkpoints, "
          "which gives the same weights as one uninterrupted run). The tables give the test score at the "
          "**last** pass (the paper's \"convergence state\": nothing is chosen) and at the pass with the best "
          "**dev** score; the \"best pass (test)\" column only describes the curve and chooses nothing.",
          "- How every setting was chosen: the learners' settings are the paper's (n = 5; λ, the CRF's L2 "
          "strength, reused for SAPO); the learning rate "
          f"{LEARNING_RATE:g} (decayed) of SAPO and the CRF was tuned for the CRF on dev data, as the paper "
          "did, and reused for SAPO (a seeded 10 % of CoNLL-2000's training sentences, and ptb_sample's dev "
          "set; [defaults/](../defaults/README.md)); the number of passes is fixed in advance; the attributes are "
          "the library's presets, whose defaults were checked on the same dev data; the neural learners use "
          "their own defaults. No setting and no epoch was chosen on a test set.",
          f"- Dev data: ptb_sample and UD English EWT have their own; CoNLL-2000, conll2000_np and JNLPBA do "
          f"not, so a seeded random 10 % of their training sentences (seed {DEV_SEED}, kept in file order) is "
          "held out as dev and every learner trains on the other 90 %.",
          "- Attributes: the library's presets (`chunking`: words and POS tags in a window of 2 with "
          "n-grams; `pos`: words, affixes and word shapes; `ner`: words, affixes, shapes), the `gold` feature "
          "space, no count cut-off, the same for every learner.",
          "- Learners (all on the same attributes): " + "; ".join(
              f"{label}: `{learner}` {', '.join(f'{k}={v}' for k, v in params.items() if k not in ('shuffle', 'random_state')) or '(defaults)'}"
              for key, label, learner, params in learner_settings("λ")
              if any(k.endswith("/" + key) for k in results)) + ". λ is the task's L2 strength "
          f"(the paper's: 1 for chunking, 2 for POS, 5 for Bio-NER). **Sentence order: every learner visits "
          f"the training sentences in {regime}**, so that no learner gains from an order the others do not "
          "get." + (
              " Left out of this run (quick mode): " + ", ".join(
                  label for key, label, _, _ in learner_settings(1.0)
                  if not any(k.endswith("/" + key) for k in results)) + "." if quick else ""),
          "- Weight complexity: mean absolute value of the weights used for tagging (the averaged weights "
          "for the averaged learners). Seconds per pass: the learner's own timing of the pass "
          "(training only, no feature extraction or scoring); the tables and the claims give the median over "
          "the passes after the first, whose one-off start-up cost is left out (a one-pass run: its pass).",
          "- Significance (SAPO against each other learner, on the test set): paired t-test on "
          "per-sentence token accuracy (`scipy.stats.ttest_rel`; the paper's test, which it also applies to "
          "the F1 tasks through accuracy), and approximate randomization (AR) on the task's corpus score "
          "(chunk F1 or accuracy; 1000 shuffles, seed 0). Where a verdict counts several tests (SAPO against "
          "the six perceptron and MIRA variants of a task, neighbouring n, A* against beam over tasks, the "
          "two neural learners of a task), the p-values are adjusted by **Holm's method** within that family "
          "before they are compared with the level; the tables show unadjusted p-values. Time per pass: "
          "a two-sided Mann-Whitney U test between the per-pass CPU times (first pass left out).\n"]
    if neural_requested:
        if neural_runs:
            ne = next(iter(neural_runs.values())).run.epochs
            ran = sorted({r.run.task for r in neural_runs.values()}, key=list(TASKS).index)
            vectors = {r.run.params.get("embeddings") for r in neural_runs.values()}
            seeds = sorted({r.run.params.get("random_state", 0) for r in neural_runs.values()})
            vec_text = ("word embeddings initialised from " + ", ".join(f"`{Path(v).name}`" for v in vectors if v)
                        if any(vectors) else "word embeddings learned from scratch (no GloVe file was found)")
            md.insert(-1, f"- Neural learners (BiLSTM with a softmax, a CRF or a SAPO output layer; PyTorch, CPU, "
                          f"their library defaults: {vec_text}, character CNN, embeddings of the other input "
                          "columns, a BiLSTM of 200 units per direction, Adam; one PyTorch thread, as every "
                          f"other learner runs on one core; seeds {', '.join(map(str, seeds))} of the network's "
                          f"initialisation and sentence order, the dev carve fixed) train for {ne} passes, in "
                          "the same order regime, on "
                          f"{', '.join(TASKS[t]['title'] for t in ran)} only"
                          + (f" (not run on {', '.join(TASKS[t]['title'] for t in tasks if t not in ran)}: "
                             "left out for time)" if len(ran) < len(tasks) else "") +
                          "; with fewer passes than the others, they are compared with SAPO at the pass "
                          "each one's dev score chose.")
        else:
            md.insert(-1, "- Neural learners: not run (the `neural` extra, PyTorch, is not installed, or no "
                          "task was chosen for them).")
    data_rows = []
    for task in tasks:
        spec = _data(task, quick)
        data_rows.append([spec["title"], *(f"{spec[p].describe()}: {runner.size(spec[p])[0]:,} sentences, "
                                           f"{runner.size(spec[p])[1]:,} tokens" if spec[p] else "-"
                                           for p in ("train", "dev", "test")),
                          "chunk F1 (%)" if spec["metric"] == "f1" else "token accuracy (%)", f"{spec['l2']:g}"])
    md.append(md_table(["task", "train", "dev", "test", "score", "λ"], data_rows, align="llllll"))

    claims = {name: [] for name, _ in CLAIMS}
    for task in tasks:
        md.extend(_task_section(out_dir, results, task, claims))
    for task in SWEEP_TASKS:
        if any(k.startswith(f"sweep/{task}/") for k in results):
            md.extend(_sweep_section(out_dir, results, task, claims))
    md.extend(_beam_section(out_dir, results, claims))
    md.extend(heads_section(out_dir, results, tasks, {t: TASKS[t]["title"] for t in TASKS},
                            {t: TASKS[t]["metric"] for t in TASKS}))
    from .sapo_presets import presets_section
    md.extend(presets_section(out_dir, results, tasks, {t: TASKS[t]["title"] for t in TASKS}, _compare))
    if order == "both":
        md.extend(_order_section(results, tasks))

    md.append("## The paper's claims, checked\n")
    md.append("The paper's text gives its results as figures, without numeric tables, so the comparison with "
              "the published results is claim by claim. Each verdict names its figures and its test.\n")
    for i, (name, title) in enumerate(CLAIMS, 1):
        md.append(f"**{i}. {title}.**\n")
        md.extend(claims[name] or ["- Not run here: " + {
            "neural": "the neural learners were not run (see the method).",
            "n": f"the sweep of n was not run (it runs on {', '.join(SWEEP_TASKS)} when those tasks are run).",
            "beam": f"the beam runs were not run (they run on {', '.join(BEAM_TASKS)} when those tasks are run).",
        }.get(name, "no task.")])
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
                  "base NPs only. Both train on 90 % of the training sentences (10 % held out as dev).")
    if "ud" in tasks:
        md.append("- **UD POS.** `ud_en_ewt` (UD English EWT, PTB-style XPOS tags on web text) is an extra POS "
                  "task, not in the paper: 12,544 training sentences, about a third of the paper's WSJ set. Its "
                  "training file is ordered by genre, which is where the sentence order matters most.")
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
    md.append("- **Sentence order.** The paper draws training samples at random for SAPO; here every learner, "
              "the perceptron and MIRA included, gets the same seeded random order, which removes a confound "
              "(on UD English EWT shuffling alone moves the averaged perceptron by about 0.2 points).")
    md.append("- **Neural baselines.** The library's BiLSTM and BiLSTM-CRF (Lample et al. 2016; Ma and Hovy "
              "2016 style) on our CPU, with the data directory's GloVe vectors when present (50 dimensions, "
              "against the 100 of Ma and Hovy) and with few passes; the paper's neural figures come from its "
              "own implementations. The main tables show seed 0; the layer comparison all seeds.")
    md.append("")
    md.append("## Files\n")
    md.append("- `final_<task>.csv`: the final tables; `curves_<task>.csv`: test and dev score, weight "
              "complexity, seconds, training errors and loss of every pass of every learner; "
              "`significance_<task>.csv`; `nsweep_<task>.csv`, `nsweep_curves_<task>.csv` and "
              "`nsweep_tests_<task>.csv`: the n sweeps; `beam.csv`: A* against beam.")
    md.append("- `curves_<task>.png` (test score, weight complexity and seconds per pass), `nsweep_<task>.png`.")
    md.append("- `runs/<digest>/` (not part of the report): per-run JSON lines, per-sentence dev and test counts "
              "and summaries, reused when the command is run again.")
    path = out_dir / "README.md"
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return path


def _older_code_lines(results: dict) -> list[str]:
    """A line naming the runs read back from an earlier version of the code (``reuse_older_code``)."""
    older = sorted(k for k, r in results.items() if r.summary.get("older_code"))
    if not older:
        return []
    return [f"- **{len(older)} run(s) were trained by an earlier version of the learners' code** and read back "
            "(`--reuse-older-code`; same settings and data): " + ", ".join(f"`{k}`" for k in older) + ".\n"]


def _task_section(out_dir: Path, results: dict, task: str, claims: dict) -> list[str]:
    spec = TASKS[task]
    metric = spec["metric"]
    score_name = "F1" if metric == "f1" else "accuracy"
    keys = _table_keys(results, task)
    if not keys:
        return []
    mine = [(k, results[k]) for k in keys]
    md = [f"## {spec['title']}\n"]
    sig = _significance(results, task, metric)
    perc = results.get(f"{task}/perc-avg")
    perc_cpu = _per_pass(perc) if perc else None
    header = ["learner", "passes", f"test {score_name}, last pass", "best pass (test)", "last - best",
              f"test {score_name} at best dev pass (pass)", "weight complexity, last", "s / pass", "CPU s / pass",
              "CPU time vs Perc-Avg", "t-test p vs SAPO (last)", "AR p vs SAPO (last)",
              "AR p vs SAPO (dev-chosen)"]
    rows, csv_rows = [], []
    for key, r in mine:
        s = r.summary
        sg = sig.get(key, {})
        cpu, wall = _per_pass(r), _per_pass(r, "seconds")
        ratio = cpu / perc_cpu if perc_cpu else None
        rows.append([r.run.label, r.run.epochs, fmt(s["test_last"]), f"{fmt(s['test_max'])} ({s['test_max_epoch']})",
                     fmt(s["test_last"] - s["test_max"]),
                     f"{fmt(s['test_at_best'])} ({s['best_epoch']})" if s["best_epoch"] else "-",
                     fmt(s["weight_complexity_last"], 4), fmt(wall, 3),
                     fmt(cpu, 3), f"{ratio:.2f}x" if ratio else "-",
                     fmt_p(sg.get("t_p")), fmt_p(sg.get("ar_p")), fmt_p(sg.get("dev_ar_p"))])
        csv_rows.append([r.run.label, r.run.learner, r.run.epochs, s["test_last"], s["test_max"], s["test_max_epoch"],
                         s["test_at_best"], s["best_epoch"], s["weight_complexity_last"], wall,
                         cpu, sg.get("t"), sg.get("t_p"), sg.get("ar_p"), sg.get("dev_ar_p")])
    md.append(f"Test {score_name} (%) after the last pass and at the pass with the best dev score. p-values: SAPO "
              "against that learner on the same test sentences, at the last passes and at the dev-chosen "
              "passes (unadjusted).\n")
    md.append(md_table(header, rows))
    write_csv(out_dir / f"final_{task}.csv",
              ["learner", "algorithm", "passes", f"test_{score_name}_last", f"test_{score_name}_best", "best_pass",
               f"test_{score_name}_at_best_dev", "best_dev_pass", "weight_complexity_last", "seconds_per_pass",
               "cpu_seconds_per_pass", "t_vs_sapo", "t_test_p_vs_sapo", "ar_p_vs_sapo", "ar_p_vs_sapo_dev_chosen"],
              csv_rows)
    write_csv(out_dir / f"significance_{task}.csv",
              ["baseline", f"sapo_minus_baseline_{score_name}", "t", "t_test_p", "ar_p",
               f"sapo_minus_baseline_{score_name}_dev_chosen", "t_test_p_dev_chosen", "ar_p_dev_chosen"],
              [[results[k].run.label, v["diff"], v["t"], v["t_p"], v["ar_p"], v.get("dev_diff"), v.get("dev_t_p"),
                v.get("dev_ar_p")] for k, v in sig.items()])
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
        {"series": [(r.run.label, xs(r), r.curve("weight_complexity")) for _, r in mine
                    if all(v is not None and v > 0 for v in r.curve("weight_complexity"))],
         "title": "weight complexity per pass", "xlabel": "training pass (epoch)",
         "ylabel": "mean |weight| (log scale)", "logy": True},
        # CPU seconds (process time), which the load of a shared machine moves less than the wall clock's
        {"series": [(r.run.label, xs(r), _clock_curve(r)) for _, r in mine],
         "title": "training time per pass", "xlabel": "training pass (epoch)",
         "ylabel": "CPU seconds per pass" if all(None not in r.curve("cpu_seconds") for _, r in mine)
         else "seconds per pass (CPU where recorded, else wall)",
         "logy": any(k.startswith("neural/") for k, _ in mine)},
    ], suptitle=f"SAPO reproduction: {spec['title']}", shared_legend=True)
    md.append(f"![{spec['title']}](curves_{task}.png)\n")

    sapo = results.get(f"{task}/sapo")
    if sapo is None:
        return md
    _claims_for_task(results, task, sig, claims)
    return md


def _claims_for_task(results: dict, task: str, sig: dict, claims: dict) -> None:
    spec = TASKS[task]
    metric = spec["metric"]
    score_name = "F1" if metric == "f1" else "accuracy"
    sapo = results[f"{task}/sapo"]
    s0 = sapo.summary
    claim = PAPER_SIGNIFICANCE.get(task)
    alpha = claim["alpha"] if claim else 0.01
    label = lambda k: results[k].run.label  # noqa: E731

    # 1. against the CRF
    crf_key = f"{task}/crf"
    if crf_key in sig:
        sg = sig[crf_key]
        d = round(s0["test_last"], 2) - round(results[crf_key].summary["test_last"], 2)
        paper_alpha = claim["alpha"] if claim and not claim["except_crf"] else None
        level = paper_alpha or ALPHA
        verdict = ahead_verdict({"CRF": d}, {"CRF": sg["t_p"]}, level)
        paper = ("not a task of the paper" if claim is None else
                 f"SAPO ahead, t-test p < {paper_alpha:g}" if paper_alpha else
                 "SAPO ahead, the difference not claimed significant")
        claims["crf"].append(
            f"- {spec['title']}: {verdict} (t-test at {level:g}). SAPO {fmt(s0['test_last'])} against the CRF "
            f"{fmt(results[crf_key].summary['test_last'])} {score_name} at the last pass ({d:+.2f}; t-test "
            f"{p_text(sg['t_p'])}, AR {p_text(sg['ar_p'])}); at the dev-chosen passes "
            f"{fmt(s0['test_at_best'])} against {fmt(results[crf_key].summary['test_at_best'])} (AR "
            f"{p_text(sg.get('dev_ar_p'))}). (The paper: {paper}.)")

    # 2. against the perceptron and MIRA variants (Holm over the six)
    base = [k for k in sig if k.startswith(task + "/") and "@" not in k and k.split("/")[1] in UNREGULARIZED]
    if base:
        diffs = {k: round(s0["test_last"], 2) - round(results[k].summary["test_last"], 2) for k in base}
        adj_t = dict(zip(base, holm([sig[k]["t_p"] for k in base])))
        adj_ar = dict(zip(base, holm([sig[k]["ar_p"] for k in base])))
        verdict = ahead_verdict({label(k): diffs[k] for k in base}, {label(k): adj_t[k] for k in base}, alpha)
        verdict_ar = ahead_verdict({label(k): diffs[k] for k in base}, {label(k): adj_ar[k] for k in base}, alpha)
        paper = ("not a task of the paper" if claim is None else f"SAPO ahead of all, t-test p < {alpha:g}")
        claims["beats"].append(
            f"- {spec['title']}: {verdict} (paired t-test, Holm-adjusted over the {len(base)} learners, level "
            f"{alpha:g}; by AR, Holm-adjusted: {verdict_ar}). SAPO {fmt(s0['test_last'])} {score_name} at the "
            "last pass against " + "; ".join(
                f"{label(k)} {fmt(results[k].summary['test_last'])} ({diffs[k]:+.2f}; t-test adjusted "
                f"{p_text(adj_t[k])}, AR adjusted {p_text(adj_ar[k])})" for k in base) + f". (The paper: {paper}.)")

    # 3. against the neural learners (dev-chosen passes, Holm over the two)
    neural = [k for k in sig if k.startswith(f"neural/{task}/") and k.rsplit("/", 1)[1] not in BEYOND_PAPER]
    if neural:
        diffs = {label(k): s0["test_at_best"] - results[k].summary["test_at_best"] for k in neural}
        adj = dict(zip([label(k) for k in neural], holm([sig[k]["dev_ar_p"] for k in neural])))
        behind = [k for k in neural if diffs[label(k)] < 0 and adj[label(k)] < ALPHA]
        verdict = ("contradicted: " + ", ".join(label(k) for k in behind) + " significantly more accurate"
                   if behind else "confirmed (no neural learner significantly more accurate)")
        ahead = ahead_verdict(diffs, adj, ALPHA)
        # a rival whose best dev pass is its last was still improving: no verdict that SAPO is ahead of it
        rising = [label(k) for k in neural if still_improving(results[k])]
        if rising and not behind:
            verdict = ahead = (f"not testable: {', '.join(rising)} still improving at the last pass (the best "
                               "dev pass is the last)")
        speed = []
        for k in neural:
            sp = speed_verdict(_pass_seconds(sapo), _pass_seconds(results[k])) if _pass_seconds(results[k]) \
                else None
            wall = _per_pass(results[k], "seconds") / max(_per_pass(sapo, "seconds"), 1e-12)
            tested = sp is not None and min(len(_pass_seconds(sapo)), len(_pass_seconds(results[k]))) \
                >= MIN_TIMED_PASSES
            speed.append(f"{label(k)} takes {wall:.1f}x SAPO's wall time per pass"
                         + (f" ({1 / sp['ratio']:.1f}x its CPU time, "
                            + (f"Mann-Whitney {p_text(sp['p'])})" if tested else "too few timed passes for a test)")
                            if sp else ""))
        claims["neural"].append(
            f"- {spec['title']}: as accurate: {verdict}; more accurate: {ahead} (AR at the dev-chosen passes, "
            f"Holm-adjusted over the {len(neural)} neural learners, level {ALPHA:g}). SAPO "
            f"{fmt(s0['test_at_best'])} {score_name} at its dev-chosen pass {s0['best_epoch']} of "
            f"{sapo.run.epochs} against " + "; ".join(
                f"{label(k)} {fmt(results[k].summary['test_at_best'])} at pass {results[k].summary['best_epoch']} "
                f"of {results[k].run.epochs} ({diffs[label(k)]:+.2f}; AR adjusted {p_text(adj[label(k)])})"
                for k in neural) + ". Speed: " + "; ".join(speed) + ".")

    # convergence
    table = [k for k in _table_keys(results, task) if not k.startswith("neural/") and "@" not in k]
    conv, stable = [], {}
    for key in table:
        st = stability(results[key].curve("test_score"))
        stable[label(key)] = st["stable"]
        conv.append(f"{label(key)} {st['drop']:+.2f} (slope {st['slope']:+.3f}/pass, spread {st['spread']:.2f})")
    sapo_like = [label(k) for k in table if k.endswith(("/sapo", "/crf"))]
    search = [label(k) for k in table if label(k) not in sapo_like]
    n_passes = len(sapo.records)
    converge = (stable_verdict(stable, sapo_like, search) if n_passes >= STABLE_WINDOW else
                f"not testable: {n_passes} passes, fewer than the {STABLE_WINDOW} at the end of a curve that the "
                "stability rule reads")
    claims["converge"].append(
        f"- {spec['title']}: {converge}. Last pass minus best pass, and the slope "
        f"and spread (max minus min) of the test {score_name} over the last {min(STABLE_WINDOW, n_passes)} passes "
        f"(\"stable\": ends within {STABLE_DROP} of its best, a slope within +-{STABLE_SLOPE}/pass and a spread "
        f"of at most {STABLE_SPREAD}): " + "; ".join(conv) + ".")

    # weights: relative growth
    wc = {k: results[k].summary["weight_complexity_last"] for k in table}
    growth = {k: 100.0 * _tail_slope(results[k].curve("weight_complexity")) / max(wc[k] or 0.0, 1e-12)
              for k in table}
    others = [k for k in table if k.split("/")[1] in UNREGULARIZED]
    if others:
        verdict = weights_verdict(growth, f"{task}/sapo", others)
        crf_text = (f"; the CRF (L2 as SAPO) {growth[crf_key]:+.2f} %" if crf_key in growth else "")
        claims["weights"].append(
            f"- {spec['title']}: {verdict}. Growth of the mean |w| per pass over the last "
            f"{min(10, len(sapo.records))} passes, in % of its last level: SAPO {growth[f'{task}/sapo']:+.2f} % "
            f"against " + "; ".join(f"{label(k)} {growth[k]:+.2f} %" for k in others) + crf_text +
            ". (Levels at the last pass, not used for the verdict: SAPO "
            f"{wc[f'{task}/sapo']:.4f}, " + ", ".join(f"{label(k)} {wc[k]:.4f}" for k in others) + ".)")

    # speed
    perc = results.get(f"{task}/perc-avg")
    if perc is not None:
        crf = results.get(crf_key)
        sp = speed_verdict(_pass_seconds(sapo), _pass_seconds(perc), _pass_seconds(crf) if crf else None)
        text = (f"- {spec['title']}: about as fast as the perceptron: {sp['as_fast']}: SAPO takes "
                f"{np.median(_pass_seconds(sapo)):.3f} CPU s per pass, {sp['ratio']:.2f}x the averaged "
                f"perceptron's {np.median(_pass_seconds(perc)):.3f} s (Mann-Whitney {p_text(sp['p'])}); \"about as "
                f"fast\" in the paper's words against a measured {sp['ratio']:.2f}x.")
        if crf is not None:
            text += (f" Faster than the CRF: {sp['faster_than_crf']}: the CRF takes "
                     f"{np.median(_pass_seconds(crf)):.3f} s, {sp['crf_ratio']:.2f}x SAPO's time (Mann-Whitney "
                     f"{p_text(sp['crf_p'])}; the paper: SAPO several times faster than the CRF).")
        claims["speed"].append(text)


def _sweep_section(out_dir: Path, results: dict, task: str, claims: dict) -> list[str]:
    sweep = sorted(((r.run.params["n_best"], r) for k, r in results.items() if k.startswith(f"sweep/{task}/")),
                   key=lambda x: x[0])
    spec = TASKS[task]
    metric = spec["metric"]
    score_name = "F1" if metric == "f1" else "accuracy"
    md = [f"## SAPO with n = {', '.join(str(n) for n, _ in sweep)} ({spec['title']})\n",
          "Top-n size n of SAPO, other settings as above (n = 1 is a perceptron-like update with "
          "a learning rate and L2). Tests between neighbouring n on the test set at the last pass; AR p-values "
          f"Holm-adjusted over the {max(len(sweep) - 1, 0)} neighbouring pairs.\n"]
    rows, csv_rows, curve_rows = [], [], []
    for n, r in sweep:
        s = r.summary
        rows.append([n, fmt(s["test_last"]), f"{fmt(s['test_at_best'])} ({s['best_epoch']})" if s["best_epoch"] else "-",
                     f"{fmt(s['test_max'])} ({s['test_max_epoch']})", fmt(s["weight_complexity_last"], 4),
                     fmt(_per_pass(r, "seconds"), 3), fmt(_per_pass(r), 3)])
        csv_rows.append([n, s["test_last"], s["test_at_best"], s["best_epoch"], s["test_max"], s["test_max_epoch"],
                         s["weight_complexity_last"], _per_pass(r, "seconds"), _per_pass(r)])
        for rec in r.records:
            curve_rows.append([n, rec["epoch"], rec["test_score"], rec.get("dev_score"), rec.get("weight_complexity"),
                               rec.get("seconds"), rec.get("cpu_seconds")])
    md.append(md_table(["n", f"test {score_name}, last pass", "at best dev pass (pass)", "best pass (test)",
                        "weight complexity, last", "s / pass", "CPU s / pass"], rows))
    pairs = [(sweep[i], sweep[i + 1]) for i in range(len(sweep) - 1)]
    tests = [_compare(b, a, metric) for (_, a), (_, b) in pairs]  # larger n minus smaller n
    adj = holm([t["ar_p"] for t in tests]) if tests else []
    test_rows = [[f"{na} -> {nb}", f"{t['diff']:+.2f}", fmt_p(t["ar_p"]), fmt_p(p), fmt_p(t["t_p"])]
                 for ((na, _), (nb, _)), t, p in zip(pairs, tests, adj)]
    if test_rows:
        md.append(md_table(["step", f"change of test {score_name}", "AR p", "AR p (Holm)", "t-test p"], test_rows))
    write_csv(out_dir / f"nsweep_{task}.csv", ["n", f"test_{score_name}_last", f"test_{score_name}_at_best_dev",
                                               "best_dev_pass", f"test_{score_name}_best", "best_pass",
                                               "weight_complexity_last", "seconds_per_pass", "cpu_seconds_per_pass"],
              csv_rows)
    write_csv(out_dir / f"nsweep_curves_{task}.csv", ["n", "pass", f"test_{score_name}", f"dev_{score_name}",
                                                      "weight_complexity", "seconds", "cpu_seconds"], curve_rows)
    write_csv(out_dir / f"nsweep_tests_{task}.csv", ["n_from", "n_to", "change", "ar_p", "ar_p_holm", "t_test_p"],
              [[na, nb, t["diff"], t["ar_p"], p, t["t_p"]] for ((na, _), (nb, _)), t, p in zip(pairs, tests, adj)])
    ns = [n for n, _ in sweep]
    series = [(f"n={n}", list(range(1, len(r.records) + 1)), r.curve("test_score")) for n, r in sweep]
    line_plots(out_dir / f"nsweep_{task}.png", [
        {"series": series, "title": f"test {score_name} per pass, by n", "xlabel": "training pass (epoch)",
         "ylabel": f"test {'chunk F1' if metric == 'f1' else 'token accuracy'} (%)",
         "ylim": focus_ylim([v for _, _, ys in series for v in ys], top_share=0.85), "legend_loc": "lower right"},
        {"series": [("last pass", ns, [r.summary["test_last"] for _, r in sweep]),
                    ("best dev pass", ns, [r.summary["test_at_best"] for _, r in sweep])],
         "title": f"test {score_name} against n", "xlabel": "n (top-n size, log scale)",
         "ylabel": f"test {'chunk F1' if metric == 'f1' else 'token accuracy'} (%)", "logx": True,
         "integer_x": False, "xticks": ns, "marker": "o"},
        {"series": [("CPU seconds per pass", ns, [_per_pass(r) for _, r in sweep])],
         "title": "training time against n", "xlabel": "n (top-n size, log scale)",
         "ylabel": "CPU seconds per pass", "logx": True, "integer_x": False, "xticks": ns, "marker": "o"},
    ], suptitle=f"SAPO n sweep: {spec['title']}")
    md.append(f"![n sweep, {spec['title']}](nsweep_{task}.png)\n")
    if tests:
        verdict = n_verdict(ns, [r.summary["test_last"] for _, r in sweep], list(adj), ALPHA)
        claims["n"].append(
            f"- {spec['title']}: {verdict} (AR on test {score_name} at the last pass between neighbouring n, "
            f"Holm-adjusted over the {len(tests)} steps, level {ALPHA:g}). Steps: " + "; ".join(
                f"{na} -> {nb} {t['diff']:+.2f} (adjusted {p_text(p)})"
                for ((na, _), (nb, _)), t, p in zip(pairs, tests, adj)) + ". CPU s per pass: " + ", ".join(
                f"n = {n} {_per_pass(r):.3f}" for n, r in sweep) + ".")
    return md


def _beam_section(out_dir: Path, results: dict, claims: dict) -> list[str]:
    beams = [(k.split("/", 1)[1], r) for k, r in results.items() if k.startswith("beam/")]
    beams = [(t, r) for t, r in beams if f"{t}/sapo" in results]
    if not beams:
        return []
    md = [f"## Exact A* search against a beam of width {BEAM_WIDTH}\n",
          f"SAPO (n = 5) with its top-n found by exact A* search (as everywhere else) or by a beam of width "
          f"{BEAM_WIDTH} (the paper's), other settings equal. Test scores at the last pass; AR p-values Holm-adjusted "
          f"over the {len(beams)} task(s).\n"]
    tests = {t: _compare(r, results[f"{t}/sapo"], r.run.metric) for t, r in beams}
    adj = dict(zip(tests, holm([v["ar_p"] for v in tests.values()])))
    rows, csv_rows = [], []
    for t, r in beams:
        a = results[f"{t}/sapo"]
        ratio = np.median(_pass_seconds(r)) / np.median(_pass_seconds(a))
        tp = timing_test(_pass_seconds(r), _pass_seconds(a))
        rows.append([TASKS[t]["title"], fmt(a.summary["test_last"]), fmt(r.summary["test_last"]),
                     f"{tests[t]['diff']:+.2f}", fmt_p(tests[t]["ar_p"]), fmt_p(adj[t]), fmt_p(tests[t]["t_p"]),
                     fmt(float(np.median(_pass_seconds(a))), 3), fmt(float(np.median(_pass_seconds(r))), 3),
                     f"{ratio:.2f}x", fmt_p(tp)])
        csv_rows.append([t, a.summary["test_last"], r.summary["test_last"], tests[t]["diff"], tests[t]["ar_p"], adj[t],
                         tests[t]["t_p"], float(np.median(_pass_seconds(a))), float(np.median(_pass_seconds(r))), tp])
    md.append(md_table(["task", "A*: test, last pass", f"beam {BEAM_WIDTH}: test, last pass", "beam - A*", "AR p",
                        "AR p (Holm)", "t-test p", "A*: CPU s / pass", "beam: CPU s / pass", "beam / A* time",
                        "Mann-Whitney p (time)"], rows))
    write_csv(out_dir / "beam.csv", ["task", "astar_test_last", "beam_test_last", "beam_minus_astar", "ar_p",
                                     "ar_p_holm", "t_test_p", "astar_cpu_seconds_per_pass",
                                     "beam_cpu_seconds_per_pass", "time_p"], csv_rows)
    verdict = same_verdict({TASKS[t]["title"]: tests[t]["diff"] for t, _ in beams},
                           {TASKS[t]["title"]: adj[t] for t, _ in beams}, ALPHA)
    claims["beam"].append(
        f"- {verdict} (AR on the task's score at the last pass, Holm-adjusted over {len(beams)} task(s), level "
        f"{ALPHA:g}). " + "; ".join(
            f"{TASKS[t]['title']}: A* {fmt(results[f'{t}/sapo'].summary['test_last'])}, beam "
            f"{fmt(r.summary['test_last'])} ({tests[t]['diff']:+.2f}, adjusted {p_text(adj[t])}); the beam takes "
            f"{np.median(_pass_seconds(r)) / np.median(_pass_seconds(results[f'{t}/sapo'])):.2f}x A*'s CPU time per "
            "pass" for t, r in beams) + ". A non-significant difference is no proof of equality: the differences "
        "are given above.")
    return md


def _order_section(results: dict, tasks) -> list[str]:
    md = ["## Sentence order: seeded random order against file order\n",
          "The same learners trained with the sentences in file order; test score at the last pass.\n"]
    rows = []
    for task in tasks:
        for k in [k for k in results if k.startswith(task + "/") and "@file" in k]:
            shuffled = results.get(k.replace("@file", ""))
            if shuffled is None:
                continue
            f, s = results[k].summary["test_last"], shuffled.summary["test_last"]
            rows.append([TASKS[task]["title"], shuffled.run.label, fmt(s), fmt(f), f"{s - f:+.2f}"])
    md.append(md_table(["task", "learner", "shuffled", "file order", "shuffled - file"], rows, align="llrrr"))
    return md


__all__ = ["PAPER", "TASKS", "DEFAULT_TASKS", "EPOCHS", "N_SWEEP", "SWEEP_TASKS", "BEAM_TASKS", "NEURAL_EPOCHS",
           "learner_settings", "runs", "reproduce", "write_report", "ahead_verdict", "weights_verdict",
           "speed_verdict", "n_verdict", "same_verdict", "stable_verdict", "stability", "still_improving",
           "neural_available"]
