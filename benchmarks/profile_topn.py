"""Per-sentence cost of the search kernels on random scores: Viterbi, A*'s backward heuristic, whole top-n A*.

One sentence of ``--tokens`` tokens and ``--labels`` labels (random normal emission, transition, start and
end scores, seed 0), searched ``--repeats`` times in one compiled loop; the best of 5 runs of
``time.process_time`` (CPU time of this process), in microseconds per sentence. It separates the top-n
search of a SAPO pass into the backward Viterbi heuristic (the transposition of the transitions
included, as the A* kernel does it) and the rest (queue, dives, sibling rankings), against the forward
Viterbi of the perceptron's epoch.

Usage::

    python benchmarks/profile_topn.py [--tokens 24] [--labels 22] [--n-best 5] [--repeats 20000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from chaintag.decoding.nbest import astar_nbest_kernel, astar_workspace, backward_heuristic
from chaintag.decoding.viterbi import viterbi_kernel


@njit  # not cached: it inlines chaintag kernels, whose changes a cache of this file would not see
def run_viterbi(E, tr, st, en, repeats):
    T, L = E.shape
    delta = np.zeros((T, L))
    back = np.zeros((T, L), np.int32)
    path = np.zeros(T, np.int32)
    s = 0.0
    for _ in range(repeats):
        s += viterbi_kernel(E, tr, st, en, path, delta, back)
    return s


@njit  # not cached: it inlines chaintag kernels, whose changes a cache of this file would not see
def run_backward(E, tr, en, repeats):
    T, L = E.shape
    h = np.zeros((T, L))
    best_next = np.zeros((T, L), np.int32)
    eh = np.zeros((T, L))
    tt = np.zeros((L, L))
    s = 0.0
    for _ in range(repeats):
        for a in range(L):
            for c in range(L):
                tt[c, a] = tr[a, c]
        backward_heuristic(E, tt, en, h, best_next, eh)
        s += h[0, 0]
    return s


@njit  # not cached: it inlines chaintag kernels, whose changes a cache of this file would not see
def run_astar(E, tr, st, en, repeats, n):
    T, L = E.shape
    ws = astar_workspace(T, L, n, 0)
    paths = np.zeros((n, T), np.int32)
    scores = np.zeros(n)
    s = 0.0
    for _ in range(repeats):
        astar_nbest_kernel(E, tr, st, en, n, np.inf, paths, scores, ws)
        s += scores[0]
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokens", type=int, default=24)
    ap.add_argument("--labels", type=int, default=22)
    ap.add_argument("--n-best", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=20000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    T, L, R = args.tokens, args.labels, args.repeats
    E, tr = rng.normal(size=(T, L)), rng.normal(size=(L, L))
    st, en = rng.normal(size=L), rng.normal(size=L)
    runs = (("Viterbi", run_viterbi, (E, tr, st, en)), ("A* backward heuristic", run_backward, (E, tr, en)),
            (f"A* top-{args.n_best}", run_astar, (E, tr, st, en)))
    for name, f, a in runs:
        extra = (args.n_best,) if f is run_astar else ()
        f(*a, 10, *extra)  # compile or load
        best = min(_timed(f, *a, R, *extra) for _ in range(5))
        print(f"{name:24s} {best / R * 1e6:6.2f} us per sentence ({T} tokens, {L} labels)")


def _timed(f, *args) -> float:
    t0 = time.process_time()
    f(*args)
    return time.process_time() - t0


if __name__ == "__main__":
    main()
