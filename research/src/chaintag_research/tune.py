"""Choose a learner's settings and feature set on dev data: a grid search through the cached runner.

Every combination of the grid's values and the candidate feature sets is
one :class:`~chaintag_research.config.Run` (the dev data in the place of
its test set, so no test data is read at all), trained for ``epochs``
passes by one ``fit(train, dev=dev)`` call, which extracts the attributes
once and scores the dev data after every pass. Each trial is cached in the
:class:`~chaintag_research.runner.Runner`'s folder for the run's digest
(settings, data checksums, cluster files, code), so a grid extended later
retrains only its new points. The best
combination and pass is the one with the highest dev score (the first on
ties, in grid order). Where a task has no dev split, the last fraction of
the training file is held out (a fixed, contiguous split: whole documents
stay on one side).

This is the tuning protocol of Collins (2002, s. 4: passes chosen on
held-out data) extended to every hyper-parameter, as Sun et al. (SAPO, s. 4)
choose n and the L2 strength.
"""

from __future__ import annotations

import csv
import inspect
import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from chaintag.errors import InputError
from .compare import _value
from .config import DataRef, Run, learner_class
from .report import check_report_folder
from .runner import Runner


def parse_grid(items) -> dict[str, list]:
    """``["n_best=5,10", "l2=0.5,1"]`` -> ``{"n_best": [5, 10], "l2": [0.5, 1]}`` (values as JSON where they parse).

    Raises
    ------
    InputError
        On an item without ``=``, a repeated key, or no value.
    """
    grid: dict[str, list] = {}
    for item in items or []:
        key, eq, values = item.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or not key:
            raise InputError(f"--grid: {item!r} is not key=value,value,...")
        if key in grid:
            raise InputError(f"--grid: {key} is given twice")
        vals = [_value(v.strip()) for v in values.split(",") if v.strip()]
        if not vals:
            raise InputError(f"--grid: {key} has no value")
        grid[key] = vals
    return grid


@dataclass
class Trial:
    """One grid point's outcome.

    Attributes
    ----------
    features : str
    params : dict
    best_epoch : int
        The pass with the highest dev score.
    dev_score : float
        Dev score at that pass (F1 or accuracy, %).
    seconds_per_epoch : float
        Median training seconds per pass.
    folder : str
        The runner's cache folder of the run.
    metric : str
        ``"f1"`` or ``"accuracy"``: what ``dev_score`` is.
    """

    features: str
    params: dict
    best_epoch: int
    dev_score: float
    seconds_per_epoch: float
    folder: str
    metric: str = "f1"


def tune(out_dir, learner: str, *, train: str, features, grid: dict[str, list] | None = None,
         dev: str | None = None, dev_fraction: float = 0.1, epochs: int = 10, metric: str | None = None,
         fixed: dict | None = None, data_dir=None, read_options: dict | None = None,
         progress: bool = True) -> tuple[list[Trial], Trial]:
    """Grid search over ``features`` x ``grid`` for ``learner``, scored on dev data only.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Cache and report folder (``runs/``, ``tune.csv``, ``best.json``).
    learner : str
        A :func:`chaintag.make_learner` name (``sapo``, ``perceptron``, ``crf``, ...).
    train : str
        Training data reference or path.
    features : sequence of str
        Candidate feature specifications (presets, templates, ``@clusters=FILE`` parts).
    grid : dict of str to list, optional
        Hyper-parameter values to try (the learner's parameter names).
    dev : str, optional
        Dev data; without it the last ``dev_fraction`` of ``train`` is held out.
    dev_fraction : float
    epochs : int
        Passes of every run; the best pass is chosen per run on dev.
    metric : {"f1", "accuracy"}, optional
        Default: chunk F1 for chunk labels, token accuracy for others (read from the dev labels).
    fixed : dict, optional
        Hyper-parameters set in every run.
    data_dir, read_options, progress
        As for :class:`~chaintag_research.runner.Runner`.

    Returns
    -------
    trials : list of Trial
        In grid order.
    best : Trial
        The highest dev score (first on ties).

    Raises
    ------
    InputError
        On an unknown learner or parameter, an empty grid point, bad data, a report folder of other
        files (:func:`~chaintag_research.report.check_report_folder`), or ``metric="f1"`` for labels that
        make no chunks.
    """
    check_report_folder(out_dir)
    grid = dict(grid or {})
    fixed = dict(fixed or {})
    features = list(features)
    if not features:
        raise InputError("give at least one feature set")
    if not 0.0 < dev_fraction < 1.0 and dev is None:
        raise InputError("--dev-fraction must be between 0 and 1")
    try:
        learner_class(learner)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if dev is None:
        train_ref = DataRef(train, 0.0, 1.0 - dev_fraction)
        dev_ref = DataRef(train, 1.0 - dev_fraction, 1.0)
    else:
        train_ref, dev_ref = DataRef(train), DataRef(dev)
    runner = Runner(out_dir, data_dir=data_dir, progress=False, read_options=read_options, desc="tune")
    metric = _metric(runner, dev_ref, metric)
    keys = list(grid)
    runs = []
    for f_index, feats in enumerate(features):
        for values in itertools.product(*(grid[k] for k in keys)):
            params = dict(fixed, **dict(zip(keys, values)))
            label = ", ".join([f"features={feats}"] + [f"{k}={v}" for k, v in params.items()])
            try:
                runs.append(Run(key=f"{f_index}/" + json.dumps(params, sort_keys=True), label=label, task="tune",
                                learner=learner, params=params, features=feats, epochs=epochs,
                                train=train_ref, test=dev_ref, dev=None, metric=metric))
            except ValueError as exc:
                raise InputError(str(exc)) from None
    bar = None
    if progress:  # a bar on a terminal, plain lines in a file or a pipe
        from chaintag.progress import CountProgress, progress_mode
        bar = CountProgress(progress_mode(True), len(runs), "tune", unit="run")
    trials = []
    try:
        for run in runs:
            trials.append(_trial(runner, run))
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"dev {trials[-1].dev_score:.2f}")
    finally:
        if bar is not None:
            bar.close()
    best = max(trials, key=lambda t: t.dev_score)  # max keeps the first of equal scores
    _report(Path(out_dir), trials, best, learner, train, dev or f"last {dev_fraction:g} of {train}", epochs, metric)
    return trials, best


def _metric(runner: Runner, dev_ref: DataRef, metric: str | None) -> str:
    """The score tuning compares: ``metric``, else chunk F1 for chunk labels and accuracy for others.

    Raises
    ------
    InputError
        For ``"f1"`` of labels that make no chunks (POS tags): it would score 0 for every trial.
    """
    if metric == "accuracy":
        return metric
    from chaintag.learners.tokens import looks_like_chunks
    chunks = looks_like_chunks({lab for sent in runner.load(dev_ref)[1] for lab in sent})
    if metric == "f1" and not chunks:
        raise InputError("--metric f1 scores chunks, but these labels are not chunk labels (POS tags?): use "
                         "--metric accuracy (the default for them)")
    return metric or ("f1" if chunks else "accuracy")


def _trial(runner: Runner, run: Run) -> Trial:
    """Train one grid point (or read it back from the cache) with ``fit(train, dev=dev)``.

    One ``fit`` extracts the attributes once and scores the dev data after
    every pass (the learner's own dev scoring), which is all tuning needs;
    the result is cached in the runner's folder for the run's digest
    (settings, data checksums, code), as ``trial.json``.
    """
    digest = runner.digest(run)
    folder = runner.runs_dir / digest[:16]
    path = folder / "trial.json"
    if path.exists():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            saved = {}
        if saved.get("digest") == digest:
            return _from_record(run, saved, folder)
    documents = runner.reads_documents(run)  # columns from each token's document, before the dev part is cut
    train = runner.load(run.train, documents)
    dev = runner.load(run.test, documents)  # the dev data stand where the runner puts a test set
    cls = learner_class(run.learner)
    params = dict(run.params, features=run.features)
    if documents:
        params["columns"] = runner.columns[(run.train.ref, "documents")]
    accepted = inspect.signature(cls.__init__).parameters
    if "epochs" in accepted:  # the maxent tagger has none (its run has epochs=1)
        params["epochs"] = run.epochs
    if "progress" in accepted:
        params["progress"] = False
    model = cls(**params)
    model.fit(train[0], train[1], dev=dev)
    key = "dev_f1" if run.metric == "f1" else "dev_accuracy"
    curve = [rec[key] if rec.get(key) is not None else rec["dev_score"] for rec in model.history_]
    seconds = [rec.get("seconds", 0.0) for rec in model.history_]
    record = {"digest": digest, **json.loads(json.dumps(run.config(), default=str)), "dev_curve": curve,
              "seconds": seconds, "extraction_seconds": getattr(model, "extraction_seconds_", None),
              "extractor_seconds": getattr(model, "extractor_seconds_", None)}
    folder.mkdir(parents=True, exist_ok=True)
    from chaintag.io.atomic import atomic_open
    with atomic_open(path, "w") as f:
        json.dump(record, f, indent=1)
    return _from_record(run, record, folder)


def _from_record(run: Run, record: dict, folder) -> Trial:
    curve = record["dev_curve"]
    best = int(np.argmax(curve))  # the first of equal scores
    return Trial(run.features, run.params, best + 1, float(curve[best]), float(np.median(record["seconds"])),
                 str(folder), run.metric)


def _report(out: Path, trials, best, learner, train, dev, epochs, metric: str) -> None:
    from chaintag.io.atomic import atomic_open
    out.mkdir(parents=True, exist_ok=True)
    keys = sorted({k for t in trials for k in t.params})
    with atomic_open(out / "tune.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["features"] + keys + ["best_epoch", "dev_score", "seconds_per_epoch"])
        for t in trials:
            w.writerow([t.features] + [t.params.get(k, "") for k in keys]
                       + [t.best_epoch, f"{t.dev_score:.2f}", f"{t.seconds_per_epoch:.3f}"])
    with atomic_open(out / "best.json", "w") as f:
        json.dump({"learner": learner, "train": train, "dev": dev, "epochs_tried": epochs,
                   "features": best.features, "params": best.params, "epochs": best.best_epoch,
                   "dev_score": best.dev_score, "metric": metric, "trials": len(trials)}, f, indent=1,
                  sort_keys=True)
        f.write("\n")


def format_table(trials, best) -> str:
    """The trials as a plain-text table, best first."""
    keys = sorted({k for t in trials for k in t.params})
    rows = sorted(trials, key=lambda t: -t.dev_score)
    head = ["dev", "epoch", "s/epoch", "features"] + keys
    lines = ["  ".join(head)]
    for t in rows:
        mark = " *" if t is best else ""
        lines.append("  ".join([f"{t.dev_score:.2f}", str(t.best_epoch), f"{t.seconds_per_epoch:.3f}",
                                os.path.basename(t.features) if os.path.isfile(t.features) else t.features]
                               + [str(t.params.get(k, "")) for k in keys]) + mark)
    return "\n".join(lines)
