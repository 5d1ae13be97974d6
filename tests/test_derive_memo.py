"""Tagging's memo of derived-column ids gives exactly the attributes of a fresh extraction."""

from __future__ import annotations

import copy
import pickle

import numpy as np

from chaintag.features import derive_memo
from chaintag.features.extract import AttributeExtractor
from chaintag.features.templates import resolve_templates

COLS = ["word", "pos"]
FEATURES = ["w[0]", "suf3(lower(w[0]))", "pre2(w[-1])|p[0]", "shape(w[1])", "p[0]"]
TRAIN = [[("The", "DT"), ("cat", "NN"), ("sat", "VBD")], [("Dogs", "NNS"), ("bark", "VBP"), ("loudly", "RB")]]
BATCHES = [
    [[("The", "DT"), ("dog", "NN"), ("sat", "VBD")]],
    [[("Cats", "NNS"), ("bark", "VBP")], [("the", "DT"), ("cat", "NN"), ("barked", "VBD")]],
    [[("loudly", "RB"), ("Dogs", "NNS"), ("sat", "VBD"), ("unseen", "JJ")]],
]


def _extractor():
    ex = AttributeExtractor(resolve_templates(FEATURES, COLS), COLS)
    ex.fit_transform(TRAIN)
    return ex


def _csr(attrs):
    return attrs.sent_ptr.tolist(), attrs.tok_ptr.tolist(), attrs.attr_ids.tolist()


def test_batches_through_the_memo_equal_fresh_extractions():
    ex = _extractor()
    for batch in BATCHES + BATCHES:  # the second round is served from the memo
        assert _csr(ex.transform(batch)) == _csr(_extractor().transform(batch))
    assert ex._derive_memo._entries["word"].used > 0


def test_a_small_memo_starts_again_and_stays_exact(monkeypatch):
    ex = _extractor()
    ex._derive_memo = derive_memo.DerivedMemo(limit=4)  # fewer slots than the values of a batch or two
    for batch in BATCHES * 3:
        assert _csr(ex.transform(batch)) == _csr(_extractor().transform(batch))


def test_a_grown_vocabulary_drops_the_memo():
    ex = _extractor()
    batch = [[("zebra", "NN"), ("gallops", "VBZ")]]
    before = _csr(ex.transform(batch))
    ex.fit_transform(batch)  # "zebra" and its suffixes become known values
    after = _csr(ex.transform(batch))
    fresh = _extractor()
    fresh.fit_transform(batch)
    assert after == _csr(fresh.transform(batch)) and after != before


def test_memo_ids_equal_map():
    ex = _extractor()
    memo = derive_memo.DerivedMemo(limit=8)
    word = [d for d in ex._derived if d.column == "word"]
    for uniques in (["The", "cat", "zzz"], ["cat", "Dogs", "new", "The"], ["a", "b", "c", "d", "e", "f", "g", "h", "i"]):
        expected = np.stack([d.map(uniques, False) for d in word])
        assert np.array_equal(memo.ids("word", word, uniques), expected)


def test_copies_and_pickles_start_empty():
    ex = _extractor()
    ex.transform(BATCHES[0])
    for clone in (copy.deepcopy(ex), pickle.loads(pickle.dumps(ex))):
        assert clone._derive_memo._entries == {}
        assert _csr(clone.transform(BATCHES[1])) == _csr(ex.transform(BATCHES[1]))
