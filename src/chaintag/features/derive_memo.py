"""Derived-column ids of the values seen in earlier batches, so that tagging computes each once.

Tagging a large input goes batch by batch, and each batch computes its derived
columns (``suf3(lower(word))``, ``brown6(word)``, ...) on its distinct values
(:mod:`chaintag.features.extract`). Most of a batch's words were in earlier
batches; the memo keeps, per source column, the ids of every derived column of
the last values seen (at most :data:`MEMO_VALUES` of them, then it starts
again), and the functions run on new values only. Derived functions are pure
functions of the value, so the ids are those a fresh computation gives; the memo
is dropped whenever a derived vocabulary grows (training).
"""

from __future__ import annotations

import threading

import numpy as np

#: Distinct values of one source column that the memo holds before it starts again.
MEMO_VALUES = 1 << 17


class _Entry:
    __slots__ = ("sizes", "slots", "table", "used")

    def __init__(self, sizes: tuple[int, ...], n_rows: int, limit: int):
        self.sizes = sizes
        self.slots: dict[str, int] = {}
        self.table = np.empty((n_rows, limit), dtype=np.int32)
        self.used = 0


class DerivedMemo:
    """Per source column: value -> ids of the derived columns read from it (bounded, thread-safe)."""

    def __init__(self, limit: int = MEMO_VALUES):
        self.limit = limit
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def __reduce__(self):
        """Copies and pickles of a model start with an empty memo (and a lock of their own)."""
        return DerivedMemo, (self.limit,)

    def ids(self, column: str, derived: list, uniques: list[str]) -> np.ndarray:
        """Ids of ``uniques`` in each derived column, as ``d.map(uniques, grow=False)`` gives them.

        Parameters
        ----------
        column : str
            The source column the derived columns read.
        derived : list of _Derived
            Derived columns of ``column`` (at least one; always the same list for one column).
        uniques : list of str
            Distinct values of the batch.

        Returns
        -------
        int32 array, shape (len(derived), len(uniques))
        """
        if len(uniques) > self.limit:  # more than the memo holds: derived directly
            return np.stack([d.map(uniques, False) for d in derived])
        with self._lock:
            sizes = tuple(d.size for d in derived)
            entry = self._entries.get(column)
            if entry is None or entry.sizes != sizes or entry.used + len(uniques) > self.limit:
                entry = self._entries[column] = _Entry(sizes, len(derived), self.limit)
            slots = entry.slots
            new = [u for u in uniques if u not in slots]
            if new:
                start = entry.used
                for r, d in enumerate(derived):
                    entry.table[r, start:start + len(new)] = d.map(new, False)
                slots.update(zip(new, range(start, start + len(new))))
                entry.used = start + len(new)
            at = np.fromiter(map(slots.__getitem__, uniques), dtype=np.int64, count=len(uniques))
            return entry.table[:, at]
