"""Constrained and partially labelled decoding of the second-order models against brute force over the valid
label sequences: the compiled kernels, the learners' predict / predict_nbest / predict_confidence, the CLI."""

import itertools

import numpy as np
import pytest

import chaintag
from chaintag.decoding.constraints import constrained_weights, is_valid_path, scheme_masks
from chaintag.decoding.nbest2 import pair_lists
from chaintag.decoding.scoring import emission_scores, feature_entries
from chaintag.decoding.viterbi2 import path_score2, viterbi2_reference
from chaintag.errors import InputError
from chaintag.learners.sapo2_kernels import nbest_corpus_sapo2
from test_constraints import _corpus as first_order_corpus  # the one-sentence corpus of the first-order tests
from chaintag.learners.second_order_kernels import second_order_views, tag_corpus2

SETS = {"iob2": ["B-NP", "B-VP", "I-NP", "I-VP", "O"], "iob1": ["B-NP", "I-NP", "I-VP", "O"],
        "iobes": ["B-X", "E-X", "I-X", "O", "S-X", "S-Y"], "bilou": ["B-X", "I-X", "L-X", "O", "U-X"],
        "ioe1": ["E-X", "I-X", "I-Y", "O"]}
NONE = np.zeros(0, dtype=np.int32)


# ------------------------------------------------------------------ kernels


def _corpus(E, U, V, start, end):
    """A one-sentence corpus whose token i has one attribute with a feature for every label:
    the kernels' emission scores are exactly E; the flat weights end with the trigram weights V."""
    *arrays, w = first_order_corpus(E, U, start, end)
    return (*arrays, np.concatenate([w, V.ravel()]))


def _ranked(E, U, V, start, end, keep):
    """Every label sequence that ``keep`` accepts, best first (the score of chaintag.decoding.viterbi2)."""
    T, L = E.shape
    out = [(path_score2(E, U, V, start, end, y), y) for y in itertools.product(range(L), repeat=T) if keep(y)]
    return sorted(out, key=lambda t: -t[0])


def _random_case(rng, name):
    labels = SETS[name]
    L, T = len(labels), int(rng.integers(1, 5))
    E, U, V = rng.normal(size=(T, L)), rng.normal(size=(L, L)), rng.normal(size=(L, L, L))
    start, end = rng.normal(size=L), rng.normal(size=L)
    masks = scheme_masks(labels, name)[1:]
    fixed = np.full(T, -1, dtype=np.int32)
    for i in rng.choice(T, size=min(int(rng.integers(0, 3)), T), replace=False):
        fixed[i] = rng.integers(L)
    return E, U, V, start, end, masks, fixed


def _keeps(masks, fixed, constrain):
    return lambda y: ((not constrain or is_valid_path(y, *masks))
                      and all(f < 0 or a == f for a, f in zip(y, fixed)))


@pytest.mark.parametrize("name", sorted(SETS))
def test_viterbi2_kernel_matches_brute_force(name):
    """tag_corpus2 with the masked weights, fixed labels and a tag dictionary: the best valid sequence
    among the dictionary's labels (a fixed label overrides them), else among every label."""
    rng = np.random.default_rng(sorted(SETS).index(name))
    for case in range(150):
        E, U, V, start, end, masks, fixed = _random_case(rng, name)
        T, L = E.shape
        constrain, use_dict = bool(case % 3), bool(case % 2)
        sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w = _corpus(E, U, V, start, end)
        if constrain:
            w = constrained_weights(w, len(feat_label), L, *masks)
        allowed = rng.random((T, L)) < 0.5 if use_dict else np.ones((T, L), dtype=bool)
        allowed[np.arange(T), rng.integers(0, L, T)] = True
        word_ids = np.where(rng.random(T) < 0.8, np.arange(T), -1).astype(np.int32)  # -1: unrestricted word
        allowed[word_ids < 0] = True
        dict_ptr = np.concatenate([[0], np.cumsum(allowed.sum(axis=1))]).astype(np.int64)
        dict_labels = np.nonzero(allowed)[1].astype(np.int32)
        cands = [({int(fixed[i])} if fixed[i] >= 0 else set(np.flatnonzero(allowed[i]).tolist())) for i in range(T)]
        keep = _keeps(masks, fixed, constrain)
        oracle = _ranked(E, U, V, start, end, lambda y: keep(y) and all(y[i] in cands[i] for i in range(T)))
        oracle = oracle or _ranked(E, U, V, start, end, keep)  # the dictionary left none: every label
        out, best = np.zeros(T, dtype=np.int32), np.zeros(1)
        tag_corpus2(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, L, use_dict, word_ids, dict_ptr, dict_labels,
                    fixed if case % 5 else NONE, out, best)
        if case % 5 == 0:  # no fixed labels given to the kernel
            oracle = _ranked(E, U, V, start, end, _keeps(masks, np.full(T, -1), constrain))
            cands = [set(np.flatnonzero(allowed[i]).tolist()) for i in range(T)]
            restricted = [o for o in oracle if all(o[1][i] in cands[i] for i in range(T))]
            oracle = restricted or oracle
        if not oracle:
            assert np.isneginf(best[0])
            continue
        assert tuple(out.tolist()) == oracle[0][1]
        assert best[0] == pytest.approx(oracle[0][0], abs=1e-12)


@pytest.mark.parametrize("name", sorted(SETS))
def test_astar2_kernel_top_k_matches_brute_force(name):
    """nbest_corpus_sapo2 with the masked weights and fixed labels, over random allowed label pairs:
    the k best of the sequences that keep to the pairs and satisfy the constraints, in order."""
    rng = np.random.default_rng(100 + sorted(SETS).index(name))
    for case in range(150):
        E, U, V, start, end, masks, fixed = _random_case(rng, name)
        T, L = E.shape
        constrain = bool(case % 3)
        sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w = _corpus(E, U, V, start, end)
        if constrain:
            w = constrained_weights(w, len(feat_label), L, *masks)
        ok = rng.random((L, L)) < 0.7 if case % 2 else np.ones((L, L), dtype=bool)
        ok[~ok.any(axis=1), :] = True
        ok[:, ~ok.any(axis=0)] = True
        keep = _keeps(masks, fixed, constrain)
        oracle = _ranked(E, U, V, start, end, lambda y: keep(y) and all(ok[a, b] for a, b in zip(y, y[1:])))
        k = int(rng.integers(1, 8))
        paths, scores, found = np.zeros((k, T), dtype=np.int32), np.zeros((1, k)), np.zeros(1, dtype=np.int32)
        nbest_corpus_sapo2(sent_ptr, tok_ptr, ent_lo, ent_n, np.zeros(0), False, feat_label, w, L, *pair_lists(ok),
                           False, NONE, np.zeros(1, dtype=np.int64), NONE, fixed, k, paths, scores, found)
        assert found[0] == min(k, len(oracle))
        np.testing.assert_allclose(scores[0, :found[0]], [s for s, _ in oracle[:k]], rtol=0, atol=1e-12)
        assert [tuple(p) for p in paths[:found[0]].tolist()] == [y for _, y in oracle[:k]]


def test_unconstrained_kernels_are_unchanged():
    """No masks and no fixed labels: the numpy reference Viterbi's path, and A*'s first path is it."""
    rng = np.random.default_rng(7)
    for _ in range(100):
        T, L = int(rng.integers(1, 7)), int(rng.integers(1, 6))
        E, U, V = rng.normal(size=(T, L)), rng.normal(size=(L, L)), rng.normal(size=(L, L, L))
        start, end = rng.normal(size=L), rng.normal(size=L)
        sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w = _corpus(E, U, V, start, end)
        out, best = np.zeros(T, dtype=np.int32), np.zeros(1)
        tag_corpus2(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, L, False, NONE, np.zeros(1, dtype=np.int64),
                    NONE, NONE, out, best)
        ref, ref_score = viterbi2_reference(E, U, V, start, end)
        assert out.tolist() == ref.tolist() and best[0] == pytest.approx(ref_score, abs=1e-12)
        paths, scores, found = np.zeros((1, T), dtype=np.int32), np.zeros((1, 1)), np.zeros(1, dtype=np.int32)
        nbest_corpus_sapo2(sent_ptr, tok_ptr, ent_lo, ent_n, np.zeros(0), False, feat_label, w, L,
                           *pair_lists(np.ones((L, L), dtype=bool)), False, NONE, np.zeros(1, dtype=np.int64), NONE,
                           NONE, 1, paths, scores, found)
        assert paths[0].tolist() == ref.tolist()


# ------------------------------------------------------------------ learners

LABELS = SETS["iob2"]


def _data(n, seed):
    """Random words and random IOB2 labels (many invalid sequences): the models learn invalid transitions."""
    rng = np.random.default_rng(seed)
    vocab = ["the", "dog", "cat", "runs", "fast", "a", "big", "old"]
    sents = [[vocab[j] for j in rng.integers(0, len(vocab), int(rng.integers(2, 5)))] for _ in range(n)]
    return sents, [[LABELS[j] for j in rng.integers(0, len(LABELS), len(s))] for s in sents]


TRAIN, GOLD = _data(60, 0)
TEST, _ = _data(40, 1)


def _scores(model, sentence):
    """(E, U, V, start, end) of one sentence under a second-order model without pair features."""
    attrs = model.extractor_.transform(model._rows([sentence]))
    L, w, fi = len(model.labels_), model.weights_, model.feature_index_
    ent_lo, ent_n = feature_entries(attrs.attr_ids, fi.feat_ptr, L)
    E = np.zeros((len(sentence), L))
    emission_scores(attrs.tok_ptr, ent_lo, ent_n, np.zeros(0), 0, len(sentence), fi.feat_label, w, E)
    U, start, end, V = second_order_views(w, fi.n_features, L)
    return E, U, V, start, end


def _oracle(model, sentence, constrain, fixed=None, restrict=None):
    """The model's sequences of the sentence that satisfy the constraints, best first; ``restrict(y)``:
    the search's own restriction (tag dictionary, seen pairs), dropped when it leaves none."""
    masks = scheme_masks(model.labels_, "iob2")[1:]
    ix = {lab: j for j, lab in enumerate(model.labels_)}
    fix = [-1 if f is None else ix[f] for f in (fixed or [None] * len(sentence))]
    keep = _keeps(masks, fix, constrain)
    scores = _scores(model, sentence)
    ranked = _ranked(*scores, lambda y: keep(y) and (restrict is None or restrict(y)))
    return [([model.labels_[j] for j in y], s) for s, y in (ranked or _ranked(*scores, keep))]


def _invalid(model, seqs):
    masks = scheme_masks(model.labels_, "iob2")[1:]
    ix = {lab: j for j, lab in enumerate(model.labels_)}
    return sum(not is_valid_path([ix[x] for x in s], *masks) for s in seqs)


@pytest.fixture(scope="module", params=["perceptron2", "perceptron2-dict", "sapo2-all", "sapo2-seen"])
def model(request):
    if request.param.startswith("perceptron2"):
        m = chaintag.SecondOrderPerceptron(features="w[0];w[-1]", epochs=2, tag_dict=request.param.endswith("dict"),
                                           tag_dict_min=4)
    else:
        m = chaintag.SecondOrderSAPO(features="w[0];w[-1]", epochs=3, pairs=request.param[6:], random_state=0)
    return m.fit(TRAIN, GOLD)


def _restrict(model, sentence):
    if getattr(model, "tag_dict_", None) is not None:
        allowed = [set(model.allowed_labels(w)) for w in sentence]
        return lambda y: all(model.labels_[j] in allowed[i] for i, j in enumerate(y))
    ok = getattr(model, "pair_allowed_", None)
    if ok is not None:
        return lambda y: all(ok[a, b] for a, b in zip(y, y[1:]))
    return None


def test_predict_constrained_equals_brute_force(model):
    plain = model.predict(TEST)
    assert _invalid(model, plain) > 0  # the test would be empty otherwise
    assert model.training_summary_["label_scheme"] == "iob1"  # random labels: some chunk opens with I-
    got = model.predict(TEST, constrain="iob2")
    assert _invalid(model, got) == 0
    for sent, labs in zip(TEST, got):
        best = _oracle(model, sent, True, restrict=_restrict(model, sent))
        assert labs == best[0][0]
    assert model.predict(TEST) == plain  # constrained calls leave the model as it was


def test_nbest_and_confidence_constrained(model):
    if model.algorithm == "perceptron2":
        with pytest.raises(NotImplementedError, match="no n-best search"):
            model.predict_nbest(TEST, 3, constrain="iob2")
        return
    nb = model.predict_nbest(TEST, 4, constrain="iob2")
    for sent, cands in zip(TEST, nb):
        oracle = _oracle(model, sent, True, restrict=_restrict(model, sent))[:4]
        assert [c[0] for c in cands] == [labs for labs, _ in oracle]
        np.testing.assert_allclose([c[1] for c in cands], [s for _, s in oracle], rtol=0, atol=1e-9)
        assert sum(c[2] for c in cands) == pytest.approx(1.0)
    labels, conf = model.predict_confidence(TEST, 4, constrain="iob2")
    assert labels == model.predict(TEST, constrain="iob2") == [c[0][0] for c in nb]
    assert all(0 < c <= 1 for cs in conf for c in cs)


def test_fixed_labels(model):
    fixed = [[None] * len(s) for s in TEST]
    fixed[0][0] = "B-VP"
    fixed[1][-1] = "I-VP"
    fixed[2] = ["O"] + [None] * (len(TEST[2]) - 1)
    for constrain in (False, "iob2"):
        got = model.predict(TEST, constrain=constrain, fixed=fixed)
        for sent, labs, fx in zip(TEST, got, fixed):
            assert all(f is None or a == f for a, f in zip(labs, fx))
            assert labs == _oracle(model, sent, constrain, fx, _restrict(model, sent))[0][0]
    assert _invalid(model, model.predict(TEST, constrain="iob2", fixed=fixed)) == 0
    # a fixed label that only an invalid sequence holds: I-VP after a fixed B-NP
    bad = [["B-NP", "I-VP"] + [None] * (len(TEST[0]) - 2)]
    assert model.predict(TEST[:1], fixed=bad)[0][:2] == ["B-NP", "I-VP"]
    with pytest.raises(InputError, match="sentence 0: no label sequence satisfies the fixed labels and the label"):
        model.predict(TEST[:1], fixed=bad, constrain="iob2")
    with pytest.raises(InputError, match="no label 'B-XX'"):
        model.predict(TEST[:1], fixed=[["B-XX"] + [None] * (len(TEST[0]) - 1)])


def test_unconstrained_output_is_the_plain_search(model):
    """constrain=False and no fixed labels: the search of before, unchanged; a scheme that forbids nothing
    (IOB1 read off labels with no B-) gives the same labels."""
    if model.algorithm == "perceptron2" and model.tag_dict_ is None:
        for sent, labs in zip(TEST, model.predict(TEST)):
            path, _ = viterbi2_reference(*_scores(model, sent))
            assert labs == [model.labels_[j] for j in path.tolist()]
    assert model.predict(TEST, constrain=False) == model.predict(TEST)
    # every sequence valid: constrained decoding gives the unconstrained labels
    assert model.predict(TEST, fixed=[[None] * len(s) for s in TEST]) == model.predict(TEST)


def test_seen_pairs_or_tag_dictionary_give_way_to_the_fixed_labels():
    """The second-order SAPO's search keeps to the label pairs seen in training; fixed labels that need an
    unseen pair are decoded over every pair (the same for the perceptron's tag dictionary)."""
    sents = [["a", "b", "c"], ["b", "c"], ["c", "a", "b"]] * 3
    labels = [["B-NP", "I-NP", "O"], ["B-NP", "I-NP"], ["O", "B-NP", "I-NP"]] * 3
    m = chaintag.SecondOrderSAPO(features="w[0]", epochs=2).fit(sents, labels)
    ix = {lab: j for j, lab in enumerate(m.labels_)}
    assert not m.pair_allowed_[ix["O"], ix["O"]]
    fixed = [["O", "O", None]]
    got = m.predict([["a", "b", "c"]], fixed=fixed, constrain=True)
    assert got[0][:2] == ["O", "O"]
    assert got[0] == _oracle(m, ["a", "b", "c"], True, fixed[0])[0][0]
    nb = m.predict_nbest([["a", "b", "c"]], 3, fixed=fixed, constrain=True)[0]
    assert [c[0] for c in nb] == [labs for labs, _ in _oracle(m, ["a", "b", "c"], True, fixed[0])[:3]]
    p = chaintag.SecondOrderPerceptron(features="w[0]", epochs=2, tag_dict_min=1).fit(sents, labels)
    assert p.allowed_labels("a") != p.labels_
    # 'b' is only ever I-NP, which cannot follow a fixed O: the dictionary gives way for that sentence
    got = p.predict([["a", "b", "c"], ["c", "a", "b"]], fixed=[["O", None, None], None], constrain=True)
    assert got[0][0] == "O" and got[0][1] != "I-NP" and _invalid(p, got) == 0
    assert got[0] == _oracle(p, ["a", "b", "c"], True, ["O", None, None])[0][0]
    assert got[1] == p.predict([["c", "a", "b"]])[0]


def test_cli_constrain_and_refusals(model, tmp_path, capsys):
    from chaintag.cli.main import main

    path = tmp_path / "m.npz"
    model.save(path)
    src = tmp_path / "in.txt"
    src.write_text("".join("\n".join(s) + "\n\n" for s in TEST[:8]), encoding="utf-8")
    assert main(["tag", "-m", str(path), str(src), "--constrain", "--scheme", "iob2", "--quiet"]) == 0
    got = [ln.split()[-1] for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert got == [lab for s in model.predict(TEST[:8], constrain="iob2") for lab in s]
    part = tmp_path / "part.txt"
    part.write_text("the B-VP\ndog _\n", encoding="utf-8")
    assert main(["tag", "-m", str(path), str(part), "--partial", "--constrain", "--scheme", "iob2", "--quiet"]) == 0
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert [r[-1] for r in rows] == model.predict([["the", "dog"]], fixed=[["B-VP", None]], constrain="iob2")[0]
    assert rows[0][-1] == "B-VP" and rows[1][-1] != "I-NP"
    if model.algorithm == "sapo2":
        assert main(["tag", "-m", str(path), str(src), "--constrain", "--nbest", "2", "--quiet"]) == 0
        assert capsys.readouterr().out.count("\n") == 8
    assert main(["tag", "-m", str(path), str(src), "--constrain", "--marginals", "--quiet"]) != 0
    assert "no marginals" in capsys.readouterr().err


def test_sapo2_with_word_vectors_and_pair_features(tmp_path):
    """Real-valued attributes and pair features (position-dependent pair scores): the constrained top-k is
    the unconstrained enumeration of every sequence, filtered to the valid ones, in the same order."""
    from test_vectors import _vec_file
    from toy_corpus import LABELS as TOY_LABELS
    from toy_corpus import SENTS

    m = chaintag.SecondOrderSAPO(features=f"w[0];pos[-1]|pos[0];vec(w[0]);@clusters={_vec_file(tmp_path)}",
                                 columns=("word", "pos"), pairs="all", pair_features=True, epochs=2).fit(
        SENTS, TOY_LABELS)
    assert m.extractor_.has_vectors and len(m.pair_code_)
    masks = scheme_masks(m.labels_, "iob2")[1:]
    ix = {lab: j for j, lab in enumerate(m.labels_)}
    L = len(m.labels_)
    for sent in SENTS:
        every = m.predict_nbest([sent], L ** len(sent))[0]
        assert len(every) == L ** len(sent)
        valid = [c for c in every if is_valid_path([ix[x] for x in c[0]], *masks)]
        got = m.predict_nbest([sent], 5, constrain="iob2")[0]
        assert [c[0] for c in got] == [c[0] for c in valid[:5]]
        np.testing.assert_allclose([c[1] for c in got], [c[1] for c in valid[:5]], rtol=0, atol=1e-9)
        assert m.predict([sent], constrain="iob2")[0] == valid[0][0]
