"""Compare learners on one data set: scores, curves, time, weight size and significance.

``chaintag compare`` (and :func:`compare`) trains every learner on the same
training data with the same attributes, scores the test data after every
epoch through the cached :class:`~chaintag_research.runner.Runner`, and
writes a report: the score of each learner at its chosen epoch (the best
epoch on the development data when one is given, else the last epoch; the
test data never chooses), and the significance of each difference from the
first learner (approximate randomization on the corpus score, paired t-test
on per-sentence accuracy), as in the SAPO paper's comparisons.
"""

from __future__ import annotations

import inspect
import json
import time
from pathlib import Path

from .config import DataRef, Run, learner_class
from .report import (check_report_folder, fmt, fmt_p, invocations_table, line_plots, machine_details, md_table,
                     record_invocation, write_csv)
from .runner import Runner
from .significance import approximate_randomization, paired_t_test, sentence_accuracy

__all__ = ["parse_learner", "compare_runs", "compare"]


def _value(text: str):
    """A hyper-parameter value from the command line: JSON if it parses (numbers, true/false, null)."""
    lowered = text.lower()
    if lowered in ("true", "false", "null"):
        return json.loads(lowered)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_learner(spec: str) -> tuple[str, dict]:
    """Split a learner spec ``NAME[:key=value,key=value]`` into a name and parameters.

    Parameters
    ----------
    spec : str
        E.g. ``"perceptron"``, ``"perceptron:averaged=false"``,
        ``"sapo:n_best=10,l2=2"``. Values are read as JSON where they parse
        (numbers, ``true`` / ``false``, ``null``), else kept as strings.

    Returns
    -------
    name : str
    params : dict

    Raises
    ------
    ValueError
        An empty name, or a parameter without ``=``.

    Examples
    --------
    >>> parse_learner("sapo:n_best=10,lr_schedule=fixed")
    ('sapo', {'n_best': 10, 'lr_schedule': 'fixed'})
    """
    name, _, rest = spec.partition(":")
    if not name:
        raise ValueError(f"learner spec {spec!r} has no learner name")
    params = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"learner spec {spec!r}: {item!r} is not key=value")
        params[key.strip().replace("-", "_")] = _value(value.strip())
    return name, params


def _check_value(spec: str, key: str, value, default) -> None:
    """Refuse a parameter value whose type does not fit the learner's default for it."""
    def bad(expected):
        raise ValueError(f"{spec}: {key} takes {expected}, not {value!r}")

    if isinstance(value, (list, dict)):
        bad("a single value")
    if isinstance(default, bool):
        if not isinstance(value, bool):
            bad("true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            bad("an integer")
    elif isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            bad("a number")
    elif isinstance(default, str) and not isinstance(value, str):
        bad("a word")


def compare_runs(learners, *, features: str, train: str, test: str, dev: str | None = None, epochs: int = 10,
                 metric: str = "f1", data_dir=None) -> list[Run]:
    """The runs of a comparison, one per learner spec (see :func:`parse_learner`).

    A neural learner given no ``embeddings`` gets the data directory's GloVe vectors when they are there
    (as ``chaintag train`` does; ``embeddings=none`` in the spec: none).

    Raises
    ------
    ValueError
        A malformed or repeated spec, an unknown learner or parameter, or a
        value whose type does not fit the parameter (e.g. ``averaged=maybe``,
        ``n_best=2.5``).
    """
    if len(set(learners)) != len(learners):
        raise ValueError("each learner spec may be given once")
    runs = []
    for spec in learners:
        name, params = parse_learner(spec)
        if {"epochs", "features", "progress"} & set(params):
            raise ValueError(f"{spec}: epochs and attributes are set for every learner (--epochs, --features)")
        cls = learner_class(name)
        signature = inspect.signature(cls.__init__).parameters
        for key, value in params.items():
            if key in signature:
                _check_value(spec, key, value, signature[key].default)
        _check_bounds(spec, cls, {k: v for k, v in params.items() if k in signature})
        if getattr(cls, "learns_representation", False) and "embeddings" in signature:
            if str(params.get("embeddings", "")).lower() == "none":
                params.pop("embeddings")
            elif "embeddings" not in params and params.get("word_dim") is None:
                from .sapo_neural import find_embeddings
                found = find_embeddings(data_dir)
                if found:
                    params["embeddings"] = found
        has_epochs = "epochs" in signature
        runs.append(Run(key=spec, label=spec, task="compare", learner=name, params=params, features=features,
                        epochs=epochs if has_epochs else 1, train=DataRef(train), test=DataRef(test),
                        dev=DataRef(dev) if dev else None, metric=metric))
    return runs


def _check_bounds(spec: str, cls, params: dict) -> None:
    """Check a learner's parameters against its declared bounds before any learner trains.

    Raises
    ------
    ValueError
        Naming the spec and the parameter out of bounds (``sapo:l2=-1``).
    """
    from chaintag.errors import InputError
    from chaintag.learners.params import check_params
    try:
        check_params(cls(**params))
    except InputError as exc:
        raise ValueError(f"{spec}: {exc}") from None


def _metric(runner: Runner, train: str) -> str:
    from chaintag.learners.base import looks_like_chunks
    _, labels = runner.load(DataRef(train))
    return "f1" if looks_like_chunks({lab for sent in labels for lab in sent}) else "accuracy"


def compare(out_dir, learners, *, features: str, train: str, test: str, dev: str | None = None, epochs: int = 10,
            data_dir=None, read_options: dict | None = None, progress: bool = True,
            command: str | None = None) -> tuple[Path, list[dict]]:
    """Train and score every learner, and write the comparison report into ``out_dir``.

    Parameters
    ----------
    out_dir : path-like
        Report folder (``README.md``, ``results.csv``, ``curves.csv``,
        ``curves.png``); runs are cached under ``out_dir/runs``, so a repeated
        or interrupted comparison reuses finished runs.
    learners : sequence of str
        Learner specs (:func:`parse_learner`); the first is the reference of
        the significance tests.
    features : str
        Attribute preset or templates, the same for every learner.
    train, test : str
        Dataset references or paths (last column = label).
    dev : str, optional
        Development data choosing each learner's epoch; without it the last
        epoch is read.
    epochs : int
        Epochs of every learner that has epochs.
    data_dir : path-like, optional
    read_options : dict, optional
        How the files are read: ``columns``, ``label_field``, ``sep``,
        ``encoding``, as :func:`chaintag.load_corpus` takes them.
    progress : bool
    command : str, optional
        The command line, for the report.

    Returns
    -------
    path : pathlib.Path
        The Markdown report.
    rows : list of dict
        One per learner: ``learner``, ``epoch``, ``score`` (chunk F1 or
        accuracy, %), ``accuracy``, ``dev_score``, ``weight_complexity``,
        ``cpu_seconds_per_epoch`` (median, s), ``ar_p`` and ``t_p`` against
        the first learner (None for it).

    Raises
    ------
    ValueError
        Bad learner specs or parameters.
    chaintag.errors.InputError
        Unreadable or empty data, train, dev and test files with different
        columns, or dev or training data that is the test data.
    """
    check_report_folder(out_dir)
    _check_held_out(train, dev, test, data_dir)
    out_dir = Path(out_dir)
    before = machine_details()
    t0 = time.perf_counter()
    runner = Runner(out_dir, data_dir=data_dir, progress=progress, read_options=read_options, desc="compare")
    _check_data(runner, train, dev, test)
    metric = _metric(runner, train)
    runs = compare_runs(list(learners), features=features, train=train, test=test, dev=dev, epochs=epochs,
                        metric=metric, data_dir=data_dir)
    results = runner.run_all(runs)
    wall = time.perf_counter() - t0
    rows = _rows(runs, results, metric)
    path = _write_report(out_dir, runs, results, rows, runner, metric=metric, command=command, wall=wall,
                         before=before, after=machine_details(), epochs=epochs)
    return path, rows


#: Parameters every learner of a comparison shares (named in the report's first lines).
_SHARED = ("features", "epochs", "progress", "columns")


def _settings(run) -> dict:
    """A run's learner parameters as trained: its spec's, and the learner's defaults for the rest."""
    cls = learner_class(run.learner)
    model = cls(**{k: v for k, v in run.params.items() if k in inspect.signature(cls.__init__).parameters})
    return {p.name: getattr(model, p.name) for p in getattr(cls, "params", ())
            if p.name not in _SHARED and hasattr(model, p.name)}


def _check_held_out(train: str, dev: str | None, test: str, data_dir) -> None:
    """Refuse dev data that is test data (the report says the test data chooses nothing); warn about
    training data that is the test data (the test score is then a training score).

    Raises
    ------
    chaintag.errors.InputError
        Naming the option and why (:func:`chaintag.api.train_checks.dev_test_reason`: a test split by
        name, the file of one, the --test file or a copy of it).
    """
    from chaintag.api.train_checks import dev_test_reason
    from chaintag.errors import InputError
    why = dev_test_reason(dev, test, data_dir)
    if why:
        raise InputError(f"--dev {dev}: {why}; each learner's epoch would be chosen on the test data. Give a "
                         "dev split (e.g. ptb_sample:dev) or a file cut from the training data")
    why = dev_test_reason(train, test, data_dir)
    if why:  # a smoke run on one tiny file does that on purpose: said, not refused
        import sys
        print(f"warning: --train {train}: {why}; the test scores below are scores on training data",
              file=sys.stderr)


def _check_data(runner: Runner, train: str, dev: str | None, test: str) -> None:
    """Every part has sentences and the training data's columns; warn when no test label was trained on."""
    from chaintag.errors import InputError
    parts = [("training", train), ("test", test)] + ([("dev", dev)] if dev else [])
    loaded = {}
    for what, ref in parts:
        try:
            loaded[what] = runner.load(DataRef(ref))
        except InputError as exc:
            if "no sentences" in str(exc):
                raise InputError(f"{what} data: no sentences", ref) from None
            raise
    want = runner.columns[train]
    for what, ref in parts[1:]:
        if runner.columns[ref] != want:
            raise InputError(f"{what} data has the columns {', '.join(runner.columns[ref]) or 'none'} besides the "
                             f"labels, the training data {', '.join(want)}", ref)
    trained = {lab for sent in loaded["training"][1] for lab in sent}
    for what, ref in parts[1:]:
        if not trained & {lab for sent in loaded[what][1] for lab in sent}:
            import sys
            print(f"warning: none of the labels of the {what} data ({ref}) occurs in the training data",
                  file=sys.stderr)


def _chosen_epoch(result) -> int:
    return result.summary["best_epoch"] if result.run.dev is not None else len(result.records)


def _rows(runs, results, metric: str) -> list[dict]:
    ref = results[runs[0].key]
    ref_epoch = _chosen_epoch(ref)
    rows = []
    for run in runs:
        r = results[run.key]
        epoch = _chosen_epoch(r)
        rec = r.records[epoch - 1]
        row = {"learner": run.label, "epoch": epoch, "score": rec["test_score"], "accuracy": rec["test_accuracy"],
               "dev_score": rec.get("dev_score"), "weight_complexity": rec.get("weight_complexity"),
               "cpu_seconds_per_epoch": r.summary["cpu_seconds_per_epoch"], "ar_p": None, "t_p": None}
        if run is not runs[0]:
            sa, sb = ref.test_stats(ref_epoch), r.test_stats(epoch)
            row["ar_p"] = approximate_randomization(sa, sb, metric=metric, n_shuffles=1000, random_state=0).p_value
            row["t_p"] = paired_t_test(sentence_accuracy(sa), sentence_accuracy(sb)).p_value
        rows.append(row)
    return rows


def _attributes_line(runs) -> str:
    """What the report says of the attributes: the neural learners read the words themselves and ignore
    ``--features``."""
    neural = [r.label for r in runs if getattr(learner_class(r.learner), "learns_representation", False)]
    if not neural:
        return f"`{runs[0].features}` for every learner"
    named = ", ".join(f"`{n}`" for n in neural)
    if len(neural) == len(runs):
        return f"none: {named} read the words themselves (--features is not used)"
    return f"`{runs[0].features}` for every learner but {named}, which read the words themselves"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _write_report(out_dir: Path, runs, results, rows, runner: Runner, *, metric: str, command, wall, before,
                  after, epochs: int) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    score = "chunk F1 (%)" if metric == "f1" else "token accuracy (%)"
    first = runs[0]
    entries = record_invocation(out_dir, command=command or "chaintag compare", wall=wall,
                                trained=runner.epochs_trained, before=before, after=after)
    size = {part: runner.size(getattr(first, part)) for part in ("train", "dev", "test") if getattr(first, part)}
    md = ["# Learner comparison\n",
          "- Data: " + "; ".join(f"{part} `{getattr(first, part).ref}` ({_plural(n, 'sentence')}, "
                                  f"{_plural(t, 'token')})" for part, (n, t) in size.items()) + f". Score: {score}.",
          f"- Attributes: {_attributes_line(runs)}; {_plural(epochs, 'epoch')} (learners without "
          "epochs are trained once).",
          "- Epoch read: " + ("the best epoch on the development data (the test data chooses nothing)."
                              if first.dev is not None else "the last one (no development data was given)."),
          f"- p-values: against `{first.label}` on the same test sentences: approximate randomization on the "
          "corpus score (1000 shuffles, seed 0) and a paired t-test on per-sentence accuracy.",
          "- CPU s / epoch: median of the learner's own timing of its epochs (training only).\n",
          md_table(["learner", "epoch", f"test {score}"] + (["dev score"] if first.dev else []) +
                   ["weight complexity", "CPU s / epoch", "AR p", "t-test p"],
                   [[r["learner"], r["epoch"], fmt(r["score"])] + ([fmt(r["dev_score"])] if first.dev else []) +
                    [fmt(r["weight_complexity"], 4), fmt(r["cpu_seconds_per_epoch"], 3),
                     fmt_p(r["ar_p"]) if r["ar_p"] is not None else "-",
                     fmt_p(r["t_p"]) if r["t_p"] is not None else "-"] for r in rows]),
          "Learners without epochs (e.g. `maxent`) are trained once: the curves show their scores as dashed "
          "lines, and their training time only in the table.\n" if any(runner.strategy(r) == "single" for r in runs)
          else "",
          "![curves](curves.png)\n",
          "## Settings\n",
          "Each learner's parameters as trained: the spec's, the learner's defaults for the rest (`chaintag "
          "train` without --features may choose other settings for the kind of task).\n",
          "\n".join(f"- `{run.label}`: " + ", ".join(f"{k}={v}" for k, v in _settings(run).items())
                    for run in runs) + "\n",
          "## How it was run\n",
          f"- Command: `{command or 'chaintag compare'}`. Machine: {before['cpus']} CPUs, {before['platform']}; "
          f"chaintag {before['chaintag']}.\n",
          invocations_table(entries)]
    path = out_dir / "README.md"
    write_csv(out_dir / "results.csv", list(rows[0]), [list(r.values()) for r in rows])
    curve_rows, panels = [], {"test_score": [], "dev_score": [], "weight_complexity": [], "cpu_seconds": []}
    hlines = {"test_score": [], "dev_score": []}
    for run in runs:
        r = results[run.key]
        xs = [rec["epoch"] for rec in r.records]
        if runner.strategy(run) == "single":  # no epochs: a level, not a curve
            for key in hlines:
                if r.records[0].get(key) is not None:
                    hlines[key].append((run.label, r.records[0][key]))
        for key in panels if runner.strategy(run) != "single" else ():
            ys = r.curve(key)
            if any(y is not None for y in ys):
                panels[key].append((run.label, xs, ys))
        curve_rows += [[run.label, rec["epoch"], rec.get("test_score"), rec.get("dev_score"),
                        rec.get("weight_complexity"), rec.get("cpu_seconds")] for rec in r.records]
    write_csv(out_dir / "curves.csv", ["learner", "epoch", "test_score", "dev_score", "weight_complexity",
                                       "cpu_seconds"], curve_rows)
    titles = {"test_score": ("test score per epoch", score), "dev_score": ("development score per epoch", score),
              "weight_complexity": ("weight complexity", "mean |weight| (log scale)"),
              "cpu_seconds": ("training time per epoch", "CPU seconds")}
    line_plots(out_dir / "curves.png",
               [{"series": series, "hlines": hlines.get(key, []), "title": titles[key][0], "xlabel": "epoch",
                 "ylabel": titles[key][1], "logy": key == "weight_complexity",
                 "marker": "o" if epochs <= 30 else None}
                for key, series in panels.items() if series or hlines.get(key)],
               ncols=2, shared_legend=True, label_order=[run.label for run in runs])
    from chaintag.io.atomic import atomic_open
    with atomic_open(path, "w") as fh:
        fh.write("\n".join(md) + "\n")
    return path
