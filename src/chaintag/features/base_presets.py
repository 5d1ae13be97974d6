"""The attribute templates of the plain presets: ``chunking``, ``pos`` and ``ner``.

The presets that add resources (clusters, vectors, gazetteers) are built on
these lists in :mod:`chaintag.features.cluster_presets`; both are gathered
into ``PRESETS`` by :mod:`chaintag.features.templates`.
"""

from __future__ import annotations

__all__ = ["CHUNKING", "POS", "NER", "NER_POS_COLUMN"]


def _window(col: str, lo: int, hi: int, fn: str | None = None) -> list[str]:
    if fn is None:
        return [f"{col}[{k}]" for k in range(lo, hi + 1)]
    return [f"{fn}({col}[{k}])" for k in range(lo, hi + 1)]


def _ngrams(col: str, lo: int, hi: int, n: int) -> list[str]:
    return ["|".join(f"{col}[{k + j}]" for j in range(n)) for k in range(lo, hi - n + 2)]


CHUNKING = (
    _window("w", -2, 2) + _ngrams("w", -1, 1, 2)
    + _window("pos", -2, 2) + _ngrams("pos", -2, 2, 2) + _ngrams("pos", -2, 2, 3)
)
"""The CRF++ CoNLL-2000 template: words and POS in a +-2 window, word bigrams
w[-1..0], w[0..1], POS bigrams and trigrams (Sha & Pereira 2003; Collins 2002
NP chunking uses the same kinds of predicates)."""

POS = (
    ["w[0]", "lower(w[0])", "norm(lower(w[0]))"]
    + [f"pre{k}(w[0])" for k in range(1, 5)]
    + [f"suf{k}(w[0])" for k in range(1, 5)]
    + ["shape(w[0])", "hasdigit(w[0])", "hashyphen(w[0])", "hasupper(w[0])"]
    + ["lower(w[-2])", "lower(w[-1])", "lower(w[1])", "lower(w[2])"]
    + ["lower(w[-1])|lower(w[0])", "lower(w[0])|lower(w[1])"]
)
"""Ratnaparkhi-style POS attributes (Ratnaparkhi 1996, Table 1; Collins 2002 s. 3.1):
word, lowercased and digit-normalized word, prefixes and suffixes up to 4,
shape, has-digit/hyphen/upper, +-2 word window, word bigrams."""

NER = POS + [
    "shortshape(w[0])", "shape(w[-1])", "shape(w[1])",
    "suf5(w[0])", "pre5(w[0])", "allupper(w[0])", "initupper(w[0])",
    "shortshape(w[-1])|shortshape(w[0])", "shortshape(w[0])|shortshape(w[1])",
]
"""POS attributes plus longer affixes and shapes of the neighbours, for Bio-NER."""

NER_POS_COLUMN = ["pos[-1]", "pos[0]", "pos[1]", "pos[-1]|pos[0]", "pos[0]|pos[1]"]
