"""A gazetteer of entity strings as virtual columns (``gaz``, ``gazn``) that templates read.

A gazetteer maps token sequences (entity strings such as ``NF-kappa B``) to
an entity type. Matching a sentence against it gives each token a value: the
token's position in a matched span and the span's type (``B-protein``,
``I-protein``, ``E-protein`` for the first, inner and last tokens of a
multi-token span, ``S-protein`` for a one-token span) or nothing. The two
virtual columns differ in how tokens are compared:

``gaz``
    case-insensitive (both sides lowercased);
``gazn``
    normalized: lowercased, every run of digits mapped to ``0`` and hyphens
    dropped (``IL-2`` and ``il4`` both read ``il0``).

Templates read them like any column, at any offset and through the usual
functions: ``gaz[0]``, ``gaz[-1]|gaz[0]``, ``gazn[0]|shape(w[0])``.

Matching is greedy leftmost-longest: scanning left to right, at each token
the longest entry that starts there is taken and the scan resumes after it;
a token inside a taken span starts no other span (spans never overlap).

Entries come from the training data (every labelled entity span; a string
seen with several types takes its most frequent type, ties broken by the
type's name), from list files (one entry a line: ``type<TAB>string``,
the string split on whitespace into tokens) and/or from the package sources
``geonames`` and ``countries`` (:mod:`chaintag.features.gazetteer_packages`).
A source named with ``:TYPE`` (``countries:DICT``, ``train:DICT``) gives all
its entries that one type: the collapsed dictionary of Agerri and Rigau (2016). On the training sentences
themselves the training entries are *jackknifed*, as the level-one
attributes of stacked generalization are computed on held-out folds
(Wolpert 1992): the sentences are split into ``folds`` seeded random folds
(by runs of ``block`` consecutive sentences, so that with the sentences in
document order a document's repeated names mostly stay in one fold), and a
sentence's matches use the entries of the other folds only, so that the
learner sees the attribute as often wrong as it will be on new documents.
Gazetteer matches as NER attributes: Ratinov and Roth (2009), their
section on external knowledge. Dev, test and
tagged text use every entry. List-file entries are used in full everywhere.

The model file keeps the entries (JSON), so tagging needs no extra file.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import Iterable, Sequence

import numpy as np

from ..errors import InputError

from .normal_form import nfc
from .templates import GAZ_COLUMNS  # the virtual columns a gazetteer gives
#: Entries longer than this many tokens are dropped (no JNLPBA entity is longer than 30 tokens).
MAX_ENTRY_TOKENS = 32
#: Default number of jackknife folds of the training sentences.
DEFAULT_FOLDS = 10
#: Default number of consecutive training sentences that share a fold (about one MEDLINE abstract):
#: names repeat within a document, and new text is new documents.
DEFAULT_BLOCK = 10

_DIGITS = re.compile(r"\d+")


def _key_gaz(token: str) -> str:
    return nfc(token).lower()


def _key_gazn(token: str) -> str:
    return _DIGITS.sub("0", nfc(token).lower()).replace("-", "")


KEY_FUNCTIONS = {"gaz": _key_gaz, "gazn": _key_gazn}


class _Matcher:
    """Leftmost-longest matcher of one column variant.

    ``prefixes`` maps every prefix (tuple of token ids) of every entry key to
    the key's index, or -1 when the prefix is not itself a key. ``types``
    (shape ``(n_keys, n_groups)``) gives the type id of each key for each
    group of sentences, -1 where the key is absent for that group: one group
    for new text, one per jackknife fold for the training sentences.
    """

    def __init__(self, vocab: dict[str, int], keys: list[tuple[int, ...]], types: np.ndarray):
        self.vocab = vocab
        self.prefixes: dict[tuple[int, ...], int] = {}
        for toks in keys:
            for k in range(1, len(toks)):
                self.prefixes.setdefault(toks[:k], -1)
        for e, toks in enumerate(keys):
            self.prefixes[toks] = e
        self.starts = {toks[0] for toks in keys}
        self.types = [tuple(r) for r in np.asarray(types).tolist()]

    def match(self, ids: list[int], sent_ptr: np.ndarray, group: np.ndarray | None = None) -> np.ndarray:
        """Code of every token: 0 none, else ``1 + 4 * type + position`` (B, I, E, S = 0..3).

        ``group`` (shape ``(n_sentences,)``) is the column of ``types`` each sentence reads (default 0).
        """
        out = np.zeros(len(ids), dtype=np.int32)
        prefixes, starts, types = self.prefixes, self.starts, self.types
        cand = [i for i, t in enumerate(ids) if t in starts]
        ends = np.asarray(sent_ptr[1:])
        sent_of = np.searchsorted(ends, np.asarray(cand, dtype=np.int64), side="right")
        grp = [0] * len(cand) if group is None else np.asarray(group)[sent_of].tolist()
        covered = 0
        for i, s, g in zip(cand, sent_of.tolist(), grp):
            if i < covered:
                continue
            end = int(ends[s])
            best_len, best_typ = 0, -1
            j = i + 1
            key = (ids[i],)
            while True:
                e = prefixes.get(key)
                if e is None:
                    break
                if e >= 0 and types[e][g] >= 0:
                    best_len, best_typ = j - i, types[e][g]
                if j >= end:
                    break
                key = key + (ids[j],)
                j += 1
            if best_len == 0:
                continue
            base = 1 + 4 * best_typ
            if best_len == 1:
                out[i] = base + 3
            else:
                out[i] = base
                out[i + 1:i + best_len - 1] = base + 1
                out[i + best_len - 1] = base + 2
            covered = i + best_len
        return out


class Gazetteer:
    """Entity strings with their types, matched against sentences as the ``gaz`` / ``gazn`` columns.

    Parameters
    ----------
    entries : dict of tuple of str to str or to dict of str to int
        Token sequence (as written) -> entity type, or -> number of times seen
        with each type: the entries used on new text. Entries whose keys
        coincide once compared (lowercased, or normalized) pool their counts
        and take the most frequent type (ties: the type's name).
    folds : int, default 10
        Number of jackknife folds of the training sentences.
    sources : list of str
        Where the entries came from (``train`` and list-file paths), for the record.

    Notes
    -----
    Build one with :meth:`build`; :meth:`column` gives a virtual column's
    values for sentences. See the module documentation for the matching
    rule and the jackknife (Wolpert 1992; Ratinov and Roth 2009).
    """

    def __init__(self, entries: dict[tuple[str, ...], str], folds: int = DEFAULT_FOLDS,
                 sources: Sequence[str] = ()):
        self.counts: dict[tuple[str, ...], Counter] = {
            tuple(toks): Counter({v: 1} if isinstance(v, str) else v) for toks, v in entries.items()}
        #: the most frequent type of each entry as written
        self.entries = {toks: _pick(c) for toks, c in self.counts.items()}
        self.folds = int(folds)
        self.sources = list(sources)
        self.types = sorted({t for c in self.counts.values() for t in c})
        #: jackknifed values of each virtual column on the training sentences (set by :meth:`build`,
        #: read once by the extractor's fit, not saved)
        self.train_columns: dict[str, list[str | None]] | None = None
        self._matchers: dict[str, _Matcher] = {}
        self._key_cache: dict[str, tuple] = {}

    # ------------------------------------------------------------- building
    @classmethod
    def build(cls, rows, labels, sources: Sequence[str], folds: int = DEFAULT_FOLDS, seed: int = 0,
              columns: Iterable[str] = GAZ_COLUMNS, block: int = DEFAULT_BLOCK) -> "Gazetteer":
        """The gazetteer of a training run, with the jackknifed training values of ``columns``.

        Parameters
        ----------
        rows : list of sentences, each a list of tuples of column strings
            Training sentences; the first column is the word.
        labels : list of list of str
            Their gold labels (IOB2, IOBES, ... : read with conlleval's chunk rules).
        sources : sequence of str
            ``"train"`` (the entity spans of ``rows``), ``"geonames"``, ``"countries"`` and/or list-file
            paths, each optionally followed by ``:TYPE``, the one type of all its entries
            (:func:`chaintag.features.feature_spec.gazetteer_source`).
        folds : int, default 10
            Jackknife folds (at least 2) of the training sentences.
        seed : int, default 0
            Seed of the random assignment of sentences to folds.
        columns : iterable of str
            The virtual columns whose training values to compute.
        block : int, default 10
            Consecutive sentences per fold unit (:func:`jackknife_folds`).

        Returns
        -------
        Gazetteer

        Raises
        ------
        chaintag.errors.InputError
            On a malformed list file (the message names the file and line),
            or fewer than 2 folds.
        chaintag.lazy.MissingExtraError
            A package source whose package is not installed (the message
            names the extra ``gazetteers``).
        """
        from .feature_spec import gazetteer_source
        from .gazetteer_packages import PACKAGE_SOURCES, package_entries
        if int(folds) < 2:
            raise InputError(f"the gazetteer's jackknife needs at least 2 folds, not {folds}")
        fixed: Counter = Counter()
        use_train, train_type = False, None
        for src in sources:
            name, typ = gazetteer_source(src)
            if name == "train":
                use_train, train_type = True, typ
                continue
            found = package_entries(name, MAX_ENTRY_TOKENS) if name in PACKAGE_SOURCES else read_list(name)
            if typ is not None:
                found = _retyped(found, typ)
            fixed.update(found)
        spans: list[list[tuple[tuple[str, ...], str]]] = []
        train_counts: Counter = Counter()
        if use_train:
            from ..evaluation.chunks import label_spans  # the chunks as evaluation reads them
            for sent, found in zip(rows, label_spans(labels)):
                here = []
                for typ, a, b in found:
                    if b - a <= MAX_ENTRY_TOKENS:
                        here.append((tuple(tok[0] for tok in sent[a:b]), train_type or typ))
                spans.append(here)
                train_counts.update(here)
        gaz = cls(_by_entry(fixed + train_counts), folds, sources)
        columns = [c for c in columns if c in GAZ_COLUMNS]
        if not use_train:
            gaz.train_columns = {c: gaz.column(c, rows) for c in columns}
            return gaz
        if not gaz.types:  # no entity span in the data (and no list entry): no token ever matches
            gaz.train_columns = {c: [None] * sum(len(s) for s in rows) for c in columns}
            return gaz
        fold = jackknife_folds(len(rows), folds, seed, block)
        type_id = {t: k for k, t in enumerate(gaz.types)}
        gaz.train_columns = {}
        names = gaz.value_names()
        for c in columns:
            vocab, keys, key_of = gaz._keys(c)
            total = gaz._key_counts(c)  # (n_keys, n_types): list entries and every training span
            per_fold = np.zeros((len(keys), folds, len(gaz.types)), dtype=np.int64)
            for f, here in zip(fold.tolist(), spans):
                for toks, typ in here:
                    per_fold[key_of[toks], f, type_id[typ]] += 1
            rest = total[:, None, :] - per_fold  # what the other folds (and the lists) give
            types = np.where(rest.max(axis=2) > 0, rest.argmax(axis=2), -1)
            m = _Matcher(vocab, keys, types)
            codes = m.match(gaz._token_ids(c, vocab, rows), _sent_ptr(rows), fold)
            gaz.train_columns[c] = [names[k] for k in codes.tolist()]
        return gaz

    # ------------------------------------------------------------- matching
    def _keys(self, column: str):
        """The column's token vocabulary, its entry keys (tuples of token ids) and each entry's key index."""
        if column not in self._key_cache:
            key = KEY_FUNCTIONS[column]
            vocab: dict[str, int] = {}
            index: dict[tuple[int, ...], int] = {}
            key_of: dict[tuple[str, ...], int] = {}
            for toks in self.counts:
                ids = tuple(vocab.setdefault(key(t), len(vocab)) for t in toks)
                key_of[toks] = index.setdefault(ids, len(index))
            self._key_cache[column] = (vocab, list(index), key_of)
        return self._key_cache[column]

    def _key_counts(self, column: str) -> np.ndarray:
        """Counts of each type for each key of the column (entries that share a key pool theirs)."""
        _, keys, key_of = self._keys(column)
        type_id = {t: k for k, t in enumerate(self.types)}
        out = np.zeros((len(keys), len(self.types)), dtype=np.int64)
        for toks, c in self.counts.items():
            for typ, n in c.items():
                out[key_of[toks], type_id[typ]] += n
        return out

    def _matcher(self, column: str) -> _Matcher:
        if column not in self._matchers:
            vocab, keys, _ = self._keys(column)
            counts = self._key_counts(column)
            # the most frequent type; ties: the first in name order (argmax takes the first maximum)
            best = counts.argmax(axis=1) if counts.size else np.zeros(len(keys), dtype=np.int64)
            self._matchers[column] = _Matcher(vocab, keys, best[:, None])
        return self._matchers[column]

    @staticmethod
    def _token_ids(column: str, vocab: dict[str, int], rows) -> list[int]:
        key = KEY_FUNCTIONS[column]
        words = [tok[0] for sent in rows for tok in sent]
        uid = {w: vocab.get(key(w), -1) for w in dict.fromkeys(words)}
        return list(map(uid.__getitem__, words))

    def codes(self, column: str, rows) -> np.ndarray:
        """Match codes of every token of ``rows`` (0 none, else ``1 + 4 * type + position``), full entries.

        Parameters
        ----------
        column : {"gaz", "gazn"}
        rows : list of sentences, each a list of tuples of column strings (the word first)

        Returns
        -------
        int32 array, shape (n_tokens,)
        """
        m = self._matcher(column)
        return m.match(self._token_ids(column, m.vocab, rows), _sent_ptr(rows))

    def value_names(self) -> list[str | None]:
        """Column value of each match code (index 0: None, no match)."""
        return [None] + [f"{p}-{t}" for t in self.types for p in "BIES"]

    def column(self, column: str, rows) -> list[str | None]:
        """Values of the virtual column ``column`` for every token of ``rows`` (None: no match), full entries.

        Parameters
        ----------
        column : {"gaz", "gazn"}
        rows : list of sentences, each a list of tuples of column strings (the word first)

        Returns
        -------
        list of str or None, one per token (sentences concatenated)
        """
        names = self.value_names()
        return [names[c] for c in self.codes(column, rows).tolist()]

    # ---------------------------------------------------------- persistence
    def state(self) -> dict:
        """JSON-ready description: per type, the entries (tokens joined by spaces, sorted) and their counts."""
        by_type: dict[str, list[tuple[str, int]]] = {t: [] for t in self.types}
        for toks, c in self.counts.items():
            for typ, n in c.items():
                by_type[typ].append((" ".join(toks), int(n)))
        for v in by_type.values():
            v.sort()
        return {"folds": self.folds, "sources": [s if s.split(":")[0] in ("train", "geonames", "countries")
                                                 else os.path.basename(s) for s in self.sources],
                "entries": {t: [e for e, _ in v] for t, v in by_type.items()},
                "counts": {t: [n for _, n in v] for t, v in by_type.items()}}

    @classmethod
    def from_state(cls, meta: dict) -> "Gazetteer":
        """Rebuild a gazetteer saved by :meth:`state`."""
        counts: dict[tuple[str, ...], Counter] = {}
        for typ, strings in meta["entries"].items():
            ns = meta.get("counts", {}).get(typ, [1] * len(strings))
            for text, n in zip(strings, ns):
                counts.setdefault(tuple(text.split(" ")), Counter())[typ] += int(n)
        return cls(counts, meta.get("folds", DEFAULT_FOLDS), meta.get("sources", []))


def _sent_ptr(rows) -> np.ndarray:
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in rows], out=ptr[1:])
    return ptr


def jackknife_folds(n_sentences: int, folds: int, seed: int = 0, block: int = 1) -> np.ndarray:
    """The jackknife fold of each training sentence: seeded, uniform over ``0 .. folds - 1``.

    Parameters
    ----------
    n_sentences, folds, seed : int
    block : int, default 1
        Runs of ``block`` consecutive sentences share a fold (with the
        sentences in document order, about one document a run keeps a
        document's repeated names out of its own matches, as on new text).

    Returns
    -------
    int64 array, shape (n_sentences,)
    """
    n_blocks = -(-n_sentences // max(int(block), 1))
    per_block = np.random.default_rng(seed).integers(0, folds, size=n_blocks)
    return per_block[np.arange(n_sentences) // max(int(block), 1)]


def _pick(counts: Counter) -> str:
    """The most frequent type, ties broken by the type's name."""
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def _retyped(counts: Counter, typ: str) -> Counter:
    """``(tokens, type) -> n`` counts with every type replaced by ``typ`` (counts of a string summed)."""
    out: Counter = Counter()
    for (toks, _), n in counts.items():
        out[(toks, typ)] += n
    return out


def _by_entry(counts: Counter) -> dict[tuple[str, ...], Counter]:
    """(tokens, type) counts -> tokens -> type counts."""
    per: dict[tuple[str, ...], Counter] = {}
    for (toks, typ), n in counts.items():
        if n > 0:
            per.setdefault(toks, Counter())[typ] += n
    return per


def read_list(path: str) -> Counter:
    """Read a gazetteer list file: one entry a line, ``type<TAB>string``.

    Blank lines and lines starting with ``#`` are skipped. The string is
    split on whitespace into tokens. A byte-order mark (at the start of the
    file or of any line) and CRLF endings are dropped.

    Parameters
    ----------
    path : str
        UTF-8 text file.

    Returns
    -------
    collections.Counter
        ``(tokens, type) -> number of lines`` giving that entry.

    Raises
    ------
    chaintag.errors.InputError
        When the file cannot be read or holds no entry, or a line has no tab or
        more than one, an empty type or an empty string (the message names the
        file and line); when its types outnumber its strings (five or more: the
        columns are swapped).
    """
    out: Counter = Counter()
    if not os.path.exists(os.fspath(path)):
        from .gazetteer_packages import PACKAGE_SOURCES
        raise InputError("no such gazetteer list; a @gazetteer= source is train (the training data's entity "
                         f"strings), {', '.join(sorted(PACKAGE_SOURCES))} (packages of the 'gazetteers' extra) "
                         "or a list file (type<TAB>string a line)", path)
    from ..io.text_lines import numbered_lines
    for lineno, text in numbered_lines(path, what="gazetteer list"):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        typ, tab, string = text.partition("\t")
        toks = tuple(string.split())
        if not tab or not typ.strip() or not toks:
            raise InputError(f"expected 'type<TAB>string' (an entity type, a tab, then the entity "
                             f"string), got {text[:60]!r}", path, lineno)
        if "\t" in string.strip():
            raise InputError(f"expected one tab ('type<TAB>string', the string's words separated by spaces), "
                             f"found {text.count(chr(9))}: {text[:60]!r}", path, lineno)
        if len(toks) <= MAX_ENTRY_TOKENS:
            out[(toks, typ.strip())] += 1
    if not out:
        raise InputError("empty gazetteer list: no 'type<TAB>string' line (blank lines and # comments only)",
                         path)
    types, strings = {t for _, t in out}, {s for s, _ in out}
    if len(types) >= 5 and len(types) > len(strings):
        raise InputError(f"{len(types)} entity types for {len(strings)} entity strings (types such as "
                         f"{', '.join(sorted(types)[:3])}): the list looks written 'string<TAB>type'; a gazetteer "
                         "list is 'type<TAB>string' (swap its columns)", path)
    return out
