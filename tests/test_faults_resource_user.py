"""Resources as users bring them: long lines of text, tab-separated vectors, gazetteer entries that are
numbers, gzip files, too little text; each was wrong, silent or a traceback before."""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest

from chaintag.cli.main import main
from cli_helpers import fails
from chaintag.errors import InputError
from chaintag.resources.files import read_vectors, sniff_kind

TRAIN = "".join(f"{w} {p} {c}\n" for w, p, c in [("He", "PRP", "B-NP"), ("runs", "VBZ", "B-VP"), (".", ".", "O")])
TRAIN = (TRAIN + "\n") * 5
VECTORS = "the 0.1 0.2 0.3\nruns 0.3 0.1 0.0\nhe -0.2 0.4 0.1\n"


@pytest.fixture()
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINTAG_CACHE", str(tmp_path / "cache"))
    from chaintag.features import spec as spec_module
    monkeypatch.setattr(spec_module, "_CACHE", {})
    train = tmp_path / "train.txt"
    train.write_text(TRAIN, encoding="utf-8")
    return train



def test_a_line_longer_than_word2vecs_sentence_limit_is_cut_so_every_word_is_trained():
    """gensim reads the first 10,000 tokens of a sentence: the words of a longer line's rest kept their
    random initial vectors (half the words of a text without line breaks), and were clustered."""
    pytest.importorskip("gensim")
    from gensim.models import Word2Vec
    from chaintag.resources.induce import MAX_SENTENCE_TOKENS, _stable_hash, induce, sentence_pieces
    rng = np.random.default_rng(0)
    early = [f"a{i}" for i in range(40)]
    late = [f"z{i}" for i in range(40)]  # seen only past the first 10,000 tokens
    line = list(rng.choice(early, MAX_SENTENCE_TOKENS)) + list(rng.choice(late, 6000))
    pieces, cut = sentence_pieces([line])
    assert cut == 1 and [len(p) for p in pieces] == [MAX_SENTENCE_TOKENS, 6000]
    lines = []
    maps, settings = induce([line], ks=(2,), dim=8, epochs=1, normalize=(), log=lines.append)
    assert any("cut into pieces" in m for m in lines) and settings["sentences"] == 1
    init = Word2Vec(vector_size=8, window=5, min_count=2, workers=1, seed=0, hashfxn=_stable_hash)
    init.build_vocab([line])
    untrained = [w for w in maps.words
                 if np.allclose(init.wv[w], maps.vectors[maps.words.index(w)], atol=1e-6)]
    assert untrained == []


def test_vector_files_with_tabs_read_as_with_spaces(tmp_path):
    """A tab between the word and its values glued the first value onto the word (``the\\t0.1``): no
    training word ever matched, silently."""
    plain = tmp_path / "plain.txt"
    plain.write_text(VECTORS, encoding="utf-8")
    want = read_vectors(plain)
    for name, text in (("one_tab.txt", VECTORS.replace(" ", "\t", 1).replace("\nruns ", "\nruns\t")),
                       ("all_tabs.txt", VECTORS.replace(" ", "\t")),
                       ("tab_header.txt", "3\t3\n" + VECTORS)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert sniff_kind(path) == "vectors", name
        got = read_vectors(path)
        assert got.words == want.words == ["the", "runs", "he"], name
        np.testing.assert_array_equal(got.vectors, want.vectors)


def test_a_line_that_starts_with_a_space_is_refused_naming_it(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text(VECTORS + " 0.1 0.2 0.3\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"v.txt:4: the line's word is empty \(it starts with a space\)"):
        read_vectors(path)
    path.write_text(VECTORS + "  0.1 0.2 0.3\n", encoding="utf-8")  # a word of one space, as before
    assert read_vectors(path).words[-1] == " "
    path.write_text(VECTORS + " cat 0.1 0.2 0.3\n", encoding="utf-8")  # refused before; not the word " cat"
    with pytest.raises(InputError, match=r"v.txt:4: the line starts with a space before its word"):
        read_vectors(path)


def test_a_value_beyond_float32_is_refused_without_a_numpy_warning(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text(VECTORS + "big 1e40 0 0\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match=r"v.txt:4: the vector of 'big' holds inf"):
            read_vectors(path)


@pytest.mark.parametrize("text", ["PROD\t747\nLOC\tRome\n", "LOC\tRome\nPROD\t747\n",
                                  "YEAR\t2020\nEVENT\tOlympics\n", "PROT\t5 lipoxygenase\n",
                                  "PER\tJohn Smith\nLOC\tNew York\t\nORG\tIBM\n", "PER\tJohn\nLOC\t\n"])
def test_a_gazetteer_list_is_one_whatever_its_first_entry(text, tmp_path):
    """``PROD<TAB>747`` first made the list word vectors, dropped with 'no template reads word vectors'."""
    path = tmp_path / "list.tsv"
    path.write_text(text, encoding="utf-8")
    assert sniff_kind(path) == "gazetteer"


@pytest.mark.parametrize("text", ["the\t17\nof\t3\n", "the\t0.1\nof\t0.3\n", "3 2\nthe 0.1 0.2\n"])
def test_word_and_number_lines_alone_are_no_gazetteer(text, tmp_path):
    path = tmp_path / "w.txt"
    path.write_text(text, encoding="utf-8")
    assert sniff_kind(path) == "vectors"


def test_the_cli_keeps_a_gazetteer_list_whose_first_entry_is_a_number(isolated, tmp_path, capsys):
    lst = tmp_path / "list.tsv"
    lst.write_text("PROD\t747\nLOC\tRome\n", encoding="utf-8")
    ner = tmp_path / "ner.txt"
    ner.write_text("The O\nBoeing B-PROD\n747 I-PROD\nflew O\nto O\nRome B-LOC\n. O\n\n" * 20, encoding="utf-8")
    assert main(["train", "-a", "perceptron", "--features", "ner;gaz[0]", "--resources", str(lst),
                 "--train", str(ner), "--epochs", "1", "--model", str(tmp_path / "n.npz")]) == 0
    err = capsys.readouterr().err
    assert "gazetteer list(s)" in err and "list.tsv" in err and "not used" not in err, err


def test_gzip_files_are_named_as_such(isolated, tmp_path, capsys):
    path = tmp_path / "v.txt.gz"
    path.write_bytes(gzip.compress(VECTORS.encode()))
    fails(capsys, ["train", "-a", "perceptron", "--features", "chunking+km", "--resources", str(path), "--train",
                    str(isolated), "--epochs", "1", "--model", str(tmp_path / "m.npz")],
           "v.txt.gz: this file is gzip-compressed", "gunzip")


def test_text_too_small_for_word2vec_names_the_source_and_min_count(isolated, tmp_path, capsys):
    """An empty text folder, or text with no word seen twice, ended in gensim's RuntimeError traceback."""
    pytest.importorskip("gensim")
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "a.txt").write_text("", encoding="utf-8")
    fails(capsys, ["train", "-a", "perceptron", "--features", "chunking+km", "--resources", str(folder),
                    "--train", str(isolated), "--epochs", "1", "--model", str(tmp_path / "m.npz")],
           f"{folder}: the text holds no word seen at least 2 times", "--min-count")
    uniq = tmp_path / "uniq.txt"
    uniq.write_text("a b c\nd e f\n", encoding="utf-8")
    fails(capsys, ["clusters", str(uniq), "--k", "2", "--out", str(tmp_path / "c.tsv")],
           "uniq.txt: the text holds no word seen at least 2 times (6 tokens, 6 distinct)")
    few = tmp_path / "few.txt"
    few.write_text("a b a b c\n", encoding="utf-8")
    fails(capsys, ["clusters", str(few), "--k", "4", "--out", str(tmp_path / "c.tsv")],
           "few.txt: 2 word vectors cannot make 4 clusters (--min-count 2 keeps 2 words)")


def test_more_principal_components_than_words_is_refused_naming_the_file(isolated, tmp_path, capsys):
    two = tmp_path / "two.txt"
    two.write_text("the 0.1 0.2 0.3 0.4\nruns 0.3 0.1 0.0 0.2\n", encoding="utf-8")
    fails(capsys, ["train", "-q", "-a", "perceptron", "--features", "chunking;vec(lower(w[0]));@vecdim=3",
                    "--resources", str(two), "--train", str(isolated), "--epochs", "1",
                    "--model", str(tmp_path / "m.npz")],
           "two.txt: @vecdim=3 asks for 3 principal components; the vectors of 2 word(s) give at most 1")


def test_too_few_vectors_for_k_means_name_the_file(isolated, tmp_path, capsys):
    path = tmp_path / "v.txt"
    path.write_text(VECTORS, encoding="utf-8")
    fails(capsys, ["train", "-a", "perceptron", "--features", "chunking+km", "--resources", str(path),
                    "--train", str(isolated), "--epochs", "1", "--model", str(tmp_path / "m.npz")],
           "v.txt: 3 word vectors cannot make 64 clusters")


def test_clusters_warns_when_its_text_is_a_column_file(isolated, tmp_path, capsys):
    """A labelled column file given as text trained word2vec on its tags and labels too, silently."""
    pytest.importorskip("gensim")
    words = tmp_path / "words.txt"
    words.write_text("He runs .\n" * 5, encoding="utf-8")
    for text, warned in ((isolated, True), (words, False)):
        assert main(["clusters", str(text), "--k", "2", "--out", str(tmp_path / "c.tsv")]) == 0
        err = capsys.readouterr().err
        assert ("looks like a column file" in err) == warned, err
