"""Vocabularies of the neural learners: words, characters and extra input columns, as integer ids.

Id 0 is padding and id 1 the unknown value in every vocabulary, so a word,
character or column value unseen in training maps to the trained unknown
vector, never to an error. Vocabularies are plain lists of strings, saved in
the model's JSON metadata.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

PAD, UNK = 0, 1
_DIGITS = re.compile(r"\d")


def normalize_word(word: str, lowercase: bool = True) -> str:
    """The key of a word in the word vocabulary: lowercased, with every digit turned into ``0``
    (as Lample et al. 2016, s. 4, for the word lookup table; the character encoder sees the
    word as written)."""
    if lowercase:
        word = word.lower()
    return _DIGITS.sub("0", word)


class Vocabulary:
    """A string-to-id map with padding (id 0) and unknown (id 1) entries.

    Parameters
    ----------
    items : list of str
        The known values, in id order from 2.
    """

    def __init__(self, items):
        self.items = list(items)
        self.index = {s: k + 2 for k, s in enumerate(self.items)}

    def __len__(self) -> int:
        return len(self.items) + 2

    @classmethod
    def build(cls, values, min_count: int = 1, extra=()) -> "Vocabulary":
        """Values seen at least ``min_count`` times, most frequent first (ties by value), then
        the ``extra`` values not already in (e.g. the words of a pretrained vectors file)."""
        counts = Counter(values)
        items = sorted((v for v, c in counts.items() if c >= min_count), key=lambda v: (-counts[v], v))
        seen = set(items)
        items += [v for v in extra if v not in seen and not seen.add(v)]
        return cls(items)

    def ids(self, values) -> np.ndarray:
        """int64 ids of ``values`` (UNK for unknown ones), shape (len(values),)."""
        get = self.index.get
        return np.fromiter((get(v, UNK) for v in values), dtype=np.int64, count=len(values))


class Encoder:
    """Turns sentences of column tuples into the integer arrays the network reads.

    Parameters
    ----------
    words : Vocabulary
        Normalized word forms (:func:`normalize_word`).
    chars : Vocabulary
        Characters of the words as written.
    extras : list of Vocabulary
        One per extra input column (e.g. POS), in ``extra_columns`` order.
    word_column : int
        Index of the word column in a token tuple.
    extra_columns : list of int
        Indices of the extra columns in a token tuple.
    lowercase : bool
        Lowercase words before the vocabulary lookup.
    max_word_length : int
        Characters kept per word for the character encoder (the first ones).
    """

    def __init__(self, words, chars, extras, word_column, extra_columns, lowercase, max_word_length):
        self.words, self.chars, self.extras = words, chars, list(extras)
        self.word_column, self.extra_columns = word_column, list(extra_columns)
        self.lowercase, self.max_word_length = lowercase, max_word_length

    def encode(self, rows) -> dict:
        """Flat integer arrays of a corpus.

        Parameters
        ----------
        rows : list of list of tuple of str

        Returns
        -------
        dict with
            ``sent_ptr`` int64 (n_sentences + 1,), ``words`` int64 (n_tokens,),
            ``extras`` int64 (n_extra, n_tokens), ``char_ptr`` int64
            (n_tokens + 1,) and ``chars`` int64 (n_chars,) (CSR characters of each token).
        """
        wc = self.word_column
        forms = [tok[wc] for sent in rows for tok in sent]
        n = len(forms)
        sent_ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in rows], out=sent_ptr[1:])
        norm = [normalize_word(w, self.lowercase) for w in forms]
        cut = [w[:self.max_word_length] or " " for w in forms]
        char_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([len(w) for w in cut], out=char_ptr[1:])
        chars = self.chars.ids(list("".join(cut)))
        extras = np.zeros((len(self.extra_columns), n), dtype=np.int64)
        for j, (col, vocab) in enumerate(zip(self.extra_columns, self.extras)):
            extras[j] = vocab.ids([tok[col] for sent in rows for tok in sent])
        return {"sent_ptr": sent_ptr, "words": self.words.ids(norm), "extras": extras,
                "char_ptr": char_ptr, "chars": chars}

    def state(self) -> dict:
        """JSON-serializable description (vocabularies and settings)."""
        return {"words": self.words.items, "chars": self.chars.items, "extras": [v.items for v in self.extras],
                "word_column": self.word_column, "extra_columns": self.extra_columns,
                "lowercase": self.lowercase, "max_word_length": self.max_word_length}

    @classmethod
    def from_state(cls, d: dict) -> "Encoder":
        """Inverse of :meth:`state`."""
        return cls(Vocabulary(d["words"]), Vocabulary(d["chars"]), [Vocabulary(v) for v in d["extras"]],
                   int(d["word_column"]), [int(c) for c in d["extra_columns"]], bool(d["lowercase"]),
                   int(d["max_word_length"]))
