"""Handed cases 21, 27 and 28 (shared/cases/README.md): vector words with spaces, resource files with
a byte-order mark and CRLF, chunk labels written B_PER and PER-B.

The handed files are read from CHAINTAG_CASES, else ``<repo>/../shared/cases``; the tests are
skipped when that folder is absent. The same kinds are tested on the tests' own files in
tests/test_faults_bom.py and tests/test_faults_notation.py, which always run.
"""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.evaluation import evaluate
from chaintag.features.gazetteer import read_list
from chaintag.io.columns import read_sentences
from chaintag.learners.neural.vectors import read_vectors as read_neural_vectors
from chaintag.resources.files import read_resource, read_vectors, sniff_kind
from cases_dir import cases_dir


CASES = cases_dir()
pytestmark = pytest.mark.skipif(CASES is None, reason="handed cases folder not available")
BOM_DIR = "27_bom_resources"


# --- case 21: a GloVe-840B-style vectors file ----------------------------------------------------

def test_case21_vector_words_with_spaces_load_in_both_readers(caplog):
    path = str(CASES / "21_vectors_word_with_space.txt")
    with caplog.at_level(logging.INFO, logger="chaintag.io.vector_lines"):
        maps = read_vectors(path)
    assert "is name@domain.com" in maps.words and ". . ." in maps.words and maps.vectors.shape[1] == 3
    np.testing.assert_array_equal(maps.vectors[maps.words.index(". . .")], np.array([0.4, 0.0, 0.1], np.float32))
    assert "2 words with spaces" in caplog.text
    words, vectors = read_neural_vectors(path)
    assert words == maps.words and vectors.shape == maps.vectors.shape


def test_case21_cli_trains_with_the_vectors(tmp_path, capsys):
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(CASES / "21_train.txt"), "--model", str(model), "-a", "perceptron",
                 "--features", "w[0];pos[0];vec(w[0])", "--clusters", str(CASES / "21_vectors_word_with_space.txt"),
                 "--epochs", "2"]) == 0
    assert "2 words with spaces (e.g. 'is name@domain.com')" in capsys.readouterr().err
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(CASES / "21_train.txt"), "--output", str(out), "-q"]) == 0
    assert len([ln for ln in out.read_text(encoding="utf-8").splitlines() if ln.strip()]) == 7


def test_case21_neural_embeddings():
    pytest.importorskip("torch")
    sents = [[tok[:2] for tok in s.tokens] for s in read_sentences(CASES / "21_train.txt")]
    labels = [[tok[2] for tok in s.tokens] for s in read_sentences(CASES / "21_train.txt")]
    m = chaintag.make_learner("bilstm", epochs=1, embeddings=str(CASES / "21_vectors_word_with_space.txt"),
                              word_dim=3, char_dim=4, char_filters=4, hidden=8, feature_dim=4, batch_size=2,
                              columns=("word", "pos"), progress=False)
    m.fit(sents, labels)
    assert len(m.predict(sents)) == len(sents)


# --- case 27: resource files with a byte-order mark and CRLF -------------------------------------------

@pytest.mark.parametrize("name, kind", [("vec_bom.txt", "vectors"), ("vec_bom_noheader.txt", "vectors"),
                                        ("paths_bom.txt", "brown")])
def test_case27_resources_read_as_without_the_mark(name, kind):
    path = str(CASES / BOM_DIR / name)
    assert sniff_kind(path) == kind
    maps = read_resource(path)
    assert maps.words[0] == "He" and not any("\ufeff" in w or "\r" in w for w in maps.words)
    assert sorted(maps.words) == ["He", "She", "runs", "sings"]
    if kind == "vectors":
        assert read_neural_vectors(path)[0][0] == "He"


def test_case27_gazetteer_list():
    assert read_list(str(CASES / BOM_DIR / "gaz_bom.tsv")) == {(("IL-2",), "protein"): 1,
                                                               (("NF-kappa", "B"), "protein"): 1}


@pytest.mark.parametrize("name", ["vec_bom.txt", "vec_bom_noheader.txt", "paths_bom.txt"])
def test_case27_cli_trains_and_tags_with_each_resource(tmp_path, name):
    feats = "w[0];pos[0];vec(w[0])" if name.startswith("vec") else "w[0];pos[0];brown1(w[0])"
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(CASES / BOM_DIR / "train.txt"), "--model", str(model), "-a", "perceptron",
                 "--features", feats, "--clusters", str(CASES / BOM_DIR / name), "--epochs", "2", "-q"]) == 0
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(CASES / BOM_DIR / "train.txt"), "--output", str(out), "-q"]) == 0
    assert [ln.split()[0] for ln in out.read_text(encoding="utf-8").splitlines() if ln.strip()] == \
        ["He", "runs", "She", "sings"]


def test_case27_cli_trains_with_the_gazetteer(tmp_path):
    model = tmp_path / "m.npz"
    gaz = CASES / BOM_DIR / "gaz_bom.tsv"
    assert main(["train", "--train", str(CASES / BOM_DIR / "train_gaz.txt"), "--model", str(model), "-a", "sapo",
                 "--features", f"w[0];gaz[0];@gazetteer={gaz};@gazetteer=train;@gazfolds=2", "--epochs", "2",
                 "-q"]) == 0
    entries = chaintag.load(model).extractor_.gazetteer.entries
    assert ("IL-2",) in entries and ("NF-kappa", "B") in entries
    assert not any(tok.startswith("\ufeff") for entry in entries for tok in entry)


# --- case 28: labels written B_PER and PER-B ---------------------------------------------------------

@pytest.mark.parametrize("name, notation", [("28_underscore_labels_eval.txt", "B_X"),
                                            ("28_suffix_labels_eval.txt", "X-B")])
def test_case28_chunk_scores(name, notation, capsys):
    sents = read_sentences(CASES / name)
    gold = [[tok[1] for tok in s.tokens] for s in sents]
    pred = [[tok[2] for tok in s.tokens] for s in sents]
    r = evaluate(gold, pred)
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (3, 4, 1)
    assert (round(r.precision, 2), round(r.recall, 2), round(r.f1, 2), round(r.accuracy, 2)) == \
        (25.0, 33.33, 28.57, 71.43)
    assert r.label_format == notation
    assert main(["eval", str(CASES / name)]) == 0
    text = capsys.readouterr().out
    assert "accuracy:  71.43%; precision:  25.00%; recall:  33.33%; FB1:  28.57" in text
    assert {"B_X": "labels written prefix_type (B_PER)", "X-B": "labels written type-prefix (PER-B)"}[notation] in text
    assert main(["eval", str(CASES / name), "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["label_format"] == notation and round(fig["f1"], 2) == 28.57
