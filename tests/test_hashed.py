"""Feature hashing: bounded attribute table, same behaviour, save/load."""

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError

from toy_corpus import LABELS as TOY_LABELS, SENTS as TOY_SENTS  # noqa: E402

SENTS, LABELS = TOY_SENTS[:4], TOY_LABELS[:4]
KW = dict(features="chunking", columns=("word", "pos"), epochs=10, progress=False)


def test_large_table_behaves_like_exact_attributes(tmp_path):
    exact = chaintag.StructuredPerceptron(**KW).fit(SENTS, LABELS)
    hashed = chaintag.StructuredPerceptron(hash_bits=22, **KW).fit(SENTS, LABELS)
    # no collisions in 4M buckets for these few attributes: the same model, renumbered
    assert hashed.extractor_.n_attributes == exact.extractor_.n_attributes
    assert hashed.feature_index_.n_features == exact.feature_index_.n_features
    assert hashed.predict(SENTS) == exact.predict(SENTS) == LABELS
    np.testing.assert_allclose(np.sort(hashed.weights_), np.sort(exact.weights_))
    hashed.save(tmp_path / "h.npz")
    loaded = chaintag.load(tmp_path / "h.npz")
    assert loaded.predict(SENTS) == LABELS
    assert loaded.predict([[("unseen", "NN")]])[0][0] in loaded.labels_


def test_tiny_table_bounds_the_attributes():
    tiny = chaintag.StructuredPerceptron(hash_bits=4, **KW).fit(SENTS, LABELS)
    assert tiny.extractor_.n_attributes <= 16
    assert len(tiny.predict(SENTS)[0]) == 3


def test_bad_hash_bits():
    with pytest.raises(InputError):
        chaintag.StructuredPerceptron(hash_bits=40, **KW).fit(SENTS, LABELS)
