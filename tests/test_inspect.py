"""Model introspection: top attributes per label, the transition table, ``chaintag inspect``."""

import json

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from toy_corpus import LABELS, SENTS

FEATURES = "w[0];pos[0];w[-1]|w[0]"


@pytest.fixture(scope="module")
def model():
    return chaintag.StructuredPerceptron(features=FEATURES, columns=("word", "pos"), epochs=3).fit(SENTS, LABELS)


def _all_features(m):
    """(label, attribute name, weight) of every feature, read naively from the CSR index."""
    out = []
    ptr = m.feature_index_.feat_ptr
    for a in range(len(ptr) - 1):
        for f in range(ptr[a], ptr[a + 1]):
            out.append((m.labels_[m.feature_index_.feat_label[f]], m.extractor_.attribute_name(a),
                        float(m.weights_[f]), a))
    return out


def test_top_features_match_a_naive_sort(model):
    feats = _all_features(model)
    assert any(w < 0 for *_, w, _ in feats) and any(w > 0 for *_, w, _ in feats)
    for lab in model.labels_:
        mine = [(a, w, i) for l2, a, w, i in feats if l2 == lab]
        pos = sorted([x for x in mine if x[1] > 0], key=lambda x: (-x[1], x[2]))[:2]
        neg = sorted([x for x in mine if x[1] < 0], key=lambda x: (x[1], x[2]))[:2]
        got = model.top_features(lab, 2)
        assert got["positive"] == [(a, w) for a, w, _ in pos]
        assert got["negative"] == [(a, w) for a, w, _ in neg]


def test_top_features_name_the_attributes(model):
    # "dog" after "the" is I-NP in every training sentence: its attribute pushes I-NP up
    names = [a for a, _ in model.top_features("I-NP", 50)["positive"]]
    assert "word[-1]|word[0]=the|dog" in names and "word[0]=dog" in names
    with pytest.raises(KeyError):
        model.top_features("B-XX")
    with pytest.raises(ValueError):
        model.top_features("B-NP", -1)


def test_transitions_table_is_the_weight_block(model):
    L = len(model.labels_)
    F = model.feature_index_.n_features
    table = model.transitions_
    assert table.labels == model.labels_
    np.testing.assert_array_equal(table.values, model.weights_[F:F + L * L].reshape(L, L))
    np.testing.assert_array_equal(table.start, model.weights_[F + L * L:F + L * L + L])
    np.testing.assert_array_equal(table.end, model.weights_[F + L * L + L:])
    i, j = model.labels_.index("B-NP"), model.labels_.index("I-NP")
    assert table["B-NP", "I-NP"] == model.weights_[F + i * L + j]
    assert table.to_dict()["B-NP"]["I-NP"] == table["B-NP", "I-NP"]
    assert table.to_dict()["<start>"]["B-NP"] == table.start[i]
    text = str(table)
    assert text.splitlines()[0].split()[1:] == model.labels_
    assert len(text.splitlines()) == L + 3


def test_summary_counts_and_round_trip(model, tmp_path):
    s = model.summary(3)
    n_tokens = sum(len(x) for x in SENTS)
    assert s["training"]["n_sentences"] == len(SENTS)
    assert s["training"]["n_tokens"] == n_tokens
    assert s["training"]["label_counts"]["I-NP"] == sum(ls.count("I-NP") for ls in LABELS)
    assert s["n_features"] == model.feature_index_.n_features
    assert s["nonzero_weights"] == int(np.count_nonzero(model.weights_))
    path = tmp_path / "m.npz"
    model.save(path)
    again = chaintag.load(path)
    loaded = again.summary(3)
    # the file it was loaded from is the one difference
    assert s["file_format"] is None and loaded.pop("file_format") == {"format_version": 2,
                                                                      "chaintag_version": chaintag.__version__}
    assert loaded == json.loads(json.dumps({k: v for k, v in s.items() if k != "file_format"}))


def test_inspect_cli_text_and_json(model, tmp_path, capsys):
    path = tmp_path / "m.npz"
    model.save(path)
    assert main(["inspect", str(path), "--top", "2"]) == 0
    text = capsys.readouterr().out
    assert "algorithm: perceptron (StructuredPerceptron)" in text
    assert f"training data: {len(SENTS)} sentences" in text
    assert f"\nlabel scheme: {model.training_summary_['label_scheme'].upper()}\n" in text
    top = model.top_features("B-NP", 2)["positive"][0]
    assert f"{top[0]} {top[1]:+.3f}" in text
    assert main(["inspect", str(path), "--json", "--labels", "B-NP,I-NP"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["top_features"]) == {"B-NP", "I-NP"}
    assert data["transitions"]["B-NP"]["I-NP"] == model.transitions_["B-NP", "I-NP"]
    assert main(["inspect", str(path), "--labels", "B-XX"]) == 2
    assert "no label B-XX" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["maxent", "perceptron2", "crf"])
def test_other_learners_inspect(name):
    m = chaintag.make_learner(name, features=FEATURES, columns=("word", "pos"))
    if hasattr(m, "epochs"):
        m.set_params(epochs=2)
    m.fit(SENTS, LABELS)
    s = m.summary(2)
    assert s["algorithm"] == m.algorithm and len(s["transitions"]) == len(m.labels_) + 2
