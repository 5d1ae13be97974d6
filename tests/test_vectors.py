"""Word vectors as real-valued template attributes (vec(w[0])): values, scores, model files, refusals."""

import itertools
import os

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features.templates import parse_template
from toy_corpus import LABELS, SENTS

VECS = {"the": [1.0, 0.0, -0.5], "a": [0.9, 0.1, -0.4], "dog": [0.0, 1.0, 2.0], "cat": [0.1, 0.9, 1.5],
        "sleeps": [0.5, 0.5, -3.0], "barks": [-1.0, 0.25, 0.0], "cow": [0.05, 1.1, 1.8]}


def _vec_file(tmp_path, name="v.txt", header=True):
    lines = [f"{w} " + " ".join(repr(x) for x in v) for w, v in VECS.items()]
    text = (f"{len(VECS)} 3\n" if header else "") + "\n".join(lines) + "\n"
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def _factor(sigma):
    """Turian et al.'s scale, computed by hand: sigma over the standard deviation of all components."""
    return sigma / np.asarray(list(VECS.values())).std()


def _dense_emissions(model, sentences, vec_templates, factor):
    """E = X W by hand: X from the words and the vector table, W from the flat weights."""
    ex, index = model.extractor_, model.feature_index_
    n_attr, n_lab = ex.n_attributes, len(model.labels_)
    W = np.zeros((n_attr, n_lab))
    for a in range(n_attr):
        for f in range(index.feat_ptr[a], index.feat_ptr[a + 1]):
            W[a, index.feat_label[f]] = model.weights_[f]
    names = {ex.attribute_name(a): a for a in range(n_attr)}
    out = []
    for sent in sentences:
        X = np.zeros((len(sent), n_attr))
        for i, (word, pos) in enumerate(sent):
            for name in ("bias", f"word[0]={word}", f"pos[0]={pos}"):
                if name in names:
                    X[i, names[name]] = 1.0
            for tmpl, off in vec_templates:
                j = i + off
                if 0 <= j < len(sent) and sent[j][0] in VECS:
                    for k, v in enumerate(VECS[sent[j][0]]):
                        X[i, names[f"{tmpl}[{k}]"]] = factor * np.float64(np.float32(v))
        out.append(X @ W)
    return out


def _brute_force(E, trans, start, end):
    best, arg = -np.inf, None
    n, L = E.shape
    for seq in itertools.product(range(L), repeat=n):
        s = start[seq[0]] + end[seq[-1]] + sum(E[i, seq[i]] for i in range(n))
        s += sum(trans[seq[i - 1], seq[i]] for i in range(1, n))
        if s > best:
            best, arg = s, seq
    return list(arg)


@pytest.mark.parametrize("name", ["SAPO", "StructuredPerceptron"])
def test_vector_scores_equal_a_dense_reference(tmp_path, name):
    features = f"w[0];pos[0];vec(w[0]);vec(w[-1]);@clusters={_vec_file(tmp_path)}"
    model = getattr(chaintag, name)(features=features, epochs=4).fit(SENTS, LABELS)
    factor = _factor(0.1)
    assert model.extractor_.vec_factor == pytest.approx(factor, rel=1e-6)
    test = [[("the", "DT"), ("cow", "NN"), ("sleeps", "VBZ")],  # cow: a vector, never seen in training
            [("zebra", "NN"), ("dog", "NN"), ("barks", "VBZ"), ("here", "RB")]]  # zebra: no vector
    dense = _dense_emissions(model, test, [("vec(word[0])", 0), ("vec(word[-1])", -1)],
                             model.extractor_.vec_factor)
    from chaintag.decoding.scoring import emission_scores as emission_scores_valued
    from chaintag.decoding.scoring import feature_entries, weight_views
    attrs = model.extractor_.transform(test)
    ent_lo, ent_n = feature_entries(attrs.attr_ids, model.feature_index_.feat_ptr, len(model.labels_))
    L = len(model.labels_)
    trans, start, end = (np.asarray(v) for v in weight_views(model.weights_, model.feature_index_.n_features, L))
    pred = model.predict(test)
    for s, sent in enumerate(test):
        t0, t1 = attrs.sent_ptr[s], attrs.sent_ptr[s + 1]
        E = np.zeros((t1 - t0, L))
        emission_scores_valued(attrs.tok_ptr, ent_lo, ent_n, attrs.attr_values, t0, t1,
                               model.feature_index_.feat_label, model.weights_, E)
        np.testing.assert_allclose(E, dense[s], rtol=1e-12, atol=1e-12)
        gold = _brute_force(dense[s], trans, start, end)
        assert pred[s] == [model.labels_[k] for k in gold]
    # the vector attributes weigh: some vector weight is not zero
    vec_ids = [a for a in range(model.extractor_.n_attributes) if "vec(" in model.extractor_.attribute_name(a)]
    index = model.feature_index_
    assert len(vec_ids) == 6
    assert any(model.weights_[index.feat_ptr[a]:index.feat_ptr[a + 1]].any() for a in vec_ids)


def test_scale_setting_and_unknown_words(tmp_path):
    vec = _vec_file(tmp_path)
    for spec, sigma in (("", 0.1), (";@vecscale=0.5", 0.5), (";@vecscale=raw", None)):
        m = chaintag.SAPO(features=f"w[0];vec(w[0]);@clusters={vec}{spec}", epochs=1).fit(SENTS, LABELS)
        ex = m.extractor_
        assert ex.vec_scale == sigma
        assert ex.vec_factor == pytest.approx(1.0 if sigma is None else _factor(sigma), rel=1e-6)
        attrs = ex.transform([[("dog", "NN"), ("zebra", "NN")]])
        dog = attrs.attr_values[attrs.tok_ptr[0]:attrs.tok_ptr[1]]
        np.testing.assert_allclose(dog[-3:], ex.vec_factor * np.float32(VECS["dog"]).astype(np.float64), rtol=1e-15)
        # an unknown word gets no vector attribute (no "unknown" vector): only its indicator entries
        names = [ex.attribute_name(a) for a in attrs.attr_ids[attrs.tok_ptr[1]:attrs.tok_ptr[2]]]
        assert names == ["bias"]
    scaled = np.asarray(list(VECS.values())) * _factor(0.1)
    assert scaled.std() == pytest.approx(0.1)


def test_model_round_trip_keeps_the_vectors(tmp_path):
    vec = _vec_file(tmp_path)
    features = f"w[0];pos[0];vec(w[0]);vec(lower(w[1]));@clusters={vec};@vecscale=0.2"
    tagger = chaintag.SAPO(features=features, epochs=3).fit(SENTS, LABELS)
    test = [[("a", "DT"), ("cow", "NN"), ("sleeps", "VBZ")], [("the", "DT"), ("Dog", "NN")]]
    before = tagger.predict(test)
    model = tmp_path / "m.npz"
    tagger.save(model)
    os.remove(vec)  # tagging new words needs no vector file: the model keeps the vocabulary's vectors
    with np.load(model, allow_pickle=False) as z:
        assert z["res_vectors"].shape == (len(VECS), 3)
    back = chaintag.load(model)
    assert back.predict(test) == before
    a, b = tagger.extractor_.transform(test), back.extractor_.transform(test)
    np.testing.assert_array_equal(a.attr_ids, b.attr_ids)
    np.testing.assert_array_equal(a.attr_values, b.attr_values)
    assert back.extractor_.vec_factor == tagger.extractor_.vec_factor
    back.save(tmp_path / "m2.npz")
    assert (tmp_path / "m2.npz").read_bytes() == model.read_bytes()


def test_malformed_vector_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.vec"
    bad.write_text("the 1 0 0\ncat 0 1\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        chaintag.SAPO(features=f"w[0];vec(w[0]);@clusters={bad}", epochs=1).fit(SENTS, LABELS)
    assert info.value.path == str(bad) and info.value.line == 2


def test_refusals(tmp_path):
    vec = _vec_file(tmp_path)
    with pytest.raises(InputError, match="outermost"):
        parse_template("vec(w[0])|w[1]")
    with pytest.raises(InputError, match="outermost"):
        parse_template("lower(vec(w[0]))")
    with pytest.raises(InputError, match="vecscale"):
        chaintag.SAPO(features=f"w[0];vec(w[0]);@clusters={vec};@vecscale=big", epochs=1).fit(SENTS, LABELS)
    with pytest.raises(InputError, match="no cluster resource|resource"):
        chaintag.SAPO(features="w[0];vec(w[0])", epochs=1).fit(SENTS, LABELS)
    paths = tmp_path / "paths"
    paths.write_text("0010\tthe\n110\tdog\n", encoding="utf-8")
    with pytest.raises(InputError, match="word vectors"):
        chaintag.SAPO(features=f"w[0];vec(w[0]);@clusters={paths}", epochs=1).fit(SENTS, LABELS)
    with pytest.raises(InputError, match="hash"):
        chaintag.SAPO(features=f"w[0];vec(w[0]);@clusters={vec}", epochs=1, hash_bits=10).fit(SENTS, LABELS)
    from chaintag.learners import LEARNERS
    second = LEARNERS["perceptron2"]
    with pytest.raises(InputError, match="real-valued"):
        second(features=f"w[0];vec(w[0]);@clusters={vec}", epochs=1).fit(SENTS, LABELS)


def test_streamed_training_refuses_and_cli_trains_and_tags(tmp_path, capsys):
    vec = _vec_file(tmp_path)
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                 for s, ls in zip(SENTS, LABELS)) + "\n")
    from chaintag.streaming import fit_streamed
    with pytest.raises(InputError, match="streamed"):
        fit_streamed(chaintag.SAPO(features=f"w[0];vec(w[0]);@clusters={vec}", columns=("word", "pos")),
                     str(train), chunk_sentences=2)
    model = tmp_path / "m.npz"
    args = ["train", "--train", str(train), "--model", str(model), "--algorithm", "sapo", "--features",
            "w[0];pos[0];vec(w[0]);vec(w[1])", "--clusters", vec, "--epochs", "2", "--quiet"]
    assert main(args + ["--stream"]) == 2
    assert "vec(" in capsys.readouterr().err
    assert main(args) == 0
    os.remove(vec)
    test = tmp_path / "test.txt"
    test.write_text("the DT\ncow NN\nsleeps VBZ\n\nzebra NN\n")
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(test), "--output", str(out), "--quiet"]) == 0
    rows = [ln.split() for ln in out.read_text().splitlines() if ln.strip()]
    expect = chaintag.load(model).predict([[("the", "DT"), ("cow", "NN"), ("sleeps", "VBZ")], [("zebra", "NN")]])
    assert [r[-1] for r in rows] == [lab for s in expect for lab in s]


def test_principal_components_setting(tmp_path):
    vec = _vec_file(tmp_path)
    features = f"w[0];vec(w[0]);@clusters={vec};@vecdim=2"
    tagger = chaintag.SAPO(features=features, epochs=2).fit(SENTS, LABELS)
    ex = tagger.extractor_
    assert ex.vector_dim == 2 and sum("vec(" in ex.attribute_name(a) for a in range(ex.n_attributes)) == 2
    # reference: projections on the top two eigenvectors of the covariance (up to each column's sign)
    X = np.asarray(list(VECS.values()), dtype=np.float64)
    C = X - X.mean(axis=0)
    vals, vecs = np.linalg.eigh(C.T @ C)
    ref = C @ vecs[:, ::-1][:, :2]
    got = ex.resources.vectors.astype(np.float64)
    np.testing.assert_allclose(np.abs(got), np.abs(ref), rtol=1e-5, atol=1e-5)
    assert ex.vec_factor == pytest.approx(0.1 / ref.std(), rel=1e-5)
    test = [[("a", "DT"), ("cow", "NN"), ("sleeps", "VBZ")]]
    tagger.save(tmp_path / "m.npz")
    back = chaintag.load(tmp_path / "m.npz")
    assert back.predict(test) == tagger.predict(test)
    np.testing.assert_array_equal(back.extractor_.transform(test).attr_values, ex.transform(test).attr_values)
    with pytest.raises(InputError, match="vecdim"):
        chaintag.SAPO(features=f"w[0];vec(w[0]);@clusters={vec};@vecdim=0", epochs=1).fit(SENTS, LABELS)
