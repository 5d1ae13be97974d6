"""Text in other scripts and encodings: decomposed accents read as their composed letters, word shapes of
scripts without case, UTF-16 and UTF-32 files named as such."""

from __future__ import annotations

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.features.templates import FUNCTIONS

TRAIN = [["Ana", "vive", "en", "Málaga"], ["Jürgen", "vive", "en", "Köln"], ["Ana", "ama", "Málaga"]]
LABELS = [["B-PER", "O", "O", "B-LOC"], ["B-PER", "O", "O", "B-LOC"], ["B-PER", "O", "B-LOC"]]


def test_decomposed_accents_get_the_attributes_of_composed_letters():
    m = chaintag.StructuredPerceptron(features="w[0];suf3(w[0]);shape(w[0])", epochs=5, progress=False).fit(
        TRAIN, LABELS)
    nfd = [[w.replace("á", "a\u0301").replace("ö", "o\u0308").replace("ü", "u\u0308") for w in s] for s in TRAIN]
    assert nfd != TRAIN
    a, b = m.extractor_.transform(m._rows(TRAIN)), m.extractor_.transform(m._rows(nfd))
    assert (a.attr_ids == b.attr_ids).all() and (a.tok_ptr == b.tok_ptr).all()  # the same attributes, all found
    assert m.predict(nfd) == m.predict(TRAIN)
    # training on decomposed text gives the model of the composed text, weights and all
    d = chaintag.StructuredPerceptron(features="w[0];suf3(w[0]);shape(w[0])", epochs=5, progress=False).fit(
        nfd, LABELS)
    assert (d.weights_ == m.weights_).all()


def test_a_model_whose_vocabulary_is_decomposed_finds_composed_words(tmp_path):
    from chaintag.features.extract import _Derived
    d = _Derived("word", (), values=["Ma\u0301laga", "Köln"])
    assert d.map(["Málaga", "Ma\u0301laga", "Köln"], grow=False).tolist() == [d.index["Ma\u0301laga"]] * 2 + [
        d.index["Köln"]]


@pytest.mark.parametrize("word, shape, short", [
    ("北京", "aa", "a"), ("مرحبا", "aaaa", "a"), ("नमस्ते", "aaamam", "amam"), ("Tokyo東京", "Xxxxxaa", "Xxa"),
    ("Straße", "Xxxxx", "Xx"), ("3,50€", "d,dd€", "d,d€"), ("😀", "😀", "😀")])
def test_letters_without_case_have_a_shape_of_their_own(word, shape, short):
    assert FUNCTIONS["shape"](word) == shape and FUNCTIONS["shortshape"](word) == short


@pytest.mark.parametrize("encoding, bom", [("utf-16", "UTF-16"), ("utf-32", "UTF-32"), ("utf-16-le", None)])
def test_utf16_and_utf32_files_are_named_with_how_to_convert_them(tmp_path, capsys, encoding, bom):
    path = tmp_path / "t.txt"
    path.write_bytes("Ana B-PER\nvive O\n\n".encode(encoding))
    m = tmp_path / "m.npz"
    chaintag.StructuredPerceptron(features="w[0]", epochs=1, progress=False).fit(TRAIN, LABELS).save(m)
    for args in (["tag", "--model", str(m), str(path)], ["eval", str(path)],
                 ["tag", "--model", str(m), "--format", "raw", str(path)]):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert f"{path}:1: this file holds " in err and "iconv -f UTF-" in err
        assert (f"{bom} text (it starts with a {bom} byte-order mark)" if bom else "NUL bytes") in err
    assert main(["tag", "--model", str(m), "--encoding", "utf-16", str(path)]) == 2
    assert "iconv -f utf-16 -t UTF-8" in capsys.readouterr().err


def test_gazetteer_entries_match_tokens_in_either_unicode_form():
    from chaintag.features.gazetteer import Gazetteer
    g = Gazetteer({("Málaga",): "LOC", ("Ko\u0308ln", "Bonn"): "LOC"})  # one entry composed, one decomposed
    rows = [[("Ma\u0301laga",), ("y",), ("Málaga",), ("Köln",), ("Bonn",)]]
    assert g.column("gaz", rows) == ["S-LOC", None, "S-LOC", "B-LOC", "E-LOC"]


def test_a_model_saved_with_copied_shapes_keeps_them(tmp_path, monkeypatch):
    # models saved before letters without case had a shape class copied such letters: loaded, they keep doing so
    from chaintag.features.templates import COPIED_SHAPES
    sents, labels = [["上海", "很", "大"], ["北京", "很", "大"]], [["B-LOC", "O", "O"], ["B-LOC", "O", "O"]]
    monkeypatch.setitem(FUNCTIONS, "shape", COPIED_SHAPES["shape"])
    old = chaintag.StructuredPerceptron(features="shape(w[0]);w[-1]", epochs=2, progress=False).fit(sents, labels)
    old_attrs = old.extractor_.transform(old._rows(sents))
    assert "上海" in old.extractor_._derived[0].values  # the old shape of a word without case: the word
    old.save(tmp_path / "old.npz")
    monkeypatch.undo()
    loaded = chaintag.load(tmp_path / "old.npz")
    attrs = loaded.extractor_.transform(loaded._rows(sents))
    assert (attrs.attr_ids == old_attrs.attr_ids).all() and (attrs.tok_ptr == old_attrs.tok_ptr).all()
    new = chaintag.StructuredPerceptron(features="shape(w[0]);w[-1]", epochs=2, progress=False).fit(sents, labels)
    assert new.extractor_._derived[0].values == ["aa", "a"]
    assert chaintag.load(_saved(new, tmp_path)).extractor_._derived[0].table is None  # the module's functions


def _saved(model, tmp_path):
    path = tmp_path / "new.npz"
    model.save(path)
    return path
