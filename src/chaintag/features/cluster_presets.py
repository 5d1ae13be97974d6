"""Presets with distributional attributes (word clusters): ``chunking+clusters``, ``pos+clusters``, ``ner+clusters``,
``chunking+km`` (k-means ids of word vectors), ``chunking+kmvec`` and ``pos+clustersvec`` (with the
vectors' values); ``ner+affixes`` (richer affixes and shapes, no resource), ``ner+gaz`` (with a
gazetteer of the training data's entity strings) and ``ner+doc`` (with the document columns of
:mod:`chaintag.features.document`).

They add to the plain presets the bit-string path prefixes (``brownK``) and
k-means cluster ids (``kmN``) of the words in a window, the attributes of
Turian et al. (2010, s. 7.1: prefixes of lengths 4, 6, 10 and 20 of the
words in the window) and Ratinov and Roth (2009, s. 5). They read a cluster
resource given at training (``chaintag train --clusters FILE``; make one
with ``chaintag clusters``); the model file then keeps the maps.
"""

from __future__ import annotations

from .base_presets import CHUNKING, NER, NER_POS_COLUMN, POS


def _clusters(lengths, offsets, ks=(), km_offsets=()) -> list[str]:
    out = [f"brown{k}(w[{o}])" for o in offsets for k in lengths]
    out += [f"km{k}(w[{o}])" for o in km_offsets for k in ks]
    return out


CHUNKING_CLUSTERS = CHUNKING + _clusters((4, 6, 10, 20), range(-2, 3), (256, 1024), range(-1, 2)) + [
    "w[0]|pos[0]", "pos[-1]|w[0]", "brown4(w[-1])|brown4(w[0])", "brown4(w[0])|brown4(w[1])", "brown6(w[0])|pos[0]"]
"""CoNLL-2000 templates plus path prefixes (4, 6, 10, 20 bits) of w[-2..2], km256 / km1024 of w[-1..1],
word-POS conjunctions and cluster bigrams (chosen on held-out CoNLL-2000 training data: dev F1 94.60
against 94.53 for ``chunking`` and 94.41 without the conjunctions)."""

POS_CLUSTERS = POS + _clusters((4, 6, 10, 20), range(-1, 2), (256, 1024), range(-1, 2))
"""Ratnaparkhi attributes plus path prefixes and k-means ids of w[-1..1] (chosen on ptb_sample:dev
with SAPO, L2 2 and the ``all`` feature space: dev accuracy 97.22 against 97.06 for ``pos``)."""

NER_CLUSTERS = NER + _clusters((4, 6, 10, 20), range(-2, 3), (256, 1024), range(-1, 2)) + [
    "suf3(lower(w[-1]))", "suf3(lower(w[1]))", "pre3(lower(w[-1]))", "pre3(lower(w[1]))",
    "shortshape(w[-2])", "shortshape(w[2])", "lower(w[-2])|lower(w[-1])", "lower(w[1])|lower(w[2])",
    "brown6(w[-1])|brown6(w[0])", "brown6(w[0])|brown6(w[1])"]
"""Bio-NER attributes plus path prefixes of w[-2..2], k-means ids of w[-1..1], affixes and shapes of
the neighbours, word bigrams of the outer window and cluster bigrams (chosen on held-out JNLPBA
training data with SAPO, L2 5: dev F1 77.20 against 77.13 for ``ner`` and 76.64 without the
neighbour attributes)."""

def _km_of_vectors(ks, offsets) -> list[str]:
    return [f"km{k}(norm(lower(w[{o}])))" for o in offsets for k in ks]


CHUNKING_KM = CHUNKING + _km_of_vectors((64, 256, 1024), range(-1, 2))
"""CoNLL-2000 templates plus the k-means cluster ids (64, 256 and 1024 clusters) of w[-1], w[0]
and w[1], lowercased with digits mapped to 0, for a word-vector file (clustered when training) or
a cluster table (``--clusters FILE``). Chosen on the seeded 10 % dev split of CoNLL-2000 training
data (``benchmarks/bench_vectors.py``; word2vec skip-gram vectors induced without those sentences):
SAPO dev F1 94.32 against 93.87 for ``chunking`` (three shuffle seeds, epoch 30: 94.18 against 93.85);
word-vector values (``vec`` of w[-1..1]) gave 94.48 at five times the epoch time. With the ``all``
feature space 94.34 / 94.29 (seeds 0 / 1; the ``chunking`` recipe: 24 epochs)."""

POS_KM = POS + _km_of_vectors((64, 256, 1024), range(-1, 2))
"""Ratnaparkhi attributes plus the k-means cluster ids (64, 256, 1024 clusters) of w[-1], w[0] and w[1],
lowercased with digits mapped to 0, of a word-vector file. The POS default when word vectors are given:
with SAPO, dev accuracy 97.04 on ptb_sample and 94.55 on UD English EWT XPOS against 96.95 / 94.39 for
``pos`` (GloVe 6B 50d; docs/results/kind_defaults)."""


CHUNKING_TEXT = CHUNKING + _clusters((4, 6, 10, 20), range(-1, 2), (256, 1024), range(-1, 2))
"""CoNLL-2000 templates plus 4, 6, 10 and 20-bit path prefixes and k-means ids (256, 1024 clusters) of
w[-1], w[0] and w[1], for maps induced from unlabeled text (``--resources FOLDER``) or a cluster table. The
chunking default when such maps are given: with SAPO, dev F1 94.53 on CoNLL-2000 and 95.28 on its base NPs
against 94.48 / 95.17 for ``chunking`` (maps induced from ``unlabeled_en``; docs/results/kind_defaults)."""


def _vec(offsets) -> list[str]:
    return [f"vec(norm(lower(w[{o}])))" for o in offsets]


CHUNKING_KM_VEC = CHUNKING_KM + _vec(range(-1, 2))
"""``chunking+km`` plus the word vectors of w[-1], w[0] and w[1] as real-valued attributes (``vec``,
100 values each, scaled to standard deviation 0.1), for a word-vector file (``--clusters VECTORS``:
the k-means ids are clustered from it when training; or ``--clusters TABLE VECTORS``). Chosen on the
seeded 10 % dev split of CoNLL-2000 training data (``benchmarks/bench_vectors.py``) with SAPO, the
``all`` feature space: dev F1 94.49 / 94.51 (shuffle seeds 0 / 1) against 94.34 / 94.29 for
``chunking+km``; on base NP (``gold`` space) 95.01 / 94.87 against 94.70 / 94.62."""

POS_CLUSTERS_VEC = POS_CLUSTERS + _vec(range(-1, 2))
"""``pos+clusters`` plus the word vectors of w[-1], w[0] and w[1] as real-valued attributes (``vec``),
for a cluster table and a word-vector file (``--clusters TABLE VECTORS``). Chosen on UD English EWT
dev (XPOS) with SAPO, L2 2, the ``all`` feature space, 20 epochs: accuracy 94.74 / 94.73 (shuffle
seeds 0 / 1) against 94.73 / 94.71 for ``pos`` with the vectors and 94.56 / 94.56 for ``pos``."""

AUTOTAGS = ["atag[-1]", "atag[0]", "atag[1]", "atag2[-1]", "atag2[0]", "atag2[1]", "atag[-1]|atag[0]|atag[1]"]
"""The labels of unlabeled text (:mod:`chaintag.features.autotags`) of w[-1], w[0] and w[1]: the most
frequent label and the two most frequent labels of each, and the trigram of the most frequent labels."""

CHUNKING_AUTOTAGS = CHUNKING_KM_VEC + AUTOTAGS
"""``chunking+kmvec`` plus the labels of unlabeled text (``--autotags TEXT``; the text has no POS column,
so it is tagged by models of the ``pos`` attributes: ``@autofeatures=pos``), with ``--clusters TABLE
VECTORS``. Chosen on the seeded 10 % dev split of CoNLL-2000 training data with SAPO, the ``all`` feature
space, 28 epochs: see docs/results/presets ("Sixth round")."""

POS_AUTOTAGS = POS_CLUSTERS_VEC + AUTOTAGS
"""``pos+clustersvec`` plus the labels of unlabeled text (``--autotags TEXT``, with ``--clusters TABLE
VECTORS``). Chosen on UD English EWT dev (XPOS) with SAPO, L2 2, the ``all`` feature space, 25
principal components of the vectors, 20 epochs: see docs/results/presets ("Labels of unlabeled text")."""

NER_AFFIXES = NER + [
    "suf3(lower(w[-1]))", "suf3(lower(w[1]))", "pre3(lower(w[-1]))", "pre3(lower(w[1]))",
    "shortshape(w[-2])", "shortshape(w[2])", "lower(w[-2])|lower(w[-1])", "lower(w[1])|lower(w[2])",
    "suf6(lower(w[0]))", "pre6(lower(w[0]))", "suf4(lower(w[-1]))", "suf4(lower(w[1]))",
    "shape(w[0])|shape(w[1])", "shape(w[-1])|shape(w[0])"]
"""Bio-NER attributes plus affixes of the neighbours, longer affixes of the word, shapes of the outer
window and shape bigrams, word bigrams of the outer window (no resource). Chosen on the seeded 10 %
dev split of JNLPBA training data (``benchmarks/bench_vectors.py``) with SAPO, L2 5: dev F1 80.30 /
80.14 (shuffle seeds 0 / 1) against 79.59 / 79.75 for ``ner``; word-vector values (``vec`` of
w[-1..1]: 79.62) and k-means ids of the vectors (79.27, with these attributes 79.74) did not help."""

NER_GAZ = NER_AFFIXES + ["gaz[-1]", "gaz[0]", "gaz[1]", "gaz[-1]|gaz[0]", "gaz[0]|gaz[1]"]
"""``ner+affixes`` plus the gazetteer column (:mod:`chaintag.features.gazetteer`; the entity strings of
the training data, jackknifed by runs of 10 sentences) at w[-1], w[0], w[1] and its two bigrams. Chosen
on the seeded 10 % dev split of JNLPBA training data (``benchmarks/bench_vectors.py``, SAPO): see
docs/results/presets ("Third round")."""

NER_GAZ_KM = NER_GAZ + _km_of_vectors((64, 256, 1024), range(-2, 3))
"""``ner+gaz`` plus the k-means cluster ids (64, 256, 1024 clusters) of w[-2] to w[2], lowercased with digits
mapped to 0, of a word-vector file. The NER default when word vectors that cover the training words are
given: with SAPO (the ``all`` feature space, L2 2), dev F1 97.96 on the proper names of CoNLL-2000 and 85.60
on those of UD English EWT against 96.83 / 83.64 for ``ner+gaz`` (97.80 / 85.03 with the ids of w[-1..1]
only; GloVe 6B 50d; JNLPBA, whose words GloVe covers too little, keeps ``ner+gaz``;
docs/results/kind_defaults)."""

NER_DOC = NER_AFFIXES + ["abbr[0]", "docnext[0]", "doccap[0]"]
"""``ner+affixes`` plus the three document columns of the token (:mod:`chaintag.features.document`: the
abbreviation's long-form head word, the most frequent next word and the count / case class of the word's
other occurrences in its document), computed from the documents that the input's marker lines delimit.
Chosen on a contiguous 10 % dev split of JNLPBA training data (whole abstracts; SAPO, L2 5): dev F1
78.70 / 78.74 (shuffle seeds 0 / 1) against 78.24 / 78.21 for ``ner+affixes`` (docs/results/presets,
"Document-level attributes")."""

CLUSTER_PRESETS = {
    "chunking+km": CHUNKING_KM,
    "pos+km": POS_KM,
    "chunking+text": CHUNKING_TEXT,
    "chunking+kmvec": CHUNKING_KM_VEC,
    "pos+clustersvec": POS_CLUSTERS_VEC,
    "pos+autotags": POS_AUTOTAGS,
    "chunking+autotags": CHUNKING_AUTOTAGS,
    "ner+affixes": NER_AFFIXES,
    "ner+gaz": NER_GAZ,
    "ner+gaz+km": NER_GAZ_KM,
    "ner+doc": NER_DOC,
    "chunking+clusters": CHUNKING_CLUSTERS,
    "pos+clusters": POS_CLUSTERS,
    "ner+clusters": NER_CLUSTERS,
}
CLUSTER_OPTIONAL = {"ner+clusters": NER_POS_COLUMN, "ner+affixes": NER_POS_COLUMN, "ner+gaz": NER_POS_COLUMN,
                    "ner+gaz+km": NER_POS_COLUMN, "ner+doc": NER_POS_COLUMN}
