"""The compiled A* top-n against a plain-Python A* with an unbounded heap, bit for bit.

The kernel keeps only the queue entries that can still leave the queue (a
sorted array of at most ``n - 1`` entries) and ranks children from rows the
backward pass stored; the reference below is the search as the module
documents it, with a heap of every queued entry. Same paths in the same
order, ties included (integer scores tie often), and the same score bits.
"""

import heapq

import numpy as np
import pytest

from chaintag.decoding.nbest import nbest


def reference_astar(E, U, s, e, n):
    """Documented A*: backward Viterbi heuristic, entries ``(priority, depth, seq)`` popped by
    higher priority, then deeper, then queued first; children ranked by value, then label."""
    E, U, s, e = (np.asarray(x, dtype=np.float64) for x in (E, U, s, e))
    T, L = E.shape
    h = np.zeros((T, L))
    best_next = np.full((T, L), -1)
    h[T - 1] = e
    for i in range(T - 2, -1, -1):
        b = [E[i + 1, k] + h[i + 1, k] for k in range(L)]
        for j in range(L):
            h[i, j] = U[j, 0] + b[0]
            best_next[i, j] = 0
            for k in range(1, L):
                v = U[j, k] + b[k]
                if v > h[i, j]:
                    h[i, j], best_next[i, j] = v, k

    def ranked(i, c):  # children of label c at i: (value, label), best first, lower label on ties
        vals = [(U[c, k] + (E[i + 1, k] + h[i + 1, k]), k) for k in range(L)]
        return sorted(vals, key=lambda x: (-x[0], x[1]))

    roots = sorted(((s[j] + E[0, j] + h[0, j], j) for j in range(L)), key=lambda x: (-x[0], x[1]))
    heap, seq, nodes, out = [], 0, [], []

    def push(f, depth, parent, rank):
        nonlocal seq
        heapq.heappush(heap, (-f, -depth, seq, parent, rank))
        seq += 1

    push(roots[0][0], 0, -1, 0)
    while heap and len(out) < n:
        _, negd, _, parent, rank = heapq.heappop(heap)
        depth = -negd
        if parent < 0:
            lab = roots[rank][1]
            g = s[lab] + E[0, lab]
            if rank + 1 < L:
                push(roots[rank + 1][0], 0, -1, rank + 1)
        else:
            plab, pg = nodes[parent][0], nodes[parent][2]
            children = ranked(depth - 1, plab)
            lab = children[rank][1] if rank else best_next[depth - 1, plab]
            g = pg + U[plab, lab] + E[depth, lab]
            if rank + 1 < L:
                push(pg + children[rank + 1][0], depth, parent, rank + 1)
        while depth < T - 1:
            nodes.append((lab, parent, g))
            x = len(nodes) - 1
            if L > 1:
                push(g + ranked(depth, lab)[1][0], depth + 1, x, 1)
            child = best_next[depth, lab]
            g = g + U[lab, child] + E[depth + 1, child]
            parent, lab, depth = x, child, depth + 1
        path = [lab]
        p = parent
        while p >= 0:
            path.append(nodes[p][0])
            p = nodes[p][1]
        out.append((g + e[lab], path[::-1]))
    return out


@pytest.mark.parametrize("integer", [True, False])
def test_astar_matches_the_unbounded_reference_bit_for_bit(integer):
    rng = np.random.default_rng(29 + integer)
    for _ in range(300):
        T, L = int(rng.integers(1, 7)), int(rng.integers(1, 10))
        if integer:
            draw = lambda *shape: rng.integers(-2, 3, size=shape).astype(float)  # noqa: E731
        else:
            draw = lambda *shape: rng.normal(size=shape)  # noqa: E731
        E, U, s, e = draw(T, L), draw(L, L), draw(L), draw(L)
        n = int(rng.integers(1, min(L ** T, 40) + 3))
        got = nbest(E, U, s, e, n=n)
        want = reference_astar(E, U, s, e, n)
        assert [p.tolist() for _, p in got] == [p for _, p in want]
        assert [sc for sc, _ in got] == [sc for sc, _ in want]  # exact equality, not approx
