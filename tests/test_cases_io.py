"""Reading-level behaviour on the handed cases (see shared/cases/README.md).

Each kind is tested twice: on a small file of that kind written by the test itself
(always runs), and on the handed file when the cases folder is available (found
through CHAINTAG_CASES or at ``<repo>/../shared/cases``; skipped otherwise).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chaintag.data.datasets import load_corpus
from chaintag.errors import InputError
from chaintag.io.columns import read_sentences, write_sentences
from chaintag.io.conllu_io import read_conllu
from cases_dir import cases_dir


CASES = cases_dir()

# Files of each kind, written by the tests (own content, same shape as the handed ones).
OWN = {
    "01_crlf.txt": b"Dogs NNS B-NP\r\nbark VBP B-VP\r\n! . O\r\n\r\nA DT B-NP\r\nbird NN I-NP\r\n",
    "02_no_final_newline.txt": b"Dogs NNS B-NP\nbark VBP B-VP\n! . O\n\nA DT B-NP\nbird NN I-NP",
    "03_docstart_and_blank_runs.txt": (b"-DOCSTART- -X- O\n\n\n\nDogs NNS B-NP\nbark VBP B-VP\n"
                                       b"\n\n-DOCSTART- -X- O\n\nBirds NNS B-NP\nsing VBP B-VP"
                                       b"\n\n\n\n"),
    "04_hash_tokens.txt": b"#1 NN B-NP\n# NN I-NP\nwins VBZ B-VP\n#tag NN B-NP\n. . O\n",
    "06_empty.txt": b"",
    "06_only_blank_lines.txt": b"\n \n\t\n\r\n\n",
    "08_separator_characters.txt": b"k=v NN B-NP\n: : O\na|b:c NN I-NP\n;= SYM O\n\n",
    "09_multiword_and_empty_nodes.conllu": (
        "# sent_id = a1\n# text = You can't go!\n"
        "1\tYou\tyou\tPRON\tPRP\t_\t4\tnsubj\t_\t_\n"
        "2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "2\tca\tcan\tAUX\tMD\t_\t4\taux\t_\t_\n"
        "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n"
        "3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t_\t_\n"
        "4\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_\n"
        "5\t!\t!\tPUNCT\t.\t_\t4\tpunct\t_\t_\n\n").encode(),
    "10_missing_column.txt": b"A DT B-NP\nbird NN\n. . O\n\n",
}


@pytest.fixture(params=["own", "handed"])
def case(request, tmp_path):
    """Return (variant, function name -> path of the file of that kind)."""
    def get(name: str) -> Path:
        if request.param == "handed":
            if CASES is None or not (CASES / name).is_file():
                pytest.skip("handed cases folder not available")
            return CASES / name
        path = tmp_path / name
        path.write_bytes(OWN[name])
        return path
    return request.param, get


def tokens(sentences):
    return [s.tokens for s in sentences]


def test_01_crlf(case, tmp_path):
    variant, get = case
    path = get("01_crlf.txt")
    got = read_sentences(path)
    assert [len(s.tokens) for s in got] == [3, 2]
    assert all("\r" not in v for s in got for t in s.tokens for v in t)
    if variant == "handed":
        assert tokens(got)[1] == [("The", "DT", "B-NP"), ("cat", "NN", "I-NP")]
    else:
        assert tokens(got)[1] == [("A", "DT", "B-NP"), ("bird", "NN", "I-NP")]
    out = tmp_path / "out.txt"
    write_sentences(got, out)
    assert out.read_bytes().count(b"\n") == 5 + 2  # one line per token, plus blank lines
    assert b"\r" not in out.read_bytes()


def test_02_no_final_newline(case):
    variant, get = case
    got = read_sentences(get("02_no_final_newline.txt"))
    assert [len(s.tokens) for s in got] == [3, 2]
    assert got[1].line == 5
    last = ("cat", "NN", "I-NP") if variant == "handed" else ("bird", "NN", "I-NP")
    assert got[1].tokens[-1] == last


def test_03_docstart_and_blank_runs(case):
    variant, get = case
    got = read_sentences(get("03_docstart_and_blank_runs.txt"))
    assert [len(s.tokens) for s in got] == [2, 2]
    assert all(not t[0].startswith("-DOCSTART-") for s in got for t in s.tokens)
    assert [s.line for s in got] == [5, 11]
    first_words = ["He", "It"] if variant == "handed" else ["Dogs", "Birds"]
    assert [s.tokens[0][0] for s in got] == first_words


def test_04_hash_tokens(case):
    variant, get = case
    got = read_sentences(get("04_hash_tokens.txt"))
    assert len(got) == 1 and len(got[0].tokens) == 5
    words = [t[0] for t in got[0].tokens]
    expected = ["#", "1", "is", "#hashtag", "."] if variant == "handed" else [
        "#1", "#", "wins", "#tag", "."]
    assert words == expected


@pytest.mark.parametrize("name", ["06_empty.txt", "06_only_blank_lines.txt"])
def test_06_nothing_to_learn_from(case, name):
    _, get = case
    path = get(name)
    assert read_sentences(path) == []
    corpus = load_corpus(path)
    assert (corpus.n_sentences, corpus.n_tokens) == (0, 0)


def test_08_separator_characters_read_as_rows(case, tmp_path):
    variant, get = case
    path = get("08_separator_characters.txt")
    got = read_sentences(path)
    expected = ([("ratio", "NN", "B-NP"), (":", ":", "O"), ("x=1|y", "NN", "B-NP"),
                 ("a:b", "NN", "I-NP")] if variant == "handed" else
                [("k=v", "NN", "B-NP"), (":", ":", "O"), ("a|b:c", "NN", "I-NP"),
                 (";=", "SYM", "O")])
    assert tokens(got) == [expected]
    pos = load_corpus(path, columns="word,label,_")
    assert pos.tokens == [[(row[0],) for row in expected]]
    assert pos.labels == [[row[1] for row in expected]]
    assert ":" in pos.labels[0]
    out = tmp_path / "out.txt"
    write_sentences(got, out)
    assert tokens(read_sentences(out)) == [expected]


def test_09_multiword_and_empty_nodes(case):
    variant, get = case
    got = read_conllu(get("09_multiword_and_empty_nodes.conllu"))
    assert len(got) == 1 and len(got[0].tokens) == 5
    words = [t[0] for t in got[0].tokens]
    if variant == "handed":
        assert words == ["I", "do", "n't", "know", "."]
        assert [t[1] for t in got[0].tokens] == ["PRP", "VBP", "RB", "VB", "."]
    else:
        assert words == ["You", "ca", "n't", "go", "!"]
        assert [t[1] for t in got[0].tokens] == ["PRP", "MD", "RB", "VB", "."]
    assert got[0].line == 3
    upos = read_conllu(get("09_multiword_and_empty_nodes.conllu"), label_field="upos")
    assert [t[1] for t in upos[0].tokens][:3] == ["PRON", "AUX", "PART"]


def test_10_missing_column(case):
    _, get = case
    path = get("10_missing_column.txt")
    with pytest.raises(InputError) as err:
        read_sentences(path)
    assert err.value.path == str(path)
    assert err.value.line == 2
    assert str(err.value).startswith(f"{path}:2: ")
    assert "expected 3 columns" in str(err.value)
    with pytest.raises(InputError) as err:
        load_corpus(path)
    assert err.value.line == 2


def test_10_extra_column_later_in_file(tmp_path):
    path = tmp_path / "extra.txt"
    path.write_bytes(b"A DT B-NP\nbird NN I-NP\n\nsings VBZ B-VP X\n")
    with pytest.raises(InputError) as err:
        read_sentences(path)
    assert err.value.line == 4 and "found 4" in str(err.value)
