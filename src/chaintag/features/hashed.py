"""Feature hashing: attributes as buckets of a fixed-size table (``--hash-bits``).

With ``hash_bits = b`` an attribute is ``hash(template, key) mod 2^b``: no
key table is kept, so the memory of the attribute vocabulary is bounded by
``2^b`` whatever the corpus; distinct attributes that fall in one bucket
share its weights (Weinberger et al. 2009). Buckets without any feature after
the cut-off are dropped through ``bucket_map`` (bucket -> attribute id or -1).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .extract import AttributeExtractor, Attributes
from .hashing import count_pairs
from .keys import _mix, table_to_csr


@njit(cache=True)
def hash_buckets(keys, template, mask, out):
    """``out[i] = mix(template, keys[i]) & mask``, or -1 where ``keys[i] < 0``."""
    for i in range(keys.shape[0]):
        k = keys[i]
        if k < 0:
            out[i] = -1
        else:
            out[i] = np.int32(_mix(_mix(np.uint64(0), template + 1), k) & np.uint64(mask))


class HashedAttributeExtractor(AttributeExtractor):
    """:class:`AttributeExtractor` whose attribute ids are hash buckets.

    Parameters
    ----------
    templates, columns, sentinels
        As for :class:`AttributeExtractor`.
    hash_bits : int
        ``2^hash_bits`` buckets, 1 <= hash_bits <= 30.

    Raises
    ------
    ValueError
        For ``hash_bits`` out of range.
    """

    def __init__(self, templates, columns, sentinels: bool = False, hash_bits: int = 20):
        if not 1 <= int(hash_bits) <= 30:
            raise ValueError(f"hash_bits must be between 1 and 30, not {hash_bits}")
        super().__init__(templates, columns, sentinels)
        self.hash_bits = int(hash_bits)
        self.bucket_map = np.arange(1 << self.hash_bits, dtype=np.int32)

    @property
    def n_attributes(self) -> int:
        return int((self.bucket_map >= 0).sum())

    def _bucket_table(self, sent_ptr, derived) -> np.ndarray:
        mask = (1 << self.hash_bits) - 1
        table = np.full((len(self.templates), derived.shape[1]), -1, dtype=np.int32)
        for t in range(len(self.templates)):
            hash_buckets(self._keys(sent_ptr, derived, t), t, mask, table[t])
        return table

    def fit_transform_counts(self, tokens, labels=None, n_labels: int = 0):
        sent_ptr, derived = self._derive(tokens, grow=True)
        self.radix = [np.asarray([self._derived[r].size for r in rows], dtype=np.int64) for rows in self._atom_rows]
        self.hashed = [True] * len(self.templates)  # keys combined by hashing, whatever their radix
        self.bucket_map = np.arange(1 << self.hash_bits, dtype=np.int32)
        tok_ptr, attr_ids = table_to_csr(self._bucket_table(sent_ptr, derived))
        attrs = Attributes(sent_ptr, tok_ptr, attr_ids)
        pairs = None
        if labels is not None:
            codes, counts = count_pairs(tok_ptr, attr_ids, np.asarray(labels, dtype=np.int32), n_labels)
            order = np.argsort(codes)
            pairs = (codes[order], counts[order])
        return attrs, pairs

    def _csr(self, sent_ptr, derived) -> Attributes:
        table = self._bucket_table(sent_ptr, derived)
        valid = table >= 0
        table[valid] = self.bucket_map[table[valid]]
        tok_ptr, attr_ids = table_to_csr(table)
        return Attributes(sent_ptr, tok_ptr, attr_ids)

    def prune(self, keep: np.ndarray) -> np.ndarray:
        keep = np.asarray(keep, dtype=bool)
        remap = np.full(len(keep), -1, dtype=np.int32)
        remap[keep] = np.arange(int(keep.sum()), dtype=np.int32)
        live = self.bucket_map >= 0
        new_map = np.full(len(self.bucket_map), -1, dtype=np.int32)
        new_map[live] = remap[self.bucket_map[live]]
        self.bucket_map = new_map
        return remap

    def attribute_name(self, attr: int) -> str:
        buckets = np.flatnonzero(self.bucket_map == attr)
        return "#" + ",".join(str(b) for b in buckets)

    def state(self):
        meta, _ = super().state()
        meta["hash_bits"] = self.hash_bits
        arrays = {"bucket_map": self.bucket_map}
        for t, r in enumerate(self.radix):
            arrays[f"radix_{t}"] = r
        return meta, arrays

    @classmethod
    def from_state(cls, meta: dict, arrays: dict) -> "HashedAttributeExtractor":
        base = AttributeExtractor.from_state(meta, {**arrays, "attr_keys": np.zeros(0, np.int64),
                                                    "attr_offset": np.zeros(len(meta["templates"]) + 1, np.int64)})
        ex = cls(base.templates, base.columns, base.sentinels, meta["hash_bits"])
        ex._derived = base._derived
        ex.radix, ex.hashed = base.radix, base.hashed
        ex.bucket_map = np.asarray(arrays["bucket_map"], dtype=np.int32)
        return ex
