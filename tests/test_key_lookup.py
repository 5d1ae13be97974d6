"""The hash-indexed key lookup of tagging gives the ids of a plain binary search (np.searchsorted),
on uniform, clustered and gapped key sets, and tagging through it is unchanged."""

import numpy as np
import pytest

from chaintag import StructuredPerceptron
from chaintag.features.keys import PARALLEL_LOOKUP_MIN, hash_index, lookup_keys_hashed


def _searchsorted_ids(queries, keys, lo):
    pos = np.searchsorted(keys, queries)
    hit = (queries >= 0) & (pos < len(keys))
    hit[hit] &= keys[pos[hit]] == queries[hit]
    return np.where(hit, lo + pos, -1).astype(np.int32)


@pytest.mark.parametrize("kind", ["uniform", "dense", "gapped", "narrow"])
def test_hashed_lookup_matches_searchsorted(kind):
    rng = np.random.default_rng(len(kind))
    for _ in range(60):
        n = int(rng.integers(1, 2000))
        if kind == "uniform":
            keys = rng.integers(0, 2 ** 62, size=n)
        elif kind == "dense":
            keys = rng.integers(0, 40, size=n)
        elif kind == "gapped":  # a cluster of small keys and a few huge ones
            keys = np.concatenate([rng.integers(0, 100, size=n), rng.integers(2 ** 60, 2 ** 60 + 9, size=3)])
        else:
            keys = rng.integers(10 ** 9, 10 ** 9 + 3 * n, size=n)
        keys = np.unique(keys).astype(np.int64)
        slots, bits = hash_index(keys[rng.permutation(len(keys))])  # any order
        assert len(slots) == 2 ** bits >= 2 * len(keys)
        assert sorted(slots[slots[:, 0] >= 0, 0].tolist()) == keys.tolist()
        queries = np.concatenate([keys, keys + 1, keys - 1, rng.integers(-3, int(keys[-1]) + 5, size=300),
                                  [-1, 0, 2 ** 63 - 1]]).astype(np.int64)
        table = np.full((3, len(queries)), -1, dtype=np.int32)
        slots, bits = hash_index(keys)
        lookup_keys_hashed(queries, slots, bits, 11, table, 2)
        assert np.array_equal(table[2], _searchsorted_ids(queries, keys, 11))
        assert np.all(table[:2] == -1)


def test_tagging_a_large_input_uses_the_index_with_the_same_labels():
    rng = np.random.default_rng(3)
    words = [f"w{k}" for k in range(500)]
    sents = [[(words[int(rng.integers(500))], "X") for _ in range(int(rng.integers(3, 12)))] for _ in range(300)]
    labels = [["A" if int(w[0][1:]) % 3 else "B" for w in s] for s in sents]
    model = StructuredPerceptron(features=["w[0]", "w[-1]|w[0]"], columns=("word", "pos"), epochs=2,
                                 progress=False).fit(sents, labels)
    big = sents * (PARALLEL_LOOKUP_MIN // sum(map(len, sents)) + 1)
    got = model.predict(big)
    assert getattr(model.extractor_, "_hash_cache", None) is not None  # the hashed lookup ran
    assert got == [model.predict([s])[0] for s in sents] * (len(big) // len(sents))
