"""Where a SAPO pass spends its time, against the perceptron's epoch (one thread, CPU seconds).

On CoNLL-2000 chunking (``chunking`` preset, gold feature space) the script
trains SAPO (n = 5, exact A*) and the averaged perceptron for ``--warm``
passes, keeps each learner's state at the start of the next pass, and then
times, on one thread, passes over the whole training set that stop after a
growing part of the work:

- emission scores only;
- emission scores + Viterbi (the perceptron's search);
- emission scores + the backward Viterbi heuristic of the A* search;
- emission scores + the whole top-n A* search;
- the whole SAPO pass (search, probabilities, update) on a copy of the state;
- the whole perceptron epoch on a copy of its state.

Each figure is the median of ``--repeats`` runs of ``time.process_time``
(CPU time of this process; the machine's other jobs do not count in it, but
they still share the caches). The parts that stop early score against fixed
weights, so they see the same sentences and the same search work as the
pass they profile.

Usage::

    python benchmarks/profile_sapo.py [--warm 3] [--repeats 7] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import time

import numpy as np
from numba import njit

from chaintag import SAPO, StructuredPerceptron, load_corpus
from chaintag.decoding.nbest import astar_nbest_retry, astar_workspace, backward_heuristic
from chaintag.decoding.scoring import NO_VALUES, emission_scores, max_sentence_length, weight_views
from chaintag.decoding.viterbi import viterbi_kernel
from chaintag.learners.path_kernels import training_arrays
from chaintag.learners.perceptron_kernels import perceptron_epoch
from chaintag.learners.sapo_kernels import sapo_epoch


@njit  # not cached: it inlines chaintag kernels, whose changes a cache of this file would not see
def emission_pass(order, sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels):
    """Emission scores of every sentence; returns a checksum (so nothing is optimized away)."""
    E = np.zeros((max(max_sentence_length(sent_ptr), 1), n_labels))
    total = 0.0
    for s in order:
        emission_scores(tok_ptr, ent_lo, ent_n, NO_VALUES, sent_ptr[s], sent_ptr[s + 1], feat_label, w, E)
        total += E[0, 0]
    return total


@njit  # not cached: it inlines chaintag kernels, whose changes a cache of this file would not see
def viterbi_pass(order, sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels):
    """Emission scores + Viterbi of every sentence; returns the summed best scores."""
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    delta = np.zeros((m, n_labels))
    back = np.zeros((m, n_labels), dtype=np.int32)
    pred = np.zeros(m, dtype=np.int32)
    total = 0.0
    for s in order:
        t0, t1 = sent_ptr[s], sent_ptr[s + 1]
        emission_scores(tok_ptr, ent_lo, ent_n, NO_VALUES, t0, t1, feat_label, w, E)
        total += viterbi_kernel(E[:t1 - t0], trans, start, end, pred, delta, back)
    return total


@njit  # not cached: it inlines chaintag kernels, whose changes a cache of this file would not see
def backward_pass(order, sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels):
    """Emission scores + the A* search's backward heuristic of every sentence."""
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    h = np.zeros((m, n_labels))
    best_next = np.zeros((m, n_labels), dtype=np.int32)
    trans_t = np.zeros((n_labels, n_labels))
    eh = np.zeros((m, n_labels))
    total = 0.0
    for s in order:
        t0, t1 = sent_ptr[s], sent_ptr[s + 1]
        emission_scores(tok_ptr, ent_lo, ent_n, NO_VALUES, t0, t1, feat_label, w, E)
        for a in range(n_labels):
            for c in range(n_labels):
                trans_t[c, a] = trans[a, c]
        backward_heuristic(E[:t1 - t0], trans_t, end, h, best_next, eh)
        total += h[0, 0]
    return total


@njit  # not cached: it inlines chaintag kernels, whose changes a cache of this file would not see
def astar_pass(order, sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels, n_best):
    """Emission scores + the whole top-n A* search of every sentence."""
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    paths = np.zeros((n_best, m), dtype=np.int32)
    scores = np.zeros(n_best)
    ws = astar_workspace(m, n_labels, n_best, 0)
    total = 0.0
    for s in order:
        t0, t1 = sent_ptr[s], sent_ptr[s + 1]
        emission_scores(tok_ptr, ent_lo, ent_n, NO_VALUES, t0, t1, feat_label, w, E)
        k, ws = astar_nbest_retry(E[:t1 - t0], trans, start, end, n_best, np.inf, paths, scores, ws)
        total += scores[k - 1]
    return total


class _Capture:
    """Mixin: keep a copy of the state and the data at the start of pass ``capture_at``."""

    capture_at = 0

    def _run_epoch(self, state, data, order):
        if len(order) and state["step"] == self.capture_at * len(order):
            self.captured = (copy.deepcopy(state), data, order.copy())
        return super()._run_epoch(state, data, order)


class SAPOCapture(_Capture, SAPO):
    pass


class PerceptronCapture(_Capture, StructuredPerceptron):
    pass


def median_cpu(fn, repeats):
    """Median process CPU seconds of ``fn()`` over ``repeats`` calls (after one untimed call)."""
    fn()
    times = []
    for _ in range(repeats):
        c0 = time.process_time()
        fn()
        times.append(time.process_time() - c0)
    return statistics.median(times), min(times), max(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warm", type=int, default=3, help="passes before the profiled one (default 3)")
    ap.add_argument("--repeats", type=int, default=7, help="timed runs of each part (default 7)")
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA"))
    args = ap.parse_args(argv)
    train = load_corpus("conll2000:train", data_dir=args.data_dir)
    common = {"features": "chunking", "columns": ("word", "pos"), "progress": False,
              "epochs": args.warm + 1}
    sapo = SAPOCapture(n_best=5, **common)
    sapo.capture_at = args.warm
    sapo.fit(train.tokens, train.labels)
    per = PerceptronCapture(**common)
    per.capture_at = args.warm
    per.fit(train.tokens, train.labels)
    state, data, order = sapo.captured
    a = data.attrs
    L = data.index.n_labels
    fl = data.index.feat_label
    v = state["v"]
    corpus = (order, a.sent_ptr, a.tok_ptr, data.ent_lo, data.ent_n, fl, v, L)

    def full_sapo():
        s = copy.deepcopy(state)
        return sapo_epoch(order, training_arrays(data), s["v"],
                          s["sigma"], s["step"], L, 5, False, 50, np.inf, float(sapo.learning_rate),
                          sapo.lr_schedule == "decay", float(sapo.l2), s["n_train"], not sapo.l2_per_pass,
                          False, s["u"], s["acc"], 0.0, 0.0, 0)

    pstate, pdata, porder = per.captured

    def full_perceptron():
        s = copy.deepcopy(pstate)
        return perceptron_epoch(porder, training_arrays(pdata, s["gold_feat"]), s["w"], s["u"], s["step"], L, True)

    rows = [("emission scores", lambda: emission_pass(*corpus)),
            ("emission + Viterbi", lambda: viterbi_pass(*corpus)),
            ("emission + backward heuristic", lambda: backward_pass(*corpus)),
            ("emission + A* top-5", lambda: astar_pass(*corpus, 5)),
            ("SAPO pass (n=5)", full_sapo),
            ("perceptron epoch", full_perceptron)]
    print(f"CoNLL-2000 train: {len(order)} sentences, {a.tok_ptr.shape[0] - 1} tokens, {L} labels; "
          f"state after {args.warm} passes; load average {os.getloadavg()[0]:.2f}")
    res = {}
    for name, fn in rows:
        med, lo, hi = median_cpu(fn, args.repeats)
        res[name] = med
        print(f"{name:32}{med:8.4f} s CPU (min {lo:.4f}, max {hi:.4f})")
    print(f"SAPO / perceptron: {res['SAPO pass (n=5)'] / res['perceptron epoch']:.2f}; "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
