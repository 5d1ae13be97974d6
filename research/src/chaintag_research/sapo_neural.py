"""One encoder, three output layers: SAPO's top-n update on a BiLSTM against the CRF and softmax layers.

The SAPO paper's conclusion proposes SAPO on an LSTM. This part of ``chaintag reproduce sapo`` trains the
library's BiLSTM encoder (word embeddings from the data directory's GloVe vectors when present, character
CNN, embeddings of the other input columns) with three output layers, each over several seeds of the
network's initialisation and sentence order (the dev carve stays the same):

- ``bilstm``: a softmax per token;
- ``bilstm-crf``: the CRF (forward algorithm, Viterbi);
- ``bilstm-sapo``: SAPO's top-n (exact A*, n = 5), ``P_k`` = softmax of the top-n scores, the loss whose
  gradient is ``Phi(x, y*) - sum_k P_k Phi(x, y_k)``; with a Hamming cost of 1 per wrong label added to the
  scores of the top-n (``margin=1``): the published form (``margin=0``) lets the top-n scores tie and stops
  learning on a network (it is kept as an extra row where asked).

and, on the tasks of :data:`N_SWEEP_TASKS`, the SAPO layer with n = 1 and n = 10. Each run trains
:data:`~chaintag_research.sapo.NEURAL_EPOCHS` epochs; the epoch is chosen on dev and the test score read
at it. The tables give the mean and spread over seeds, approximate randomization on the pooled test
predictions (the seeds' test sentences concatenated, each layer at its dev-chosen epochs), and a paired
t-test over seeds, each layer against the CRF layer; and seconds per epoch on the same CPU, beside the
linear SAPO's seconds per pass.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .config import Run
from .report import fmt, fmt_p, md_table, write_csv
from .significance import approximate_randomization, paired_t_test

#: The output layers compared on every neural task: (key, label, learner, params).
HEADS = (("bilstm", "BiLSTM (softmax)", "bilstm", {}),
         ("bilstm-crf", "BiLSTM-CRF", "bilstm-crf", {}),
         ("bilstm-sapo", "BiLSTM-SAPO (n=5)", "bilstm-sapo", {"n_best": 5, "margin": 1.0}))
#: Extra SAPO layers on :data:`N_SWEEP_TASKS`: n = 1 and n = 10 (margin 1), and the published loss.
EXTRA_HEADS = (("bilstm-sapo-n1", "BiLSTM-SAPO (n=1)", "bilstm-sapo", {"n_best": 1, "margin": 1.0}),
               ("bilstm-sapo-n10", "BiLSTM-SAPO (n=10)", "bilstm-sapo", {"n_best": 10, "margin": 1.0}),
               ("bilstm-sapo-m0", "BiLSTM-SAPO (n=5, published loss)", "bilstm-sapo", {"n_best": 5}))
N_SWEEP_TASKS = ("chunking",)
#: Seeds of the full comparison (quick mode: one).
SEEDS = (0, 1, 2)
#: The layer the others are tested against, and the significance level of the verdicts.
REFERENCE = "bilstm-crf"
ALPHA = 0.05
#: Target of the SAPO layer's seconds per epoch over the CRF layer's.
SPEED_TARGET = 1.5


def head_params(params: dict, seed: int, shuffle: bool, embeddings: str | None) -> dict:
    """A head's learner parameters for one seed (and the word vectors, when found)."""
    out = dict(params, shuffle=shuffle, random_state=seed)
    if embeddings:
        out["embeddings"] = str(embeddings)
    return out


def head_key(task: str, head: str, seed: int) -> str:
    """The run key: ``neural/<task>/<head>`` for seed 0 (the row of the task's main table), else with
    ``@s<seed>``."""
    return f"neural/{task}/{head}" + (f"@s{seed}" if seed else "")


def head_runs(task: str, spec: dict, epochs: int, seeds, shuffle: bool, embeddings: str | None,
              make_run) -> list[Run]:
    """The runs of one task: every head for every seed, seed by seed (so a partial run gives whole seeds).

    ``make_run(key, label, task, learner, params, spec, epochs)`` builds a :class:`Run`.
    """
    heads = HEADS + (EXTRA_HEADS if task in N_SWEEP_TASKS else ())
    return [make_run(head_key(task, key, seed), label, task, learner,
                     head_params(params, seed, shuffle, embeddings), spec, epochs)
            for seed in seeds for key, label, learner, params in heads]


def find_embeddings(data_dir=None) -> str | None:
    """The data directory's GloVe file (the neural learners' word embeddings), or None."""
    from chaintag.resources.discover import find_known_resource
    found = find_known_resource(data_dir, needs=("vec",))
    return str(found[0]) if found else None


# -------------------------------------------------------------------------------------------- report

def _head_results(results: dict, task: str, head: str) -> list:
    """The finished runs of a head on a task, by seed order."""
    out = []
    for key, r in results.items():
        if key == f"neural/{task}/{head}" or key.startswith(f"neural/{task}/{head}@s"):
            out.append(r)
    return sorted(out, key=lambda r: r.run.params.get("random_state", 0))


def _chosen(r) -> tuple[float, int]:
    """Test score and epoch at the dev-chosen epoch (the last epoch when a run has no dev data)."""
    s = r.summary
    if s["best_epoch"]:
        return s["test_at_best"], s["best_epoch"]
    return s["test_last"], s["epochs_done"]


def pooled_stats(runs) -> np.ndarray:
    """Per-sentence test counts of several seeds' runs at their dev-chosen epochs, concatenated."""
    return np.concatenate([r.test_stats(_chosen(r)[1]) for r in runs])


def compare_heads(a: list, b: list, metric: str) -> dict:
    """Head ``a`` against head ``b`` over the seeds both have.

    Returns
    -------
    dict
        ``seeds`` (how many paired), ``diff`` (mean of ``a`` minus mean of ``b``, points), ``ar_p``
        (approximate randomization on the pooled test predictions, 1000 shuffles), ``t_p`` (paired t-test
        over seeds on the test scores; 1 with one seed).
    """
    sa = {r.run.params.get("random_state", 0): r for r in a}
    sb = {r.run.params.get("random_state", 0): r for r in b}
    seeds = sorted(set(sa) & set(sb))
    if not seeds:
        return {"seeds": 0, "diff": None, "ar_p": None, "t_p": None}
    xa = [_chosen(sa[s])[0] for s in seeds]
    xb = [_chosen(sb[s])[0] for s in seeds]
    ar = approximate_randomization(pooled_stats([sa[s] for s in seeds]), pooled_stats([sb[s] for s in seeds]),
                                   metric=metric, n_shuffles=1000, random_state=0)
    tt = paired_t_test(xa, xb)
    return {"seeds": len(seeds), "diff": float(np.mean(xa) - np.mean(xb)), "ar_p": ar.p_value, "t_p": tt.p_value}


def at_least_as_accurate(cmp: dict, alpha: float = ALPHA) -> bool | None:
    """Whether a layer is at least as accurate as the reference: better, or not significantly worse on the
    pooled test (approximate randomization). None without a comparison."""
    if cmp.get("diff") is None:
        return None
    return cmp["diff"] >= 0 or cmp["ar_p"] >= alpha


def heads_section(out_dir: Path, results: dict, tasks, titles: dict, metrics: dict) -> list[str]:
    """The Markdown section of the layer comparison (empty when no head ran), and ``heads_<task>.csv``."""
    tasks = [t for t in tasks if any(k.startswith(f"neural/{t}/") for k in results)]
    if not tasks:
        return []
    md = ["## One encoder, three output layers: SAPO's top-n update on the BiLSTM\n",
          "The SAPO paper proposes SAPO on an LSTM. Here the same BiLSTM encoder is trained with a softmax, "
          "a CRF and a SAPO output layer (see the method); each row is one layer over its seeds, each at the "
          "epoch its dev score chose. Mean and standard deviation over seeds; p-values against the CRF layer: "
          "approximate randomization (AR) on the pooled test predictions of the seeds both have, and a paired "
          "t-test over seeds (needs at least 2). Seconds per epoch: the median over the runs' epochs (one "
          "PyTorch thread), training only; the linear SAPO's seconds per pass beside them.\n"]
    wins, speed = {}, {}
    all_heads = [h for h in HEADS + EXTRA_HEADS]
    for task in tasks:
        metric = metrics[task]
        ref = _head_results(results, task, REFERENCE)
        rows, csv_rows = [], []
        for key, label, _, _ in all_heads:
            runs = _head_results(results, task, key)
            if not runs:
                continue
            scores = [_chosen(r)[0] for r in runs]
            cmp = compare_heads(runs, ref, metric) if key != REFERENCE else {}
            secs = float(np.median([r.summary["seconds_per_epoch"] for r in runs]))
            cpu = float(np.median([r.summary["cpu_seconds_per_epoch"] for r in runs]))
            ref_secs = float(np.median([r.summary["seconds_per_epoch"] for r in ref])) if ref else None
            rows.append([label, len(runs), " ".join(fmt(x) for x in scores), fmt(float(np.mean(scores))),
                         fmt(float(np.std(scores, ddof=1)) if len(scores) > 1 else None),
                         " ".join(str(_chosen(r)[1]) for r in runs), fmt(secs, 1), fmt(cpu, 1),
                         f"{secs / ref_secs:.2f}x" if ref_secs else "-",
                         fmt(cmp.get("diff")), fmt_p(cmp.get("ar_p")), fmt_p(cmp.get("t_p"))])
            csv_rows.append([task, label, len(runs), *[float(np.mean(scores)),
                             float(np.std(scores, ddof=1)) if len(scores) > 1 else None],
                             secs, cpu, cmp.get("diff"), cmp.get("ar_p"), cmp.get("t_p")])
            if key == "bilstm-sapo" and cmp:
                wins[task] = (at_least_as_accurate(cmp), cmp)
                speed[task] = secs / ref_secs if ref_secs else None
        lin = results.get(f"{task}/sapo")
        if lin is not None:
            s = lin.summary
            rows.append(["linear SAPO (n=5), this report's settings", 1,
                         fmt(_chosen(lin)[0]), fmt(_chosen(lin)[0]), "-", str(_chosen(lin)[1]),
                         fmt(s["seconds_per_epoch"], 2), fmt(s["cpu_seconds_per_epoch"], 2), "-", "-", "-", "-"])
        md.append(f"### {titles[task]}\n")
        score = "F1" if metric == "f1" else "accuracy"
        md.append(md_table(["layer", "seeds", f"test {score} by seed", "mean", "sd", "dev-chosen epochs",
                            "s / epoch", "CPU s / epoch", "s / epoch vs CRF layer", "mean - CRF layer",
                            "AR p (pooled)", "t-test p (seeds)"], rows))
        md.append("")
        write_csv(out_dir / f"heads_{task}.csv", ["task", "layer", "seeds", f"test_{score}_mean", f"test_{score}_sd",
                                                  "seconds_per_epoch", "cpu_seconds_per_epoch", "diff_vs_crf_layer",
                                                  "ar_p", "t_p"], csv_rows)
    if wins:
        n_ok = sum(1 for ok, _ in wins.values() if ok)
        fast = [t for t, r in speed.items() if r is not None and r <= SPEED_TARGET]
        md.append("**Verdict, the SAPO layer against the CRF layer on the same encoder** (target: at least as "
                  f"accurate, better or not significantly worse by AR at level {ALPHA:g}, on 2 of 3 tasks, at "
                  f"most {SPEED_TARGET:g}x the CRF layer's seconds per epoch): at least as accurate on "
                  f"{n_ok} of {len(wins)} task(s) ("
                  + "; ".join(f"{titles[t]}: {fmt(c['diff'])} points over {c['seeds']} seed(s), AR p "
                              f"{fmt_p(c['ar_p'])}" for t, (_, c) in wins.items())
                  + f"); within the speed target on {len(fast)} of {len(speed)} ("
                  + "; ".join(f"{titles[t]} {r:.2f}x" for t, r in speed.items() if r is not None) + ").\n")
    return md
