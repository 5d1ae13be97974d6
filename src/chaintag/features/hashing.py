"""Compiled open-addressing hash tables over non-negative int64 keys.

Used to intern template keys and to count (attribute, label) pairs in one
linear pass, without sorting and without Python objects.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit


@njit(cache=True, inline="always")
def _slot(key, mask):
    x = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64((x ^ (x >> np.uint64(29))) & np.uint64(mask))


@njit(cache=True)
def _capacity(n):
    cap = 16
    while cap < 2 * n:
        cap *= 2
    return cap


@njit(cache=True)
def intern_keys(keys):
    """Dense ids for the distinct non-negative keys, in order of first appearance.

    Parameters
    ----------
    keys : int64 array, shape (n,)
        Keys; negative entries mean "no key".

    Returns
    -------
    ids : int32 array, shape (n,)
        Id of each key (-1 where the key is negative).
    uniques : int64 array, shape (n_unique,)
        ``uniques[ids[i]] == keys[i]``.
    """
    n = keys.shape[0]
    cap = _capacity(n)
    mask = cap - 1
    slot_key = np.full(cap, -1, dtype=np.int64)
    slot_id = np.zeros(cap, dtype=np.int32)
    uniques = np.empty(n, dtype=np.int64)
    ids = np.empty(n, dtype=np.int32)
    count = 0
    for i in range(n):
        k = keys[i]
        if k < 0:
            ids[i] = -1
            continue
        s = _slot(k, mask)
        while True:
            sk = slot_key[s]
            if sk == k:
                ids[i] = slot_id[s]
                break
            if sk == -1:
                slot_key[s] = k
                slot_id[s] = count
                uniques[count] = k
                ids[i] = count
                count += 1
                break
            s = (s + 1) & mask
    return ids, uniques[:count].copy()


@njit(cache=True)
def count_pairs(tok_ptr, attr_ids, labels, n_labels):
    """Occurrences of every (attribute, label) pair in a labelled corpus.

    Parameters
    ----------
    tok_ptr : int64 array, shape (n_tokens + 1,)
    attr_ids : int32 array, shape (n_entries,)
    labels : int32 array, shape (n_tokens,)
    n_labels : int

    Returns
    -------
    codes : int64 array, shape (n_pairs,)
        ``attribute * n_labels + label`` of each distinct pair (unsorted).
    counts : int64 array, shape (n_pairs,)
    """
    n_tokens = tok_ptr.shape[0] - 1
    cap = _capacity(1 << 15)  # grows as needed
    mask = cap - 1
    slot_key = np.full(cap, -1, dtype=np.int64)
    slot_cnt = np.zeros(cap, dtype=np.int64)
    used = 0
    for i in range(n_tokens):
        y = labels[i]
        for k in range(tok_ptr[i], tok_ptr[i + 1]):
            code = np.int64(attr_ids[k]) * n_labels + y
            s = _slot(code, mask)
            while True:
                sk = slot_key[s]
                if sk == code:
                    slot_cnt[s] += 1
                    break
                if sk == -1:
                    slot_key[s] = code
                    slot_cnt[s] = 1
                    used += 1
                    break
                s = (s + 1) & mask
            if 2 * used > cap:
                # grow: rehash into a table twice the size
                new_cap = cap * 2
                new_mask = new_cap - 1
                nk = np.full(new_cap, -1, dtype=np.int64)
                nc = np.zeros(new_cap, dtype=np.int64)
                for j in range(cap):
                    if slot_key[j] >= 0:
                        t = _slot(slot_key[j], new_mask)
                        while nk[t] != -1:
                            t = (t + 1) & new_mask
                        nk[t] = slot_key[j]
                        nc[t] = slot_cnt[j]
                slot_key, slot_cnt, cap, mask = nk, nc, new_cap, new_mask
    codes = np.empty(used, dtype=np.int64)
    counts = np.empty(used, dtype=np.int64)
    j = 0
    for s in range(cap):
        if slot_key[s] >= 0:
            codes[j] = slot_key[s]
            counts[j] = slot_cnt[s]
            j += 1
    return codes, counts


@njit(cache=True)
def remap_csr(tok_ptr, attr_ids, remap):
    """Renumber CSR attribute ids through ``remap`` (-1 drops an entry).

    Returns
    -------
    new_tok_ptr : int64 array, shape (n_tokens + 1,)
    new_attr_ids : int32 array
    """
    n_tokens = tok_ptr.shape[0] - 1
    new_ptr = np.zeros(n_tokens + 1, dtype=np.int64)
    out = np.empty(attr_ids.shape[0], dtype=np.int32)
    j = 0
    for i in range(n_tokens):
        for k in range(tok_ptr[i], tok_ptr[i + 1]):
            r = remap[attr_ids[k]]
            if r >= 0:
                out[j] = r
                j += 1
        new_ptr[i + 1] = j
    return new_ptr, out[:j].copy()
