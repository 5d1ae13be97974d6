"""Constrained and partially labelled decoding against brute force over the valid sequences."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chaintag
from chaintag.decoding.constraints import (constrained_weights, detect_scheme, is_valid_path,
                                           marginals_corpus_fixed, nbest_corpus_fixed, scheme_masks,
                                           tag_corpus_fixed)
from chaintag.errors import InputError
from toy_corpus import LABELS, SENTS

IOB2 = ["B-NP", "B-VP", "I-NP", "I-VP", "O"]
IOBES = ["B-X", "E-X", "I-X", "O", "S-X", "S-Y"]
SETS = {"iob2": IOB2, "iob1": ["B-NP", "I-NP", "I-VP", "O"], "iobes": IOBES,
        "bilou": ["B-X", "I-X", "L-X", "O", "U-X"], "ioe2": ["E-X", "E-Y", "I-X", "I-Y", "O"],
        "ioe1": ["E-X", "I-X", "I-Y", "O"], "bmes": ["B-X", "E-X", "M-X", "O", "S-X"], "bare": ["B", "I", "O"]}


def test_detect_scheme():
    assert detect_scheme(IOB2) == "iob2"
    assert detect_scheme(["I-NP", "O"]) == "iob1"
    assert detect_scheme(IOBES) == "iobes"
    assert detect_scheme(["B-X", "L-X", "U-X", "O"]) == "bilou"
    assert detect_scheme(["DT", "NN", "VB"]) is None
    with pytest.raises(ValueError, match="no chunk scheme"):
        scheme_masks(["DT", "NN"])
    with pytest.raises(ValueError, match="IOBES scheme, not IOB2"):
        scheme_masks(IOBES, "iob2")
    # a label that fits no chunk prefix is read as O, as the chunk scorer reads it
    _, t, s, e = scheme_masks(["B-X", "I-X", "O", "X"], "iob2")
    np.testing.assert_array_equal(t[3], t[2]) and np.testing.assert_array_equal(t[:, 3], t[:, 2])
    assert detect_scheme(["I-X", "E-X", "O"]) == "ioe2" and detect_scheme(["B-X", "M-X", "E-X", "S-X"]) == "bmes"
    assert detect_scheme(["B", "I", "O"]) == "iob2"


def test_ioe_rules_by_hand():
    labels = SETS["ioe2"]
    _, t, s, e = scheme_masks(labels)
    ix = {lab: j for j, lab in enumerate(labels)}
    assert s.all() and not e[ix["I-X"]] and e[ix["E-X"]]
    assert not t[ix["I-X"], ix["O"]] and not t[ix["I-X"], ix["I-Y"]] and t[ix["I-X"], ix["E-X"]]
    assert t[ix["E-X"], ix["I-Y"]] and t[ix["O"], ix["I-X"]]
    _, t, s, e = scheme_masks(labels, "ioe1")
    assert e[ix["I-X"]] and not e[ix["E-X"]] and t[ix["I-X"], ix["O"]]
    assert not t[ix["E-X"], ix["O"]] and t[ix["E-X"], ix["I-X"]] and not t[ix["E-X"], ix["I-Y"]]


def test_model_records_its_training_scheme():
    # IOB1 training data (a chunk opens with I): decoding uses IOB1's rules, not IOB2's
    sents = [["a", "b", "c"], ["d", "e"]]
    labs = [["I-NP", "I-NP", "B-NP"], ["O", "I-VP"]]
    m = chaintag.StructuredPerceptron(features="w[0]", epochs=2).fit(sents, labs)
    assert m.training_summary_["label_scheme"] == "iob1"
    plain = m.predict(sents)
    assert plain[0][0] == "I-NP" and plain[1] == ["O", "I-VP"]
    assert m.predict(sents, constrain=True) == plain  # valid in IOB1
    iob2 = m.predict(sents, constrain="iob2")
    assert iob2[0][0] != "I-NP" and iob2[1] != ["O", "I-VP"]


def test_scheme_rules_by_hand():
    _, t, s, e = scheme_masks(IOB2)
    ix = {lab: j for j, lab in enumerate(IOB2)}
    assert not t[ix["O"], ix["I-NP"]] and not t[ix["B-VP"], ix["I-NP"]] and not t[ix["I-VP"], ix["I-NP"]]
    assert t[ix["B-NP"], ix["I-NP"]] and t[ix["I-NP"], ix["I-NP"]] and t[ix["O"], ix["B-NP"]]
    assert t[ix["I-NP"], ix["B-VP"]] and t[ix["I-NP"], ix["O"]]
    assert not s[ix["I-NP"]] and s[ix["B-NP"]] and s[ix["O"]] and e.all()
    _, t, s, e = scheme_masks(SETS["iob1"], "iob1")
    ix = {lab: j for j, lab in enumerate(SETS["iob1"])}
    assert t[ix["O"], ix["I-NP"]] and not t[ix["O"], ix["B-NP"]] and not t[ix["I-VP"], ix["B-NP"]]
    assert t[ix["I-NP"], ix["B-NP"]] and not s[ix["B-NP"]]
    _, t, s, e = scheme_masks(IOBES)
    ix = {lab: j for j, lab in enumerate(IOBES)}
    assert t[ix["B-X"], ix["I-X"]] and t[ix["B-X"], ix["E-X"]] and not t[ix["B-X"], ix["O"]]
    assert not t[ix["E-X"], ix["I-X"]] and t[ix["E-X"], ix["S-Y"]] and t[ix["S-Y"], ix["B-X"]]
    assert not t[ix["I-X"], ix["S-X"]] and not t[ix["O"], ix["E-X"]]
    assert not s[ix["I-X"]] and not s[ix["E-X"]] and s[ix["S-X"]]
    assert not e[ix["B-X"]] and not e[ix["I-X"]] and e[ix["E-X"]] and e[ix["O"]]


def _corpus(E, U, start, end):
    """A one-sentence corpus whose token i has one attribute with a full row of features:
    the kernels' emission scores are exactly E."""
    T, L = E.shape
    sent_ptr = np.array([0, T], dtype=np.int64)
    tok_ptr = np.arange(T + 1, dtype=np.int64)
    ent_lo = (np.arange(T) * L).astype(np.int32)
    ent_n = np.full(T, L, dtype=np.int16)
    feat_label = np.tile(np.arange(L, dtype=np.int32), T)
    w = np.concatenate([E.ravel(), U.ravel(), start, end])
    return sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w


def _brute(E, U, start, end, masks, fixed):
    T, L = E.shape
    out = []
    for path in itertools.product(range(L), repeat=T):
        if masks is not None and not is_valid_path(path, *masks):
            continue
        if any(f >= 0 and p != f for p, f in zip(path, fixed)):
            continue
        sc = start[path[0]] + end[path[-1]] + sum(E[i, p] for i, p in enumerate(path))
        sc += sum(U[a, b] for a, b in zip(path, path[1:]))
        out.append((sc, path))
    out.sort(key=lambda x: -x[0])
    return out


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(SETS)), T=st.integers(1, 4), seed=st.integers(0, 10 ** 6),
       constrain=st.booleans(), n_fixed=st.integers(0, 2))
def test_kernels_match_brute_force(name, T, seed, constrain, n_fixed):
    labels = SETS[name]
    L = len(labels)
    rng = np.random.default_rng(seed)
    E, U = rng.normal(size=(T, L)), rng.normal(size=(L, L))
    start, end = rng.normal(size=L), rng.normal(size=L)
    _, *masks = scheme_masks(labels, None if name == "bare" else name)
    sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w = _corpus(E, U, start, end)
    if constrain:
        w = constrained_weights(w, len(feat_label), L, *masks)
    fixed = np.full(T, -1, dtype=np.int32)
    for i in rng.choice(T, size=min(n_fixed, T), replace=False):
        fixed[i] = rng.integers(L)
    oracle = _brute(E, U, start, end, masks if constrain else None, fixed)
    out = np.zeros(T, dtype=np.int32)
    best = np.zeros(1)
    tag_corpus_fixed(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, L, fixed, out, best)
    if not oracle:
        assert np.isneginf(best[0])
        return
    assert best[0] == pytest.approx(oracle[0][0])
    assert tuple(out.tolist()) == oracle[0][1]
    # top-k: every valid sequence, in order, then only -inf ones
    k = 6
    paths = np.zeros((k, T), dtype=np.int32)
    scores = np.zeros((1, k))
    found = np.zeros(1, dtype=np.int32)
    nbest_corpus_fixed(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, L, k, fixed, paths, scores, found)
    got = scores[0, :found[0]]
    n_valid = int(np.isfinite(got).sum())
    assert n_valid == min(k, len(oracle))
    np.testing.assert_allclose(got[:n_valid], [sc for sc, _ in oracle[:n_valid]])
    for r in range(n_valid):
        p = tuple(paths[r].tolist())
        assert not constrain or is_valid_path(p, *masks)
        assert all(f < 0 or a == f for a, f in zip(p, fixed))
    # marginals of the distribution restricted to the valid sequences
    marg = np.zeros((T, L))
    marginals_corpus_fixed(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, L, fixed, marg)
    ref = np.zeros((T, L))
    mx = oracle[0][0]
    for sc, p in oracle:
        for i, lab in enumerate(p):
            ref[i, lab] += np.exp(sc - mx)
    ref /= ref[0].sum()
    np.testing.assert_allclose(marg, ref, atol=1e-9)


@pytest.fixture(scope="module")
def tagger():
    # one epoch on a corpus whose labels are shuffled: the unconstrained model makes invalid sequences
    rng = np.random.default_rng(0)
    labs = [list(rng.permutation(ls)) if len(ls) > 1 else ls for ls in LABELS]
    flat = sorted({x for ls in LABELS for x in ls})
    labs = [[flat[rng.integers(len(flat))] for _ in ls] for ls in LABELS]
    # most B- labels made I- (the first of each kept, so that every label stays): more chunks open on I
    # than on B, which reads as IOB1
    seen = set()
    labs = [[x if not x.startswith("B-") or x not in seen and not seen.add(x) or rng.random() >= 0.8
             else "I" + x[1:] for x in ls] for ls in labs]
    return chaintag.StructuredPerceptron(features="w[0];pos[0];w[-1]", columns=("word", "pos"),
                                         epochs=1).fit(SENTS, labs)


def _invalid(model, seqs):
    _, *masks = scheme_masks(model.labels_)
    ix = {lab: j for j, lab in enumerate(model.labels_)}
    return sum(not is_valid_path([ix[x] for x in s], *masks) for s in seqs)


def test_model_predict_constrained(tagger):
    plain = tagger.predict(SENTS)
    assert _invalid(tagger, plain) > 0  # the test would be empty otherwise
    # its random training labels read as IOB1 (more chunks open on I than on B): constrain=True enforces IOB1
    assert tagger.training_summary_["label_scheme"] == "iob1"
    assert tagger.predict(SENTS, constrain=True) == tagger.predict(SENTS, constrain="iob1")
    assert _invalid(tagger, tagger.predict(SENTS, constrain="iob2")) == 0
    for cands in tagger.predict_nbest(SENTS, 4, constrain="iob2"):
        assert _invalid(tagger, [c[0] for c in cands]) == 0
        assert abs(sum(p for *_, p in cands) - 1) < 1e-9
    labels, conf = tagger.predict_confidence(SENTS, 4, constrain="iob2")
    assert labels == tagger.predict(SENTS, constrain="iob2")
    for marg, sent in zip(tagger.predict_marginals(SENTS, constrain="iob2"), SENTS):
        assert marg.shape == (len(sent), len(tagger.labels_))
        np.testing.assert_allclose(marg.sum(axis=1), 1.0)
        assert marg[0, tagger.labels_.index("I-NP")] == 0.0  # no sentence starts inside a chunk


def test_model_partial_labels(tagger):
    fixed = [[None] * len(s) for s in SENTS]
    fixed[1][2] = "B-ADVP"
    fixed[3] = ["B-VP", None, None]
    out = tagger.predict(SENTS, fixed=fixed)
    assert out[1][2] == "B-ADVP" and out[3][0] == "B-VP"
    nb = tagger.predict_nbest(SENTS, 3, fixed=fixed)
    assert len(nb[3]) == 3 and all(labs[0] == "B-VP" for labs, _, _ in nb[3])
    assert all(labs[2] == "B-ADVP" for labs, _, _ in nb[1])
    marg = tagger.predict_marginals(SENTS, fixed=fixed)
    assert marg[1][2, tagger.labels_.index("B-ADVP")] == pytest.approx(1.0)
    # a fixed label that only an invalid sequence can hold
    bad = [[None] * len(s) for s in SENTS]
    bad[0][0] = "I-NP"
    assert tagger.predict(SENTS, fixed=bad)[0][0] == "I-NP"
    with pytest.raises(InputError, match="sentence 0: no label sequence"):
        tagger.predict(SENTS, fixed=bad, constrain="iob2")
    with pytest.raises(InputError, match="no label 'B-XX'"):
        tagger.predict(SENTS[:1], fixed=[["B-XX", None, None]])
    with pytest.raises(InputError, match="2 entries"):
        tagger.predict(SENTS[:1], fixed=[["B-NP", None]])


def test_constraints_refused_where_they_do_not_apply():
    m = chaintag.MaxEnt(features="w[0]", columns=("word", "pos")).fit(SENTS, LABELS)
    with pytest.raises(NotImplementedError):
        m.predict(SENTS, constrain=True)
    pos = chaintag.StructuredPerceptron(features="w[0]", epochs=1).fit([["a", "b"]], [["DT", "NN"]])
    with pytest.raises(ValueError, match="no chunk scheme"):
        pos.predict([["a", "b"]], constrain=True)


def _write_model(tagger, tmp_path):
    path = tmp_path / "m.npz"
    tagger.save(path)
    return str(path)


def test_cli_constrain_and_partial(tagger, tmp_path, capsys):
    from chaintag.cli.main import main

    model = _write_model(tagger, tmp_path)
    inp = tmp_path / "in.txt"
    inp.write_text("".join(" ".join(t) + "\n" for t in SENTS[0]) + "\n"
                   + "".join(" ".join(t) + "\n" for t in SENTS[4]))
    assert main(["tag", "-m", model, str(inp), "--constrain", "--quiet"]) == 0
    got = [line.split()[-1] for line in capsys.readouterr().out.splitlines() if line]
    assert got == [x for s in tagger.predict([SENTS[0], SENTS[4]], constrain=True) for x in s]
    part = tmp_path / "part.txt"
    part.write_text("the DT _\ndog NN B-VP\nbarks VBZ _\n")
    assert main(["tag", "-m", model, str(part), "--partial", "--marginals", "--quiet"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line]
    assert rows[1][:4] == ["dog", "NN", "B-VP", "B-VP"] and rows[1][4] == "1.0000"
    assert main(["tag", "-m", model, str(inp), "--partial", "--quiet"]) == 2
    assert "fixed labels go in a column after" in capsys.readouterr().err
    assert main(["tag", "-m", model, str(inp), "--constrain", "--scheme", "iobes", "--quiet"]) == 2
    assert "IOB2 scheme, not IOBES" in capsys.readouterr().err
    assert main(["tag", "-m", model, str(inp), "--scheme", "iob1", "--quiet"]) == 2
    assert "add --constrain" in capsys.readouterr().err


def test_cli_partial_errors_name_the_file_and_line(tagger, tmp_path, capsys):
    from chaintag.cli.main import main

    model = _write_model(tagger, tmp_path)
    part = tmp_path / "part.txt"
    part.write_text("the DT _\ndog NN B-VP\n\nthe DT _\ndog NN B-XX\nbarks VBZ _\n")
    for jobs in ("1", "2"):
        assert main(["tag", "-m", model, str(part), "--partial", "--jobs", jobs, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"{part}:5: --partial: the model has no label 'B-XX'" in err
    two = tmp_path / "two.txt"
    two.write_text("the DT\n\ndog NN\n")
    assert main(["tag", "-m", model, str(two), "--partial", "--quiet"]) == 2
    assert f"{two}:1: --partial: the input has 2 column(s)" in capsys.readouterr().err


def test_cli_constrain_checks_the_scheme_decoding_enforces(tmp_path, capsys):
    """``tag --constrain`` checked the label set's scheme and decoded in the recorded one: a model of
    PER-B labels was refused (no notation but B-X was read), and a model trained with --scheme iobes on
    IOB2 labels ended in a traceback. Both are now read as decoding reads them."""
    from chaintag.cli.main import main
    rows = ["John B-PER", "Smith I-PER", "went O", "to O", "Paris B-LOC", ". O"]
    suffix = tmp_path / "suffix.txt"
    suffix.write_text("\n".join(("\n".join(f"{r.split()[0]} {r.split()[1][2:]}-{r.split()[1][0]}"
                                           if r.split()[1] != "O" else r for r in rows) + "\n") for _ in range(5)),
                      encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(suffix), "--model", str(model), "--epochs", "3", "-q"]) == 0
    text = tmp_path / "t.txt"
    text.write_text("John Smith went to Paris .\n", encoding="utf-8")
    assert main(["tag", "-m", str(model), str(text), "--format", "pretokenized", "--constrain",
                 "--output-format", "conll"]) == 0
    out = capsys.readouterr().out.split()
    assert out[:4] == ["John", "PER-B", "Smith", "PER-I"]
    iob2 = tmp_path / "iob2.txt"
    iob2.write_text("\n".join(("\n".join(rows) + "\n") for _ in range(5)), encoding="utf-8")
    assert main(["train", "--train", str(iob2), "--model", str(model), "--epochs", "1", "--scheme", "iobes",
                 "-q"]) == 0
    assert main(["tag", "-m", str(model), str(iob2), "--constrain"]) == 2
    err = capsys.readouterr().err
    assert "--constrain: the labels follow the IOB2 scheme, not IOBES (the model's training labels were read " \
           "as IOBES)" in err and "Traceback" not in err


@pytest.mark.parametrize("typo", ["S-PER", "U-PER", "E-PER"])
def test_constrain_enforces_the_recorded_scheme_of_labels_with_a_typo(tmp_path, capsys, typo):
    """IOB2 training labels with one S-/U-/E- typo: the model records IOB2, and --constrain enforces IOB2
    with the typo read as a stray (it refused: the label set alone reads as IOBES / BILOU). A scheme whose
    prefixes the labels lack altogether is still refused."""
    from chaintag.cli.main import main
    from chaintag.decoding.constraints import scheme_masks
    rows = ["John B-PER", "Smith I-PER", "went O", "to O", "Paris B-LOC", ". O"]
    train = tmp_path / "train.txt"
    train.write_text("\n".join("\n".join(rows) + "\n" for _ in range(150)) + f"\nBob {typo}\nran O\n",
                     encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "-a", "perceptron", "--train", str(train), "--model", str(model), "--features", "w[0]",
                 "--epochs", "1", "-q"]) == 0
    text = tmp_path / "t.txt"
    text.write_text("John Smith went to Paris .\n", encoding="utf-8")
    assert main(["tag", "-m", str(model), str(text), "--format", "pretokenized", "--constrain",
                 "--output-format", "conll"]) == 0
    assert capsys.readouterr().out.split()[1::2] == ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]
    labels = ["B-PER", "I-PER", "B-LOC", "I-LOC", typo, "O"]
    assert scheme_masks(labels, "iob2")[0] == "iob2"  # 1 of 5 chunk labels: a typo
    with pytest.raises(ValueError, match="follow the IOB2 scheme, not IOBES"):
        scheme_masks(["B-PER", "I-PER", "O"], "iobes")
