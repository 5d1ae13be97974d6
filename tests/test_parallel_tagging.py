"""Corpus tagging on several threads: the same labels as sentence-by-sentence decoding, whatever the thread count."""

import numba
import numpy as np
import pytest

from chaintag.decoding.scoring import NO_VALUES, SENTENCES_PER_CHUNK, feature_entries, tag_corpus, tag_corpus_serial
from chaintag.decoding.viterbi import viterbi_reference
from chaintag.features.keys import lookup_keys, lookup_keys_serial


def thread_counts():
    return sorted({1, min(2, numba.config.NUMBA_NUM_THREADS), numba.config.NUMBA_NUM_THREADS})


def random_corpus(rng, n_sent, n_labels, n_attrs):
    """CSR corpus with random attributes, each owning a random subset of labels as features."""
    lengths = rng.integers(0, 9, size=n_sent)  # empty sentences included
    sent_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    n_tokens = int(sent_ptr[-1])
    per_tok = rng.integers(0, 4, size=n_tokens)
    tok_ptr = np.concatenate([[0], np.cumsum(per_tok)]).astype(np.int64)
    attr_ids = rng.integers(0, n_attrs, size=int(tok_ptr[-1])).astype(np.int32)
    labs = [np.sort(rng.choice(n_labels, size=int(rng.integers(1, n_labels + 1)), replace=False))
            for _ in range(n_attrs)]
    feat_ptr = np.concatenate([[0], np.cumsum([len(x) for x in labs])]).astype(np.int64)
    feat_label = np.concatenate(labs).astype(np.int32)
    w = rng.normal(size=len(feat_label) + n_labels * n_labels + 2 * n_labels)
    return sent_ptr, tok_ptr, attr_ids, feat_ptr, feat_label, w


def reference_tags(sent_ptr, tok_ptr, attr_ids, feat_ptr, feat_label, w, n_labels):
    F = len(feat_label)
    U = w[F:F + n_labels * n_labels].reshape(n_labels, n_labels)
    start, end = w[F + n_labels * n_labels:F + n_labels * n_labels + n_labels], w[-n_labels:]
    out, total = [], 0.0
    for s in range(len(sent_ptr) - 1):
        t0, t1 = sent_ptr[s], sent_ptr[s + 1]
        if t1 == t0:
            continue
        E = np.zeros((t1 - t0, n_labels))
        for i in range(t0, t1):
            for a in attr_ids[tok_ptr[i]:tok_ptr[i + 1]]:
                for f in range(feat_ptr[a], feat_ptr[a + 1]):
                    E[i - t0, feat_label[f]] += w[f]
        path, score = viterbi_reference(E, U, start, end)
        out.append(path)
        total += score
    return (np.concatenate(out) if out else np.zeros(0, np.int32)), total


@pytest.mark.parametrize("n_sent", [0, 1, SENTENCES_PER_CHUNK - 1, 3 * SENTENCES_PER_CHUNK + 5])
def test_tag_corpus_matches_reference_on_every_thread_count(n_sent):
    rng = np.random.default_rng(n_sent)
    n_labels = 4
    sent_ptr, tok_ptr, attr_ids, feat_ptr, feat_label, w = random_corpus(rng, n_sent, n_labels, 12)
    ref, ref_total = reference_tags(sent_ptr, tok_ptr, attr_ids, feat_ptr, feat_label, w, n_labels)
    ent_lo, ent_n = feature_entries(attr_ids, feat_ptr, n_labels)
    saved = numba.get_num_threads()
    results = []
    try:
        for k in thread_counts():
            numba.set_num_threads(k)
            out = np.full(int(sent_ptr[-1]), -1, dtype=np.int32)
            total = tag_corpus(sent_ptr, tok_ptr, ent_lo, ent_n, NO_VALUES, feat_label, w, n_labels, out)
            results.append((out, total))
    finally:
        numba.set_num_threads(saved)
    out = np.full(int(sent_ptr[-1]), -1, dtype=np.int32)
    results.append((out, tag_corpus_serial(sent_ptr, tok_ptr, ent_lo, ent_n, NO_VALUES, feat_label, w, n_labels,
                                           out)))
    for out, total in results:
        # continuous random weights: no ties, so the paths are the reference's
        np.testing.assert_array_equal(out, ref)
        assert total == pytest.approx(ref_total, abs=1e-9)
        # bit-identical across thread counts, the total too (summed in sentence order)
        np.testing.assert_array_equal(out, results[0][0])
        assert total == results[0][1]


def test_lookup_keys_matches_searchsorted():
    rng = np.random.default_rng(3)
    table_keys = np.unique(rng.integers(0, 200, size=60)).astype(np.int64)
    keys = rng.integers(-3, 220, size=500).astype(np.int64)
    saved = numba.get_num_threads()
    try:
        for k in thread_counts():
            numba.set_num_threads(k)
            table = np.full((2, len(keys)), -1, dtype=np.int32)
            lookup_keys(keys, table_keys, 7, table, 1)
            serial = np.full((2, len(keys)), -1, dtype=np.int32)
            lookup_keys_serial(keys, table_keys, 7, serial, 1)
            np.testing.assert_array_equal(serial, table)
            pos = np.minimum(np.searchsorted(table_keys, keys), len(table_keys) - 1)
            found = (keys >= 0) & (table_keys[pos] == keys)
            expected = np.where(found, 7 + pos, -1)
            np.testing.assert_array_equal(table[1], expected)
            assert (table[0] == -1).all()
            # an empty key table finds nothing
            empty = np.full((1, len(keys)), -1, dtype=np.int32)
            lookup_keys(keys, table_keys[:0], 0, empty, 0)
            assert (empty == -1).all()
    finally:
        numba.set_num_threads(saved)


def test_small_and_large_inputs_tag_alike():
    """predict takes the serial kernels below a chunk / PARALLEL_LOOKUP_MIN tokens: same labels."""
    from chaintag import StructuredPerceptron
    from chaintag.features.keys import PARALLEL_LOOKUP_MIN
    rng = np.random.default_rng(5)
    words = [f"w{k}" for k in range(40)]
    sents = [[(words[int(rng.integers(40))], "P") for _ in range(int(rng.integers(1, 12)))] for _ in range(900)]
    labels = [[("A", "B", "C")[int(w[1:]) % 3] for w, _ in s] for s in sents]
    m = StructuredPerceptron(features=["w[0]", "w[-1]"], columns=("word", "pos"), epochs=2,
                             progress=False).fit(sents, labels)
    assert sum(len(s) for s in sents) >= PARALLEL_LOOKUP_MIN and len(sents) > SENTENCES_PER_CHUNK
    whole = m.predict(sents)
    pieces = [lab for k in range(0, len(sents), 10) for lab in m.predict(sents[k:k + 10])]
    assert whole == pieces
