"""Attribute extraction without one Python string per attribute.

The pipeline, for a batch of sentences:

1. every feature column is interned to integer ids (one dict lookup per token
   and column: the only per-token Python work);
2. each *derived column* (a column through a chain of functions, e.g.
   ``suf3(lower(word))``) is computed on the batch's distinct values only and
   mapped to ids of a vocabulary built on the training data, in bulk with numpy;
3. a compiled kernel combines the atom values of each template into one
   integer key per token (exact mixed radix, or a 64-bit hash when the radix
   product does not fit in 63 bits);
4. keys are looked up in the per-template key table (an open-addressing hash
   table for large inputs and templates, a binary search over the sorted keys
   otherwise), giving attribute ids in CSR layout.

Nothing per token survives the batch except the CSR arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Sequence

import numpy as np

from .hashing import intern_keys
from .normal_form import nfc
from .keys import (ABSENT, FIRST_VALUE, HASH_INDEX_MIN, PARALLEL_LOOKUP_MIN, UNKNOWN, hash_index, lookup_keys,
                   lookup_keys_hashed, lookup_keys_serial, place_template, table_to_csr, template_keys)
from .chargrams import GRAM_FUNCTION, GramColumn, is_gram_template, merge_csr
from .templates import (COPIED_SHAPES, FUNCTIONS, MAX_OFFSET, Template, copies_caseless_letters, is_vector_template,
                        parse_template)

#: Templates whose radix product reaches this use 64-bit hashed keys instead of exact ones.
EXACT_KEY_LIMIT = 2 ** 62


@dataclass
class Attributes:
    """Attribute ids of a corpus in CSR layout.

    Attributes
    ----------
    sent_ptr : int64 array, shape (n_sentences + 1,)
        Sentence ``s`` spans tokens ``sent_ptr[s]:sent_ptr[s+1]``.
    tok_ptr : int64 array, shape (n_tokens + 1,)
        Token ``i`` has attributes ``attr_ids[tok_ptr[i]:tok_ptr[i+1]]``.
    attr_ids : int32 array, shape (n_entries,)
        Attribute ids in ``0 .. n_attributes - 1``.
    """

    sent_ptr: np.ndarray
    tok_ptr: np.ndarray
    attr_ids: np.ndarray
    #: float64 value of every entry (real-valued attributes: ``vec(...)`` templates,
    #: feature-dict numbers), None when every value is 1
    attr_values: np.ndarray | None = None

    @property
    def n_sentences(self) -> int:
        return len(self.sent_ptr) - 1

    @property
    def n_tokens(self) -> int:
        return len(self.tok_ptr) - 1


class _Derived:
    """A derived column: a source column through a chain of functions, with its vocabulary."""

    def __init__(self, column: str, functions: tuple[str, ...], values: list[str] | None = None,
                 table: dict | None = None):
        self.column = column
        self.functions = functions
        self.table = None if table is FUNCTIONS else table  # the module's functions are not copied
        self.set_values(values or [])

    def set_values(self, values) -> None:
        """The vocabulary: ``values`` in id order. A value saved decomposed (by a model saved before values
        were composed) is also found composed."""
        self.values = list(values)
        self.index = {v: FIRST_VALUE + k for k, v in enumerate(self.values)}
        for k, v in enumerate(self.values):
            if not v.isascii():
                self.index.setdefault(nfc(v), FIRST_VALUE + k)

    def apply(self, value: str) -> str | None:
        if value is not None:
            value = nfc(value)
        for f in self.functions:
            if value is None:
                return None
            value = (self.table or FUNCTIONS)[f](value)
        return value

    def map(self, uniques: list[str], grow: bool) -> np.ndarray:
        out = np.empty(len(uniques), dtype=np.int32)
        index = self.index
        for k, raw in enumerate(uniques):
            v = self.apply(raw)
            if v is None:
                out[k] = ABSENT
                continue
            j = index.get(v)
            if j is None:
                if grow:
                    j = FIRST_VALUE + len(self.values)
                    index[v] = j
                    self.values.append(v)
                else:
                    j = UNKNOWN
            out[k] = j
        return out

    @property
    def size(self) -> int:
        return FIRST_VALUE + len(self.values)


def _columns_of(tokens, columns: list[int]) -> dict[int, list[str]]:
    """Flat list of the values of each wanted column (C-level loops)."""
    flat = [tok for sent in tokens for tok in sent]
    return {c: list(map(itemgetter(c), flat)) for c in columns}


def _intern(values: list[str]) -> tuple[np.ndarray, list[str]]:
    uniques = list(dict.fromkeys(values))
    index = {v: k for k, v in enumerate(uniques)}
    ids = np.fromiter(map(index.__getitem__, values), dtype=np.int32, count=len(values))
    return ids, uniques


def _resource_functions(templates, resources):
    """The word maps the templates read (only those) and the function table that includes them.

    Raises
    ------
    InputError
        When a template names a resource function (``brown6``, ``km256``) and
        no resource is given, or the resource cannot serve it.
    """
    from ..errors import InputError
    from ..resources.wordmaps import is_resource_function
    names = sorted({f for t in templates for a in t.atoms for f in a.functions if is_resource_function(f)})
    if not names:
        return None, FUNCTIONS
    if resources is None:
        used = next(t.name for t in templates for a in t.atoms if any(f in names for f in a.functions))
        paths = any(n.startswith("brown") for n in names)
        what = ("cluster paths (brownK): a folder of unlabeled text (--resources FOLDER, which needs "
                "pip install 'chaintag[clusters]'), a table from `chaintag clusters` or a Brown paths file"
                if paths else
                "k-means ids (kmN) or vectors: a word-vector file (GloVe, word2vec or fastText text; the "
                "data directory's glove6b50d/glove.6B.50d.txt is taken when present, with scikit-learn: "
                "pip install 'chaintag[clusters]'), or a table from `chaintag clusters`")
        raise InputError(f"template {used!r} reads word clusters ({', '.join(names)}), but no cluster "
                         f"resource is given; these read {what} (--resources, or resources= in Python; "
                         "--clusters is the same)")
    kept = resources.subset(names)
    table = dict(FUNCTIONS)
    for n in names:
        if n != "vec":
            table[n] = kept.function(n)
    return kept, table


def refuse_vectors_of(templates, virtual) -> None:
    """Refuse ``vec(...)`` templates that read one of the ``virtual`` columns (labels, not words).

    Raises
    ------
    chaintag.errors.InputError
        Naming the first such template.
    """
    for t in templates:
        if is_vector_template(t) and t.atoms[0].column in virtual:
            from ..errors import InputError
            raise InputError(f"template {t.name!r}: vec(...) reads the word vectors of a data column, not of "
                             f"the virtual column {t.atoms[0].column!r}")


class AttributeExtractor:
    """Maps sentences (rows of column strings) to attribute ids.

    Parameters
    ----------
    templates : list of Template
        From :func:`chaintag.features.templates.resolve_templates`.
    columns : sequence of str
        Names of the feature columns, in the order of each token's values.
    sentinels : bool, default False
        Whether atoms reading outside the sentence give boundary sentinels
        (``<S-1>``, ``<E+1>``: CRF++ style) or make the template not fire
        (the default, as CRFsuite's example extractors; on CoNLL-2000 the
        averaged perceptron scored 93.48 F1 without and 93.39 with them).
    resources : chaintag.resources.wordmaps.WordMaps, optional
        Word clusters for the templates' ``brownK`` / ``kmN`` functions and
        word vectors for ``vec``; the extractor keeps (and saves with the
        model) only the maps they read.
    vec_scale : float or None, default 0.1
        Standard deviation of the vector components after scaling (None:
        the file's values); see :mod:`chaintag.features.vectors`.
    vec_dim : int or None, default None
        Keep the first ``vec_dim`` principal components of the vectors
        (None: all their dimensions).
    gazetteer : chaintag.features.gazetteer.Gazetteer, optional
        Gives the virtual columns ``gaz`` / ``gazn`` that templates may read
        (matched on the first column); on the training sentences
        :meth:`fit_transform` reads its jackknifed values when it has them.
        It is saved with the model.
    autotags : chaintag.features.autotags.AutoTags, optional
        Gives the virtual columns ``atag`` / ``atag2`` (the labels of unlabeled
        text, looked up by the first column), jackknifed on the training
        sentences in the same way; saved with the model.

    Raises
    ------
    chaintag.errors.InputError
        When a template reads a resource that is not given, or a virtual
        column without its source.

    Notes
    -----
    Call :meth:`fit_transform` once on training data (it builds the derived
    vocabularies and the attribute table), then :meth:`transform` on any
    data. :meth:`prune` keeps a subset of attributes (cut-offs). Attribute ids
    are contiguous per template: template ``t`` owns ids
    ``attr_offset[t]:attr_offset[t+1]``, whose keys are sorted.
    """

    def __init__(self, templates: list[Template], columns: Sequence[str], sentinels: bool = False,
                 resources=None, vec_scale: float | None = 0.1, vec_dim: int | None = None, gazetteer=None,
                 autotags=None):
        self.templates = list(templates)
        self.gazetteer = gazetteer
        self.autotags = autotags
        from .autotags import AUTO_COLUMNS
        from .gazetteer import GAZ_COLUMNS
        #: virtual column -> its source (a gazetteer or a profile of labels of unlabeled text)
        self._virtual: dict = {}
        for names, source, hint in ((GAZ_COLUMNS, gazetteer, "a gazetteer column, but there is no gazetteer: add "
                                     "@gazetteer=train or @gazetteer=FILE to the features"),
                                    (AUTO_COLUMNS, autotags, "a column of labels of unlabeled text, but there is "
                                     "no such text: add @autotags=PATH to the features (chaintag train --autotags)")):
            read = {a.column for t in self.templates for a in t.atoms if a.column in names and a.column not in columns}
            if read and source is None:
                from ..errors import InputError
                used = next(t.name for t in self.templates for a in t.atoms if a.column in read)
                raise InputError(f"template {used!r} reads {hint}")
            self._virtual.update(dict.fromkeys(read, source))
        self.sentinels = bool(sentinels)
        self.columns = tuple(columns)
        self.resources, self._table = _resource_functions(self.templates, resources)
        self._derived: list[_Derived] = []
        self._atom_rows: list[np.ndarray] = []
        #: indices of the vec(...) templates, and the (unvalued) inner chain each reads
        self._vec_t = [t for t, tm in enumerate(self.templates) if is_vector_template(tm)]
        refuse_vectors_of(self.templates, self._virtual)
        self._vec_inner = {t: _Derived(self.templates[t].atoms[0].column, self.templates[t].atoms[0].functions[:-1],
                                       table=self._table) for t in self._vec_t}
        #: the cngramK(...) templates (several attributes per token) and the n-grams each reads
        self._gram_t = [t for t, tm in enumerate(self.templates) if is_gram_template(tm)]
        self._grams = {}
        for t in self._gram_t:
            a = self.templates[t].atoms[0]
            self._grams[t] = GramColumn(_Derived(a.column, a.functions[:-1], table=self._table), a.offset,
                                        int(GRAM_FUNCTION.match(a.functions[-1]).group(1)))
        self._gram_rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.vec_scale = None if vec_scale is None else float(vec_scale)
        self.vec_factor = 1.0
        self._vectors = None
        self.vec_dim = None if vec_dim is None else int(vec_dim)
        if self._vec_t:
            from .vectors import principal_components, scale_factor
            # the model keeps the reduced vectors (a model read back has vec_dim columns: nothing to reduce)
            from ..errors import InputError
            try:
                self.resources.vectors = principal_components(self.resources.vector_rows(), self.vec_dim)
            except InputError as exc:
                raise InputError(exc.message, getattr(self.resources, "source", None) or None) from None
            self._vectors = np.ascontiguousarray(self.resources.vectors, dtype=np.float32)
            self.vec_factor = scale_factor(self._vectors, self.vec_scale)
        by_key: dict[tuple[str, tuple[str, ...]], int] = {}
        for t in self.templates:
            if is_vector_template(t) or is_gram_template(t):
                self._atom_rows.append(np.zeros(0, dtype=np.int64))
                continue
            rows = []
            for a in t.atoms:
                k = (a.column, a.functions)
                if k not in by_key:
                    by_key[k] = len(self._derived)
                    self._derived.append(_Derived(a.column, a.functions, table=self._table))
                rows.append(by_key[k])
            self._atom_rows.append(np.asarray(rows, dtype=np.int64))
        self._atom_offsets = [np.asarray([a.offset for a in t.atoms], dtype=np.int64) for t in self.templates]
        self._columns_read = sorted({self.columns.index(d.column) for d in self._derived
                                     if d.column not in self._virtual}
                                    | {self.columns.index(d.column) for d in self._vec_inner.values()}
                                    | {self.columns.index(g.inner.column) for g in self._grams.values()
                                       if g.inner.column not in self._virtual}
                                    | ({0} if self._virtual else set()))
        self.radix: list[np.ndarray] = []
        self.hashed: list[bool] = []
        self.attr_keys = np.zeros(0, dtype=np.int64)
        self.attr_offset = np.zeros(len(self.templates) + 1, dtype=np.int64)

    # ------------------------------------------------------------------ sizes
    def column_values(self, column: str) -> set[str]:
        """The values of ``column`` seen in training, as read (no function applied): what a template
        ``column[k]`` knows; empty when no template reads the column plainly.

        Parameters
        ----------
        column : str
            A column name (``"pos"``).

        Returns
        -------
        set of str
        """
        return {v for d in self._derived if d.column == column and not d.functions for v in d.values}

    def knows(self, column: str, value: str) -> bool | None:
        """Whether a template that reads ``column`` saw ``value`` in training, through its functions
        (``lower(w[0])`` knows ``-LRB-`` when it saw ``-lrb-``); None when no template reads the column.

        Parameters
        ----------
        column : str
        value : str

        Returns
        -------
        bool or None
        """
        derived = [d for d in self._derived if d.column == column and d.values]
        if not derived:
            return None
        for d in derived:
            v = d.apply(value)
            if v is not None and v in d.index:
                return True
        return False

    @property
    def n_attributes(self) -> int:
        """Number of attributes in the table."""
        return int(self.attr_offset[-1])

    @property
    def has_vectors(self) -> bool:
        """Whether some template reads word vectors (``vec``): the attributes then carry real values."""
        return bool(self._vec_t)

    @property
    def has_grams(self) -> bool:
        """Whether some template gives character n-grams (``cngramK``: several attributes of one template per token)."""
        return bool(self._gram_t)

    @property
    def vector_dim(self) -> int:
        """Dimension of the word vectors that ``vec`` templates read (0 without them)."""
        return 0 if self._vectors is None else int(self._vectors.shape[1])

    # -------------------------------------------------------------- internals
    def _derive(self, tokens, grow: bool) -> tuple[np.ndarray, np.ndarray]:
        lengths = np.fromiter((len(s) for s in tokens), dtype=np.int64, count=len(tokens))
        sent_ptr = np.zeros(len(tokens) + 1, dtype=np.int64)
        np.cumsum(lengths, out=sent_ptr[1:])
        n_tokens = int(sent_ptr[-1])
        derived = np.empty((len(self._derived), n_tokens), dtype=np.int32)
        by_column = _columns_of(tokens, self._columns_read)
        cache: dict[str, tuple[np.ndarray, list[str]]] = {}

        def interned(column: str) -> tuple[np.ndarray, list[str]]:
            """Each token's index into the distinct values of ``column`` (a virtual column's or a data column's)."""
            if column not in cache:
                cache[column] = _intern(self._virtual_values(column, tokens, grow) if column in self._virtual
                                        else by_column[self.columns.index(column)])
            return cache[column]

        if grow:
            for r, d in enumerate(self._derived):
                ids, uniques = interned(d.column)
                derived[r] = d.map(uniques, grow)[ids]
        else:  # tagging: values of earlier batches are not derived again
            memo = self.__dict__.get("_derive_memo")
            if memo is None:
                from .derive_memo import DerivedMemo
                memo = self.__dict__.setdefault("_derive_memo", DerivedMemo())
            rows_of: dict[str, list[int]] = {}
            for r, d in enumerate(self._derived):
                rows_of.setdefault(d.column, []).append(r)
            for column, rows in rows_of.items():
                ids, uniques = interned(column)
                derived[rows] = memo.ids(column, [self._derived[r] for r in rows], uniques)[:, ids]
        self._vec_rows = self._vector_rows(sent_ptr, by_column, cache)
        self._gram_rows = {t: g.token_grams(*interned(g.inner.column), sent_ptr, grow) for t, g in self._grams.items()}
        return sent_ptr, derived

    def _virtual_values(self, column: str, tokens, grow: bool) -> list:
        """Values of a virtual column: the jackknifed training values while fitting, else the full source's."""
        source = self._virtual[column]
        train = source.train_columns
        if grow and train is not None and column in train:
            return train[column]
        return source.column(column, tokens)

    def _vector_rows(self, sent_ptr, by_column, cache) -> np.ndarray:
        """Row of the vector matrix that each vec template reads at each token (-1: none), shape (n_vec, n_tokens)."""
        from .vectors import shift_rows
        n_tokens = int(sent_ptr[-1])
        out = np.full((len(self._vec_t), n_tokens), -1, dtype=np.int32)
        if not self._vec_t:
            return out
        maps = self.resources
        live = np.any(self._vectors != 0, axis=1)
        for j, t in enumerate(self._vec_t):
            inner = self._vec_inner[t]
            if inner.column not in cache:
                cache[inner.column] = _intern(by_column[self.columns.index(inner.column)])
            ids, uniques = cache[inner.column]
            rows_u = np.full(len(uniques), -1, dtype=np.int32)
            for k, raw in enumerate(uniques):
                v = inner.apply(raw)
                if v is None:
                    continue
                r = maps.row(v)
                if r >= 0 and live[r]:
                    rows_u[k] = r
            out[j] = shift_rows(rows_u[ids], sent_ptr, self.templates[t].atoms[0].offset)
        return out

    def _with_vectors(self, sent_ptr, tok_ptr, attr_ids) -> Attributes:
        """CSR attributes with each token's vector entries appended (values set) when there are vec templates."""
        if not self._vec_t:
            return Attributes(sent_ptr, tok_ptr, attr_ids)
        from .vectors import append_vector_entries
        dim = self.vector_dim
        dim_attr = np.full((len(self._vec_t), dim), -1, dtype=np.int32)
        for j, t in enumerate(self._vec_t):
            lo, hi = int(self.attr_offset[t]), int(self.attr_offset[t + 1])
            keys = self.attr_keys[lo:hi]
            dim_attr[j, keys] = np.arange(lo, hi, dtype=np.int32)
        new_ptr, new_ids, values = append_vector_entries(tok_ptr, attr_ids, self._vec_rows, dim_attr,
                                                         self._vectors, self.vec_factor)
        return Attributes(sent_ptr, new_ptr, new_ids, values)

    def _keys(self, sent_ptr, derived, t: int) -> np.ndarray:
        out = np.empty(derived.shape[1], dtype=np.int64)
        template_keys(sent_ptr, derived, self._atom_rows[t], self._atom_offsets[t],
                      self.radix[t], self.hashed[t], self.sentinels, out)
        return out

    def _csr(self, sent_ptr, derived) -> Attributes:
        n_tokens = derived.shape[1]
        n_templates = len(self.templates)
        table = np.full((n_templates, n_tokens), -1, dtype=np.int32)
        from ..parallel import parallel_region  # serial after fork, or while another thread is in the layer
        with parallel_region(n_tokens >= PARALLEL_LOOKUP_MIN) as large:
            lookup = lookup_keys if large else lookup_keys_serial
            for t in range(n_templates):
                lo, hi = int(self.attr_offset[t]), int(self.attr_offset[t + 1])
                if hi == lo or t in self._vec_t or t in self._gram_t:
                    continue
                keys = self._keys(sent_ptr, derived, t)
                index = self._hash_index(t) if large and hi - lo >= HASH_INDEX_MIN else None
                if index is None:
                    lookup(keys, self.attr_keys[lo:hi], lo, table, t)
                else:
                    lookup_keys_hashed(keys, index[0], index[1], lo, table, t)
        extra = []
        for t in self._gram_t:  # each token's n-grams: the template's attributes whose keys they are
            lo, hi = int(self.attr_offset[t]), int(self.attr_offset[t + 1])
            counts, grams = self._gram_rows[t]
            keys = self.attr_keys[lo:hi]
            pos = np.minimum(np.searchsorted(keys, grams), max(hi - lo - 1, 0))
            found = (keys[pos] == grams) if hi > lo else np.zeros(len(grams), dtype=bool)
            tok = np.repeat(np.arange(len(counts)), counts)
            extra.append((np.bincount(tok[found], minlength=len(counts)).astype(np.int64), lo + pos[found]))
        return self._table_csr(sent_ptr, table, extra)

    def _hash_index(self, t: int):
        """The hash table of template ``t``'s keys (:func:`hash_index`), built on first use
        and kept while the attribute table is the same object (it is not part of the model)."""
        cache = getattr(self, "_hash_cache", None)
        if cache is None or cache[0] is not self.attr_keys:
            cache = self._hash_cache = (self.attr_keys, {})
        if t not in cache[1]:
            lo, hi = int(self.attr_offset[t]), int(self.attr_offset[t + 1])
            cache[1][t] = hash_index(self.attr_keys[lo:hi])
        return cache[1][t]

    def _table_csr(self, sent_ptr, table, extra=()) -> Attributes:
        """CSR attributes from the per-template table, each token's n-gram entries (``extra``: one
        (counts, attribute ids) pair per cngram template) and then its vector entries appended."""
        tok_ptr, attr_ids = table_to_csr(table)
        for counts, ids in extra:
            tok_ptr, attr_ids = merge_csr(tok_ptr, attr_ids, counts, ids)
        return self._with_vectors(sent_ptr, tok_ptr, attr_ids)

    # ------------------------------------------------------------------- API
    def fit_transform(self, tokens: Sequence[Sequence[Sequence[str]]]) -> Attributes:
        """Build the vocabularies and the attribute table on training data.

        Parameters
        ----------
        tokens : list of sentences, each a list of tuples of column strings

        Returns
        -------
        Attributes
            Every attribute that occurs in ``tokens``; use :meth:`prune` to
            apply cut-offs.
        """
        return self.fit_transform_counts(tokens)[0]

    def fit_transform_counts(self, tokens, labels: np.ndarray | None = None, n_labels: int = 0):
        """:meth:`fit_transform`, also counting (attribute, label) pairs when labels are given.

        Parameters
        ----------
        tokens : list of sentences, each a list of tuples of column strings
        labels : int32 array, shape (n_tokens,), optional
            Gold label id of each token.
        n_labels : int

        Returns
        -------
        attrs : Attributes
        pairs : tuple (codes, counts) of int64 arrays, or None
            Distinct pairs as sorted codes ``attribute * n_labels + label``
            and their numbers of occurrences (counted template by template
            with a dense array of ``n_attributes_of_template * n_labels``).
        """
        sent_ptr, derived = self._derive(tokens, grow=True)
        for source in (self.gazetteer, self.autotags):
            if source is not None:
                source.train_columns = None  # used once; not part of the model
        self.radix, self.hashed = [], []
        n_tokens = derived.shape[1]
        table = np.full((len(self.templates), n_tokens), -1, dtype=np.int32)
        keys_per_template = []
        codes: list[np.ndarray] = []
        counts: list[np.ndarray] = []
        if labels is not None:
            labels = np.asarray(labels, dtype=np.int64)
        offset = 0
        extra = []
        for t in range(len(self.templates)):
            if t in self._gram_t:
                keys = self._fit_gram_template(t, offset, labels, n_labels, codes, counts, extra)
            elif t in self._vec_t:
                keys = self._fit_vector_template(t, offset, labels, n_labels, codes, counts)
            else:
                keys = self._fit_keyed_template(t, sent_ptr, derived, offset, table, labels, n_labels,
                                                codes, counts)
            keys_per_template.append(keys)
            offset += len(keys)
        self._set_table(keys_per_template)
        pairs = None
        if labels is not None:
            pairs = (np.concatenate(codes).astype(np.int64), np.concatenate(counts).astype(np.int64))
        return self._table_csr(sent_ptr, table, extra), pairs

    def _fit_gram_template(self, t: int, offset: int, labels, n_labels: int, codes: list, counts: list,
                           extra: list) -> np.ndarray:
        """Fit cngram template ``t``: one attribute per n-gram that some training token has.

        Appends the template's radix and hashing, its tokens' (counts, attribute
        ids) to ``extra`` and, with labels, its pair codes and counts; returns its
        sorted keys (the n-gram codes). ``offset`` is its first attribute id.
        """
        per_token, grams = self._gram_rows[t]
        uniques, rank = np.unique(grams, return_inverse=True)
        self.radix.append(np.asarray([max(len(self._grams[t].values), 1)], dtype=np.int64))
        self.hashed.append(False)
        extra.append((per_token, (offset + rank).astype(np.int32)))
        if labels is not None and len(grams):
            pair_codes, pair_counts = np.unique(
                (offset + rank).astype(np.int64) * n_labels + np.repeat(labels, per_token), return_counts=True)
            codes.append(pair_codes)
            counts.append(pair_counts.astype(np.int64))
        return uniques.astype(np.int64)

    def _fit_vector_template(self, t: int, offset: int, labels, n_labels: int, codes: list,
                             counts: list) -> np.ndarray:
        """Fit vector template ``t``: one attribute per dimension, where some training token has a vector.

        Appends the template's radix and hashing and, with labels, its pair
        codes and counts; returns its keys (the dimensions, none without vectors).
        """
        has = self._vec_rows[self._vec_t.index(t)] >= 0
        dim = self.vector_dim if has.any() else 0
        self.radix.append(np.asarray([max(dim, 1)], dtype=np.int64))
        self.hashed.append(False)
        if labels is not None and dim:
            per_label = np.bincount(labels[has], minlength=n_labels).astype(np.int64)
            ys = np.flatnonzero(per_label)
            codes.append(((offset + np.arange(dim, dtype=np.int64))[:, None] * n_labels + ys[None, :]).ravel())
            counts.append(np.tile(per_label[ys], dim))
        return np.arange(dim, dtype=np.int64)

    def _template_radix(self, t: int) -> tuple[np.ndarray, bool]:
        """Template ``t``'s radix (its atoms' vocabulary sizes) and whether its keys must be hashed
        (the product of the sizes reaches :data:`EXACT_KEY_LIMIT`)."""
        radix = np.asarray([self._derived[r].size for r in self._atom_rows[t]], dtype=np.int64)
        product = 1
        for r in radix.tolist():
            product *= int(r)
        return radix, bool(product >= EXACT_KEY_LIMIT)

    def _fit_keyed_template(self, t: int, sent_ptr, derived, offset: int, table, labels, n_labels: int,
                            codes: list, counts: list) -> np.ndarray:
        """Fit template ``t`` from its tokens' keys: one attribute per distinct key.

        Appends the template's radix and hashing, places its attribute ids in
        row ``t`` of ``table`` and, with labels, appends its pair codes and
        counts; returns its keys in sorted order.
        """
        radix, hashed = self._template_radix(t)
        self.radix.append(radix)
        self.hashed.append(hashed)
        ids, uniques = intern_keys(self._keys(sent_ptr, derived, t))
        # ids in first-seen order -> ids in key order (the table is sorted per template)
        order = np.argsort(uniques, kind="stable")
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        if labels is not None:
            c = np.zeros(len(order) * n_labels, dtype=np.int64)
            place_template(ids, rank, offset, table, t, labels, n_labels, c)
            nz = np.flatnonzero(c)
            codes.append(nz + offset * n_labels)
            counts.append(c[nz])
        else:
            place_template(ids, rank, offset, table, t, ids.astype(np.int64), 0, np.zeros(0, np.int64))
        return uniques[order]

    def transform(self, tokens: Sequence[Sequence[Sequence[str]]]) -> Attributes:
        """Attribute ids of new sentences (unseen attributes are dropped).

        Parameters
        ----------
        tokens : list of sentences, each a list of tuples of column strings

        Returns
        -------
        Attributes
        """
        sent_ptr, derived = self._derive(tokens, grow=False)
        return self._csr(sent_ptr, derived)

    def _set_table(self, keys_per_template: list[np.ndarray]) -> None:
        sizes = [len(k) for k in keys_per_template]
        self.attr_offset = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.attr_offset[1:])
        self.attr_keys = (np.concatenate(keys_per_template) if keys_per_template
                          else np.zeros(0, dtype=np.int64)).astype(np.int64)

    def prune(self, keep: np.ndarray) -> np.ndarray:
        """Keep only the attributes where ``keep`` is True.

        Parameters
        ----------
        keep : bool array, shape (n_attributes,)

        Returns
        -------
        remap : int32 array, shape (n_attributes,)
            New id of each old attribute, -1 for dropped ones.
        """
        keep = np.asarray(keep, dtype=bool)
        per_t = [self.attr_keys[self.attr_offset[t]:self.attr_offset[t + 1]][keep[self.attr_offset[t]:self.attr_offset[t + 1]]]
                 for t in range(len(self.templates))]
        remap = np.full(len(keep), -1, dtype=np.int32)
        remap[keep] = np.arange(int(keep.sum()), dtype=np.int32)
        self._set_table(per_t)
        return remap

    def attribute_name(self, attr: int) -> str:
        """Readable name of an attribute, e.g. ``w[-1]|w[0]=the|cat`` (exact keys only)."""
        t = int(np.searchsorted(self.attr_offset, attr, side="right") - 1)
        tmpl = self.templates[t]
        if not tmpl.atoms:
            return "bias"
        if t in self._vec_t:
            return f"{tmpl.name}[{int(self.attr_keys[attr])}]"
        if t in self._gram_t:
            return f"{tmpl.name}={self._grams[t].values[int(self.attr_keys[attr])]}"
        if self.hashed[t]:
            return f"{tmpl.name}=#{int(self.attr_keys[attr]):x}"
        key = int(self.attr_keys[attr])
        vals = []
        for r, base in zip(reversed(self._atom_rows[t].tolist()), reversed(self.radix[t].tolist())):
            key, v = divmod(key, int(base))
            vals.append(self._value_name(r, v))
        return f"{tmpl.name}=" + "|".join(reversed(vals))

    def _value_name(self, row: int, v: int) -> str:
        if v >= FIRST_VALUE:
            return self._derived[row].values[v - FIRST_VALUE]
        if v <= 1 + MAX_OFFSET:
            return f"<S-{v - 1}>"
        return f"<E+{v - 1 - MAX_OFFSET}>"

    # ---------------------------------------------------------- persistence
    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """JSON-ready description and arrays to save with a model."""
        meta = {
            "columns": list(self.columns),
            "templates": [t.name for t in self.templates],
            "derived": [{"column": d.column, "functions": list(d.functions), "values": d.values}
                        for d in self._derived],
            "hashed": list(self.hashed),
            "sentinels": self.sentinels,
        }
        if self._gram_t:
            meta["grams"] = [self._grams[t].values for t in self._gram_t]
        if self._vec_t:
            meta["vec_scale"] = self.vec_scale
            meta["vec_factor"] = self.vec_factor
            meta["vec_dim"] = self.vec_dim
        arrays = {"attr_keys": self.attr_keys, "attr_offset": self.attr_offset}
        for t, r in enumerate(self.radix):
            arrays[f"radix_{t}"] = r
        if self.gazetteer is not None:
            meta["gazetteer"] = self.gazetteer.state()
        if self.autotags is not None:
            meta["autotags"], auto_arrays = self.autotags.state()
            arrays.update(auto_arrays)
        if self.resources is not None:
            meta["resources"], res_arrays = self.resources.state()
            arrays.update(res_arrays)
        return meta, arrays

    @classmethod
    def from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> "AttributeExtractor":
        """Rebuild an extractor saved by :meth:`state`."""
        resources = None
        if meta.get("resources"):
            from ..resources.wordmaps import WordMaps
            resources = WordMaps.from_state(meta["resources"], arrays)
        gazetteer = None
        if meta.get("gazetteer"):
            from .gazetteer import Gazetteer
            gazetteer = Gazetteer.from_state(meta["gazetteer"])
        from .templates import AUTO_COLUMNS, GAZ_COLUMNS
        read = {a.column for t in meta["templates"] for a in parse_template(t).atoms} - set(meta["columns"])
        for names, key in ((GAZ_COLUMNS, "gazetteer"), (AUTO_COLUMNS, "autotags")):
            if read & set(names) and not meta.get(key):
                raise ValueError(f"its templates read {', '.join(sorted(read & set(names)))}, but it holds no {key}")
        autotags = None
        if meta.get("autotags"):
            from .autotags import AutoTags
            autotags = AutoTags.from_state(meta["autotags"], arrays)
        ex = cls([parse_template(s) for s in meta["templates"]], meta["columns"],
                 sentinels=bool(meta.get("sentinels", False)), resources=resources,
                 vec_scale=meta.get("vec_scale", 0.1), vec_dim=meta.get("vec_dim"), gazetteer=gazetteer,
                 autotags=autotags)
        if "vec_factor" in meta:
            ex.vec_factor = float(meta["vec_factor"])
        if len(ex._derived) != len(meta["derived"]):
            raise ValueError("derived columns do not match the templates")
        for d, saved in zip(ex._derived, meta["derived"]):
            if d.column != saved["column"] or list(d.functions) != saved["functions"]:
                raise ValueError("derived columns do not match the templates")
            d.set_values(saved["values"])
            if any(f in COPIED_SHAPES for f in d.functions) and copies_caseless_letters(d.values):
                d.table = {**(d.table or FUNCTIONS), **COPIED_SHAPES}  # a model saved before shapes had "a"
        grams = meta.get("grams", [])
        if len(grams) != len(ex._gram_t) or not all(isinstance(v, list) and all(isinstance(g, str) for g in v)
                                                   for v in grams):
            raise ValueError("the character n-gram vocabularies do not match the templates")
        for t, values in zip(ex._gram_t, grams):
            g = ex._grams[t]
            ex._grams[t] = GramColumn(g.inner, g.offset, g.k, values)
        ex.hashed = [bool(h) for h in meta["hashed"]]
        ex.radix = [np.asarray(arrays[f"radix_{t}"], dtype=np.int64) for t in range(len(ex.templates))]
        ex.attr_keys = np.asarray(arrays["attr_keys"], dtype=np.int64)
        ex.attr_offset = np.asarray(arrays["attr_offset"], dtype=np.int64)
        ex._check_table()
        return ex

    def _check_table(self) -> None:
        """Check an attribute table read from a file: ``attr_offset`` splits ``attr_keys`` into one
        ascending run of distinct keys per template (the lookups of tagging search them), and each
        template's radix is positive.

        Raises
        ------
        ValueError
        """
        off, keys = self.attr_offset, self.attr_keys
        if (off.ndim != 1 or keys.ndim != 1 or len(off) != len(self.templates) + 1 or off[0] != 0
                or off[-1] != len(keys) or np.any(np.diff(off) < 0)):
            raise ValueError(f"the attribute offsets (attr_offset) do not fit the {len(self.templates)} "
                             f"templates and {len(keys)} attribute keys")
        rising = np.diff(keys) > 0
        starts = off[1:-1]
        rising[starts[(starts > 0) & (starts < len(keys))] - 1] = True
        if not rising.all():
            raise ValueError("a template's attribute keys (attr_keys) are not distinct and ascending")
        if any(r.ndim != 1 or np.any(r < 1) for r in self.radix):
            raise ValueError("a template's radix is not a list of positive sizes")
