"""The library's tagging functions: ``chaintag.tag_file`` and ``chaintag.tag_stream`` give the CLI's bytes."""

from __future__ import annotations

import io

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.io.columns import iter_sentences

from toy_corpus import LABELS, SENTS

TEXT = "-DOCSTART- -X- O\n\nthe DT\ndog NN\nbarks VBZ\n\na DT\ncat NN\n\n"


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "toy.npz"
    chaintag.StructuredPerceptron(features="chunking", epochs=3).fit(SENTS, LABELS).save(path)
    return path


def test_tag_file_writes_what_the_command_writes(tmp_path, model_file):
    src = tmp_path / "in.txt"
    src.write_text(TEXT, encoding="utf-8")
    cli_out, api_out = tmp_path / "cli.txt", tmp_path / "api.txt"
    assert main(["tag", "--model", str(model_file), str(src), "-o", str(cli_out), "-q"]) == 0
    n = chaintag.tag_file(model_file, src, api_out)
    assert n == 2  # the document marker is not a sentence
    assert api_out.read_bytes() == cli_out.read_bytes()
    lines = api_out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "-DOCSTART- -X- O" and lines[2].startswith("the DT ")


def test_tag_stream_takes_sentences_and_an_open_file(model_file):
    model = chaintag.load(model_file)
    out = io.StringIO()
    n = chaintag.tag_stream(model, iter_sentences(io.BytesIO(TEXT.encode()), markers=True), out)
    assert n == 2
    got = out.getvalue().split("\n\n")
    assert got[0] == "-DOCSTART- -X- O"
    words = [line.split()[0] for line in got[1].splitlines()]
    assert words == ["the", "dog", "barks"]
    expected = model.predict([[("the", "DT"), ("dog", "NN"), ("barks", "VBZ")]])[0]
    assert [line.split()[-1] for line in got[1].splitlines()] == expected


def test_tag_file_nbest_equals_predict_nbest(tmp_path, model_file):
    src = tmp_path / "in.txt"
    src.write_text("the DT\ndog NN\nbarks VBZ\n\n", encoding="utf-8")
    out = tmp_path / "nbest.jsonl"
    chaintag.tag_file(model_file, src, out, nbest=3)
    import json
    rec = json.loads(out.read_text(encoding="utf-8"))
    model = chaintag.load(model_file)
    want = model.predict_nbest([[("the", "DT"), ("dog", "NN"), ("barks", "VBZ")]], 3)[0]
    assert [c["labels"] for c in rec["nbest"]] == [labs for labs, _, _ in want]


def test_tag_file_refuses_bad_options(tmp_path, model_file):
    src = tmp_path / "in.txt"
    src.write_text("the DT\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="not several"):
        chaintag.tag_file(model_file, src, tmp_path / "o.txt", nbest=2, confidence=2)
    with pytest.raises(InputError, match="between 1 and"):
        chaintag.tag_file(model_file, src, tmp_path / "o.txt", nbest=0)
    with pytest.raises(InputError, match="model_path"):
        chaintag.tag_file(chaintag.load(model_file), src, tmp_path / "o.txt", jobs=2)
    assert not (tmp_path / "o.txt").exists()


def test_tag_stream_takes_plain_sentences(model_file):
    model = chaintag.load(model_file)
    sents = [[("the", "DT"), ("dog", "NN"), ("barks", "VBZ")], [("a", "DT"), ("cat", "NN")]]
    out = io.StringIO()
    assert chaintag.tag_stream(model, sents, out) == 2
    blocks = out.getvalue().strip("\n").split("\n\n")
    assert [[ln.split()[-1] for ln in b.splitlines()] for b in blocks] == model.predict(sents)
    with pytest.raises(InputError, match="sentence 0: give a list of tokens"):
        chaintag.tag_stream(model, [42], io.StringIO())


def test_tag_takes_the_scheme_names_that_eval_takes(tmp_path, model_file):
    src = tmp_path / "in.txt"
    src.write_text(TEXT, encoding="utf-8")
    outs = []
    for name in ("iob2", "bio", "IOB"):
        out = tmp_path / f"{name}.txt"
        assert main(["tag", "--model", str(model_file), str(src), "-o", str(out), "-q", "--constrain",
                     "--scheme", name]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == outs[2]
