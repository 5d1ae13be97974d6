"""Feature spaces: which (attribute, label) pairs get a weight.

A *feature* pairs an attribute with a label. Two spaces are offered
(ALGORITHMS.md, "Feature space"):

``gold``
    only the pairs seen in the gold training labels, each at least ``cc``
    times (Collins 2002, s. 3: count cut-off; CRFsuite's default sparse
    features). The other pairs are fixed at weight 0.
``all``
    every label for every attribute seen at least ``cc`` times
    (CRFsuite's ``possible_states``).

Weights are stored flat: features ``0 .. F-1`` (grouped by attribute, label
ascending within an attribute), then the transitions ``U[prev, cur]``
(``L*L``), the start weights (``L``) and the end weights (``L``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .extract import Attributes
from .hashing import count_pairs, remap_csr


@dataclass
class FeatureIndex:
    """CSR map from attributes to their features.

    Attributes
    ----------
    feat_ptr : int64 array, shape (n_attributes + 1,)
        Attribute ``a`` owns features ``feat_ptr[a]:feat_ptr[a+1]``.
    feat_label : int32 array, shape (n_features,)
        Label of each feature, ascending within an attribute.
    n_labels : int
    """

    feat_ptr: np.ndarray
    feat_label: np.ndarray
    n_labels: int

    @property
    def n_features(self) -> int:
        return len(self.feat_label)

    @property
    def n_weights(self) -> int:
        """Length of the flat weight vector: features, transitions, start, end."""
        return self.n_features + self.n_labels * self.n_labels + 2 * self.n_labels

    def check(self, n_attributes: int) -> None:
        """Check the index read from a file before any compiled kernel reads it.

        Parameters
        ----------
        n_attributes : int
            The number of attributes of the model's attribute table.

        Raises
        ------
        ValueError
            Unless ``feat_ptr`` has ``n_attributes + 1`` non-decreasing offsets
            from 0 to ``n_features`` and every attribute's labels are distinct
            label ids in ascending order (the kernels index the weights and
            search the labels by them: a file whose digests are right but
            whose arrays are not would read outside them).
        """
        ptr, lab = self.feat_ptr, self.feat_label
        if (ptr.ndim != 1 or lab.ndim != 1 or len(ptr) != n_attributes + 1 or ptr[0] != 0
                or ptr[-1] != len(lab) or np.any(np.diff(ptr) < 0)):
            raise ValueError(f"the feature offsets (feat_ptr) do not fit the {n_attributes} attributes and "
                             f"{len(lab)} features")
        if len(lab) and (int(lab.min()) < 0 or int(lab.max()) >= self.n_labels):
            raise ValueError(f"a feature's label id (feat_label) is outside 0..{self.n_labels - 1}")
        rising = lab[1:] > lab[:-1]  # no copy of the labels (a model may hold millions of features)
        starts = ptr[1:-1]
        rising[starts[(starts > 0) & (starts < len(lab))] - 1] = True  # a new attribute may start lower
        if not rising.all():
            raise ValueError("an attribute's feature labels (feat_label) are not distinct and ascending")


def build_feature_index(attrs: Attributes, labels: np.ndarray, n_labels: int, n_attributes: int,
                        cc: int = 0, space: str = "gold", pairs=None) -> tuple[FeatureIndex, np.ndarray]:
    """Choose the features of a training corpus.

    Parameters
    ----------
    attrs : Attributes
        Training attributes (all attributes seen, before pruning).
    labels : int32 array, shape (n_tokens,)
        Gold label id of each token.
    n_labels, n_attributes : int
    cc : int, default 0
        Count cut-off: a pair (``gold``) or an attribute (``all``) is kept
        only if it occurs at least ``cc`` times in the training data.
    space : {"gold", "all"}
    pairs : tuple (codes, counts), optional
        Pair counts already made by
        :meth:`AttributeExtractor.fit_transform_counts` (counted here otherwise).

    Returns
    -------
    index : FeatureIndex
        Over the *kept* attributes only (renumbered in order).
    keep : bool array, shape (n_attributes,)
        Attributes that own at least one feature; pass to
        :meth:`AttributeExtractor.prune`.

    Raises
    ------
    ValueError
        For an unknown ``space``.
    """
    minimum = max(int(cc), 1)
    if space == "gold":
        if pairs is None:
            pairs = count_pairs(attrs.tok_ptr, attrs.attr_ids, labels, n_labels)
        codes, pair_counts = pairs
        codes = np.sort(codes[pair_counts >= minimum])
        feat_attr = codes // n_labels
        feat_label = (codes % n_labels).astype(np.int32)
    elif space == "all":
        attr_counts = np.bincount(attrs.attr_ids, minlength=n_attributes)
        kept = np.flatnonzero(attr_counts >= minimum)
        feat_attr = np.repeat(kept, n_labels)
        feat_label = np.tile(np.arange(n_labels, dtype=np.int32), len(kept))
    else:
        raise ValueError(f"unknown feature space {space!r}; expected 'gold' or 'all'")
    per_attr = np.bincount(feat_attr, minlength=n_attributes)
    keep = per_attr > 0
    kept_counts = per_attr[keep]
    feat_ptr = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
    np.cumsum(kept_counts, out=feat_ptr[1:])
    return FeatureIndex(feat_ptr, np.ascontiguousarray(feat_label, dtype=np.int32), n_labels), keep


def remap_attributes(attrs: Attributes, remap: np.ndarray) -> Attributes:
    """Apply an attribute renumbering (``-1`` = dropped) to CSR attributes."""
    tok_ptr, attr_ids = remap_csr(attrs.tok_ptr, attrs.attr_ids, np.asarray(remap, dtype=np.int32))
    return Attributes(attrs.sent_ptr, tok_ptr, attr_ids)
