"""Second-order (trigram) Viterbi and perceptron: brute force, lazy averaging, tag dictionary."""

import itertools

import numpy as np
import pytest

import chaintag
from chaintag import StructuredPerceptron
from chaintag.decoding.scoring import feature_entries
from chaintag.decoding.viterbi import viterbi
from chaintag.decoding.viterbi2 import path_score2, viterbi2, viterbi2_reference
from chaintag.errors import ModelFormatError
from chaintag.features.extract import AttributeExtractor
from chaintag.features.space import build_feature_index, remap_attributes
from chaintag.features.templates import resolve_templates
from chaintag.io.model_file import load_model, save_model
from chaintag.learners.perceptron_kernels import gold_feature_ids
from chaintag.learners.second_order import SecondOrderPerceptron, TagDictionary
from chaintag.learners.second_order_kernels import perceptron2_epoch

# ----------------------------------------------------------------- decoding


def random_problem(rng, n_tokens, n_labels, integer):
    if integer:  # small integers create many exact ties
        draw = lambda *shape: rng.integers(-2, 3, size=shape).astype(float)  # noqa: E731
    else:
        draw = lambda *shape: rng.normal(size=shape)  # noqa: E731
    return (draw(n_tokens, n_labels), draw(n_labels, n_labels), draw(n_labels, n_labels, n_labels),
            draw(n_labels), draw(n_labels))


def random_mask(rng, n_tokens, n_labels):
    mask = rng.random((n_tokens, n_labels)) < 0.5
    mask[np.arange(n_tokens), rng.integers(0, n_labels, n_tokens)] = True  # at least one label
    return mask


def brute_force(E, U, V, s, e, mask=None):
    """Best score and the chosen path: lowest labels read from the last token backwards."""
    T, L = E.shape
    best, best_path = -np.inf, None
    for path in itertools.product(range(L), repeat=T):
        if mask is not None and not all(mask[i, path[i]] for i in range(T)):
            continue
        score = path_score2(E, U, V, s, e, path)
        if score > best or (score == best and path[::-1] < best_path[::-1]):
            best, best_path = score, path
    return best, list(best_path)


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("integer", [False, True])
def test_viterbi2_matches_brute_force(integer, masked):
    rng = np.random.default_rng(10 + 2 * integer + masked)
    for _ in range(120):
        T = int(rng.integers(1, 6))
        L = int(rng.integers(1, 5))
        E, U, V, s, e = random_problem(rng, T, L, integer)
        mask = random_mask(rng, T, L) if masked else None
        best, best_path = brute_force(E, U, V, s, e, mask)
        for decode in (viterbi2, viterbi2_reference):
            path, score = decode(E, U, V, s, e, mask=mask)
            assert path.dtype == np.int32 and len(path) == T
            assert score == pytest.approx(best, abs=1e-9)
            assert path_score2(E, U, V, s, e, path) == pytest.approx(score, abs=1e-9)
            if mask is not None:
                assert mask[np.arange(T), path].all()
            if integer:  # exact arithmetic: the documented tie rule, checked by enumeration
                assert path.tolist() == best_path


def test_compiled_equals_reference():
    rng = np.random.default_rng(3)
    for _ in range(200):
        T, L = int(rng.integers(1, 9)), int(rng.integers(1, 6))
        integer = bool(rng.integers(0, 2))
        E, U, V, s, e = random_problem(rng, T, L, integer)
        mask = random_mask(rng, T, L) if rng.random() < 0.5 else None
        p1, s1 = viterbi2(E, U, V, s, e, mask)
        p2, s2 = viterbi2_reference(E, U, V, s, e, mask)
        assert s1 == pytest.approx(s2, abs=1e-9)
        if integer:
            assert p1.tolist() == p2.tolist()


@pytest.mark.parametrize("integer", [False, True])
def test_zero_trigrams_equal_first_order(integer):
    rng = np.random.default_rng(5 + integer)
    for _ in range(200):
        T, L = int(rng.integers(1, 9)), int(rng.integers(1, 6))
        E, U, _, s, e = random_problem(rng, T, L, integer)
        p1, s1 = viterbi(E, U, s, e)
        p2, s2 = viterbi2(E, U, np.zeros((L, L, L)), s, e)
        assert s2 == pytest.approx(s1, abs=1e-9)
        assert p2.tolist() == p1.tolist()


def test_trigrams_apply_from_the_third_token():
    # V[0, 0, 1] pays once a pair (0, 0) is followed by 1: needs three tokens
    V = np.zeros((2, 2, 2))
    V[0, 0, 1] = 5.0
    E = np.zeros((2, 2))
    E[1, 0] = 1.0
    assert viterbi2(E, np.zeros((2, 2)), V)[0].tolist() == [0, 0]
    path, score = viterbi2(np.zeros((3, 2)), np.zeros((2, 2)), V)
    assert path.tolist() == [0, 0, 1] and score == 5.0
    assert path_score2(np.zeros((3, 2)), np.zeros((2, 2)), V, np.zeros(2), np.zeros(2), [0, 0, 1]) == 5.0


def test_all_ties_choose_lowest_labels_and_empty_input():
    assert viterbi2(np.zeros((4, 3)), np.zeros((3, 3)), np.zeros((3, 3, 3)))[0].tolist() == [0] * 4
    path, score = viterbi2(np.zeros((0, 3)), np.zeros((3, 3)), np.zeros((3, 3, 3)))
    assert len(path) == 0 and score == 0.0


def test_mask_restricts_the_search():
    E = np.array([[0.0, 9.0], [0.0, 9.0]])
    mask = np.array([[True, False], [True, True]])
    path, score = viterbi2(E, np.zeros((2, 2)), np.zeros((2, 2, 2)), mask=mask)
    assert path.tolist() == [0, 1] and score == 9.0


def test_bad_inputs_raise():
    E = np.zeros((2, 2))
    with pytest.raises(ValueError, match="allows no label at token 1"):
        viterbi2(E, np.zeros((2, 2)), np.zeros((2, 2, 2)), mask=[[True, True], [False, False]])
    with pytest.raises(ValueError, match="transitions2 must have shape"):
        viterbi2(E, np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="mask must have the shape"):
        viterbi2(E, np.zeros((2, 2)), np.zeros((2, 2, 2)), mask=np.ones((3, 2), dtype=bool))


# ---------------------------------------------------------------- learning

from toy_corpus import LABELS as TOY_LABELS, SENTS as TOY_SENTS  # noqa: E402

SENTS = TOY_SENTS + [[("the", "DT"), ("cat", "NN"), ("sleeps", "VBZ"), ("here", "RB"), ("now", "RB")]]
LABELS = TOY_LABELS + [["B-NP", "I-NP", "B-VP", "B-ADVP", "I-ADVP"]]
FEATURES = ["w[0]", "w[-1]", "pos[0]", "pos[-1]|pos[0]", "suf2(w[0])"]


def prepare():
    labels = sorted({lab for ls in LABELS for lab in ls})
    ex = AttributeExtractor(resolve_templates(FEATURES, ("word", "pos")), ("word", "pos"))
    attrs = ex.fit_transform(SENTS)
    gold = np.array([labels.index(lab) for ls in LABELS for lab in ls], dtype=np.int32)
    index, keep = build_feature_index(attrs, gold, len(labels), ex.n_attributes)
    attrs = remap_attributes(attrs, ex.prune(keep))
    ent = feature_entries(attrs.attr_ids, index.feat_ptr)
    gold_feat = gold_feature_ids(attrs.tok_ptr, ent[0], ent[1], gold, index.feat_label)
    words = [tok[0] for s in SENTS for tok in s]
    return attrs, gold, index, gold_feat, ent, words


def n_weights2(index):
    return index.n_weights + index.n_labels ** 3


def phi2(attrs, index, s, path):
    """Dense second-order global feature vector Phi(x, y) of sentence s."""
    L, F = index.n_labels, index.n_features
    v = np.zeros(n_weights2(index))
    t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
    for i in range(t0, t1):
        r = i - t0
        y = path[r]
        for k in range(attrs.tok_ptr[i], attrs.tok_ptr[i + 1]):
            a = attrs.attr_ids[k]
            for f in range(index.feat_ptr[a], index.feat_ptr[a + 1]):
                if index.feat_label[f] == y:
                    v[f] += 1
        if r == 0:
            v[F + L * L + y] += 1
        else:
            v[F + path[r - 1] * L + y] += 1
        if r >= 2:
            v[index.n_weights + (path[r - 2] * L + path[r - 1]) * L + y] += 1
    v[F + L * L + L + path[-1]] += 1
    return v


def split_weights(w, index):
    L, F = index.n_labels, index.n_features
    o = F + L * L
    return (w[F:o].reshape(L, L), w[index.n_weights:].reshape(L, L, L), w[o:o + L], w[o + L:o + 2 * L])


def emissions(attrs, index, w, s):
    t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
    E = np.zeros((t1 - t0, index.n_labels))
    for i in range(t0, t1):
        for k in range(attrs.tok_ptr[i], attrs.tok_ptr[i + 1]):
            a = attrs.attr_ids[k]
            for f in range(index.feat_ptr[a], index.feat_ptr[a + 1]):
                E[i - t0, index.feat_label[f]] += w[f]
    return E


def dict_arrays(words, gold, n_labels, min_count):
    td = TagDictionary.build(words, gold, n_labels, min_count)
    ids = td.word_ids([[(w,) for w in words]])
    return td, ids


def run_kernel(attrs, gold, index, gold_feat, ent, order, w, u, step, averaged, td=None, ids=None):
    use = td is not None
    return perceptron2_epoch(np.asarray(order, dtype=np.int64), attrs.sent_ptr, attrs.tok_ptr,
                             ent[0], ent[1], gold, gold_feat, index.feat_label, w, u, step,
                             index.n_labels, averaged, use,
                             ids if use else np.zeros(0, dtype=np.int32),
                             td.ptr if use else np.zeros(1, dtype=np.int64),
                             td.labels if use else np.zeros(0, dtype=np.int32))


@pytest.mark.parametrize("min_count", [None, 1, 2])
def test_kernel_equals_textbook_perceptron(min_count):
    attrs, gold, index, gold_feat, ent, words = prepare()
    L = index.n_labels
    td, ids = (None, None) if min_count is None else dict_arrays(words, gold, L, min_count)
    w_ref = np.zeros(n_weights2(index))
    w = np.zeros(n_weights2(index))
    u = np.zeros(1)
    step = 0
    for _ in range(4):
        for s in range(attrs.n_sentences):
            t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
            mask = None
            if td is not None:
                mask = np.ones((t1 - t0, L), dtype=bool)
                for i in range(t0, t1):
                    if ids[i] >= 0:
                        mask[i - t0] = False
                        mask[i - t0, td.labels[td.ptr[ids[i]]:td.ptr[ids[i] + 1]]] = True
            U, V, st, en = split_weights(w_ref, index)
            z, _ = viterbi2_reference(emissions(attrs, index, w_ref, s), U, V, st, en, mask)
            y = gold[t0:t1]
            if (z != y).any():
                w_ref += phi2(attrs, index, s, y) - phi2(attrs, index, s, z)
        _, _, step = run_kernel(attrs, gold, index, gold_feat, ent, np.arange(attrs.n_sentences),
                                w, u, step, False, td, ids)
        np.testing.assert_allclose(w, w_ref, atol=1e-12)
    assert step == 4 * attrs.n_sentences


def test_lazy_average_equals_naive_average():
    attrs, gold, index, gold_feat, ent, words = prepare()
    n = n_weights2(index)
    w, u = np.zeros(n), np.zeros(n)
    w_plain, u_plain = np.zeros(n), np.zeros(1)
    total = np.zeros(n)
    step = step_plain = 0
    order = [3, 0, 5, 1, 4, 2]
    for _ in range(3):
        for s in order:
            step = run_kernel(attrs, gold, index, gold_feat, ent, [s], w, u, step, True)[2]
            step_plain = run_kernel(attrs, gold, index, gold_feat, ent, [s], w_plain, u_plain,
                                    step_plain, False)[2]
            total += w_plain  # the weights after every step, updated or not
    naive = total / step_plain
    np.testing.assert_allclose(w, w_plain)
    np.testing.assert_allclose((step * w - u) / step, naive, atol=1e-12)
    assert np.abs(naive[index.n_weights:]).sum() > 0  # the trigram weights took part

    # the estimator returns the same average
    model = SecondOrderPerceptron(features=FEATURES, epochs=3, tag_dict=False)
    model.fit([SENTS[s] for s in order], [LABELS[s] for s in order])
    assert len(model.weights_) == n
    assert model.best_epoch_ == 3


def trigram_corpus():
    """Every token is "x"; labels repeat A A B: only the trigram weights can separate it."""
    sents = [["x"] * n for n in range(3, 10)]
    labels = [[("A", "A", "B")[i % 3] for i in range(n)] for n in range(3, 10)]
    return sents, labels


def test_separable_corpus_reaches_zero_training_errors():
    model = SecondOrderPerceptron(features=FEATURES, epochs=30).fit(SENTS, LABELS)
    assert model.history_[-1]["errors"] == 0
    assert model.predict(SENTS) == LABELS
    assert model.predict([[]]) == [[]]


def test_second_order_separates_what_first_order_cannot():
    sents, labels = trigram_corpus()
    first = StructuredPerceptron(features=["w[0]"], epochs=30).fit(sents, labels)
    assert first.history_[-1]["errors"] > 0
    second = SecondOrderPerceptron(features=["w[0]"], epochs=30, tag_dict=False).fit(sents, labels)
    assert second.history_[-1]["errors"] == 0
    assert second.predict(sents) == labels


def test_estimator_contract():
    model = SecondOrderPerceptron(features=FEATURES, epochs=3, shuffle=True, random_state=4)
    assert model.fit(SENTS, LABELS) is model
    again = SecondOrderPerceptron(**model.get_params()).fit(SENTS, LABELS)
    np.testing.assert_array_equal(model.weights_, again.weights_)
    assert {"tag_dict", "tag_dict_min", "averaged", "cc", "feature_space"} <= set(model.get_params())
    with pytest.raises(NotImplementedError, match="n-best"):
        model.predict_nbest([SENTS[0]])
    with pytest.raises(NotImplementedError, match="marginals"):
        model.predict_marginals([SENTS[0]])
    with pytest.raises(ValueError, match="tag_dict_min"):
        SecondOrderPerceptron(tag_dict_min=0).fit(SENTS, LABELS)
    with pytest.raises(RuntimeError, match="not fitted"):
        SecondOrderPerceptron().predict([["a"]])


@pytest.mark.parametrize("tag_dict", [True, False])
def test_save_load_round_trip(tmp_path, tag_dict):
    model = SecondOrderPerceptron(features=FEATURES, epochs=5, tag_dict=tag_dict, tag_dict_min=2)
    model.fit(SENTS, LABELS)
    path = tmp_path / "m.npz"
    model.save(path)
    loaded = chaintag.load(path)
    assert type(loaded) is SecondOrderPerceptron and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.weights_, model.weights_)
    test = SENTS + [[("a", "DT"), ("dog", "NN"), ("barks", "VBZ"), ("zzz", "NN")]]
    assert loaded.predict(test) == model.predict(test)
    if tag_dict:
        assert loaded.tag_dict_.words == model.tag_dict_.words
        np.testing.assert_array_equal(loaded.tag_dict_.labels, model.tag_dict_.labels)
        assert loaded.allowed_labels("the") == model.allowed_labels("the") == ["B-NP"]
    else:
        assert loaded.tag_dict_ is None


def test_load_rejects_inconsistent_files(tmp_path):
    model = SecondOrderPerceptron(features=FEATURES, epochs=2, tag_dict_min=2).fit(SENTS, LABELS)
    path = tmp_path / "m.npz"
    model.save(path)
    meta, arrays = load_model(path)
    save_model(path, meta, dict(arrays, weights=arrays["weights"][:-1]))
    with pytest.raises(ModelFormatError, match="inconsistent"):
        chaintag.load(path)
    del arrays["tagdict_labels"]
    save_model(path, meta, arrays)
    with pytest.raises(ModelFormatError):
        chaintag.load(path)


def test_tag_dictionary_build_and_word_ids():
    words = ["the", "run", "run", "the", "run", "odd", "ünï"]
    gold = np.array([0, 2, 1, 0, 2, 1, 2])
    td = TagDictionary.build(words, gold, 3, 2)
    assert td.words == ["the", "run"]  # seen at least twice, in order of first occurrence
    assert td.labels[td.ptr[0]:td.ptr[1]].tolist() == [0]
    assert td.labels[td.ptr[1]:td.ptr[2]].tolist() == [1, 2]
    assert td.word_ids([[("run",), ("odd",)], [("the",), ("new",)]]).tolist() == [1, -1, 0, -1]
    everything = TagDictionary.build(words, gold, 3, 1)
    assert everything.words == ["the", "run", "odd", "ünï"]
    back = TagDictionary.from_arrays(everything.arrays(), 3)
    assert back.words == everything.words and back.ptr.tolist() == everything.ptr.tolist()


CONTEXT = ["w[-1]", "w[0]"]


def dictionary_corpus():
    """'run' is always V, seen 3 times (after a pronoun); after 'the' the context says N."""
    sents = [["the", "dog", "runs"], ["the", "cat", "sleeps"], ["the", "man", "walks"],
             ["they", "run"], ["we", "run"], ["you", "run"], ["the", "fox", "jumps"]]
    labels = [["D", "N", "V"], ["D", "N", "V"], ["D", "N", "V"], ["P", "V"], ["P", "V"], ["P", "V"],
              ["D", "N", "V"]]
    return sents, labels


def test_tag_dictionary_restricts_labels():
    sents, labels = dictionary_corpus()
    model = SecondOrderPerceptron(features=CONTEXT, epochs=10, tag_dict_min=3).fit(sents, labels)
    assert model.allowed_labels("run") == ["V"]  # seen 3 times, always V
    assert model.allowed_labels("the") == ["D"]
    assert model.allowed_labels("dog") == ["D", "N", "P", "V"]  # seen once: unrestricted
    assert model.allowed_labels("unseen") == ["D", "N", "P", "V"]
    # after "the", context says N: the dictionary keeps "run" a V, an unrestricted word becomes N
    assert model.predict([["the", "run"], ["the", "walk"]]) == [["D", "V"], ["D", "N"]]
    free = SecondOrderPerceptron(features=CONTEXT, epochs=10, tag_dict=False).fit(sents, labels)
    assert free.tag_dict_ is None and free.allowed_labels("run") == ["D", "N", "P", "V"]
    assert free.predict([["the", "run"]]) == [["D", "N"]]
    # above the threshold nothing is restricted
    loose = SecondOrderPerceptron(features=CONTEXT, epochs=10, tag_dict_min=4).fit(sents, labels)
    assert loose.allowed_labels("run") == ["D", "N", "P", "V"]
    assert loose.allowed_labels("the") == ["D"]  # seen 4 times


def test_evaluate_and_dev_use_the_tag_dictionary():
    sents, labels = dictionary_corpus()
    dev = ([["the", "run"], ["they", "run"]], [["D", "V"], ["P", "V"]])
    model = SecondOrderPerceptron(features=CONTEXT, epochs=4, tag_dict_min=3)
    model.fit(sents, labels, dev=dev)
    assert model.evaluate(*dev).accuracy == 100.0
    assert max(h["dev_accuracy"] for h in model.history_) == 100.0
