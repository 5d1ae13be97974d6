"""Tests for chaintag.io.conllu_io: CoNLL-U words and their POS labels."""

from __future__ import annotations

import io

import pytest

from chaintag.errors import InputError
from chaintag.io.conllu_io import iter_conllu, read_conllu


def row(*fields):
    return "\t".join(fields) + "\n"


SENTENCE = (
    "# sent_id = 1\n"
    "# text = I don't know.\n"
    + row("1", "I", "I", "PRON", "PRP", "_", "3", "nsubj", "_", "_")
    + row("2-3", "don't", "_", "_", "_", "_", "_", "_", "_", "_")
    + row("2", "do", "do", "AUX", "VBP", "_", "4", "aux", "_", "_")
    + row("3", "n't", "not", "PART", "RB", "_", "4", "advmod", "_", "_")
    + row("4", "know", "know", "VERB", "VB", "_", "0", "root", "_", "_")
    + row("4.1", "knew", "know", "VERB", "VBD", "_", "_", "_", "_", "_")
    + row("5", ".", ".", "PUNCT", ".", "_", "4", "punct", "_", "_")
    + "\n"
)
SECOND = (
    "# sent_id = 2\n"
    + row("1", "Größe", "Größe", "NOUN", "NN", "_", "0", "root", "_", "_")
    + row("2", "東京", "東京", "PROPN", "NNP", "_", "1", "flat", "_", "_")
    + "\n"
)


def test_ranges_empty_nodes_and_comments_skipped(tmp_path):
    path = tmp_path / "a.conllu"
    path.write_text(SENTENCE, encoding="utf-8")
    got = read_conllu(path)
    assert len(got) == 1
    assert got[0].tokens == [("I", "PRP"), ("do", "VBP"), ("n't", "RB"), ("know", "VB"),
                             (".", ".")]
    assert got[0].line == 3


def test_upos_labels():
    got = read_conllu(io.StringIO(SENTENCE), label_field="upos")
    assert got[0].tokens == [("I", "PRON"), ("do", "AUX"), ("n't", "PART"), ("know", "VERB"),
                             (".", "PUNCT")]


def test_forms_only():
    got = read_conllu(io.StringIO(SENTENCE), label_field=None)
    assert [t for (t,) in got[0].tokens] == ["I", "do", "n't", "know", "."]


def test_line_numbers_of_later_sentences_and_non_ascii(tmp_path):
    path = tmp_path / "données.conllu"
    path.write_text(SENTENCE + "\n\n" + SECOND, encoding="utf-8")
    got = read_conllu(path)
    assert [s.tokens for s in got][1] == [("Größe", "NN"), ("東京", "NNP")]
    assert [s.line for s in got] == [3, 14]


def test_crlf_bom_no_final_newline(tmp_path):
    text = "\ufeff" + (SENTENCE + SECOND).rstrip("\n")
    path = tmp_path / "w.conllu"
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    got = read_conllu(path)
    assert got[0].tokens[0] == ("I", "PRP")
    assert got[1].tokens == [("Größe", "NN"), ("東京", "NNP")]


def test_missing_label_names_line(tmp_path):
    text = SENTENCE + row("1", "x", "x", "X", "_", "_", "0", "root", "_", "_") + "\n"
    path = tmp_path / "m.conllu"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_conllu(path)
    assert err.value.path == str(path)
    assert err.value.line == 11
    assert "XPOS" in str(err.value)


def test_missing_upos_label():
    text = row("1", "x", "x", "_", "XX", "_", "0", "root", "_", "_")
    with pytest.raises(InputError) as err:
        read_conllu(io.StringIO(text), label_field="upos", name="u.conllu")
    assert str(err.value).startswith("u.conllu:1: ")
    assert "UPOS" in str(err.value)


def test_parse_error_names_file():
    text = SENTENCE + "# c\n" + row("x", "bad", "bad", "X", "XX", "_", "0", "root", "_", "_")
    with pytest.raises(InputError) as err:
        read_conllu(io.StringIO(text), name="p.conllu")
    assert err.value.path == "p.conllu"
    assert err.value.line == 11
    assert "CoNLL-U" in str(err.value)


def test_invalid_bytes_named_with_line():
    data = SENTENCE.encode() + b"1\tb\xe9\tb\tX\tXX\t_\t0\troot\t_\t_\n"
    with pytest.raises(InputError) as err:
        read_conllu(io.BytesIO(data))
    assert err.value.line == 11
    assert "UTF-8" in str(err.value)


def test_empty_inputs():
    assert read_conllu(io.StringIO("")) == []
    assert read_conllu(io.StringIO("\n\n  \n")) == []
    assert read_conllu(io.StringIO("# only a comment\n\n")) == []


def test_bad_label_field():
    with pytest.raises(ValueError):
        read_conllu(io.StringIO(SENTENCE), label_field="deprel")


def test_streams_lazily():
    def endless():
        i = 0
        while True:
            yield SENTENCE.replace("know", f"know{i}").encode()
            i += 1

    class Stream(io.RawIOBase):
        def __init__(self):
            self.parts = endless()
            self.buf = b""

        def readable(self):
            return True

        def readinto(self, b):
            while len(self.buf) < len(b):
                self.buf += next(self.parts)
            b[:] = self.buf[:len(b)]
            self.buf = self.buf[len(b):]
            return len(b)

    it = iter_conllu(Stream())
    assert next(it).tokens[3] == ("know0", "VB")
    assert next(it).tokens[3] == ("know1", "VB")
    it.close()


# --- writing back: iter_conllu_blocks / format_conllu_block ---

def test_blocks_write_back_unchanged_with_gold_labels():
    """Writing each word's own XPOS back reproduces the file exactly."""
    from chaintag.io.conllu_io import format_conllu_block, iter_conllu_blocks
    text = SENTENCE + SECOND
    blocks = list(iter_conllu_blocks(io.StringIO(text)))
    assert [len(b.sentence.tokens) for b in blocks] == [5, 2]
    gold = [[t[1] for t in s.tokens] for s in read_conllu(io.StringIO(text))]
    assert "".join(format_conllu_block(b, g, "xpos") for b, g in zip(blocks, gold)) == text


def test_labels_go_into_the_chosen_column_only():
    from chaintag.io.conllu_io import format_conllu_block, iter_conllu_blocks
    block = next(iter_conllu_blocks(io.StringIO(SENTENCE)))
    assert block.sentence.tokens == [("I",), ("do",), ("n't",), ("know",), (".",)]
    out = format_conllu_block(block, ["A", "B", "C", "D", "E"], "upos").splitlines()
    assert out[:2] == SENTENCE.splitlines()[:2]        # comments kept
    assert out[3] == SENTENCE.splitlines()[3]          # multiword range untouched
    assert out[7] == SENTENCE.splitlines()[7]          # empty node untouched
    words = [out[i].split("\t") for i in (2, 4, 5, 6, 8)]
    assert [w[3] for w in words] == ["A", "B", "C", "D", "E"]
    assert [w[4] for w in words] == ["PRP", "VBP", "RB", "VB", "."]  # XPOS kept
    assert out[-1] == "" and len(out) == len(SENTENCE.splitlines())
    with pytest.raises(ValueError, match="2 labels for 5 words"):
        format_conllu_block(block, ["A", "B"], "xpos")
    with pytest.raises(ValueError, match="field"):
        format_conllu_block(block, list("ABCDE"), "lemma")


def test_blocks_without_words_are_kept():
    from chaintag.io.conllu_io import format_conllu_block, iter_conllu_blocks
    only_range = "# only a range\n" + row("1-2", "xy", "_", "_", "_", "_", "_", "_", "_", "_") + "\n"
    blocks = list(iter_conllu_blocks(io.StringIO(only_range + SECOND)))
    assert [len(b.sentence.tokens) for b in blocks] == [0, 2]
    assert format_conllu_block(blocks[0], [], "xpos") == only_range


def test_blocks_crlf_and_double_space_columns():
    from chaintag.io.conllu_io import format_conllu_block, iter_conllu_blocks
    spaced = "1  a  a  X  Y  _  0  root  _  _\r\n\r\n"
    block = next(iter_conllu_blocks(io.BytesIO(spaced.encode())))
    assert format_conllu_block(block, ["Z"], "xpos") == "\t".join("1 a a X Z _ 0 root _ _".split()) + "\n\n"


@pytest.mark.parametrize("n_fields", [4, 8, 11])
def test_blocks_refuse_word_lines_without_ten_columns(n_fields):
    from chaintag.io.conllu_io import iter_conllu_blocks
    fields = ["1", "a", "a", "X", "Y", "_", "0", "root", "_", "_", "extra"]
    text = "# c\n" + row(*fields[:10]) + row("2", *fields[1:n_fields]) + "\n"
    with pytest.raises(InputError, match=rf"x.conllu:3: a CoNLL-U word line has 10 columns, this one has {n_fields}"):
        list(iter_conllu_blocks(io.StringIO(text), name="x.conllu"))
