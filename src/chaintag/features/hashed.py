"""Feature hashing: attributes as buckets of a fixed-size table (``--hash-bits``).

With ``hash_bits = b`` an attribute is ``hash(template, key) mod 2^b``: no
per-template key tables are kept, and the attribute vocabulary holds at most
``2^b`` buckets whatever the corpus; distinct attributes that fall in one
bucket share its weights (Weinberger et al. 2009). Only the buckets seen in
training (and keeping a feature after the cut-off) are stored, as the sorted
array ``bucket_keys``; attribute ``a`` is bucket ``bucket_keys[a]``.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from .extract import AttributeExtractor, Attributes
from .hashing import count_pairs
from .keys import _mix, table_to_csr
from .templates import is_vector_template


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

    def __init__(self, templates, columns, sentinels: bool = False, hash_bits: int = 20, resources=None):
        if not 1 <= int(hash_bits) <= 30:
            raise ValueError(f"hash_bits must be between 1 and 30, not {hash_bits}")
        if any(is_vector_template(t) for t in templates):
            raise ValueError("vec(...) templates (real-valued word-vector attributes) are not offered with "
                             "hashed attributes (hash_bits); drop hash_bits or the vec templates")
        from .chargrams import is_gram_template
        if any(is_gram_template(t) for t in templates):
            raise ValueError("cngramK(...) templates (character n-grams) are not offered with hashed attributes "
                             "(hash_bits); drop hash_bits or the cngram templates")
        super().__init__(templates, columns, sentinels, resources=resources)
        self.hash_bits = int(hash_bits)
        self.bucket_keys = np.zeros(0, dtype=np.int64)

    @property
    def n_attributes(self) -> int:
        return len(self.bucket_keys)

    def _bucket_table(self, sent_ptr, derived) -> np.ndarray:
        mask = (1 << self.hash_bits) - 1
        table = np.full((len(self.templates), derived.shape[1]), -1, dtype=np.int32)
        for t in range(len(self.templates)):
            hash_buckets(self._keys(sent_ptr, derived, t), t, mask, table[t])
        return table

    def _ids(self, table: np.ndarray) -> np.ndarray:
        """Replace buckets by attribute ids (-1 for buckets not in ``bucket_keys``)."""
        valid = table >= 0
        if len(self.bucket_keys) == 0:
            table[valid] = -1
            return table
        buckets = table[valid].astype(np.int64)
        pos = np.minimum(np.searchsorted(self.bucket_keys, buckets), len(self.bucket_keys) - 1)
        found = self.bucket_keys[pos] == buckets
        table[valid] = np.where(found, pos, -1).astype(np.int32)
        return table

    def fit_transform_counts(self, tokens, labels=None, n_labels: int = 0):
        sent_ptr, derived = self._derive(tokens, grow=True)
        self.radix = [np.asarray([self._derived[r].size for r in rows], dtype=np.int64) for rows in self._atom_rows]
        self.hashed = [True] * len(self.templates)  # keys combined by hashing, whatever their radix
        table = self._bucket_table(sent_ptr, derived)
        self.bucket_keys = np.unique(table[table >= 0]).astype(np.int64)
        tok_ptr, attr_ids = table_to_csr(self._ids(table))
        attrs = Attributes(sent_ptr, tok_ptr, attr_ids)
        pairs = None
        if labels is not None:
            codes, counts = count_pairs(tok_ptr, attr_ids, np.asarray(labels, dtype=np.int32), n_labels)
            order = np.argsort(codes)
            pairs = (codes[order], counts[order])
        return attrs, pairs

    def _csr(self, sent_ptr, derived) -> Attributes:
        tok_ptr, attr_ids = table_to_csr(self._ids(self._bucket_table(sent_ptr, derived)))
        return Attributes(sent_ptr, tok_ptr, attr_ids)

    def prune(self, keep: np.ndarray) -> np.ndarray:
        keep = np.asarray(keep, dtype=bool)
        remap = np.full(len(keep), -1, dtype=np.int32)
        remap[keep] = np.arange(int(keep.sum()), dtype=np.int32)
        self.bucket_keys = self.bucket_keys[keep]
        return remap

    def attribute_name(self, attr: int) -> str:
        return f"#{int(self.bucket_keys[attr])}"

    def state(self):
        meta, base_arrays = super().state()
        meta["hash_bits"] = self.hash_bits
        arrays = {"bucket_keys": self.bucket_keys}
        arrays.update({k: v for k, v in base_arrays.items() if k.startswith("res_")})
        for t, r in enumerate(self.radix):
            arrays[f"radix_{t}"] = r
        return meta, arrays

    @classmethod
    def from_state(cls, meta: dict, arrays: dict) -> "HashedAttributeExtractor":
        base = AttributeExtractor.from_state(meta, {**arrays, "attr_keys": np.zeros(0, np.int64),
                                                    "attr_offset": np.zeros(len(meta["templates"]) + 1, np.int64)})
        ex = cls(base.templates, base.columns, base.sentinels, meta["hash_bits"], resources=base.resources)
        ex._derived = base._derived
        ex.radix, ex.hashed = base.radix, base.hashed
        ex.bucket_keys = np.asarray(arrays["bucket_keys"], dtype=np.int64)
        return ex
