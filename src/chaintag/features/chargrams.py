"""Character n-gram attributes: one template, several attributes per token.

``cngramK(x)`` (K = 1 .. 9) gives every distinct character K-gram of the
value ``x``, with ``<`` and ``>`` marking its start and end, as fastText's
subword units do (Bojanowski et al. 2017, s. 3.2): ``cngram3(w[0])`` of
``IL-2`` fires ``<IL``, ``IL-``, ``L-2`` and ``-2>``. A value shorter than
K - 2 characters gives its whole marked form. Such a template is a bag of
substrings (the character n-gram attributes of biomedical NER taggers and
of POS taggers for unknown words); an n-gram read at prediction that no
training token had is dropped, as an unseen attribute always is.

``cngramK`` must be the outermost function of a template on its own
(``cngram3(w[0])``, ``cngram4(lower(w[1]))``); the attribute name is the
template and the n-gram (``cngram3(w[0])=<IL``). An offset outside the
sentence gives no n-grams, also with the extractor's boundary sentinels (which
are values of single-valued atoms). The extractor
(:class:`chaintag.features.extract.AttributeExtractor`) keeps each such
template's n-gram vocabulary and saves it with the model.
"""

from __future__ import annotations

import re

import numpy as np

#: ``cngram`` + n-gram length 1 .. 9.
GRAM_FUNCTION = re.compile(r"^cngram([1-9])$")


def is_gram_function(name: str) -> bool:
    """Whether ``name`` is a character n-gram function (``cngram1`` .. ``cngram9``)."""
    return bool(GRAM_FUNCTION.match(name))


def is_gram_template(t) -> bool:
    """Whether template ``t`` is ``cngramK(...)`` of one atom (several attributes per token)."""
    return len(t.atoms) == 1 and bool(t.atoms[0].functions) and is_gram_function(t.atoms[0].functions[-1]) \
        and not any(is_gram_function(f) for f in t.atoms[0].functions[:-1])


def char_grams(value: str, k: int) -> list[str]:
    """Distinct character ``k``-grams of ``<value>``, in order of first occurrence.

    Parameters
    ----------
    value : str
    k : int
        N-gram length, >= 1.

    Returns
    -------
    list of str
        ``<value>`` whole when it is shorter than ``k``.

    Examples
    --------
    >>> char_grams("IL-2", 3)
    ['<IL', 'IL-', 'L-2', '-2>']
    >>> char_grams("a", 4)
    ['<a>']
    """
    marked = "<" + value + ">"
    if len(marked) <= k:
        return [marked]
    return list(dict.fromkeys(marked[i:i + k] for i in range(len(marked) - k + 1)))


class GramColumn:
    """The n-grams a ``cngramK(...)`` template reads, with their vocabulary.

    Parameters
    ----------
    inner : chaintag.features.extract._Derived
        The atom's column and its functions inside ``cngramK`` (no vocabulary).
    offset : int
        The atom's offset.
    k : int
        N-gram length.
    values : list of str, optional
        The vocabulary (n-gram of id ``j`` is ``values[j]``), from a saved model.
    """

    def __init__(self, inner, offset: int, k: int, values: list[str] | None = None):
        self.inner = inner
        self.offset = int(offset)
        self.k = int(k)
        self.values: list[str] = list(values or [])
        self.index = {v: j for j, v in enumerate(self.values)}

    def token_grams(self, ids: np.ndarray, uniques: list[str], sent_ptr: np.ndarray,
                    grow: bool) -> tuple[np.ndarray, np.ndarray]:
        """The n-gram ids of every token's value at the atom's offset.

        Parameters
        ----------
        ids : int32 array, shape (n_tokens,)
            Each token's index into ``uniques`` (the interned source column).
        uniques : list of str
        sent_ptr : int64 array, shape (n_sentences + 1,)
        grow : bool
            Add unseen n-grams to the vocabulary (training) or drop them.

        Returns
        -------
        counts : int64 array, shape (n_tokens,)
            Number of n-grams of each token (0 outside the sentence or for an absent value).
        grams : int64 array, shape (counts.sum(),)
            The n-gram ids, token after token.
        """
        from .vectors import shift_rows
        u_ptr = np.zeros(len(uniques) + 1, dtype=np.int64)
        u_grams: list[int] = []
        index, values = self.index, self.values
        for u, raw in enumerate(uniques):
            v = self.inner.apply(raw)
            if v is not None:
                for g in char_grams(v, self.k):
                    j = index.get(g)
                    if j is None:
                        if not grow:
                            continue
                        j = index[g] = len(values)
                        values.append(g)
                    u_grams.append(j)
            u_ptr[u + 1] = len(u_grams)
        u_grams_arr = np.asarray(u_grams, dtype=np.int64)
        src = shift_rows(np.asarray(ids, dtype=np.int32), sent_ptr, self.offset)
        u_count = np.diff(u_ptr)
        counts = np.where(src >= 0, u_count[np.maximum(src, 0)], 0).astype(np.int64)
        total = int(counts.sum())
        if total == 0:
            return counts, np.zeros(0, dtype=np.int64)
        starts = np.repeat(u_ptr[np.maximum(src, 0)], counts)
        within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        return counts, u_grams_arr[starts + within]


def merge_csr(tok_ptr: np.ndarray, attr_ids: np.ndarray, counts: np.ndarray,
              extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Append ``counts[i]`` extra entries to each token ``i`` of a CSR layout.

    Parameters
    ----------
    tok_ptr : int64 array, shape (n_tokens + 1,)
    attr_ids : int32 array, shape (n_entries,)
    counts : int64 array, shape (n_tokens,)
    extra : int array, shape (counts.sum(),)
        The entries to append, token after token.

    Returns
    -------
    tok_ptr : int64 array, shape (n_tokens + 1,)
    attr_ids : int32 array
        Each token's old entries, then its extra ones.
    """
    old = np.diff(tok_ptr)
    new_ptr = np.zeros(len(tok_ptr), dtype=np.int64)
    np.cumsum(old + counts, out=new_ptr[1:])
    out = np.empty(int(new_ptr[-1]), dtype=np.int32)
    n = len(old)
    tok_old = np.repeat(np.arange(n), old)
    out[new_ptr[tok_old] + (np.arange(len(attr_ids)) - tok_ptr[tok_old])] = attr_ids
    tok_new = np.repeat(np.arange(n), counts)
    first = np.cumsum(counts) - counts
    out[new_ptr[tok_new] + old[tok_new] + (np.arange(len(extra)) - first[tok_new])] = extra
    return new_ptr, out
