"""The structured perceptron: updates, lazy averaging, the estimator contract."""

import copy

import numpy as np
import pytest

from chaintag import StructuredPerceptron
from chaintag.decoding.scoring import corpus_arrays, feature_entries
from chaintag.decoding.viterbi import viterbi_reference
from chaintag.features.extract import AttributeExtractor
from chaintag.features.space import build_feature_index, remap_attributes
from chaintag.features.templates import resolve_templates
from chaintag.learners.perceptron_kernels import gold_feature_ids, perceptron_epoch

from toy_corpus import LABELS, SENTS  # noqa: E402
FEATURES = ["w[0]", "w[-1]", "pos[0]", "pos[-1]|pos[0]", "suf2(w[0])"]


def prepare(space="gold"):
    labels = sorted({lab for ls in LABELS for lab in ls})
    ex = AttributeExtractor(resolve_templates(FEATURES, ("word", "pos")), ("word", "pos"))
    attrs = ex.fit_transform(SENTS)
    gold = np.array([labels.index(lab) for ls in LABELS for lab in ls], dtype=np.int32)
    index, keep = build_feature_index(attrs, gold, len(labels), ex.n_attributes, space=space)
    attrs = remap_attributes(attrs, ex.prune(keep))
    ent = feature_entries(attrs.attr_ids, index.feat_ptr)
    gold_feat = gold_feature_ids(attrs.tok_ptr, ent[0], ent[1], gold, index.feat_label)
    attrs.ent = ent
    return attrs, gold, index, gold_feat


def run_kernel(attrs, gold, index, gold_feat, order, w, u, step, averaged):
    c = corpus_arrays(attrs.sent_ptr, attrs.tok_ptr, attrs.ent[0], attrs.ent[1], None, index.feat_label, gold,
                      gold_feat)
    return perceptron_epoch(np.asarray(order, dtype=np.int64), c, w, u, step, index.n_labels, averaged)


def phi(attrs, index, s, path):
    """Dense global feature vector Phi(x, y) of sentence s (ALGORITHMS.md notation)."""
    L = index.n_labels
    F = index.n_features
    v = np.zeros(index.n_weights)
    t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
    for i in range(t0, t1):
        y = path[i - t0]
        for k in range(attrs.tok_ptr[i], attrs.tok_ptr[i + 1]):
            a = attrs.attr_ids[k]
            for f in range(index.feat_ptr[a], index.feat_ptr[a + 1]):
                if index.feat_label[f] == y:
                    v[f] += 1
        if i == t0:
            v[F + L * L + y] += 1
        else:
            v[F + path[i - t0 - 1] * L + y] += 1
    v[F + L * L + L + path[-1]] += 1
    return v


@pytest.mark.parametrize("space", ["gold", "all"])
def test_kernel_equals_textbook_perceptron(space):
    attrs, gold, index, gold_feat = prepare(space)
    L, F = index.n_labels, index.n_features
    w_ref = np.zeros(index.n_weights)
    w = np.zeros(index.n_weights)
    u = np.zeros(1)
    step = 0
    for epoch in range(4):
        for s in range(attrs.n_sentences):
            # reference: dense scoring, numpy Viterbi, w += Phi(y*) - Phi(z)
            t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
            E = np.zeros((t1 - t0, L))
            for i in range(t0, t1):
                for k in range(attrs.tok_ptr[i], attrs.tok_ptr[i + 1]):
                    a = attrs.attr_ids[k]
                    for f in range(index.feat_ptr[a], index.feat_ptr[a + 1]):
                        E[i - t0, index.feat_label[f]] += w_ref[f]
            U = w_ref[F:F + L * L].reshape(L, L)
            z, _ = viterbi_reference(E, U, w_ref[F + L * L:F + L * L + L], w_ref[F + L * L + L:])
            y = gold[t0:t1]
            if not np.array_equal(z, y):
                w_ref += phi(attrs, index, s, y) - phi(attrs, index, s, z)
        _, _, step = run_kernel(attrs, gold, index, gold_feat, np.arange(attrs.n_sentences), w, u, step, False)
        np.testing.assert_array_equal(w, w_ref)
    assert np.abs(w).sum() > 0


def test_lazy_average_equals_naive_average_exactly():
    attrs, gold, index, gold_feat = prepare()
    n = index.n_weights
    # naive: record the weights after each of the n*T steps (updates or not)
    w = np.zeros(n)
    snapshots = []
    step = 0
    for epoch in range(3):
        for s in range(attrs.n_sentences):
            _, _, step = run_kernel(attrs, gold, index, gold_feat, [s], w, np.zeros(1), step, False)
            snapshots.append(w.copy())
    naive = np.sum(snapshots, axis=0) / len(snapshots)
    # lazy: whole epochs, then (K w - u) / K
    model = StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=3, progress=False)
    model.fit(SENTS, LABELS)
    assert model.history_[0]["updates"] > 0
    np.testing.assert_array_equal(model.weights_, naive)
    assert not np.array_equal(naive, snapshots[-1])  # averaging changed something


def test_naive_perceptron_keeps_last_weights():
    attrs, gold, index, gold_feat = prepare()
    w = np.zeros(index.n_weights)
    step = 0
    for epoch in range(3):
        _, _, step = run_kernel(attrs, gold, index, gold_feat, np.arange(attrs.n_sentences), w, np.zeros(1), step, False)
    model = StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=3, averaged=False,
                                 progress=False).fit(SENTS, LABELS)
    np.testing.assert_array_equal(model.weights_, w)


def test_separable_corpus_reaches_zero_training_errors():
    model = StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=20, progress=False)
    model.fit(SENTS, LABELS)
    assert model.history_[-1]["errors"] == 0
    assert model.history_[-1]["updates"] == 0
    assert model.predict(SENTS) == LABELS
    assert model.score(SENTS, LABELS) == 100.0


def test_fit_returns_self_and_does_not_mutate_inputs():
    sents, labels = copy.deepcopy(SENTS), copy.deepcopy(LABELS)
    model = StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=2, progress=False)
    assert model.fit(sents, labels, dev=(sents, labels)) is model
    assert sents == SENTS and labels == LABELS


def test_same_seed_same_weights_and_shuffle_changes_order():
    kw = dict(features=FEATURES, columns=("word", "pos"), epochs=3, shuffle=True, progress=False)
    a = StructuredPerceptron(random_state=3, **kw).fit(SENTS, LABELS)
    b = StructuredPerceptron(random_state=3, **kw).fit(SENTS, LABELS)
    np.testing.assert_array_equal(a.weights_, b.weights_)


def test_init_stores_parameters_only():
    m = StructuredPerceptron(epochs=7, cc=5)
    assert m.get_params()["epochs"] == 7 and m.get_params()["cc"] == 5
    assert not hasattr(m, "weights_")
    with pytest.raises(RuntimeError):
        m.predict([["a"]])


def test_dev_keeps_best_epoch_and_records_history():
    model = StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=6, progress=False)
    model.fit(SENTS[:3], LABELS[:3], dev=(SENTS[3:], LABELS[3:]))
    scores = [h["dev_score"] for h in model.history_]
    assert len(model.history_) == 6
    assert model.best_epoch_ == 1 + int(np.argmax(scores))
    for h in model.history_:
        assert set(h) >= {"epoch", "seconds", "updates", "errors", "dev_accuracy", "dev_f1", "weight_complexity"}


def test_count_cutoff_removes_rare_pairs():
    full = StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=1, progress=False).fit(SENTS, LABELS)
    cut = StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=1, cc=2, progress=False).fit(SENTS, LABELS)
    assert cut.feature_index_.n_features < full.feature_index_.n_features
    # with cc=2 every kept (attribute, label) pair occurs at least twice in the gold data
    ex, fi = cut.extractor_, cut.feature_index_
    attrs = ex.transform(SENTS)
    flat = [lab for ls in LABELS for lab in ls]
    counts = {}
    for i in range(attrs.n_tokens):
        for a in attrs.attr_ids[attrs.tok_ptr[i]:attrs.tok_ptr[i + 1]]:
            key = (int(a), cut.labels_.index(flat[i]))
            counts[key] = counts.get(key, 0) + 1
    for a in range(ex.n_attributes):
        for f in range(fi.feat_ptr[a], fi.feat_ptr[a + 1]):
            assert counts[(a, int(fi.feat_label[f]))] >= 2


def test_single_label_training_set():
    model = StructuredPerceptron(features=["w[0]"], epochs=3, progress=False)
    model.fit([["Hello"], ["Yes"]], [["B-INTJ"], ["B-INTJ"]])
    assert model.predict([["Hello"], ["unseen"], ["a", "b"]]) == [["B-INTJ"], ["B-INTJ"], ["B-INTJ", "B-INTJ"]]


def test_string_tokens_and_unseen_words():
    model = StructuredPerceptron(features="pos", epochs=5, progress=False)
    model.fit([["The", "dog", "runs"], ["A", "cat", "sleeps"]], [["DT", "NN", "VBZ"], ["DT", "NN", "VBZ"]])
    out = model.predict([["The", "zebra", "walks"], []])
    assert out[0][0] == "DT" and len(out[0]) == 3 and out[1] == []
