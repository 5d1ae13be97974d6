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

__all__ = ["MIN_COVERAGE", "MIN_TYPES", "MIN_AGREEMENT", "SAMPLE_TOKENS", "resource_words", "resource_vocabulary",
           "training_types", "coverage", "covers", "frequent_words", "commonest_words", "language_agreement"]

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


def resource_words(path, n: int = RESOURCE_TOP, max_tokens: int = SAMPLE_TOKENS) -> tuple[set[str], set[str]]:
    """A resource's vocabulary and its ``n`` most frequent words, case-folded, read in one pass: a
    word-vector text file's first field of its first ``max_tokens`` lines, the frequent ones its first
    lines (the files are written most frequent first; one more line, for a header ``N D``); or a folder
    of unlabeled text (its ``*.txt`` files in path order, up to the line that reaches ``max_tokens``
    tokens), the frequent ones its commonest.

    Returns
    -------
    vocabulary, frequent : set of str

    Raises
    ------
    OSError
        When the file or folder cannot be read.
    """
    path = Path(path)
    if path.is_dir():
        from .induced import text_files
        counts: Counter = Counter()
        seen = 0
        for p in text_files(path):
            with open(p, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    toks = line.lower().split()
                    counts.update(toks)
                    seen += len(toks)
                    if seen >= max_tokens:
                        break
            if seen >= max_tokens:
                break
        return set(counts), {w for w, _ in counts.most_common(n)}
    words = []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for k, line in enumerate(fh):
            if k >= max_tokens:
                break
            words.append(line.split(" ", 1)[0].lower())
    return set(words), set(words[:n + 1])


def frequent_words(path, n: int = RESOURCE_TOP, max_tokens: int = SAMPLE_TOKENS) -> set[str]:
    """The ``n`` most frequent words of a resource, case-folded (:func:`resource_words`)."""
    return resource_words(path, n, max_tokens)[1]


def commonest_words(tokens, column: int = 0, top: int = TRAINING_TOP) -> list[tuple[str, int]]:
    """The training data's ``top`` most frequent alphabetic words (case-folded), with their counts."""
    return Counter(w for sent in tokens for tok in sent if (w := tok[column].lower()).isalpha()).most_common(top)


def language_agreement(common: list[tuple[str, int]], frequent: set[str]) -> float:
    """Of the tokens of the training data's commonest words (:func:`commonest_words`), the share whose word
    is among the resource's most frequent (:func:`frequent_words`): whether the resource is of the data's
    language.

    Returns
    -------
    float
        In [0, 1]; 0.0 for data without alphabetic words.
    """
    total = sum(n for _, n in common)
    return sum(n for w, n in common if w in frequent) / total if total else 0.0


def resource_vocabulary(path, max_tokens: int = SAMPLE_TOKENS) -> set[str]:
    """Case-folded words of a word-vector text file (its first field, the first ``max_tokens`` lines) or of
    a folder of unlabeled text (its ``*.txt`` files in path order, the first ``max_tokens`` tokens)
    (:func:`resource_words`).

    Raises
    ------
    OSError
        When the file or folder cannot be read.
    """
    return resource_words(path, max_tokens=max_tokens)[0]


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
