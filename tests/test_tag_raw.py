"""Raw text in, spans out: ``model.tag_text``, ``chaintag.tag_text`` and ``chaintag tag --format raw``."""

from __future__ import annotations

import io
import json
import sys

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.evaluation.chunks import label_spans

TRAIN = [
    (["John", "Smith", "lives", "in", "Paris", "."], ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]),
    (["Mary", "went", "to", "New", "York", "."], ["B-PER", "O", "O", "B-LOC", "I-LOC", "O"]),
    (["He", "likes", "Paris", "."], ["O", "O", "B-LOC", "O"]),
    (["Anna", "Smith", "is", "here", "."], ["B-PER", "I-PER", "O", "O", "O"]),
]


@pytest.fixture(scope="module")
def ner(tmp_path_factory):
    model = chaintag.make_learner("crf", features=["w[0]", "w[-1]", "w[1]", "shape(w[0])"], epochs=20)
    model.fit([s for s, _ in TRAIN], [y for _, y in TRAIN])
    path = tmp_path_factory.mktemp("ner") / "ner.npz"
    model.save(path)
    return model, path


TEXT = "John Smith went to New York. Mary likes Paris!\n\nAnna Smith (PER) lives in Paris."


def test_tag_text_tokens_spans_offsets_confidence(ner):
    model, path = ner
    doc = model.tag_text(TEXT)
    assert all(TEXT[t.start:t.end] == t.text for t in doc.tokens)
    assert [t.text for t in doc.tokens][:7] == ["John", "Smith", "went", "to", "New", "York", "."]
    labels = [[t.label for t in doc.tokens[a:b]] for a, b in doc.sentences]
    counted = label_spans(labels, "iob2")
    got = [(s.label, s.first, s.last) for s in doc.spans]
    want = [(x, a0 + a, a0 + b) for (a0, _), cs in zip(doc.sentences, counted) for x, a, b in cs]
    assert got == want and got
    for s in doc.spans:
        assert TEXT[s.start:s.end] == s.text
        assert 0.0 <= s.confidence <= 1.0
    assert ("PER", "John Smith") in {(s.label, s.text) for s in doc.spans}
    # the same from the library function, the model given by its file
    again = chaintag.tag_text(path, TEXT)
    assert again.to_dict() == doc.to_dict()
    json.dumps(doc.to_dict())


def test_pretokenized_keeps_offsets(ner):
    model, _ = ner
    text = "John  Smith went\tto Paris .\nMary likes Paris ."
    doc = model.tag_text(text, tokenized=True)
    assert len(doc.sentences) == 2
    assert all(text[t.start:t.end] == t.text for t in doc.tokens)
    assert [t.text for t in doc.tokens[:4]] == ["John", "Smith", "went", "to"]


def test_model_reading_two_columns_refuses_raw_text():
    model = chaintag.make_learner("perceptron", features=["w[0]", "pos[0]"], epochs=1)
    model.fit([[("a", "DT"), ("dog", "NN")]], [["B-NP", "I-NP"]])
    with pytest.raises(chaintag.InputError, match="reads 2"):
        model.tag_text("a dog")


def _stdin(monkeypatch, text):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8"))


def test_cli_raw_spans_conll_and_refusals(ner, tmp_path, monkeypatch, capsys):
    model, path = ner
    _stdin(monkeypatch, TEXT)
    assert main(["tag", "--model", str(path), "--format", "raw", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2  # two documents: the blank line separates them
    records = [json.loads(ln) for ln in lines]
    assert records[0]["text"] == TEXT.split("\n\n")[0]
    for rec in records:
        assert set(rec) >= {"text", "tokens", "spans"}
        for t in rec["tokens"]:
            assert rec["text"][t["start"]:t["end"]] == t["text"] and t["label"]
        for s in rec["spans"]:
            assert rec["text"][s["start"]:s["end"]] == s["text"] and 0 <= s["confidence"] <= 1
    # the same document as tag_text's, and the input line where it starts
    assert records[0] == {**model.tag_text(records[0]["text"]).to_dict(), "line": 1}
    assert records[1]["line"] == len(TEXT.split("\n\n")[0].splitlines()) + 2
    # conll output to a file
    src = tmp_path / "in.txt"
    src.write_text("John Smith went to Paris.\n", encoding="utf-8")
    out = tmp_path / "out.conll"
    assert main(["tag", "-m", str(path), str(src), "--format", "raw", "--output-format", "conll", "-o", str(out),
                 "--quiet"]) == 0
    rows = out.read_text(encoding="utf-8").splitlines()
    assert [r.split("\t")[0] for r in rows if r] == ["John", "Smith", "went", "to", "Paris", "."]
    assert rows[-1] == "" and all(len(r.split("\t")) == 2 for r in rows if r)
    # options that do not apply to raw text, and raw outputs for column input
    assert main(["tag", "-m", str(path), str(src), "--format", "raw", "--nbest", "2"]) == 2
    assert "--nbest is not an option of --format raw" in capsys.readouterr().err
    assert main(["tag", "-m", str(path), str(src), "--output-format", "spans"]) == 2
    assert "--format raw" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["tag", "-m", str(path), str(src), "--format", "raw", "--lang", "xx"])
    assert exc.value.code == 2


def test_cli_raw_constrain_and_scheme_are_checked(ner, tmp_path, capsys):
    model, path = ner
    src = tmp_path / "in.txt"
    src.write_text("John Smith went to Paris.\n", encoding="utf-8")
    assert main(["tag", "-m", str(path), str(src), "--format", "raw", "--constrain", "--quiet"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["spans"] and all(0 <= s["confidence"] <= 1 for s in rec["spans"])
    assert main(["tag", "-m", str(path), str(src), "--format", "raw", "--constrain", "--scheme", "bilou"]) == 2
    assert "--constrain" in capsys.readouterr().err
    assert main(["tag", "-m", str(path), str(src), "--format", "raw", "--scheme", "iob2"]) == 2
    assert "add --constrain" in capsys.readouterr().err
    pos = chaintag.make_learner("perceptron", features=["w[0]"], epochs=1).fit([["a", "dog"]], [["DT", "NN"]])
    pos_path = tmp_path / "pos.npz"
    pos.save(pos_path)
    assert main(["tag", "-m", str(pos_path), str(src), "--format", "raw", "--constrain"]) == 2
    assert "follow no chunk scheme" in capsys.readouterr().err


def test_predict_spans_refuses_strings(ner):
    model, _ = ner
    with pytest.raises(chaintag.InputError, match="expected a list of sentences"):
        model.predict_spans("John Smith")
    with pytest.raises(chaintag.InputError, match="sentence 0 is a string"):
        model.predict_spans(["John", "Smith"])


def test_lang_is_for_raw_text_only(ner, tmp_path, capsys):
    _, path = ner
    src = tmp_path / "in.txt"
    src.write_text("John NNP\nSmith NNP\n", encoding="utf-8")
    assert main(["tag", "-m", str(path), str(src), "--lang", "es"]) == 2
    assert "--lang sets the tokenizer of --format raw" in capsys.readouterr().err


def test_eval_warns_when_the_test_types_are_not_the_models(ner, tmp_path, capsys):
    """Gold labels of other entity types than the model's (O shared): a warning; the same types: none."""
    _, path = ner
    other = tmp_path / "other.txt"
    other.write_text("Bob B-NAME\nran O\n\nAnn B-NAME\nI-NAME I-NAME\n", encoding="utf-8")
    assert main(["eval", "-m", str(path), "-t", str(other)]) == 0
    assert "warning: none of the chunk types of the gold labels of " in capsys.readouterr().err
    same = tmp_path / "same.txt"
    same.write_text("Bob B-PER\nran O\n\nParis B-LOC\n", encoding="utf-8")
    assert main(["eval", "-m", str(path), "-t", str(same)]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("written", ["X-B", "B_X", "X_B"])
def test_eval_reads_gold_labels_written_in_another_notation(ner, tmp_path, capsys, written):
    """The same types written PER-B / B_PER / PER_B against the model's B-PER: the gold labels are read in
    the model's notation (before, F1 was 0 without a word), with a note; the figures equal those of B-PER."""
    from chaintag.api.scoring import in_notation
    _, path = ner
    rows = [("Bob", "B-PER"), ("Smith", "I-PER"), ("ran", "O"), ("", ""), ("Paris", "B-LOC"), ("is", "O")]
    plain, other = tmp_path / "plain.txt", tmp_path / "other.txt"
    plain.write_text("\n".join(f"{w} {lab}".strip() for w, lab in rows) + "\n", encoding="utf-8")
    other.write_text("\n".join(f"{w} {in_notation(lab, 'B-X', written)}".strip() for w, lab in rows) + "\n",
                     encoding="utf-8")
    assert "PER" in other.read_text() and "B-PER" not in other.read_text()
    assert main(["eval", "-m", str(path), "-t", str(plain), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert main(["eval", "-m", str(path), "-t", str(other), "--json"]) == 0
    cap = capsys.readouterr()
    got = json.loads(cap.out)
    assert got["f1"] == expected["f1"] and got["n_gold_chunks"] == expected["n_gold_chunks"] == 2 and got["f1"] > 0
    assert f"note: the gold labels of {other} are written {in_notation('B-PER', 'B-X', written)}, the model's " \
           "B-PER: their chunks are read and written as the model's labels are" in cap.err


def test_eval_warns_when_gold_labels_are_bare_prefixes(ner, tmp_path, capsys):
    _, path = ner
    bare = tmp_path / "bare.txt"
    bare.write_text("Bob B\nSmith I\nran O\n", encoding="utf-8")
    assert main(["eval", "-m", str(path), "-t", str(bare)]) == 0
    assert "warning: the gold labels are chunk prefixes without types (B, I, O) and the labels of the model " \
           "have types" in capsys.readouterr().err


@pytest.mark.parametrize("text, kind", [
    ("John B-PER\nSmith I-PER\nsat O\nin O\nParis B-LOC\n\nMary B-PER\n", "a column file (each of its first 6"),
    # a first sentence of 3 tokens, read on into the next blocks
    ("John B-PER\ncalled O\n. O\n\nMary B-PER\nKhan I-PER\nwent O\n", "a column file (each of its first 6"),
    # chunk labels the NER model does not have, after a marker line
    ("###MEDLINE:123\n\nHe PRP B-NP\nruns VBZ B-VP\nfast RB B-ADVP\n", "a column file (each of its first 3"),
    ("###MEDLINE:1\n\nNumber\tO\nof\tO\nglucocorticoid\tB-protein\nreceptors\tI-protein\n",
     "a column file (each of its first 4"),
    ("-DOCSTART- -X- O O\n\nJohn NNP B-NP B-PER\n", "a column file (its first line is a -DOCSTART- marker)"),
    ("# sent_id = 1\n# text = John sat\n1\tJohn\tjohn\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n", "a CoNLL-U file"),
    ("1\tJohn\tjohn\tPROPN\tNNP\t_\t2\tnsubj\t_\t_\n2\tsat\tsit\tVERB\tVBD\t_\t0\troot\t_\t_\n", "a CoNLL-U file"),
])
def test_column_files_given_as_text_are_tagged_with_a_warning(ner, tmp_path, capsys, text, kind):
    _, path = ner
    src = tmp_path / "in.txt"
    src.write_text(text, encoding="utf-8")
    for fmt in ("raw", "pretokenized"):
        assert main(["tag", "-m", str(path), str(src), "--format", fmt]) == 0
        cap = capsys.readouterr()
        assert f"warning: this input looks like {kind}" in cap.err and f"--format {fmt} reads it as text" in cap.err
        assert cap.out.startswith('{"text"')


@pytest.mark.parametrize("text", [
    "John sat\nMary ran\n",
    "Thank you O\nSee you O\n",  # two lines ending in a label: short text can look like that
    "He said O\nwell it is O ok\nand O\nso O\nthen O\n",  # not one width
    "John went home .\nMary B-PER\n\nSee O\nyou O\nthen O\nok O\n",  # lines of several widths
    "Thank you .\nSee you .\nBye now .\n",  # one tag-like value, three lines
    "John Smith\nMary Jones\nAnn Lee\nBob Stone\n",  # lines of words
    "Austin , TX\nBoston , MA\nDenver , CO\n",  # capitals last, three lines
])
def test_text_that_looks_a_little_like_columns_gets_no_warning(ner, tmp_path, capsys, text):
    _, path = ner
    src = tmp_path / "in.txt"
    src.write_text(text, encoding="utf-8")
    assert main(["tag", "-m", str(path), str(src), "--format", "raw"]) == 0
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("scheme", ["iobes", "bilou", "bmes", "iob1", "ioe2"])
def test_eval_reads_gold_labels_of_another_scheme(ner, tmp_path, capsys, scheme):
    """The model's chunk types in another scheme (BILOU, BMES, IOB1, ...) against the model's IOB2: the gold
    chunks are written in IOB2, and F1 and token accuracy equal those of the IOB2 file (before, BMES
    against BILOU scored 0, and IOBES against IOB2 gave 100 F1 with 75 % accuracy)."""
    from chaintag.evaluation.chunks import label_spans, span_labels
    _, path = ner
    sents = [[("Bob", "B-PER"), ("Smith", "I-PER"), ("ran", "O")], [("Paris", "B-LOC"), ("is", "O")],
             [("Ann", "B-PER"), ("Lee", "I-PER"), ("Khan", "I-PER"), ("in", "O"), ("Rome", "B-LOC")]]
    plain, other = tmp_path / "plain.txt", tmp_path / "other.txt"
    plain.write_text("\n\n".join("\n".join(f"{w} {lab}" for w, lab in s) for s in sents) + "\n", encoding="utf-8")
    written = [span_labels(len(s), sp, scheme) for s, sp in zip(sents, label_spans([[lab for _, lab in s]
                                                                                   for s in sents]))]
    other.write_text("\n\n".join("\n".join(f"{w} {lab}" for (w, _), lab in zip(s, labs))
                                 for s, labs in zip(sents, written)) + "\n", encoding="utf-8")
    assert main(["eval", "-m", str(path), "-t", str(plain), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert main(["eval", "-m", str(path), "-t", str(other), "--json"]) == 0
    cap = capsys.readouterr()
    got = json.loads(cap.out)
    assert (got["f1"], got["accuracy"], got["n_gold_chunks"]) == (expected["f1"], expected["accuracy"], 4)
    assert f"in the {scheme.upper()} scheme, the model's in IOB2: their chunks are read and written" in cap.err


def test_eval_warns_about_gold_types_the_model_lacks(ner, tmp_path, capsys):
    _, path = ner
    part = tmp_path / "part.txt"
    part.write_text("Bob B-PERSON\nran O\n\nParis B-LOC\nis O\n", encoding="utf-8")
    assert main(["eval", "-m", str(path), "-t", str(part)]) == 0
    assert f"warning: the gold labels of {part} have chunk types that the labels of the model lack: PERSON; " \
           "their chunks cannot be found (recall 0 on them)" in capsys.readouterr().err


def test_gold_labels_are_rewritten_only_into_what_the_model_writes():
    """The model's recorded scheme is written only with prefixes its labels have (a model trained with
    --scheme iobes on IOB2 labels keeps IOB2 gold: its accuracy was 66.67 % on its own training file);
    strays stay; one S- typo does not make IOB2 gold IOBES."""
    from chaintag.api.scoring import gold_label_notes
    labels = ["B-PER", "I-PER", "B-LOC", "I-LOC", "O"]
    gold = [["B-PER", "I-PER", "O", "B-LOC"]]
    assert gold_label_notes(gold, labels, model_scheme="iobes") == (gold, [])
    out, notes = gold_label_notes([["PER-B", "PER-I", "NN", "LOC-B"]], labels)
    assert out == [["B-PER", "I-PER", "NN", "B-LOC"]] and "written PER-B" in notes[0]
    assert gold_label_notes(gold * 50 + [["S-PER"]], labels, model_scheme="iob2") == (gold * 50 + [["S-PER"]], [])
    out, notes = gold_label_notes([["B-PER", "L-PER", "O", "U-LOC"]], labels, model_scheme="iob2")
    assert out == gold and "in the BILOU scheme, the model's in IOB2" in notes[0]
    # a part of the labels (streamed training's first chunk): no warning about the types it lacks
    part = [["B-ORG", "O", "B-PER"]]
    assert gold_label_notes(part, labels, check_types=False) == (part, [])
    assert "lack: ORG" in gold_label_notes(part, labels)[1][0]


def test_a_chunker_tags_raw_text_with_the_tags_of_a_pos_model(tmp_path, capsys):
    """A model that reads word and pos was refused on raw text; with a POS model (--pos-model,
    pos_model=) each token's pos column is that model's tag, and the labels are those of predict on the
    (word, tag) tokens."""
    words = [["The", "big", "dog", "barks", "."], ["A", "cat", "sleeps", "."], ["The", "cat", "saw", "a", "dog", "."]]
    tags = [["DT", "JJ", "NN", "VBZ", "."], ["DT", "NN", "VBZ", "."], ["DT", "NN", "VBD", "DT", "NN", "."]]
    chunks = [["B-NP", "I-NP", "I-NP", "B-VP", "O"], ["B-NP", "I-NP", "B-VP", "O"],
              ["B-NP", "I-NP", "B-VP", "B-NP", "I-NP", "O"]]
    pos = chaintag.make_learner("perceptron", features="w[0];w[-1];w[1]", epochs=5, progress=False).fit(words, tags)
    chunker = chaintag.make_learner("perceptron", features="w[0];pos[0];pos[-1];pos[1]", columns=("word", "pos"),
                                    epochs=5, progress=False).fit([list(zip(w, t)) for w, t in zip(words, tags)],
                                                                  chunks)
    doc = chunker.tag_text("The cat saw a big dog.", pos_model=pos)
    toks = [t.text for t in doc.tokens]
    want = chunker.predict([list(zip(toks, pos.predict([toks])[0]))])[0]
    assert [t.label for t in doc.tokens] == want and [s.label for s in doc.spans][:1] == ["NP"]
    with pytest.raises(chaintag.InputError, match="--pos-model en-pos"):
        chunker.tag_text("The cat saw a dog.")
    cpath, ppath = tmp_path / "chunk.npz", tmp_path / "pos.npz"
    chunker.save(cpath)
    pos.save(ppath)
    text = tmp_path / "t.txt"
    text.write_text("The cat saw a big dog.\n", encoding="utf-8")
    assert main(["tag", "-m", str(cpath), str(text), "--format", "raw", "--pos-model", str(ppath),
                 "--output-format", "conll"]) == 0
    assert capsys.readouterr().out.split()[1::2] == want
    columns = tmp_path / "c.txt"
    columns.write_text("The DT\ncat NN\n", encoding="utf-8")
    assert main(["tag", "-m", str(cpath), str(columns), "--pos-model", str(ppath)]) == 2
    assert "--pos-model tags raw or pretokenized text" in capsys.readouterr().err
