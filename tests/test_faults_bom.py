"""Files as editors write them: a byte-order mark (at the start of the file and, where files were
joined with cat, at the start of any line) and CRLF endings, in every reader; vector files whose
words hold spaces (GloVe 840B)."""

from __future__ import annotations

import io
import logging

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features.autotags import Text
from chaintag.features.gazetteer import read_list
from chaintag.features.templates import resolve_templates
from chaintag.io.columns import iter_lines, read_sentences
from chaintag.io.conllu_io import read_conllu
from chaintag.io.plain_text import iter_text_sentences
from chaintag.io.text_lines import clean_line, numbered_lines, strip_bom
from chaintag.io.vector_lines import split_vector_line
from chaintag.learners.neural.vectors import read_vectors as read_neural_vectors
from chaintag.resources.files import (read_brown_paths, read_cluster_table, read_resource, read_vectors,
                                      sniff_kind, write_cluster_table)
from chaintag.resources.wordmaps import WordMaps

BOM = "\ufeff"


def windows(text: str) -> bytes:
    """``text`` as a Windows editor saves it: UTF-8 with a byte-order mark, CRLF endings."""
    return (BOM + text.replace("\n", "\r\n")).encode("utf-8")


def joined(*texts: str) -> bytes:
    """Files saved by a Windows editor, then joined with cat."""
    return b"".join(windows(t) for t in texts)


def put(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_clean_line_and_strip_bom():
    assert clean_line(BOM + "He 0.3\r\n") == "He 0.3"
    assert clean_line(BOM + BOM + "x\n") == "x"
    assert clean_line("a" + BOM + "b\r") == "a" + BOM + "b"  # inside a line: a character of a token
    # past the first line, a U+FEFF standing alone as a value is a token; on the first line, a mark
    assert strip_bom(BOM + " SP O") == BOM + " SP O"
    assert strip_bom(BOM + " SP O", first=True) == " SP O"
    assert strip_bom(BOM + "He PRP") == "He PRP"
    assert clean_line("no mark") == "no mark"


def test_numbered_lines_names_file_and_line(tmp_path):
    path = put(tmp_path, "a.txt", joined("x 1\ny 2\n", "z 3\n"))
    assert list(numbered_lines(path)) == [(1, "x 1"), (2, "y 2"), (3, "z 3")]
    bad = put(tmp_path, "b.txt", b"ok\n\xff\n")
    with pytest.raises(InputError) as info:
        list(numbered_lines(bad))
    assert info.value.path == bad and info.value.line == 2
    with pytest.raises(InputError, match="cannot read the gazetteer list"):
        list(numbered_lines(str(tmp_path / "none.txt"), what="gazetteer list"))


CONLL_A = "Dogs NNS B-NP\nbark VBP B-VP\n\n"
CONLL_B = "Cats NNS B-NP\nsleep VBP B-VP\n"


def test_column_files_path_binary_and_text_streams(tmp_path):
    data = joined(CONLL_A, CONLL_B)
    expect = [[("Dogs", "NNS", "B-NP"), ("bark", "VBP", "B-VP")], [("Cats", "NNS", "B-NP"), ("sleep", "VBP", "B-VP")]]
    path = put(tmp_path, "c.txt", data)
    for source in (path, io.BytesIO(data), io.StringIO(data.decode("utf-8"))):
        assert [s.tokens for s in read_sentences(source)] == expect
    # tab-separated, the mark opening the line of the second file
    tabbed = joined("Dogs\tB-NP\n\n", "Cats\tB-NP\n")
    assert [s.tokens for s in read_sentences(io.BytesIO(tabbed))] == [[("Dogs", "B-NP")], [("Cats", "B-NP")]]
    assert list(iter_lines(io.BytesIO(joined("a\n", "b\n")))) == ["a", "b"]


def test_conllu_joined_files(tmp_path):
    one = "# sent_id = 1\n1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n\n"
    two = "# sent_id = 2\n1\tCats\tcat\tNOUN\tNNS\t_\t0\troot\t_\t_\n\n"
    sents = read_conllu(put(tmp_path, "j.conllu", joined(one, two)))
    assert [[t[0] for t in s.tokens] for s in sents] == [["Dogs", "bark"], ["Cats"]]
    assert [[t[-1] for t in s.tokens] for s in sents] == [["NNS", "VBP"], ["NNS"]]


def test_plain_text_joined_files(tmp_path):
    sents = list(iter_text_sentences(put(tmp_path, "p.txt", joined("Dogs bark .\n", "Cats sleep\n"))))
    assert [[t[0] for t in s.tokens] for s in sents] == [["Dogs", "bark", "."], ["Cats", "sleep"]]


def test_template_file_joined_files(tmp_path):
    path = put(tmp_path, "t.tpl", joined("w[0]\n# a comment\n", "pos[-1]|w[0]\n"))
    names = [str(t) for t in resolve_templates(path, ("word", "pos"))]
    assert names == ["bias", "word[0]", "pos[-1]|word[0]"]


VEC_HEAD = "2 3\nHe 0.3 0.1 0.0\nruns 0.0 0.5 0.1\n"
VEC_MORE = "She 0.3 0.2 0.0\nsings 0.1 0.5 0.1\n"


@pytest.mark.parametrize("reader", ["resources", "neural"])
def test_vectors_with_marks_header_or_not(tmp_path, reader):
    def words(path):
        return read_vectors(path).words if reader == "resources" else read_neural_vectors(path)[0]
    with_header = put(tmp_path, "h.vec", windows(VEC_HEAD))
    no_header = put(tmp_path, "n.vec", joined(VEC_HEAD.split("\n", 1)[1], VEC_MORE))
    assert words(with_header) == ["He", "runs"]
    assert words(no_header) == ["He", "runs", "She", "sings"]
    if reader == "resources":
        assert sniff_kind(with_header) == sniff_kind(no_header) == "vectors"
        np.testing.assert_array_equal(read_vectors(no_header).vectors[3], np.array([0.1, 0.5, 0.1], np.float32))
    else:
        np.testing.assert_array_equal(read_neural_vectors(no_header)[1][3], np.array([0.1, 0.5, 0.1], np.float32))


def test_brown_paths_and_cluster_table_with_marks(tmp_path):
    paths = put(tmp_path, "paths.txt", joined("0\tHe\t5\n0\tShe\t5\n", "1\truns\t4\n"))
    assert sniff_kind(paths) == "brown"
    maps = read_brown_paths(paths)
    assert maps.words == ["He", "She", "runs"]
    assert read_resource(paths).paths == ["0", "0", "1"]
    table = tmp_path / "table.tsv"
    write_cluster_table(table, WordMaps(["He", "runs"], ["01", "1"], {2: np.array([0, 1], np.int32)}))
    marked = put(tmp_path, "marked.tsv", windows(table.read_text(encoding="utf-8")))
    assert sniff_kind(marked) == "table"
    back = read_cluster_table(marked)
    assert back.words == ["He", "runs"] and back.paths == ["01", "1"]
    assert back.clusters[2].tolist() == [0, 1]


def test_gazetteer_and_unlabeled_text_with_marks(tmp_path):
    gaz = put(tmp_path, "g.tsv", joined("protein\tIL-2\n", "protein\tNF-kappa B\n"))
    assert read_list(gaz) == {(("IL-2",), "protein"): 1, (("NF-kappa", "B"), "protein"): 1}
    text = Text([put(tmp_path, "u.txt", joined("He runs .\n", "She sings\n"))])
    assert text.sentences == [["He", "runs", "."], ["She", "sings"]]
    assert len(text.vocab) == 5 and text.n_tokens == 5


def test_vector_words_with_spaces(tmp_path, caplog):
    assert split_vector_line("at name@domain.com 0.2 0.2 0.2", 3) == ("at name@domain.com", ["0.2"] * 3, True)
    assert split_vector_line("He 0.3 0.1", None) == ("He", ["0.3", "0.1"], False)
    # extra fields that are all numbers: a line with too many values, not a word
    assert split_vector_line("cat 0 1 2", 2) == ("cat", ["0", "1", "2"], False)
    body = "the 0.1 0.2 0.3\nat name@domain.com 0.2 0.2 0.2\n. . . 0.4 0.0 0.1\ndog 0.3 0.2 0.1\n"
    path = put(tmp_path, "glove.txt", body.encode())
    with caplog.at_level(logging.INFO, logger="chaintag.io.vector_lines"):
        maps = read_vectors(path)
    assert maps.words == ["the", "at name@domain.com", ". . .", "dog"]
    np.testing.assert_array_equal(maps.vectors[2], np.array([0.4, 0.0, 0.1], np.float32))
    assert "2 words with spaces" in caplog.text
    assert read_neural_vectors(path)[0] == maps.words
    # the header gives the dimension, even when the first word holds a space
    headed = put(tmp_path, "headed.vec", ("2 2\nnew york 0.5 0.5\nthe 0.1 0.2\n").encode())
    assert read_vectors(headed).words == ["new york", "the"]
    assert read_neural_vectors(headed)[0] == ["new york", "the"]
    # too many values is still an error naming file and line
    bad = put(tmp_path, "bad.vec", b"the 1 0\ncat 0 1 2\n")
    with pytest.raises(InputError) as info:
        read_vectors(bad)
    assert info.value.path == bad and info.value.line == 2 and "3 values where the vectors have 2" in info.value.message


def test_cli_trains_and_tags_with_marked_files(tmp_path):
    train = put(tmp_path, "train.txt", joined("He PRP B-NP\nruns VBZ B-VP\n\n", "She PRP B-NP\nsings VBZ B-VP\n"))
    vec = put(tmp_path, "v.txt", joined("He 0.3 0.1 0.0\nruns 0.0 0.5 0.1\n", "She 0.3 0.2 0.0\nsings 0.1 0.5 0.1\n"))
    tpl = put(tmp_path, "t.tpl", joined("w[0]\npos[0]\n", "vec(w[0])\n"))
    model = tmp_path / "m.npz"
    assert main(["train", "--train", train, "--model", str(model), "--algorithm", "perceptron", "--features", tpl,
                 "--clusters", vec, "--epochs", "2", "--quiet"]) == 0
    m = chaintag.load(model)
    test = put(tmp_path, "test.txt", joined("He PRP\n", "sings VBZ\n"))
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), test, "--output", str(out), "--quiet"]) == 0
    rows = [ln.split() for ln in out.read_text(encoding="utf-8").splitlines() if ln.strip()]
    assert [r[0] for r in rows] == ["He", "sings"]
    assert [r[-1] for r in rows] == [lab for s in m.predict([[("He", "PRP"), ("sings", "VBZ")]]) for lab in s]
