"""Defaults per kind of task (POS, chunking, NER), each chosen on the dev sets of all tasks of its kind.

A user who runs ``chaintag train --train T`` gets the attributes of the kind of task detected from the data
(:func:`chaintag.api.train_checks.default_preset`). Which attributes, and which learner, is chosen here as one
choice per kind that wins on the **sum** of the dev scores of every handed task of that kind, never one
per dataset, and twice: without resources, and with the word vectors that the data directory offers
(GloVe 6B 50d, found automatically; their k-means ids at 64, 256 and 1024 clusters, cached).

Tasks (training data and dev data only; the test sets are never read):

- POS: ``ptb_sample`` (its dev file) and UD English EWT XPOS (its dev file);
- chunking: CoNLL-2000 and its base-NP version (the last 10 % of each training file as dev);
- NER: JNLPBA (the last 10 % of its training file as dev: whole abstracts at the end of the file), and the
  proper names of CoNLL-2000 (the last 10 % as dev) and of UD English EWT (its dev file), built from their
  gold POS tags without the POS column (:mod:`chaintag_research.names_tasks`): newswire and web text beside
  biomedical text.

"With resources" is what ``chaintag train`` does with no option: a resource is read only where it holds at
least :data:`chaintag.resources.coverage.MIN_COVERAGE` of the training word types (the data's language and
domain); a task whose words the resource does not cover scores the candidate's attributes without it
(:func:`effective`).

Every candidate trains through :func:`chaintag.train` (what ``chaintag train`` does) for at most
:data:`EPOCHS` epochs with the epoch chosen on dev, the learner's own defaults otherwise. One JSON line per
trial goes to ``trials.jsonl`` in the output folder (a rerun skips the trials already there), then
``README.md`` and ``choices.json``.

Run ``python -m chaintag_research.kind_defaults OUT [--data-dir DIR]``.
"""

from __future__ import annotations

import argparse
import json
import re
import os
import sys
import time
from pathlib import Path

import numpy as np

from .report import fmt, md_table

#: Most epochs of every trial (the epoch is chosen on dev).
EPOCHS = 20
#: The tasks of each kind: (name, training data, dev data or the fraction of the training file held out).
TASKS = {
    "pos": [("ptb_sample", "ptb_sample:train", "ptb_sample:dev"),
            ("ud_en_ewt", "ud_en_ewt:train", "ud_en_ewt:dev")],
    "chunking": [("conll2000", "conll2000:train", 0.1), ("conll2000_np", "conll2000_np:train", 0.1)],
    "ner": [("jnlpba", "jnlpba:train", 0.1)],
}
#: The NER tasks built from the handed POS data (:mod:`chaintag_research.names_tasks`), added to
#: :data:`TASKS` and :data:`TEST` by :func:`add_names_tasks`.
NAMES = ("wsj_names", "ewt_names")
#: Kinds whose attributes are chosen on some of their tasks only: the proper-name tasks have one entity type,
#: so they cannot judge the attributes that tell entity types apart (the gazetteer of the training data's
#: entity strings). NER's attributes are chosen on JNLPBA; every NER task then weighs the learner and the
#: resources added to those attributes.
ATTRIBUTE_TASKS = {"ner": ("jnlpba",)}
ALGORITHMS = ("perceptron", "sapo")
#: Epoch budgets compared (the best dev score within the first k epochs of each trial's dev curve).
BUDGETS = (10, 20)


def _km(offsets=range(-1, 2), ks=(64, 256, 1024)) -> list[str]:
    return [f"km{k}(norm(lower(w[{o}])))" for o in offsets for k in ks]


#: The unlabeled text of the data directory for each kind (its domain): word2vec vectors, k-means ids and
#: hierarchy paths induced from it (``--resources FOLDER``, cached).
TEXT = {"pos": "unlabeled_en", "chunking": "unlabeled_en", "ner": "unlabeled_bio"}


def add_names_tasks(data_dir=None) -> None:
    """Build the proper-name tasks (once, in the user's cache folder) and add them to :data:`TASKS` and
    :data:`TEST`."""
    from chaintag.models.cache import cache_dir
    from .names_tasks import build
    if any(t[0] in NAMES for t in TASKS["ner"]):
        return
    built = build(cache_dir() / "research" / "names_tasks", data_dir)
    for task in NAMES:
        paths = built[task]
        TASKS["ner"].append((task, paths["train"], paths["dev"] if paths["dev"] else 0.1))
        TEST[task] = paths["test"]


def text_for(task_train: str, data_dir=None):
    """The folder of unlabeled text that ``chaintag train`` would take for this training data (the data
    directory's folder holding the most of its word types seen twice) and that share."""
    return _coverage(task_train, data_dir, "text")


def _coverage(train: str, data_dir, which: str):
    """``(path, share)`` of the best-covering folder of unlabeled text (``which="text"``) or of the GloVe
    vectors (``"vectors"``) for the training data ``train``, memoized."""
    key = (train, str(data_dir), which)
    if key not in _COVERAGE:
        import chaintag
        from chaintag.resources.coverage import covers, training_types
        from chaintag.resources.discover import find_known_resource, known_text_folders
        corpus = chaintag.load_corpus(train, data_dir=data_dir)
        column = list(corpus.columns).index("word") if "word" in corpus.columns else 0
        types = training_types(corpus.tokens, column)
        if which == "text":
            options = [str(p) for p, _ in known_text_folders(data_dir)]
        else:
            found = find_known_resource(data_dir, needs=("km",))
            options = [str(found[0])] if found is not None else []
        _COVERAGE[key] = max(((p, covers(p, types)) for p in options), key=lambda ps: ps[1], default=(None, 0.0))
    return _COVERAGE[key]


_COVERAGE: dict = {}


def _clusters(offsets=range(-1, 2)) -> list[str]:
    return [f"brown{k}(w[{o}])" for o in offsets for k in (4, 6, 10, 20)] + \
        [f"km{k}(w[{o}])" for o in offsets for k in (256, 1024)]


def candidates(kind: str, data_dir=None, train: str | None = None) -> list[tuple[str, bool, object]]:
    """``(name, needs_resources, features)`` of a kind: its attribute sets, without resources, with the GloVe
    vectors' k-means ids, and with the clusters and paths induced from the kind's unlabeled text (for NER,
    given the training data ``train``: the folder that covers its words best, :func:`text_for`)."""
    from chaintag.data.location import resolve_data_dir
    from chaintag.features.templates import PRESETS
    base = {"pos": ["pos"], "chunking": ["chunking"], "ner": ["ner", "ner+affixes", "ner+gaz"]}[kind]
    out = [(name, False, name) for name in base]
    if kind == "ner":  # the document attributes (abbr, docnext, doccap: from each file's document markers;
        # measured and reported, never a default: :data:`NOT_DEFAULTS`)
        out += [("ner+doc", False, "ner+doc"),
                ("ner+gaz+doc", False, list(dict.fromkeys(list(PRESETS["ner+gaz"]) + list(PRESETS["ner+doc"]))))]
    out += [(f"{name} + km(GloVe)", True, list(PRESETS[name]) + _km()) for name in base]
    text = resolve_data_dir(data_dir) / TEXT[kind]
    if kind == "ner" and train is not None:
        best = text_for(train, data_dir)[0]
        text = Path(best) if best else text
    if text.is_dir():
        out += [(f"{name} + clusters({text.name})", True,
                 ";".join(list(PRESETS[name]) + _clusters()) + f";@clusters={text}") for name in base]
    return out


def _trial(task, train, dev, algorithm, features, data_dir, params=None) -> dict:
    import chaintag
    settings = dict(algorithm=algorithm, features=features, epochs=EPOCHS, data_dir=data_dir, quiet=True,
                    **(params or {}))
    if isinstance(dev, float):
        settings["dev_fraction"] = dev
    else:
        settings["dev"] = dev
    t0 = time.perf_counter()
    result = chaintag.train(train, **settings)
    rep = result.report
    hist = rep["history"]
    best = rep.get("best_epoch")
    dev_scores = [h.get("dev_score") for h in hist]
    return {"best_epoch": best, "dev_score": max(s for s in dev_scores if s is not None),
            "dev_curve": dev_scores, "seconds": time.perf_counter() - t0,
            "n_features": rep.get("n_features")}


#: Candidates measured but never chosen as a default: the document attributes need document boundaries
#: (marker lines) that many users' files lack, and text tagged as a stream would be read as one document.
NOT_DEFAULTS = frozenset({"ner+doc", "ner+gaz+doc"})
#: Learners measured but never chosen as a default: the second-order SAPO decodes over label pairs, so its
#: tagging costs about as many times the first-order's as there are labels (23 for CoNLL-2000's chunks), and
#: its dev sums came out level with the first-order learner's (docs/results/kind_defaults).
NOT_DEFAULT_LEARNERS = frozenset({"sapo2"})


def _record_trial(log_path: Path, key: tuple, needs: bool, train, dev, features, data_dir, params=None,
                  **extra) -> dict:
    """Train one trial (:func:`_trial`) for ``key = (kind, task, algorithm, candidate)``, say its dev score on
    stderr and append its record to ``log_path``; returns the record."""
    rec = dict(zip(("kind", "task", "algorithm", "candidate"), key), resources=needs, **extra,
               **_trial(key[1], train, dev, key[2], features, data_dir, params))
    print(f"{' '.join(key)}: dev {rec['dev_score']:.2f} (epoch {rec['best_epoch']}, {rec['seconds']:.0f} s)",
          file=sys.stderr, flush=True)
    with open(log_path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")
    return rec


def _read_trials(log_path: Path) -> list[dict]:
    return [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line.strip()]


def first_round(trials: list[dict], data_dir=None) -> dict:
    """:func:`choose` over the first round alone: the perceptron and SAPO on the candidate attributes."""
    return choose([r for r in trials if "variant" not in r and r["algorithm"] in ALGORITHMS], data_dir)


def _first_round_attributes(trials: list[dict], kind: str, data_dir, train: str):
    """``(candidate, needs_resources, features)`` of each attribute set the first round chose for ``kind``
    (without and with resources), for the training data ``train`` (the name as its trials have it)."""
    first = first_round(trials, data_dir)
    features = {generic(n): (n, needs, f) for n, needs, f in candidates(kind, data_dir, train)}
    for cand in sorted({first[kind][k]["candidate"] for k in ("plain", "resources") if k in first.get(kind, {})}):
        yield features[cand]


_CLUSTERS = re.compile(r"clusters\([^)]*\)")
_RESOURCE = re.compile(r" \+ (km\w*\(GloVe\)|clusters\([^)]*\))")


def generic(candidate: str) -> str:
    """A candidate's name with the folder of unlabeled text left out (``clusters(text)``: each task reads the
    folder that covers its words best)."""
    return _CLUSTERS.sub("clusters(text)", candidate)


def effective(trials: list[dict], data_dir=None) -> list[dict]:
    """The trials as ``chaintag train`` with no option would run them: candidate names :func:`generic`; on a
    task whose training words a resource does not cover (less than
    :data:`chaintag.resources.coverage.MIN_COVERAGE` of the types seen twice: the default does not take it),
    every candidate that reads it scores as the trial of the same attributes without it (same learner and
    settings), marked ``"not_taken"``, whether or not it was run there; it is left out where that trial is
    missing."""
    from chaintag.resources.coverage import MIN_COVERAGE
    train = {t: tr for ts in TASKS.values() for t, tr, _ in ts}
    tasks = {k: [t for t, _, _ in ts] for k, ts in TASKS.items()}
    named = [dict(r, candidate=generic(r["candidate"])) for r in trials]
    by_key = {(r["kind"], r["task"], r["algorithm"], r["candidate"]): r for r in named}

    def taken(task, candidate):
        which = "vectors" if "(GloVe)" in candidate else "text"
        return task not in train or _coverage(train[task], data_dir, which)[1] >= MIN_COVERAGE

    out = [r for r in named if not r["resources"] or taken(r["task"], r["candidate"])]
    for kind, alg, cand in sorted({(r["kind"], r["algorithm"], r["candidate"]) for r in named if r["resources"]}):
        for task in tasks.get(kind, ()):
            if not taken(task, cand):
                plain = by_key.get((kind, task, alg, _RESOURCE.sub("", cand)))
                if plain is not None:
                    out.append(dict(plain, candidate=cand, resources=True, not_taken=True))
    return out


def run(out_dir, data_dir=None, kinds=None, tasks=None) -> Path:
    """Run every trial not yet in ``out_dir/trials.jsonl`` (of the named ``tasks`` only, when given), then write
    the report; returns its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    log_path = out_dir / "trials.jsonl"
    done = {}
    if log_path.exists():
        for line in log_path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            done[(rec["kind"], rec["task"], rec["algorithm"], rec["candidate"])] = rec
    from chaintag.resources.discover import find_known_resource
    has_vectors = find_known_resource(data_dir, needs=("km",)) is not None
    for kind in kinds or TASKS:
        for task, train, dev in TASKS[kind]:
            if tasks and task not in tasks:
                continue
            for name, needs, features in candidates(kind, data_dir, train):
                if needs and not has_vectors and "GloVe" in name:
                    continue
                if task in NAMES and name in NOT_DEFAULTS:  # no document markers in these files
                    continue
                for algorithm in ALGORITHMS:
                    key = (kind, task, algorithm, name)
                    if key not in done:
                        done[key] = _record_trial(log_path, key, needs, train, dev, features, data_dir)
    return write_report(out_dir, list(done.values()), data_dir)


#: The second round: SAPO's settings that its paper and our recipes varied per task (L2 strength: the paper
#: used 2 for POS, 5 for Bio-NER, 1 for chunking; the ``all`` feature space of the recipes), tried on the
#: attributes chosen in the first round, with and without resources. A candidate ``ATTRS | VARIANT``.
VARIANTS = {"l2=2": {"l2": 2.0}, "l2=5": {"l2": 5.0}, "all": {"feature_space": "all"},
            "all, l2=2": {"feature_space": "all", "l2": 2.0}}


def run_variants(out_dir, data_dir=None, kinds=None) -> Path:
    """The second round (:data:`VARIANTS`) on each kind's first-round choices (``choices.json``), SAPO only,
    appended to ``trials.jsonl`` (a rerun skips the trials there); then the report."""
    log_path = Path(out_dir) / "trials.jsonl"
    trials = _read_trials(log_path)
    done = {(r["kind"], r["task"], r["algorithm"], r["candidate"]) for r in trials}
    for kind in kinds or TASKS:
        for task, train, dev in TASKS[kind]:
            for cand, needs, feats in _first_round_attributes(trials, kind, data_dir, train):
                for variant, params in VARIANTS.items():
                    key = (kind, task, "sapo", f"{cand} | {variant}")
                    if key not in done:
                        trials.append(_record_trial(log_path, key, needs, train, dev, feats, data_dir, params,
                                                    variant=variant))
    return write_report(Path(out_dir), trials, data_dir)


def choose_variant(trials: list[dict], data_dir=None) -> dict:
    """Per kind, SAPO's settings (a :data:`VARIANTS` key, or ``""`` for its defaults) with the highest dev
    score summed over the kind's tasks **and** both resource conditions, each condition on the attributes
    the first round chose for it: one setting of the learner per kind of task, whatever resources are given.

    Returns
    -------
    dict
        ``{kind: {"variant", "params", "sum", "sums": {variant: sum}}}`` for the kinds with every trial.
    """
    first = first_round(trials, data_dir)
    by_key = {(r["kind"], r["task"], r["algorithm"], r["candidate"]): r for r in effective(trials, data_dir)}
    out = {}
    for kind, tasks in TASKS.items():
        if kind not in first:
            continue
        cands = [first[kind][c]["candidate"] for c in ("plain", "resources") if c in first[kind]]
        sums = {}
        for variant in ("", *VARIANTS):
            recs = [by_key.get((kind, t, "sapo", f"{c} | {variant}" if variant else c)) for c in cands
                    for t, _, _ in tasks]
            if all(recs):
                sums[variant] = sum(within(r, EPOCHS) for r in recs)
        if sums:
            best = max(sums, key=lambda v: (sums[v], v == ""))  # the learner's defaults on a tie
            out[kind] = {"variant": best, "params": VARIANTS.get(best, {}), "sum": sums[best], "sums": sums}
    return out


#: The third round, for the kinds whose choice with resources reads the word vectors (NER, POS): their k-means
#: ids of a wider window (w[-2..2]) and (NER) the vectors' values (``vec`` of w[-1..1]) beside the k-means ids,
#: on the attributes and SAPO's settings chosen with resources, on the tasks whose words the vectors cover
#: (on the others they are not taken).
WINDOWS = {"ner": {"km5(GloVe)": lambda: _km(range(-2, 3)),
                   "kmvec(GloVe)": lambda: _km() + [f"vec(norm(lower(w[{o}])))" for o in range(-1, 2)]},
           "pos": {"km5(GloVe)": lambda: _km(range(-2, 3))}}


def run_windows(out_dir, data_dir=None) -> Path:
    """The third round (:data:`WINDOWS`), SAPO with the settings chosen for the kind (``choose_variant``),
    appended to ``trials.jsonl`` (a rerun skips the trials there); then the report."""
    from chaintag.features.templates import PRESETS
    from chaintag.resources.coverage import MIN_COVERAGE
    log_path = Path(out_dir) / "trials.jsonl"
    trials = _read_trials(log_path)
    done = {(r["kind"], r["task"], r["algorithm"], r["candidate"]) for r in trials}
    for kind, extra in WINDOWS.items():
        base = _RESOURCE.sub("", first_round(trials, data_dir)[kind]["resources"]["candidate"])
        variant = choose_variant(trials, data_dir)[kind]
        for task, train, dev in TASKS[kind]:
            if _coverage(train, data_dir, "vectors")[1] < MIN_COVERAGE:
                continue
            for name, templates in extra.items():
                key = (kind, task, "sapo", f"{base} + {name}" + (f" | {variant['variant']}" if variant["variant"] else ""))
                if key not in done:
                    trials.append(_record_trial(log_path, key, True, train, dev, list(PRESETS[base]) + templates(),
                                                data_dir, variant["params"], variant=variant["variant"]))
    return write_report(Path(out_dir), trials, data_dir)


def run_learners(out_dir, data_dir=None, kinds=None, learners=("crf",)) -> Path:
    """Other learners (default: the CRF, trained by SGD, its own defaults) on each kind's first-round
    attributes (``choices.json``), with and without resources, appended to ``trials.jsonl`` (a rerun skips
    the trials there); :func:`choose` then weighs them with the rest. Then the report."""
    log_path = Path(out_dir) / "trials.jsonl"
    trials = _read_trials(log_path)
    done = {(r["kind"], r["task"], r["algorithm"], r["candidate"]) for r in trials}
    for kind in kinds or TASKS:
        for task, train, dev in TASKS[kind]:
            for cand, needs, feats in _first_round_attributes(trials, kind, data_dir, train):
                for learner in learners:
                    key = (kind, task, learner, cand)
                    if key not in done:
                        trials.append(_record_trial(log_path, key, needs, train, dev, feats, data_dir))
    return write_report(Path(out_dir), trials, data_dir)


def within(rec: dict, budget: int) -> float:
    """A trial's best dev score within its first ``budget`` epochs (what that many epochs, dev-chosen, give)."""
    return max(s for s in rec["dev_curve"][:budget] if s is not None)


def choose(trials: list[dict], data_dir=None) -> dict:
    """Per kind and resource setting, the (algorithm, candidate, epoch budget) with the highest summed dev
    score over the kind's tasks (only candidates run on every task of the kind); and the one epoch budget
    of each learner with the highest dev sum over every kind's trials (``epochs``).

    Returns
    -------
    dict
        ``{kind: {"plain": {...}, "resources": {...}}, "epochs": {algorithm: budget}}``, each choice
        ``{"algorithm", "candidate", "epochs", "sum", "scores"}``.
    """
    out = {}
    seen = effective(trials, data_dir)
    for kind, tasks in TASKS.items():
        names = [t[0] for t in tasks]
        base = None  # the attributes chosen on the kind's ATTRIBUTE_TASKS (then only the learner and resources)
        if kind in ATTRIBUTE_TASKS:
            scores = {}
            for rec in seen:
                if rec["kind"] == kind and not rec["resources"] and rec["candidate"] not in NOT_DEFAULTS \
                        and rec["task"] in ATTRIBUTE_TASKS[kind] and rec["algorithm"] not in NOT_DEFAULT_LEARNERS:
                    scores.setdefault((rec["algorithm"], rec["candidate"]), {})[rec["task"]] = within(rec, EPOCHS)
            full = {k: v for k, v in scores.items() if set(v) == set(ATTRIBUTE_TASKS[kind])}
            if full:
                base = max(full, key=lambda k: (sum(full[k].values()), k))[1]
        for setting, with_res in (("plain", False), ("resources", True)):
            sums = {}
            for rec in seen:
                if rec["kind"] != kind or (rec["resources"] and not with_res) or rec["candidate"] in NOT_DEFAULTS \
                        or rec["algorithm"] in NOT_DEFAULT_LEARNERS:
                    continue
                if base is not None and _RESOURCE.sub("", rec["candidate"].split(" | ")[0]) != base:
                    continue
                for budget in BUDGETS:
                    sums.setdefault((rec["algorithm"], rec["candidate"], budget), {})[rec["task"]] = \
                        within(rec, budget)
            full = {k: v for k, v in sums.items() if set(v) == set(names)}
            if not full:
                continue
            # on a tie, the attributes without a resource (a resource not taken scores as none)
            best = max(full, key=lambda k: (sum(full[k].values()), _RESOURCE.search(k[1]) is None, k))
            out.setdefault(kind, {})[setting] = {"algorithm": best[0], "candidate": best[1], "epochs": best[2],
                                                 "sum": sum(full[best].values()), "scores": full[best]}
    epochs = {}
    for alg in ALGORITHMS:
        mine = [r for r in trials if r["algorithm"] == alg]
        if mine:
            epochs[alg] = max(BUDGETS, key=lambda b: (sum(within(r, b) for r in mine), -b))
    out["epochs"] = epochs
    return out


def write_report(out_dir: Path, trials: list[dict], data_dir=None) -> Path:
    """``README.md`` (a table per kind, the choices) and ``choices.json``."""
    chosen = choose(trials, data_dir)
    md = ["# Defaults per kind of task, chosen on the dev sets of all tasks of the kind\n",
          "Generated by `python -m chaintag_research.kind_defaults`. Every trial trains through "
          f"`chaintag.train` for at most {EPOCHS} epochs, the epoch chosen on dev, the learner's defaults "
          "otherwise; dev data only (ptb_sample, UD EWT and the proper names of UD EWT: their dev files; "
          "CoNLL-2000, its base-NP version, its proper names and JNLPBA: the last 10 % of the training file). "
          "The proper-name tasks (`wsj_names`, `ewt_names`: maximal runs of NNP / NNPS tokens as one entity "
          "type, the POS column dropped; `chaintag_research.names_tasks`) put newswire and web text beside "
          "JNLPBA's biomedical abstracts. A choice is one setting per kind, the highest "
          "**sum** of dev scores over the kind's tasks; for NER, whose name tasks have one entity type, the "
          "attributes are chosen on JNLPBA and the learner and resources on the sum of all three. \"With "
          "resources\" lets the candidates read the GloVe "
          "vectors of the data directory (k-means ids of w[-1..1] at 64, 256, 1024 clusters) or the clusters "
          "induced from its unlabeled text (the folder that covers the task's words best: `unlabeled_en` for "
          "the English newswire and web sets, `unlabeled_bio` for JNLPBA; word2vec, k-means ids of w[-1..1] at "
          "256 and 1024 clusters and 4, 6, 10, 20-bit prefixes of their hierarchy paths; `--resources FOLDER`), "
          "as `chaintag train` does with no option: a resource that holds less than 80 % of a task's training "
          "word types seen twice is not taken, and the task then scores the same attributes without it "
          "(marked `*`: JNLPBA, 72.4 % in `unlabeled_bio`, 72.5 % in GloVe).\n"]
    for kind, tasks in TASKS.items():
        names = [t[0] for t in tasks]
        rows = {}
        for rec in effective(trials, data_dir):
            if rec["kind"] == kind:
                rows.setdefault((rec["algorithm"], rec["candidate"]), {})[rec["task"]] = rec
        if not rows:
            continue
        md.append(f"## {kind}\n")
        table = []
        for (alg, cand), recs in sorted(rows.items(), key=lambda kv: -sum(r["dev_score"] for r in kv[1].values())):
            full = len(recs) == len(names)
            table.append([alg, cand, *(f"{fmt(recs[n]['dev_score'])} ({recs[n]['best_epoch']})"
                                       + (" *" if recs[n].get("not_taken") else "") if n in recs else "-"
                                       for n in names),
                          *(fmt(sum(within(r, b) for r in recs.values())) if full else "-" for b in BUDGETS),
                          fmt(sum(r["seconds"] for r in recs.values()), 0)])
        md.append(md_table(["learner", "attributes", *[f"{n} dev (best epoch)" for n in names],
                            *[f"sum, {b} epochs" for b in BUDGETS], "seconds"], table))
        if any(rec["kind"] == kind and rec["candidate"] in NOT_DEFAULTS for rec in trials):
            md.append(f"\n- Measured, not a default candidate: {', '.join(sorted(NOT_DEFAULTS))} (the document "
                      "attributes need document boundaries, which many files lack; a stream of text would be "
                      "read as one document).")
        if any(rec["kind"] == kind and rec["algorithm"] in NOT_DEFAULT_LEARNERS for rec in trials):
            md.append(f"\n- Measured, not a default learner: {', '.join(sorted(NOT_DEFAULT_LEARNERS))} (second order: "
                      "its tagging costs about as many times the first-order learner's as there are labels; "
                      "its rows above, with SAPO's settings where named, are level with SAPO's or below).")
        for setting, title in (("plain", "without resources"), ("resources", "with the data directory's resources")):
            c = chosen.get(kind, {}).get(setting)
            if c:
                md.append(f"\n- Chosen {title}: **{c['algorithm']}, {c['candidate']}, {c['epochs']} epochs** "
                          f"(sum {fmt(c['sum'])}).")
        md.append("")
    variants = choose_variant(trials, data_dir)
    if any(len(v["sums"]) > 1 for v in variants.values()):
        md.append("## SAPO's settings per kind (second round)\n")
        md.append("`kind_defaults --variants`: SAPO's L2 strength (the paper's 2 for POS, 5 for Bio-NER) and the "
                  "`all` feature space (every attribute-label pair) on the attributes chosen above, with and "
                  "without resources. One setting per kind: the highest dev score summed over the kind's tasks "
                  "and both conditions (the learner's defaults on a tie). The library declares it as "
                  "`SAPO.kind_params`, applied when the kind's default attributes are used. (The \"Chosen\" "
                  "lines of each kind above name the best single trial of each condition, whose SAPO settings "
                  "may differ between the conditions; the library keeps one setting per kind.)\n")
        names = ["SAPO's defaults (l2=1, gold)", *VARIANTS]
        rows = [[kind, *(fmt(v["sums"][k]) if k in v["sums"] else "-" for k in ("", *VARIANTS)),
                 v["variant"] or "SAPO's defaults"] for kind, v in variants.items()]
        md.append(md_table(["kind", *names, "chosen"], rows))
        md.append("")
    chosen["variants"] = variants
    third = sorted({n for kind, extra in WINDOWS.items() for n in extra for r in trials
                    if r["kind"] == kind and f"+ {n}" in r["candidate"]})
    if third:
        md.append("## Third round (NER, POS)\n")
        md.append(f"`kind_defaults --windows`: {', '.join(third)} (the word vectors' k-means ids of w[-2..2]; for "
                  "NER also the ids of w[-1..1] with the vectors' values) on the attributes and SAPO's settings "
                  "chosen above, on the tasks whose words the vectors cover; weighed with the rest in each "
                  "kind's table and its choice with resources.\n")
    md.append("Epoch budget of each learner over every trial of every kind (highest summed dev score, "
              "the shorter on ties): " + ", ".join(f"{a}: {b}" for a, b in chosen["epochs"].items()) + ".\n")
    md.extend(_test_section(out_dir))
    (out_dir / "choices.json").write_text(json.dumps(chosen, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    path = out_dir / "README.md"
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return path


#: Test data of every task, scored once with the chosen default (and the averaged perceptron on the same
#: preset, for comparison) after the choice was made on dev.
TEST = {"conll2000": "conll2000:test", "conll2000_np": "conll2000_np:test", "ptb_sample": "ptb_sample:test",
        "ud_en_ewt": "ud_en_ewt:test", "jnlpba": "jnlpba:test"}


def score_test(out_dir, data_dir=None, resources_only: bool = False) -> Path:
    """Train the default of ``chaintag train`` (no ``--features``: the kind's preset; SAPO; 20 epochs, the
    epoch chosen on the same dev data as the trials) on every task and score its test set once; the
    averaged perceptron on the same preset beside it; then each kind's choice with resources where it differs.
    One JSON line per run in ``out_dir/test.jsonl`` (``resources_only``: only the latter, appended)."""
    import chaintag
    out = Path(out_dir) / "test.jsonl"
    with open(out, "a" if resources_only else "w", encoding="utf-8") as fh:
        for kind, tasks in TASKS.items():
            for task, train, dev in tasks:
                for alg in () if resources_only else ("sapo", "perceptron"):
                    kw = dict(dev_fraction=dev) if isinstance(dev, float) else dict(dev=dev)
                    t0 = time.perf_counter()
                    r = chaintag.train(train, test=TEST[task], algorithm=alg, epochs=EPOCHS, data_dir=data_dir,
                                       resources=["none"], quiet=True, **kw)
                    fh.write(json.dumps({"task": task, "algorithm": alg, "features": r.report.get("features"),
                                         "best_epoch": r.report["best_epoch"], "test_f1": r.test.f1,
                                         "test_accuracy": r.test.accuracy,
                                         "seconds": time.perf_counter() - t0}) + "\n")
                    fh.flush()
                # the kind's choice with resources, where it differs from the plain one (SAPO)
                chosen = json.loads((Path(out_dir) / "choices.json").read_text(encoding="utf-8"))[kind]
                if chosen["resources"]["candidate"] == chosen["plain"]["candidate"]:
                    continue
                features = dict((generic(n), f) for n, _, f in candidates(kind, data_dir, train))[
                    chosen["resources"]["candidate"]]
                kw = dict(dev_fraction=dev) if isinstance(dev, float) else dict(dev=dev)
                t0 = time.perf_counter()
                r = chaintag.train(train, test=TEST[task], algorithm=chosen["resources"]["algorithm"], epochs=EPOCHS,
                                   features=features, data_dir=data_dir, quiet=True, **kw)
                fh.write(json.dumps({"task": task, "algorithm": chosen["resources"]["algorithm"],
                                     "features": chosen["resources"]["candidate"], "resources": True,
                                     "best_epoch": r.report["best_epoch"], "test_f1": r.test.f1,
                                     "test_accuracy": r.test.accuracy, "seconds": time.perf_counter() - t0}) + "\n")
                fh.flush()
    return out


#: The learners set beside SAPO's default on the test sets, on the same preset and epoch budget.
RIVALS = ("perceptron", "crf")


def test_significance(out_dir, data_dir=None, rivals=RIVALS, resources: bool = False, tasks=None) -> Path:
    """SAPO's default against each rival learner (averaged perceptron, CRF) on the same preset, on every
    task's test set, scored once: SAPO trained once per task (seeded: the model of :func:`score_test`), each
    rival the same way (20 epochs, the epoch chosen on the same dev data); their per-sentence test counts
    compared by approximate randomization (1000 shuffles, seed 0) on the task's score and a paired t-test on
    per-sentence accuracy. One JSON line per task and rival in ``out_dir/test_significance.jsonl``; with
    ``resources``, the defaults that read the data directory's resources (what ``chaintag train`` does with
    no option: :func:`chaintag.api.train_resources.default_resources`), in
    ``out_dir/test_significance_resources.jsonl``. ``tasks``: these tasks only, appended to the file (the
    others' lines are kept)."""
    import chaintag
    from .significance import approximate_randomization, paired_t_test, sentence_accuracy, sentence_stats
    out = Path(out_dir) / ("test_significance_resources.jsonl" if resources else "test_significance.jsonl")
    only = tasks
    with open(out, "a" if only else "w", encoding="utf-8") as fh:
        for kind, tasks in TASKS.items():
            for task, train, dev in tasks:
                if only and task not in only:
                    continue
                test = chaintag.load_corpus(TEST[task], data_dir=data_dir)
                kw = dict(dev_fraction=dev) if isinstance(dev, float) else dict(dev=dev)
                if not resources:
                    kw["resources"] = ["none"]
                runs = {}
                for alg in ("sapo", *rivals):
                    t0 = time.perf_counter()
                    r = chaintag.train(train, algorithm=alg, epochs=EPOCHS, data_dir=data_dir, quiet=True, **kw)
                    runs[alg] = (sentence_stats(test.labels, r.model.predict(test.tokens)), r.report["best_epoch"],
                                 time.perf_counter() - t0, r.model.features.split(";@")[0],
                                 f"{r.model.feature_space}, l2={getattr(r.model, 'l2', '-')}")
                    print(f"{task} {alg}: epoch {r.report['best_epoch']}, {runs[alg][2]:.0f} s", file=sys.stderr,
                          flush=True)
                metric = "accuracy" if kind == "pos" else "f1"
                for alg in rivals:
                    ar = approximate_randomization(runs["sapo"][0], runs[alg][0], metric=metric, n_shuffles=1000,
                                                   random_state=0)
                    tt = paired_t_test(sentence_accuracy(runs["sapo"][0]), sentence_accuracy(runs[alg][0]))
                    fh.write(json.dumps({"task": task, "metric": metric, "rival": alg, "sapo": ar.score_a,
                                         "rival_score": ar.score_b, "difference": ar.difference,
                                         "ar_p": ar.p_value, "t_p": tt.p_value, "rival_epoch": runs[alg][1],
                                         "features": runs["sapo"][3], "sapo_epoch": runs["sapo"][1],
                                         "sapo_seconds": runs["sapo"][2], "rival_seconds": runs[alg][2],
                                         "sapo_settings": runs["sapo"][4], "rival_settings": runs[alg][4]}) + "\n")
                fh.flush()
    return out


#: Epochs of the BiLSTM-CRF beside the defaults (the epoch chosen on the same dev data).
NEURAL_EPOCHS = 10


def test_neural(out_dir, data_dir=None, epochs: int = NEURAL_EPOCHS) -> Path:
    """The BiLSTM-CRF with the data directory's GloVe vectors (what ``chaintag train -a bilstm-crf`` takes by
    default), ``epochs`` epochs with the epoch chosen on the same dev data, beside SAPO's default with the
    data directory's resources, on every task's test set, scored once; approximate randomization (1000
    shuffles) and a paired t-test on per-sentence accuracy; the median seconds (wall and CPU) per epoch of
    both. One JSON line per task in ``out_dir/test_neural.jsonl`` (a rerun skips the tasks there)."""
    import chaintag
    from .significance import approximate_randomization, paired_t_test, sentence_accuracy, sentence_stats
    out = Path(out_dir) / "test_neural.jsonl"
    done = {json.loads(line)["task"] for line in out.read_text(encoding="utf-8").splitlines()} if out.exists() else set()
    for kind, tasks in TASKS.items():
        for task, train, dev in tasks:
            if task in done:
                continue
            test = chaintag.load_corpus(TEST[task], data_dir=data_dir)
            kw = dict(dev_fraction=dev) if isinstance(dev, float) else dict(dev=dev)
            runs = {}
            for alg, n in (("sapo", EPOCHS), ("bilstm-crf", epochs)):
                t0 = time.perf_counter()
                r = chaintag.train(train, algorithm=alg, epochs=n, data_dir=data_dir, quiet=True, **kw)
                hist = r.model.history_
                runs[alg] = {"stats": sentence_stats(test.labels, r.model.predict(test.tokens)),
                             "epoch": r.report["best_epoch"], "seconds": time.perf_counter() - t0,
                             "epoch_seconds": float(np.median([h["seconds"] for h in hist])),
                             "epoch_cpu_seconds": float(np.median([h.get("cpu_seconds", np.nan) for h in hist]))}
                print(f"{task} {alg}: epoch {runs[alg]['epoch']}, {runs[alg]['seconds']:.0f} s", file=sys.stderr,
                      flush=True)
            metric = "accuracy" if kind == "pos" else "f1"
            a, b = runs["sapo"], runs["bilstm-crf"]
            ar = approximate_randomization(a["stats"], b["stats"], metric=metric, n_shuffles=1000, random_state=0)
            tt = paired_t_test(sentence_accuracy(a["stats"]), sentence_accuracy(b["stats"]))
            rec = {"task": task, "metric": metric, "sapo": ar.score_a, "bilstm_crf": ar.score_b,
                   "difference": ar.difference, "ar_p": ar.p_value, "t_p": tt.p_value,
                   **{f"{k}_{f}": v[f] for k, v in (("sapo", a), ("bilstm_crf", b))
                      for f in ("epoch", "seconds", "epoch_seconds", "epoch_cpu_seconds")}}
            with open(out, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")
    return out


def _neural_section(out_dir: Path) -> list[str]:
    path = out_dir / "test_neural.jsonl"
    if not path.exists():
        return []
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [[r["task"], r["metric"], fmt(r["sapo"]), r["sapo_epoch"], fmt(r["bilstm_crf"]), r["bilstm_crf_epoch"],
             fmt(r["difference"]), f"{r['ar_p']:.3f}", f"{r['t_p']:.3f}", fmt(r["sapo_epoch_seconds"], 2),
             fmt(r["bilstm_crf_epoch_seconds"], 1), f"{r['bilstm_crf_epoch_seconds'] / r['sapo_epoch_seconds']:.0f}x"]
            for r in recs]
    return ["\nThe BiLSTM-CRF with the data directory's GloVe 6B 50d vectors (`chaintag train -a bilstm-crf`, "
            f"{NEURAL_EPOCHS} epochs, the epoch chosen on the same dev data, one seed) beside SAPO's default with "
            "the data directory's resources, on the test sets, scored once (`test_neural.jsonl`, "
            "`kind_defaults --neural`): AR (1000 shuffles) and paired t-test p-values; the median seconds per "
            "epoch of each on the same 2-core machine while other jobs ran (the ratio is what compares).\n",
            md_table(["task", "score", "SAPO default", "its epoch", "BiLSTM-CRF", "its epoch", "SAPO - BiLSTM-CRF",
                      "AR p", "t-test p", "SAPO s / epoch", "BiLSTM-CRF s / epoch", "ratio"], rows)]


def _significance_section(out_dir: Path, name: str = "test_significance.jsonl") -> list[str]:
    path = out_dir / name
    if not path.exists():
        return []
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [[r["task"], r["metric"], r.get("features", ""), r.get("sapo_settings", ""), r.get("sapo_epoch", ""),
             r.get("rival", "perceptron"), fmt(r["sapo"]),
             fmt(r.get("rival_score", r.get("perceptron"))), fmt(r["difference"]), r.get("rival_epoch", ""),
             f"{r['ar_p']:.3f}", f"{r['t_p']:.3f}"] for r in recs]
    which = ("with the resources the defaults take from the data directory (`chaintag train` with no option: "
             "GloVe for POS, the clusters of `unlabeled_en` for chunking, GloVe for NER where it covers the "
             "words)" if "resources" in name
             else "without resources (`--resources none`)")
    return [f"\nSAPO's default {which} against other learners on the same attributes (the averaged "
            "perceptron; the CRF trained by SGD), each for 20 epochs with the epoch chosen on dev, on the test "
            f"sets (`{name}`, `kind_defaults --significance`): approximate randomization on the "
            "task's score (1000 shuffles) and a paired t-test on per-sentence accuracy, unadjusted.\n",
            md_table(["task", "score", "attributes", "SAPO's settings", "SAPO's epoch", "rival", "SAPO",
                      "rival's score", "SAPO - rival", "rival's epoch", "AR p", "t-test p"], rows)]


def _test_section(out_dir: Path) -> list[str]:
    """The table of ``test.jsonl`` (:func:`score_test`), when it exists."""
    path = out_dir / "test.jsonl"
    if not path.exists():
        return []
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    metric = {t: ("accuracy" if k == "pos" else "f1") for k, ts in TASKS.items() for t, _, _ in ts}
    rows = [[r["task"], r["algorithm"], str(r["features"]) + (" (resources)" if r.get("resources") else ""),
             fmt(r["test_accuracy"] if metric[r["task"]] == "accuracy" else r["test_f1"]), r["best_epoch"]]
            for r in recs]
    return ["## The first round's defaults on the test sets, scored once\n",
            "`python -m chaintag_research.kind_defaults OUT --first-round-test`, after the first round's choice on "
            "dev, before the second round (SAPO's own settings, the default feature space and L2): `chaintag train` "
            f"with no `--features` (the kind's preset), {EPOCHS} epochs, the epoch chosen on the same dev data "
            "as the trials, each test set scored once, SAPO (the default) and the averaged perceptron on the "
            "same preset; then each kind's choice with resources where it differs from the plain one "
            "(`test.jsonl`). Score: accuracy (POS) or chunk F1 (chunking, NER).\n",
            md_table(["task", "learner", "attributes", "test score", "dev-chosen epoch"], rows),
            "\n## The final defaults on the test sets, scored once, against the perceptron and the CRF\n",
            "`python -m chaintag_research.kind_defaults OUT --test`, after both rounds: `chaintag train -a ALG "
            "--train T --dev D --test X` with nothing else (SAPO's settings per kind apply), once without "
            "resources (`--resources none`) and once with what the data directory offers.\n",
            *_significance_section(out_dir),
            *_significance_section(out_dir, "test_significance_resources.jsonl"), *_neural_section(out_dir),
            "\nTargets of the defaults with the data directory's resources (test): CoNLL-2000 94.6, base NP 94.8, "
            "ptb_sample 97.0, UD EWT 95.6, JNLPBA 73.5.\n"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA"))
    ap.add_argument("--kinds", nargs="+", choices=tuple(TASKS))
    ap.add_argument("--tasks", nargs="+", help="the first round's trials and the test runs (--test) of these "
                                               "tasks only")
    ap.add_argument("--variants", action="store_true",
                    help="the second round: SAPO's L2 and feature space on each kind's first-round choices")
    ap.add_argument("--learners", nargs="+", metavar="NAME",
                    help="other learners (e.g. crf) on each kind's first-round attributes, weighed on dev with "
                         "the rest")
    ap.add_argument("--windows", action="store_true",
                    help="the third round (NER): the vectors' k-means ids of w[-2..2], and their values")
    ap.add_argument("--first-round-test", action="store_true",
                    help="score the first round's defaults once on every task's test set (test.jsonl)")
    ap.add_argument("--test", action="store_true",
                    help="after the choice: SAPO's defaults (without resources, and with the data directory's) "
                         "against the perceptron and the CRF on every test set, scored once, with p-values")
    ap.add_argument("--neural", action="store_true",
                    help="the BiLSTM-CRF with GloVe beside SAPO's default with resources on every test set")
    args = ap.parse_args(argv)
    add_names_tasks(args.data_dir)
    print(run(args.out, data_dir=args.data_dir, kinds=args.kinds, tasks=args.tasks))
    if args.variants:
        print(run_variants(args.out, data_dir=args.data_dir, kinds=args.kinds))
    if args.windows:
        print(run_windows(args.out, data_dir=args.data_dir))
    if args.learners:
        print(run_learners(args.out, data_dir=args.data_dir, kinds=args.kinds, learners=tuple(args.learners)))
    if args.first_round_test:
        print(score_test(args.out, data_dir=args.data_dir))
    if args.test:
        print(test_significance(args.out, data_dir=args.data_dir, tasks=args.tasks))
        print(test_significance(args.out, data_dir=args.data_dir, resources=True, tasks=args.tasks))
    if args.neural:
        print(test_neural(args.out, data_dir=args.data_dir))
    if args.test or args.neural:
        print(write_report(Path(args.out), _read_trials(Path(args.out) / "trials.jsonl"), args.data_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
