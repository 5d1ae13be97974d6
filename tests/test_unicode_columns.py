"""Columns are split on ASCII spaces and tabs only; other Unicode spaces and invisible
characters belong to tokens and are written back byte for byte; a line is a sentence break
only when it holds nothing but ASCII whitespace."""

from __future__ import annotations

import io

import pytest

from chaintag.cli.main import main
from chaintag.io.columns import is_blank, read_sentences, split_columns, write_sentences

# characters Python's str.split()/strip()/isspace() or splitlines() treat as spaces or line breaks
ODD = ["\u3000", "\u00a0", "\u2028", "\u2029", "\x85", "\x1c", "\x1d", "\x1e", "\u200b", "\u2009",
       "\u202f", "\ufeff", "\u180e"]


@pytest.mark.parametrize("ch", ODD, ids=[f"U+{ord(c):04X}" for c in ODD])
def test_odd_characters_are_part_of_tokens(ch):
    text = f"A DT O\n{ch} SP O\nx{ch}y NN B-NP\nz{ch} NN I-NP\n \t\n\nB DT O\n"
    sents = read_sentences(io.StringIO(text))
    assert [s.tokens for s in sents] == [
        [("A", "DT", "O"), (ch, "SP", "O"), (f"x{ch}y", "NN", "B-NP"), (f"z{ch}", "NN", "I-NP")],
        [("B", "DT", "O")]]


def test_a_line_of_a_unicode_space_is_a_token_not_a_break():
    sents = read_sentences(io.StringIO("\u5927\n\u3000\n\u884c\n"))
    assert [s.tokens for s in sents] == [[("\u5927",), ("\u3000",), ("\u884c",)]]
    # ASCII whitespace only: a break (form feed and vertical tab included)
    sents = read_sentences(io.StringIO("a\n \t\x0c\x0b\nb\n"))
    assert [s.tokens for s in sents] == [[("a",)], [("b",)]]
    assert is_blank(" \t\x0b\x0c") and not is_blank("\u3000") and not is_blank("\u00a0 ")


def test_split_columns_ascii_only():
    assert split_columns("  10\u00a0000\tNUM   B-MONEY \t") == ["10\u00a0000", "NUM", "B-MONEY"]
    assert split_columns("a\u3000b c") == ["a\u3000b", "c"]


def test_round_trip_byte_for_byte(tmp_path):
    data = "".join(f"w{ch}x P{i} O\n" for i, ch in enumerate(ODD)) + "\n" + "\u3000 SP O\n\n"
    raw = data.encode("utf-8")
    src = tmp_path / "in.txt"
    src.write_bytes(raw)
    out = tmp_path / "out.txt"
    write_sentences(read_sentences(src), out)
    assert out.read_bytes() == raw


def test_tag_keeps_such_tokens_byte_for_byte(tmp_path):
    train = tmp_path / "train.txt"
    train.write_bytes("Il PRO O\npay\u00e9\u00a0 VER O\n10\u00a0000 NUM B-MONEY\n\n\u3000 SP O\n\n".encode())
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--model", str(model), "--features", "w[0]", "--quiet"]) == 0
    one = tmp_path / "one.txt"
    one.write_bytes("\u5927\n\u3000\nx\u2028y\n\n".encode())
    # a one-column model for the one-column input
    model1 = tmp_path / "m1.npz"
    assert main(["train", "--train", str(train), "--columns", "word,_,label", "--model", str(model1),
                 "--features", "w[0]", "--quiet"]) == 0
    out = tmp_path / "o.txt"
    assert main(["tag", "-m", str(model1), str(one), "-o", str(out), "--quiet"]) == 0
    lines = out.read_bytes().split(b"\n")
    assert [ln.rsplit(b" ", 1)[0] for ln in lines if ln] == ["\u5927".encode(), "\u3000".encode(),
                                                            "x\u2028y".encode()]
    assert lines[1].endswith(b" O")  # learned: U+3000 is tagged O
    out2 = tmp_path / "o2.txt"
    assert main(["tag", "-m", str(model), str(train), "-o", str(out2), "--quiet"]) == 0
    src_lines = [ln for ln in train.read_bytes().split(b"\n") if ln]
    got = [ln for ln in out2.read_bytes().split(b"\n") if ln]
    assert [g.rsplit(b" ", 1)[0] for g in got] == src_lines
