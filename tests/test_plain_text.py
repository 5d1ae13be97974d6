"""Plain text for ``chaintag tag``: one sentence per line, tokens separated by spaces; input
that does not look like what the model reads is refused with what it must look like."""

from __future__ import annotations

import io
import json
import sys

import pytest

from chaintag.cli.main import main
from chaintag.io.plain_text import iter_text_sentences


@pytest.fixture
def models(tmp_path):
    train = tmp_path / "train.txt"
    train.write_text("The DT\ncat NN\nsat VBD\n.\t.\n\nA DT\ndog NN\nbarked VBD\n. .\n\n", encoding="utf-8")
    one = tmp_path / "one.npz"
    assert main(["train", "--train", str(train), "--model", str(one), "-f", "w[0]", "--quiet", "--no-average"]) == 0
    two_src = tmp_path / "two.txt"
    two_src.write_text("The DT B-NP\ncat NN I-NP\n\n", encoding="utf-8")
    two = tmp_path / "two.npz"
    assert main(["train", "--train", str(two_src), "--model", str(two), "-f", "w[0];pos[0]", "--quiet"]) == 0
    return one, two


def test_reader_keeps_one_sentence_per_line_and_unicode_spaces():
    sents = list(iter_text_sentences(io.StringIO("a b\u00a0c\t d\n \t\n\u3000 e\n")))
    assert [s.tokens for s in sents] == [[("a",), ("b\u00a0c",), ("d",)], [], [("\u3000",), ("e",)]]
    assert [s.line for s in sents] == [1, 2, 3]


def test_tag_text_to_text_and_columns(tmp_path, models, capsys):
    one, _ = models
    src = tmp_path / "in.txt"
    src.write_text("The dog sat .\n\nA cat barked .\n", encoding="utf-8")
    assert main(["tag", "-m", str(one), str(src), "--format", "text", "--quiet"]) == 0
    assert capsys.readouterr().out == "The/DT dog/NN sat/VBD ./.\n\nA/DT cat/NN barked/VBD ./.\n"
    assert main(["tag", "-m", str(one), str(src), "--format", "text", "--output-format", "columns",
                 "--quiet"]) == 0
    assert capsys.readouterr().out == "The DT\ndog NN\nsat VBD\n. .\n\nA DT\ncat NN\nbarked VBD\n. .\n\n"
    assert main(["tag", "-m", str(one), str(src), "--format", "text", "--nbest", "1", "--quiet"]) == 0
    lines = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert [c["nbest"][0]["labels"] for c in lines] == [["DT", "NN", "VBD", "."]] * 2
    # columns in, one tagged sentence per line out
    cols = tmp_path / "cols.txt"
    cols.write_text("The\ndog\n\nA\ncat\n", encoding="utf-8")
    assert main(["tag", "-m", str(one), str(cols), "--output-format", "text", "--quiet"]) == 0
    assert capsys.readouterr().out == "The/DT dog/NN\nA/DT cat/NN\n"


def test_text_on_stdin(monkeypatch, models, capsys):
    one, _ = models
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"A cat sat .\n"), encoding="utf-8"))
    assert main(["tag", "-m", str(one), "--format", "text", "--quiet"]) == 0
    assert capsys.readouterr().out == "A/DT cat/NN sat/VBD ./.\n"


def test_input_unlike_the_model_says_what_it_must_look_like(tmp_path, models, capsys):
    one, two = models
    src = tmp_path / "in.txt"
    src.write_text("The dog sat on the mat .\nA cat barked .\n", encoding="utf-8")
    out = tmp_path / "o.txt"
    # several words per line, read as columns: refused, nothing written
    assert main(["tag", "-m", str(one), str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "in.txt:2" in err and "one token per line" in err and "--format raw" in err
    assert not out.exists()
    # plain text for a model that reads two columns
    assert main(["tag", "-m", str(two), str(src), "--format", "text"]) == 2
    err = capsys.readouterr().err
    assert "reads 2 (word, pos)" in err and "one token per line" in err and "--format raw" not in err
    # one column for a two-column model
    single = tmp_path / "single.txt"
    single.write_text("The\ncat\n", encoding="utf-8")
    assert main(["tag", "-m", str(two), str(single)]) == 2
    assert "word, pos columns first" in capsys.readouterr().err
    # text lines of equal length, or a single line, are refused as columns: the model's labels tell
    even = tmp_path / "even.txt"
    even.write_text("The cat sat on\nA dog barked at\nMy own old car\nHer nice red hat\n", encoding="utf-8")
    for text in ("The cat sat on\nA dog barked at\nMy own old car\nHer nice red hat\n", "The cat sat .\n",
                 "I like it.\nYou do too.\n"):
        even.write_text(text, encoding="utf-8")
        assert main(["tag", "-m", str(one), str(even), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert "even.txt:1" in err and "free text" in err and "--format raw" in err
        assert not out.exists()
    # a column file whose extra columns hold tags, or the gold labels, is tagged as before
    tagged = tmp_path / "tagged.txt"
    tagged.write_text("The DT B-NP\ncat NN I-NP\nsat VBD B-VP\n", encoding="utf-8")
    assert main(["tag", "-m", str(one), str(tagged), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[0].startswith("The DT B-NP ")
    # options that add a column need column output
    assert main(["tag", "-m", str(one), str(src), "--format", "text", "--confidence", "2"]) == 2
    assert "--output-format columns" in capsys.readouterr().err
