"""Compiled kernel: one integer key per (token, template) from derived column ids.

Derived-column ids reserve a few values below ``FIRST_VALUE``:

* ``ABSENT`` (0): the function gave no value (``hasdigit`` of ``"cat"``); the
  template does not fire for that token;
* ``UNKNOWN`` (1): a value never seen in training (tagging time); no trained
  attribute can contain it, so the template does not fire;
* ``1 + d`` for ``d = 1 .. MAX_OFFSET``: the sentinel *d* positions before
  the sentence start; ``1 + MAX_OFFSET + d``: *d* positions after its end.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit, prange

from .templates import MAX_OFFSET

ABSENT = 0
UNKNOWN = 1
FIRST_VALUE = 2 + 2 * MAX_OFFSET
_MASK63 = np.uint64(0x7FFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def _mix(h, v):
    # splitmix64-style finalizer over the running key
    x = np.uint64(h) ^ (np.uint64(v) + np.uint64(0x9E3779B97F4A7C15) + (np.uint64(h) << np.uint64(6))
                        + (np.uint64(h) >> np.uint64(2)))
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return x


@njit(cache=True)
def template_keys(sent_ptr, derived, atom_rows, atom_offsets, radix, hashed, sentinels, out):
    """Fill ``out[i]`` with the key of one template at every token ``i``.

    Parameters
    ----------
    sent_ptr : int64 array, shape (n_sentences + 1,)
        Token offsets of the sentences.
    derived : int32 array, shape (n_derived, n_tokens)
        Derived-column ids per token.
    atom_rows, atom_offsets : int64 arrays, shape (n_atoms,)
        Row of ``derived`` and relative offset read by each atom.
    radix : int64 array, shape (n_atoms,)
        Mixed-radix base of each atom (derived vocabulary size); used when
        ``hashed`` is False, in which case the key is exact.
    hashed : bool
        Combine the atom values with a 64-bit mixing function instead (when
        the product of the radices does not fit in 63 bits).
    sentinels : bool
        Positions outside the sentence read boundary sentinels (CRF++
        templates); when False the template does not fire there (as the
        CRFsuite example feature extractors do).
    out : int64 array, shape (n_tokens,)
        Receives the non-negative key, or -1 where the template does not fire.
    """
    n_sent = sent_ptr.shape[0] - 1
    n_atoms = atom_rows.shape[0]
    for s in range(n_sent):
        a = sent_ptr[s]
        b = sent_ptr[s + 1]
        for i in range(a, b):
            key = np.int64(0)
            hkey = np.uint64(0)
            ok = True
            for j in range(n_atoms):
                p = i + atom_offsets[j]
                if p < a or p >= b:
                    if not sentinels:
                        ok = False
                        break
                    if p < a:
                        v = np.int64(1 + (a - p))
                    else:
                        v = np.int64(1 + MAX_OFFSET + (p - b + 1))
                else:
                    v = np.int64(derived[atom_rows[j], p])
                    if v < 2:
                        ok = False
                        break
                if hashed:
                    hkey = _mix(hkey, v)
                else:
                    key = key * radix[j] + v
            if not ok:
                out[i] = -1
            elif hashed:
                out[i] = np.int64(hkey & _MASK63)
            else:
                out[i] = key


@njit(cache=True)
def place_template(ids, rank, offset, table, t, labels, n_labels, counts):
    """Write one template's attribute ids into column ``t`` of the token table.

    Parameters
    ----------
    ids : int32 array, shape (n_tokens,)
        First-seen ids of the template's keys (-1: does not fire).
    rank : int32 array
        Position of each first-seen id in key order.
    offset : int
        First attribute id of the template.
    table : int32 array, shape (n_templates, n_tokens)
    t : int
    labels : int64 array, shape (n_tokens,)
        Gold label ids (ignored when ``n_labels`` is 0).
    n_labels : int
    counts : int64 array, shape (n_template_attributes * n_labels,)
        Incremented per (attribute, label) pair when ``n_labels > 0``.
    """
    for i in range(ids.shape[0]):
        j = ids[i]
        if j >= 0:
            r = rank[j]
            table[t, i] = offset + r
            if n_labels > 0:
                counts[np.int64(r) * n_labels + labels[i]] += 1


@njit(cache=True)
def table_to_csr(table):
    """Compress a (n_templates, n_tokens) table of ids (-1 = none) into CSR arrays."""
    n_templates, n_tokens = table.shape
    tok_ptr = np.zeros(n_tokens + 1, dtype=np.int64)
    out = np.empty(n_tokens * n_templates, dtype=np.int32)
    j = 0
    for i in range(n_tokens):
        for t in range(n_templates):
            v = table[t, i]
            if v >= 0:
                out[j] = v
                j += 1
        tok_ptr[i + 1] = j
    return tok_ptr, out[:j].copy()


#: Tokens below which :func:`lookup_keys_serial` is used: starting numba's thread pool costs more.
PARALLEL_LOOKUP_MIN = 4096


@njit(cache=True, inline="always")
def _search_range(table_keys, k, a, b, lo, table, t, i):
    """Binary search of ``k`` in ``table_keys[a:b]`` (sorted): ``table[t, i] = lo + j`` where found."""
    n = table_keys.shape[0]
    while a < b:
        mid = (a + b) // 2
        if table_keys[mid] < k:
            a = mid + 1
        else:
            b = mid
    if a < n and table_keys[a] == k:
        table[t, i] = lo + a


@njit(cache=True, inline="always")
def _lookup_one(keys, table_keys, lo, table, t, i):
    """``table[t, i] = lo + j`` where ``table_keys[j] == keys[i]`` (a binary search), if any."""
    n = table_keys.shape[0]
    k = keys[i]
    if k < 0 or n == 0:
        return
    _search_range(table_keys, k, np.int64(0), np.int64(n), lo, table, t, i)


@njit(cache=True, parallel=True)
def lookup_keys(keys, table_keys, lo, table, t):
    """Attribute ids of a template's keys: ``table[t, i] = lo + j`` where ``table_keys[j] == keys[i]``.

    Parameters
    ----------
    keys : int64 array, shape (n_tokens,)
        Keys of one template at every token (negative: the template does not fire).
    table_keys : int64 array, shape (n_keys,)
        The template's known keys, sorted ascending and distinct.
    lo : int
        Attribute id of ``table_keys[0]``.
    table : int32 array, shape (n_templates, n_tokens)
        Row ``t`` receives the ids; tokens whose key is unknown or negative are
        left as they are.
    t : int

    Notes
    -----
    A binary search per token (``np.searchsorted``'s result on distinct keys),
    the tokens split over ``numba.get_num_threads()`` threads.
    """
    for i in prange(keys.shape[0]):
        _lookup_one(keys, table_keys, lo, table, t, i)


@njit(cache=True)
def lookup_keys_serial(keys, table_keys, lo, table, t):
    """:func:`lookup_keys` on the calling thread alone (for small inputs)."""
    for i in range(keys.shape[0]):
        _lookup_one(keys, table_keys, lo, table, t, i)


#: Templates with fewer known keys than this are searched without a hash index.
HASH_INDEX_MIN = 64
#: Fibonacci hashing's multiplier (2**64 / golden ratio): the slot of a key is the top bits of key * this.
_FIB = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def hash_index(table_keys):
    """An open-addressing hash table of a template's keys, so that a lookup reads about one cache line.

    Parameters
    ----------
    table_keys : int64 array, shape (n_keys,)
        Distinct, non-negative keys (sorted or not).

    Returns
    -------
    slots : int64 array, shape (2**bits, 2)
        ``slots[h] = (key, j)`` with ``table_keys[j] == key``, or ``(-1, -1)`` for an empty
        slot; at most half the slots are used. A key sits at the first free slot from
        ``(key * _FIB) >> (64 - bits)`` on (linear probing).
    bits : int
        ``log2`` of the number of slots (at least 1).
    """
    n = table_keys.shape[0]
    bits = 1
    while (1 << bits) < 2 * n:
        bits += 1
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    slots = np.full((1 << bits, 2), -1, dtype=np.int64)
    for j in range(n):
        k = table_keys[j]
        h = np.int64((np.uint64(k) * _FIB) >> shift)
        while slots[h, 0] != -1:
            h = (h + 1) & mask
        slots[h, 0] = k
        slots[h, 1] = j
    return slots, bits


@njit(cache=True, inline="always")
def _lookup_hashed_one(keys, slots, bits, lo, table, t, i):
    """:func:`_lookup_one` through the hash table of :func:`hash_index` (the same id: keys are distinct)."""
    k = keys[i]
    if k < 0:
        return
    mask = slots.shape[0] - 1
    h = np.int64((np.uint64(k) * _FIB) >> np.uint64(64 - bits))
    while True:
        s = slots[h, 0]
        if s == k:
            table[t, i] = lo + slots[h, 1]
            return
        if s == -1:
            return
        h = (h + 1) & mask


@njit(cache=True, parallel=True)
def lookup_keys_hashed(keys, slots, bits, lo, table, t):
    """:func:`lookup_keys` through the hash table of the template's keys (:func:`hash_index`): the
    same ids, with about one cache miss per token instead of one per level of a binary search."""
    for i in prange(keys.shape[0]):
        _lookup_hashed_one(keys, slots, bits, lo, table, t, i)
