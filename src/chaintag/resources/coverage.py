"""How well a resource of the data directory covers a training corpus's words.

The default attributes of ``chaintag train`` read a resource of the data directory only when it covers
the training data (:func:`covers`): word vectors of English newswire serve English POS tagging, not
Spanish; unlabeled biomedical text serves biomedical chunking, not newswire. Coverage is measured on the
word types seen at least twice in the training data, without digits, case-folded (singletons and numbers
are mostly absent from any vocabulary and say nothing about the language or domain).

Measured on the handed training sets (the text folders sampled to their first 10^6 tokens): GloVe 6B
covers 0.975-0.981 of those types in CoNLL-2000, ptb_sample and UD EWT, 0.725 in JNLPBA; ``unlabeled_en``
0.823-0.883 of the English newswire and web sets, 0.461 of JNLPBA; ``unlabeled_bio`` 0.555-0.641 of the
English newswire and web sets, 0.724 of JNLPBA. :data:`MIN_COVERAGE` (0.8) takes each resource for the
data of its own language and domain. Training data with fewer than :data:`MIN_TYPES` such types (a
toy corpus) takes none.

Coverage alone does not tell the language: English GloVe 6B holds most frequent Spanish words and
names (88.5 % of the types of a Spanish newswire-like corpus). So a resource must also share the data's
most frequent words (:func:`language_agreement`): of the tokens of the training data's 100 most
frequent alphabetic words, the share whose word is among the resource's 1,000 most frequent (a vectors
file's first lines, as word2vec, GloVe and fastText write them; the commonest words of a text folder's
sample). Measured: 0.99-1.00 for CoNLL-2000, ptb_sample and UD EWT against GloVe, 0.98-0.99 against
``unlabeled_en``, 0.85-0.88 against ``unlabeled_bio``, JNLPBA 0.73 / 0.82 / 0.99; two Spanish corpora
0.08-0.15 against GloVe, 0.01-0.07 against the text folders. :data:`MIN_AGREEMENT` (0.5) lies between.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

__all__ = ["MIN_COVERAGE", "MIN_TYPES", "MIN_AGREEMENT", "SAMPLE_TOKENS", "resource_vocabulary", "training_types",
           "coverage", "covers", "frequent_words", "language_agreement"]

#: Least share of the training word types (seen twice, no digits, case-folded) a resource must hold to be
#: taken by the defaults.
MIN_COVERAGE = 0.8
#: Fewest such types for a coverage to say anything (the handed training sets have 4,691-9,114); with fewer,
#: the defaults take no resource of the data directory.
MIN_TYPES = 500
#: Tokens of a folder of unlabeled text (or lines of a vectors file) read to estimate its vocabulary.
SAMPLE_TOKENS = 1_000_000
#: Least :func:`language_agreement` for a resource to be taken: the data's commonest words are its own.
MIN_AGREEMENT = 0.5
#: The resource's commonest words that :func:`language_agreement` reads, and the training data's.
RESOURCE_TOP, TRAINING_TOP = 1000, 100


def _sample(folder: Path, max_tokens: int):
    """The case-folded tokens of a text folder's lines (its ``*.txt`` files in path order), a line at a time,
    up to the line that reaches ``max_tokens``."""
    from .induced import text_files
    seen = 0
    for p in text_files(folder):
        with open(p, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                toks = line.lower().split()
                yield toks
                seen += len(toks)
                if seen >= max_tokens:
                    return


def frequent_words(path, n: int = RESOURCE_TOP, max_tokens: int = SAMPLE_TOKENS) -> set[str]:
    """The ``n`` most frequent words of a resource, case-folded: a word-vector file's first ``n`` lines (the
    files are written most frequent first), or the commonest of a text folder's first ``max_tokens`` tokens.

    Raises
    ------
    OSError
        When the file or folder cannot be read.
    """
    path = Path(path)
    if path.is_dir():
        counts: Counter = Counter()
        for toks in _sample(path, max_tokens):
            counts.update(toks)
        return {w for w, _ in counts.most_common(n)}
    words = set()
    with open(path, encoding="utf-8", errors="replace") as fh:
        for k, line in enumerate(fh):
            if k > n:  # one more line: a header "N D" may come first
                break
            words.add(line.split(" ", 1)[0].lower())
    return words


def language_agreement(tokens, frequent: set[str], column: int = 0, top: int = TRAINING_TOP) -> float:
    """Of the tokens of the training data's ``top`` most frequent alphabetic words (case-folded), the share
    whose word is in ``frequent`` (:func:`frequent_words`): whether the resource is of the data's language.

    Parameters
    ----------
    tokens : list of list of tuple of str
        Sentences of tokens (column values).
    frequent : set of str
    column : int, default 0
    top : int

    Returns
    -------
    float
        In [0, 1]; 0.0 for data without alphabetic words.
    """
    counts = Counter(w for sent in tokens for tok in sent if (w := tok[column].lower()).isalpha())
    most = counts.most_common(top)
    total = sum(n for _, n in most)
    return sum(n for w, n in most if w in frequent) / total if total else 0.0


def resource_vocabulary(path, max_tokens: int = SAMPLE_TOKENS) -> set[str]:
    """Case-folded words of a word-vector text file (its first field, the first ``max_tokens`` lines) or of
    a folder of unlabeled text (its ``*.txt`` files in path order, the first ``max_tokens`` tokens).

    Parameters
    ----------
    path : str or os.PathLike
    max_tokens : int

    Returns
    -------
    set of str

    Raises
    ------
    OSError
        When the file or folder cannot be read.
    """
    path = Path(path)
    words: set[str] = set()
    if path.is_dir():
        for toks in _sample(path, max_tokens):
            words.update(toks)
        return words
    with open(path, encoding="utf-8", errors="replace") as fh:
        for k, line in enumerate(fh):
            if k >= max_tokens:
                break
            words.add(line.split(" ", 1)[0].lower())
    return words


def training_types(tokens, column: int = 0) -> set[str]:
    """The word types (column ``column`` of each token) seen at least twice, without digits, case-folded.

    Parameters
    ----------
    tokens : list of list of tuple of str
        Sentences of tokens (column values).
    column : int, default 0
    """
    counts = Counter(tok[column].lower() for sent in tokens for tok in sent)
    return {w for w, n in counts.items() if n >= 2 and not any(ch.isdigit() for ch in w)}


def coverage(types: set[str], vocabulary: set[str]) -> float:
    """Share of ``types`` in ``vocabulary`` (0.0 for no types)."""
    return len(types & vocabulary) / len(types) if types else 0.0


def covers(path: str | os.PathLike, types: set[str]) -> float:
    """:func:`coverage` of ``types`` by the resource at ``path`` (:func:`resource_vocabulary`)."""
    return coverage(types, resource_vocabulary(path))
