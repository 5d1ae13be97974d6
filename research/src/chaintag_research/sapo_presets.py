"""The chosen presets in the SAPO reproduction: SAPO with each task's recipe against the paper's rows.

``chaintag reproduce sapo --presets`` adds, per task, one run of SAPO with
the recipe chosen on dev data for that task (:data:`RECIPE_OF_TASK`, the
settings of :mod:`chaintag.recipes`: attributes, L2, feature
space and number of passes; the learner's own defaults otherwise, n = 5),
on the same train / dev / test parts as the other rows. The report then
gives a table per task: that run's test score after its recipe's passes
(chosen on dev data, so read once) against SAPO with the paper's settings,
the averaged perceptron and the CRF (at their last passes) and the neural
learners (at their dev-chosen passes), with the differences and p-values
(approximate randomization on the task's score, paired t-test on
per-sentence token accuracy), and the seconds per pass of each.

Recipes that read word clusters or vectors (``kmN``, ``brownK``, ``vec``)
need their resource files, given per task (``--preset-resources
chunking=vt.tsv,w2v.txt``); the files' checksums are part of the run's
digest.
"""

from __future__ import annotations

import os
from pathlib import Path

from chaintag import recipes

from .config import Run
from .report import fmt, fmt_p, md_table, write_csv

#: Reproduction task -> the recipe chosen for it on dev data (``chaintag train --recipe NAME``): the
#: ``chosen`` table of the library's recipe file.
RECIPE_OF_TASK = recipes.chosen()

#: Rows the preset is compared with: (key under the task, compared at the dev-chosen pass).
BASELINES = (("sapo", False), ("perc-avg", False), ("crf", False))


def parse_resources(items) -> dict[str, list[str]]:
    """``["TASK=FILE[,FILE...]", ...]`` -> ``{task: [file, ...]}``.

    Raises
    ------
    ValueError
        For an item without ``=``, an unknown task, a task given twice or a file that does not exist.
    """
    out: dict[str, list[str]] = {}
    for item in items or ():
        task, sep, files = item.partition("=")
        if not sep or not files:
            raise ValueError(f"--preset-resources {item!r}: expected TASK=FILE[,FILE...]")
        if task not in RECIPE_OF_TASK:
            raise ValueError(f"--preset-resources {item!r}: unknown task {task!r}; choose from "
                             f"{', '.join(RECIPE_OF_TASK)}")
        if task in out:
            raise ValueError(f"--preset-resources: task {task!r} given twice")
        paths = [p for p in files.split(",") if p]
        for p in paths:
            if not os.path.isfile(p):
                raise ValueError(f"--preset-resources {item!r}: no such file: {p}")
        out[task] = paths
    return out


def preset_settings(task: str, resources: dict[str, list[str]] | None = None,
                    data_dir=None) -> tuple[str, str, dict, int]:
    """``(recipe, features, params, epochs)`` of the preset run of ``task`` (its learner: :func:`preset_learner`).

    A recipe that names unlabeled text (``autotags``: folders of the data directory ``data_dir``,
    default :func:`chaintag.data.datasets.resolve_data_dir`) gets an ``@autotags=`` part for each.

    Raises
    ------
    ValueError
        When the recipe reads clusters or vectors and ``resources`` has no files for ``task``, or its
        unlabeled text is not in the data directory.
    """
    from chaintag.features.spec import uses_resources, with_autotags, with_clusters
    name = RECIPE_OF_TASK[task]
    recipe = recipes.settings(name)
    paths = (resources or {}).get(task)
    if uses_resources(recipe["features"]) and not paths:
        raise ValueError(f"task {task!r}: recipe {name!r} ({recipe['features']}) reads word clusters or vectors; "
                         f"give their files with --preset-resources {task}=FILE[,FILE...]")
    features = with_clusters(recipe["features"], paths)
    if recipe.get("autotags"):
        from chaintag.data.datasets import resolve_data_dir
        texts = [os.path.join(resolve_data_dir(data_dir), t) for t in recipe["autotags"]]
        for t in texts:
            if not os.path.exists(t):
                raise ValueError(f"task {task!r}: recipe {name!r} reads the labels of the unlabeled text {t}, "
                                 "which is missing (see --data-dir)")
        features = with_autotags(features, texts)
    params = {k: v for k, v in recipe.items()
              if k not in ("algorithm", "order", "features", "epochs", "autotags")}
    params["random_state"] = 0
    return name, features, params, int(recipe["epochs"])


def preset_learner(task: str) -> str:
    """The learner of ``task``'s recipe: ``sapo``, or ``sapo2`` for a second-order recipe (``order`` 2)."""
    recipe = recipes.settings(RECIPE_OF_TASK[task])
    return "sapo2" if recipe.get("order") == 2 else recipe["algorithm"]


def preset_runs(tasks, resources, data, *, quick: bool = False, data_dir=None) -> list[Run]:
    """One :class:`Run` per task, keyed ``preset/TASK``; ``data(task)`` gives the task's parts (as
    :func:`chaintag_research.sapo._data`). Quick mode trains 3 passes."""
    out = []
    for task in tasks:
        spec = data(task)
        name, features, params, epochs = preset_settings(task, resources, data_dir)
        learner = preset_learner(task)
        shown = "SAPO (n=5)" if learner == "sapo" else "second-order SAPO (n=5)"
        out.append(Run(key=f"preset/{task}", label=f"{shown}, preset `{name}`", task=task, learner=learner,
                       params=params, features=features, epochs=3 if quick else epochs, train=spec["train"],
                       dev=spec["dev"], test=spec["test"], metric=spec["metric"]))
    return out


def presets_section(out_dir: Path, results: dict, tasks, titles: dict, compare) -> list[str]:
    """The report's section on the preset runs (Markdown lines) and ``presets.csv``.

    ``compare(a, b, metric, epoch_a, epoch_b)`` is the reproduction's significance test (a dict with
    ``diff``, ``ar_p``, ``t_p``); ``titles`` maps a task to its title.
    """
    ran = [t for t in tasks if f"preset/{t}" in results]
    if not ran:
        return []
    md = ["## The chosen presets\n",
          "SAPO with the recipe chosen for each task on dev data (`chaintag train --recipe NAME`: attributes, L2, "
          "feature space and passes; n = 5), trained on the same part of the training data as the rows above. "
          "Its test score after the recipe's passes is read once; the other rows at their last pass (the neural "
          "ones at their dev-chosen pass). Differences are preset minus row; p-values (unadjusted): approximate "
          "randomization on the task's score (1000 shuffles) and the paired t-test on per-sentence token "
          "accuracy.\n"]
    csv_rows = []
    for task in ran:
        p = results[f"preset/{task}"]
        metric = p.run.metric
        from chaintag.features.feature_spec import FeatureSpec
        shown = FeatureSpec.parse(p.run.features).without_files()
        rows = [[p.run.label, f"`{shown}`", p.run.epochs, fmt(p.summary["test_last"]), "-",
                 "-", "-", fmt(p.summary["cpu_seconds_per_epoch"], 3)]]
        others = [(f"{task}/{k}", dev) for k, dev in BASELINES]
        others += [(k, True) for k in results if k.startswith(f"neural/{task}/")]
        for key, at_dev in others:
            r = results.get(key)
            if r is None:
                continue
            epoch = r.summary["best_epoch"] if at_dev else None
            if at_dev and not epoch:
                continue
            c = compare(p, r, metric, None, epoch)
            score = r.summary["test_at_best"] if at_dev else r.summary["test_last"]
            passes = f"{epoch} of {r.run.epochs}" if at_dev else r.run.epochs
            rows.append([r.run.label, f"`{r.run.features}`" if isinstance(r.run.features, str) else "-", passes,
                         fmt(score), f"{c['diff']:+.2f}", fmt_p(c["ar_p"]), fmt_p(c["t_p"]),
                         fmt(r.summary["cpu_seconds_per_epoch"], 3)])
            csv_rows.append([task, p.run.label, r.run.label, p.summary["test_last"], score, c["diff"], c["ar_p"],
                             c["t_p"], p.summary["cpu_seconds_per_epoch"], r.summary["cpu_seconds_per_epoch"]])
        name = "F1" if metric == "f1" else "accuracy"
        md.append(f"### {titles[task]}\n")
        md.append(md_table(["system", "attributes", "passes", f"test {name}", "preset - row", "AR p", "t-test p",
                            "CPU s / pass"], rows, align="llrrrrrr"))
    write_csv(out_dir / "presets.csv", ["task", "preset", "row", "preset_test", "row_test", "preset_minus_row",
                                        "ar_p", "t_test_p", "preset_cpu_seconds_per_pass",
                                        "row_cpu_seconds_per_pass"], csv_rows)
    return md
