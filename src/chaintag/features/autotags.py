"""Labels of unlabeled text as word attributes: the virtual columns ``atag`` and ``atag2``.

A model trained on the labelled data (same learner and settings, without
the templates that read these columns) tags a body of raw text, one sentence
a line, tokens separated by whitespace. Every word of that text (lowercased,
each digit mapped to ``0``) gets a *profile*, the labels its occurrences were
given:

``atag``
    the label it took most often (ties: the label's name);
``atag2``
    its two most frequent labels, joined in name order by ``|``
    (``NN|VB``; one label alone when it only ever took one).

A word the text lacks reads ``-`` in both. The columns give a word that is
rare or unseen in the training data the labels its occurrences in a large
text received, as tag dictionaries induced from automatically tagged text
do for POS tagging (self-training features; cf. the "labels of unlabeled
data" used by semi-supervised taggers such as Suzuki and Isozaki 2008,
and the cluster attributes of Turian et al. 2010).

On the training sentences the profile is *jackknifed* (Wolpert 1992):
they are cut into ``folds`` contiguous blocks, and a block's tokens read
the profile of the text as tagged by a model trained on the other blocks;
otherwise a training word's profile would repeat its own gold labels and
the learner would trust it more than it deserves on new text. Dev, test
and tagged text read the profile of the model trained on every training
sentence. The model file keeps that profile (words and label ids), so
tagging needs neither the text nor the fold models.

Templates read the columns like any other: ``atag[0]``, ``atag2[-1]``,
``atag[-1]|atag[0]|atag[1]``. A feature specification names the text with
``@autotags=PATH`` (a file, or a folder whose ``*.txt`` files are read in
name order) and the number of blocks with ``@autofolds=K`` (default 5).
"""

from __future__ import annotations

import glob
import os
import re
from typing import Callable, Sequence

import numpy as np

from ..errors import InputError

from .templates import AUTO_COLUMNS  # the virtual columns the profile gives
#: Value of both columns for a word the text lacks.
MISSING = "-"
#: Default number of contiguous jackknife blocks of the training sentences.
DEFAULT_FOLDS = 5
#: Sentences of the text tagged at a time (bounds the memory of the token rows).
BATCH_SENTENCES = 20000

_DIGIT = re.compile(r"\d")


def normalize(word: str) -> str:
    """The profile's key of a word: lowercased, every digit mapped to ``0``."""
    return _DIGIT.sub("0", word.lower())


def text_files(paths: Sequence[str]) -> list[str]:
    """The files of ``@autotags=`` paths: a file as named, a folder's ``*.txt`` files in name order (not its
    subfolders); a file named twice is read once.

    Raises
    ------
    chaintag.errors.InputError
        For a path that does not exist, or a folder without ``*.txt`` files.
    """
    out: dict[str, str] = {}
    for path in paths:
        if os.path.isdir(path):
            found = sorted(glob.glob(os.path.join(path, "*.txt")))
            if not found:
                raise InputError("no *.txt files in this folder of unlabeled text", path)
        elif os.path.isfile(path):
            found = [path]
        else:
            raise InputError("no such file or folder of unlabeled text", path)
        for f in found:  # a file named twice (or also through its folder) is read once
            out.setdefault(os.path.realpath(f), f)
    return list(out.values())


class Text:
    """Unlabeled text, read once: each token's normalized word id.

    Parameters
    ----------
    paths : sequence of str
        Files or folders (:func:`text_files`); one sentence a line, tokens
        separated by whitespace; blank lines are skipped.

    Attributes
    ----------
    sentences : list of list of str
        The tokens as written.
    word_ids : int64 array, shape (n_tokens,)
        Index of each token's normalized form in ``vocab`` (sentences concatenated).
    vocab : list of str
        The distinct normalized words, in order of first occurrence.

    Raises
    ------
    chaintag.errors.InputError
        When a file cannot be read, a line is not UTF-8 (the message names
        the file and line), or the text has no tokens.
    """

    def __init__(self, paths: Sequence[str]):
        self.files = text_files(paths)
        self.sentences: list[list[str]] = []
        from ..io.text_lines import clean_line
        for path in self.files:
            try:
                with open(path, "rb") as fh:
                    for lineno, raw in enumerate(fh, 1):
                        try:
                            toks = clean_line(raw.decode("utf-8")).split()
                        except UnicodeDecodeError as exc:
                            raise InputError(f"not UTF-8 text ({exc.reason})", path, lineno) from None
                        if toks:
                            self.sentences.append(toks)
            except OSError as exc:
                raise InputError(f"cannot read the unlabeled text: {exc.strerror or exc}", path) from None
        if not self.sentences:
            raise InputError("the unlabeled text has no tokens", ", ".join(self.files))
        index: dict[str, int] = {}
        keys = {w: index.setdefault(normalize(w), len(index))
                for w in dict.fromkeys(w for s in self.sentences for w in s)}
        self.vocab = list(index)
        self.word_ids = np.fromiter((keys[w] for s in self.sentences for w in s), dtype=np.int64)

    @property
    def n_tokens(self) -> int:
        """Number of tokens of the text."""
        return len(self.word_ids)


def label_counts(tag: Callable[[list], list], text: Text, labels: Sequence[str], width: int) -> np.ndarray:
    """How often each normalized word of ``text`` took each label when ``tag`` tagged it.

    Parameters
    ----------
    tag : callable
        A fitted model's ``predict``: sentences of tokens -> label strings.
    text : Text
    labels : sequence of str
        The labels to count (a label outside them is not counted).
    width : int
        Columns of a token the model expects; the word is the first, the
        others are empty strings (the model must read the word alone).

    Returns
    -------
    int64 array, shape (len(text.vocab), len(labels))
    """
    label_id = {lab: k for k, lab in enumerate(labels)}
    ids: list[int] = []
    pad = ("",) * (width - 1)
    for start in range(0, len(text.sentences), BATCH_SENTENCES):
        batch = text.sentences[start:start + BATCH_SENTENCES]
        for ys in tag([[(w,) + pad for w in s] for s in batch]):
            ids.extend(label_id.get(y, -1) for y in ys)
    got = np.asarray(ids, dtype=np.int64)
    keep = got >= 0
    flat = text.word_ids[keep] * len(labels) + got[keep]
    return np.bincount(flat, minlength=len(text.vocab) * len(labels)).reshape(len(text.vocab), len(labels))


class Profile:
    """Each word's most frequent label and its two most frequent labels (the ``atag`` / ``atag2`` values).

    Parameters
    ----------
    words : list of str
        Normalized words (:func:`normalize`).
    labels : list of str
        Label names, sorted (label ids index them).
    first, second : int arrays, shape (len(words),)
        Id of each word's most frequent and second most frequent label
        (``second`` -1 when the word took one label only).
    """

    def __init__(self, words: list[str], labels: list[str], first: np.ndarray, second: np.ndarray):
        self.words = list(words)
        self.labels = list(labels)
        self.first = np.asarray(first, dtype=np.int32)
        self.second = np.asarray(second, dtype=np.int32)
        self._values: dict[str, tuple[str, str]] | None = None

    @classmethod
    def from_counts(cls, vocab: list[str], labels: list[str], counts: np.ndarray) -> "Profile":
        """The profile of label counts (shape ``(len(vocab), len(labels))``); words never tagged are left out.

        Ties are broken by the label's name (``labels`` are sorted, and the first maximum is taken).
        """
        seen = counts.sum(axis=1) > 0
        c = counts[seen]
        first = c.argmax(axis=1)
        rest = c.copy()
        rest[np.arange(len(c)), first] = -1
        second = np.where(rest.max(axis=1) > 0, rest.argmax(axis=1), -1)
        return cls([w for w, s in zip(vocab, seen.tolist()) if s], labels, first, second)

    def values(self) -> dict[str, tuple[str, str]]:
        """Normalized word -> (``atag``, ``atag2``) value."""
        if self._values is None:
            names = self.labels
            out = {}
            for w, a, b in zip(self.words, self.first.tolist(), self.second.tolist()):
                out[w] = (names[a], names[a] if b < 0 else "|".join(sorted((names[a], names[b]))))
            self._values = out
        return self._values

    def column(self, column: str, rows) -> list[str]:
        """Values of ``column`` (``atag`` or ``atag2``) for every token of ``rows`` (the word first)."""
        j = AUTO_COLUMNS.index(column)
        vals = self.values()
        missing = (MISSING, MISSING)
        cache = {w: vals.get(normalize(w), missing)[j] for w in dict.fromkeys(tok[0] for s in rows for tok in s)}
        return [cache[tok[0]] for s in rows for tok in s]


def fold_blocks(n_sentences: int, folds: int) -> np.ndarray:
    """The jackknife block of each training sentence: ``folds`` contiguous blocks of (nearly) equal size.

    Returns
    -------
    int64 array, shape (n_sentences,), values ``0 .. folds - 1`` in order
    """
    return (np.arange(n_sentences, dtype=np.int64) * int(folds)) // max(n_sentences, 1)


_CACHE: dict[str, "AutoTags"] = {}


def _cache_key(settings: str, paths, folds: int, columns, rows, labels) -> str:
    """Digest of what a built profile depends on: settings, text files (path, size, mtime), folds, data."""
    import hashlib
    h = hashlib.sha256(settings.encode())
    for f in text_files(paths):
        st = os.stat(f)
        h.update(f"\0{os.path.abspath(f)}\0{st.st_size}\0{st.st_mtime_ns}".encode())
    h.update(f"\0{folds}\0{','.join(columns)}".encode())
    for sent, ls in zip(rows, labels):
        h.update("\x1e".join("\x1f".join(tok) + "\x1d" + y for tok, y in zip(sent, ls)).encode())
        h.update(b"\n")
    return h.hexdigest()


def _digest(auto: "AutoTags") -> str:
    """sha256 of the jackknifed training values and of the full profile."""
    import hashlib
    h = hashlib.sha256()
    for c in sorted(auto.train_columns or {}):
        h.update(("\0" + c + "\0" + "\x1f".join(auto.train_columns[c])).encode())
    h.update("\x1f".join(auto.profile.words).encode())
    h.update(auto.profile.first.tobytes() + auto.profile.second.tobytes())
    return h.hexdigest()


class AutoTags:
    """The virtual columns ``atag`` / ``atag2`` of a training run: the full profile and the jackknifed training values.

    Parameters
    ----------
    profile : Profile
        From the model trained on every training sentence; read by new text.
    folds : int
        Jackknife blocks used when it was built (for the record).
    sources : list of str
        Base names of the text files, for the record.
    n_tokens : int
        Tokens of the text.

    Notes
    -----
    Build one with :meth:`build`. See the module documentation.
    """

    def __init__(self, profile: Profile, folds: int = DEFAULT_FOLDS, sources: Sequence[str] = (), n_tokens: int = 0):
        self.profile = profile
        self.folds = int(folds)
        self.sources = list(sources)
        self.n_tokens = int(n_tokens)
        #: jackknifed values of each column on the training sentences (set by :meth:`build`, read once
        #: by the extractor's fit, not saved)
        self.train_columns: dict[str, list[str]] | None = None
        #: sha256 of the training values and the full profile (set by :meth:`build`; a checkpoint's
        #: fingerprint includes it), None for a profile read from a model file
        self.digest: str | None = None

    def copy(self) -> "AutoTags":
        """Another object with the same profile and its own list of training values."""
        out = AutoTags(self.profile, self.folds, self.sources, self.n_tokens)
        out.digest = self.digest
        if self.train_columns is not None:
            out.train_columns = {c: list(v) for c, v in self.train_columns.items()}
        return out

    def column(self, column: str, rows) -> list[str]:
        """Values of ``column`` (``atag`` / ``atag2``) for every token of ``rows``, from the full profile."""
        return self.profile.column(column, rows)

    # ---------------------------------------------------------- persistence
    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """JSON-ready description (words, label names, record) and the label-id arrays to save."""
        meta = {"folds": self.folds, "sources": self.sources, "text_tokens": self.n_tokens,
                "labels": self.profile.labels, "words": self.profile.words}
        return meta, {"autotags_first": self.profile.first, "autotags_second": self.profile.second}

    @classmethod
    def from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> "AutoTags":
        """Rebuild what :meth:`state` saved.

        Raises
        ------
        ValueError
            When the words and arrays do not match in length or the label ids are out of range.
        """
        first, second = np.asarray(arrays["autotags_first"]), np.asarray(arrays["autotags_second"])
        words, labels = meta["words"], meta["labels"]
        n_labels = len(labels)
        if (first.dtype.kind not in "iu" or second.dtype.kind not in "iu" or first.ndim != 1 or second.ndim != 1
                or not (len(first) == len(second) == len(words)) or len(set(words)) != len(words)
                or not all(isinstance(x, str) for x in list(words) + list(labels))
                or (len(first) and (first.min() < 0 or first.max() >= n_labels
                                    or second.min() < -1 or second.max() >= n_labels))):
            raise ValueError("the profile of the labels of unlabeled text is inconsistent")
        prof = Profile(list(words), list(labels), first, second)
        return cls(prof, meta.get("folds", DEFAULT_FOLDS), meta.get("sources", []), meta.get("text_tokens", 0))
