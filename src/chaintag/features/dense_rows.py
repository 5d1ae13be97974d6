"""The kernels' layout of a feature index: full rows for the attributes that hold many labels.

In the ``gold`` feature space an attribute owns the features of the labels it
was seen with (:mod:`chaintag.features.space`), so the emission scores add
each feature to its label one at a time (``E[i, feat_label[f]] += W[f]``).
That scattered addition costs about 3 ns a feature, and on CoNLL-2000
chunking the attributes that hold 3 or more of its 22 labels make 75 % of
the (token, attribute) entries. Given a *full row* (every label, in label
order) the same sums take one sweep over contiguous weights, which the
compiler vectorizes: the emission scores of a pass over the CoNLL-2000
training set took 0.062-0.066 s instead of 0.103-0.108 s (3 or more
features), and a perceptron epoch 15-30 % less CPU time on CoNLL-2000 and UD
EWT (``benchmarks/profile_emissions.py``). The learners whose kernels find
features only through :func:`chaintag.decoding.scoring.find_feature`
(``_full_rows`` on their class) train in it, and tagging decodes inputs of
:data:`DECODE_MIN_TOKENS` tokens or more in it once the model has decoded enough
tokens to pay back building it (:class:`FullRowMemo`).

:func:`row_layout` gives such a layout: the attributes with at least
:func:`full_row_threshold` features get a full row, whose labels without a
feature hold the weight 0 and the label :data:`ABSENT` in ``feat_label`` (so
that :func:`chaintag.decoding.scoring.find_feature` finds no feature there, and
an update never gives them a weight); the other attributes keep their rows.
The layout is the kernels' alone: a model keeps and saves its features as
the feature space chose them, and :meth:`RowLayout.dense_weights` /
:meth:`RowLayout.sparse_weights` carry weights between the two.

Every score is the same bit for bit in both layouts: a row adds its entries'
weights in entry order either way, and adding the weight 0 of a label
without a feature leaves a sum unchanged (``x + 0.0 == x``; a zero's sign
can differ, which no comparison sees).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._jit import njit

from .space import FeatureIndex

ABSENT = -1
"""``feat_label`` of a label without a feature in a full row (never a label id)."""

MAX_GROWTH = 4.0
"""The full rows may make the features at most this many times as many (else the threshold rises)."""


def full_row_threshold(n_labels: int) -> int:
    """Features from which an attribute gets a full row: ``max(4, ceil(n_labels / 10))``.

    A full row costs a sweep over ``n_labels`` contiguous weights. Measured
    on the perceptron's epochs (``benchmarks/profile_emissions.py``, one
    thread): on CoNLL-2000 chunking (22 labels) thresholds 3 to 5 were the
    fastest, on UD EWT XPOS (50 labels) 5 to 7, both about 25-30 % faster
    than no full rows; 2 and 8 (CoNLL) or 12 (UD) were slower.
    """
    return max(4, -(-int(n_labels) // 10))


@dataclass(frozen=True)
class RowLayout:
    """A feature index in the kernels' layout, with the map from the features it came from.

    Attributes
    ----------
    index : FeatureIndex
        The same attributes, labels and transitions; the attributes with full rows own
        ``n_labels`` features each (:data:`ABSENT` labels among them).
    position : int32 array (int64 beyond 2**31 - 1 features), shape (n_features of the source index,)
        Feature of the layout of every feature of the source index.
    source : FeatureIndex
        The index it was made from.
    """

    index: FeatureIndex
    position: np.ndarray
    source: FeatureIndex

    def dense_weights(self, w: np.ndarray) -> np.ndarray:
        """Weights of the source index (shape (n_weights,)) in this layout (0 where a feature is absent).

        Returns
        -------
        float64 array, shape (index.n_weights,)
        """
        F = self.source.n_features
        out = np.zeros(self.index.n_weights)
        out[self.position] = w[:F]
        out[self.index.n_features:] = w[F:]
        return out

    def sparse_weights(self, w: np.ndarray) -> np.ndarray:
        """Weights of this layout back in the source index's (a new float64 array)."""
        F = self.index.n_features
        return np.concatenate([w[self.position], w[F:]])

    def entries(self, ent_lo: np.ndarray, ent_n: np.ndarray, in_place: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Feature entries (:func:`chaintag.decoding.scoring.feature_entries`) of the source index, in this layout.

        Parameters
        ----------
        ent_lo, ent_n : integer arrays, shape (n_entries,)
        in_place : bool, default False
            Write the entries over ``ent_lo`` and ``ent_n`` (unless ``ent_lo``'s dtype cannot hold
            the layout's features), so that no second copy is held.

        Returns
        -------
        ent_lo, ent_n : arrays of the dtypes of the arguments (int64 ``ent_lo`` when the layout needs it)
        """
        lo_type = ent_lo.dtype if self.index.feat_ptr[-1] <= np.iinfo(ent_lo.dtype).max else np.int64
        out_lo = ent_lo if in_place and lo_type == ent_lo.dtype else np.empty(ent_lo.shape[0], dtype=lo_type)
        out_n = ent_n if in_place else np.empty_like(ent_n)
        _map_entries(ent_lo, ent_n, self.source.feat_ptr, self.index.feat_ptr, out_lo, out_n)
        return out_lo, out_n


def row_layout(index: FeatureIndex, threshold: int | None = None) -> RowLayout | None:
    """The layout with full rows for the attributes of ``index`` with at least ``threshold`` features.

    Parameters
    ----------
    index : FeatureIndex
    threshold : int, optional
        Default :func:`full_row_threshold` of the labels; raised while the full rows would make
        more than :data:`MAX_GROWTH` times the features.

    Returns
    -------
    RowLayout or None
        None when no attribute would change (every row already full, or none long enough).
    """
    L = int(index.n_labels)
    counts = np.diff(index.feat_ptr)
    th = full_row_threshold(L) if threshold is None else int(threshold)
    while True:
        full = (counts >= th) & (counts < L)
        if not full.any():
            return None
        size = np.where(full, L, counts)
        total = int(size.sum())
        if total <= MAX_GROWTH * max(index.n_features, 1) or th >= L:
            break
        th += 1
    feat_ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(size, out=feat_ptr[1:])
    feat_label = np.empty(total, dtype=np.int32)
    position = np.empty(index.n_features, dtype=np.int32 if total < 2 ** 31 else np.int64)
    _fill_layout(index.feat_ptr, index.feat_label, full, feat_ptr, feat_label, position)
    return RowLayout(FeatureIndex(feat_ptr, feat_label, L), position, index)


@njit(cache=True)
def _fill_layout(src_ptr, src_label, full, feat_ptr, feat_label, position):
    for a in range(full.shape[0]):
        lo = src_ptr[a]
        hi = src_ptr[a + 1]
        base = feat_ptr[a]
        if full[a]:
            for j in range(feat_ptr[a + 1] - base):
                feat_label[base + j] = ABSENT
            for f in range(lo, hi):
                feat_label[base + src_label[f]] = src_label[f]
                position[f] = base + src_label[f]
        else:
            for f in range(lo, hi):
                feat_label[base + f - lo] = src_label[f]
                position[f] = base + f - lo


@njit(cache=True)
def _map_entries(ent_lo, ent_n, src_ptr, feat_ptr, out_lo, out_n):
    # the attribute of an entry: the one whose source row (of at least one feature) starts at ent_lo
    n_attr = src_ptr.shape[0] - 1
    attr_at = np.full(src_ptr[n_attr] + 1, -1, dtype=np.int64)
    for a in range(n_attr):
        if src_ptr[a + 1] > src_ptr[a]:
            attr_at[src_ptr[a]] = a
    for k in range(ent_lo.shape[0]):
        if ent_n[k] == 0:
            out_lo[k] = 0
            out_n[k] = 0
            continue
        a = attr_at[ent_lo[k]]
        out_lo[k] = feat_ptr[a]
        out_n[k] = feat_ptr[a + 1] - feat_ptr[a]


DECODE_MIN_TOKENS = 2000
"""Inputs of fewer tokens are decoded in the model's layout (a short input does not pay back the check
of the weights)."""

PAYBACK_FEATURES_PER_TOKEN = 8
"""The layout is built once a model has decoded ``n_features / 8`` tokens (in calls of
:data:`DECODE_MIN_TOKENS` or more): building it costs about 13 ns a feature (6-13 ms for the 452,615
features of a CoNLL-2000 model) and saves about 0.19 us a token, so it pays back after ``n_features /
14`` tokens; 8 leaves a margin, and a single call on a short text never pays for it."""

_NOT_BUILT = object()


class FullRowMemo:
    """A model's index and weights in the kernels' layout, kept between decoding calls.

    The layout is built once the model has decoded enough tokens to pay it back
    (:data:`PAYBACK_FEATURES_PER_TOKEN`), and again when the model's index is another object; the
    weights in it when the weights differ from those it was made from (compared value for value on
    every call, so that a change made in place is seen too). A copy or a pickle of the memo starts
    empty. Threads may share one: each call reads and replaces one tuple.
    """

    def __init__(self):
        self._state = None  # (index, layout or None or _NOT_BUILT, source weights, weights in the layout, tokens)

    def __reduce__(self):
        return FullRowMemo, ()

    def arrays(self, index: FeatureIndex, w: np.ndarray, n_tokens: int | None = None):
        """``(feat_ptr, feat_label, weights)`` to decode with: the layout's, or ``index``'s own when no
        row changes or the layout is not paid back yet.

        Parameters
        ----------
        index : FeatureIndex
        w : float64 array, shape (index.n_weights,)
        n_tokens : int, optional
            Tokens of this call, counted towards the payback (None: build the layout now).

        Returns
        -------
        feat_ptr : int64 array
        feat_label : int32 array
        weights : float64 array (the memo's; not to be changed)
        """
        state = self._state
        if state is None or state[0] is not index:
            state = (index, _NOT_BUILT, None, None, 0)
        layout = state[1]
        if layout is _NOT_BUILT:
            tokens = state[4] + (n_tokens or 0)
            if n_tokens is not None and tokens * PAYBACK_FEATURES_PER_TOKEN < index.n_features:
                self._state = (index, _NOT_BUILT, None, None, tokens)
                return index.feat_ptr, index.feat_label, w
            layout = row_layout(index)
            state = (index, layout, None, None, tokens)
        if layout is None:
            self._state = state
            return index.feat_ptr, index.feat_label, w
        if state[2] is None or state[2].shape != w.shape or not np.array_equal(state[2], w):
            state = (index, layout, np.array(w, dtype=np.float64), layout.dense_weights(w), state[4])
        self._state = state
        return layout.index.feat_ptr, layout.index.feat_label, state[3]
