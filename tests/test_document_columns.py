"""Document columns (abbr, docnext, doccap): values, documents from marker lines, training and tagging."""

import json

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features.document import (DOCUMENT_COLUMNS, add_document_columns, document_columns_read,
                                        document_values)
from chaintag.io.model_file import load_model

DOC1 = [["the", "T", "cell", "receptor", "(", "TCR", ")", "binds"],
        ["TCR", "signals", "the", "cell"]]
DOC2 = [["TCR", "is", "here"]]

# computed by hand from the definitions (module docstring of chaintag.features.document)
EXPECTED_DOC1 = [
    [("_", "cell", "1L"), ("_", "_", "0"), ("_", "_", "1L"), ("_", "_", "0"), ("_", "_", "0"),
     ("receptor", "signals", "1U"), ("_", "_", "0"), ("_", "_", "0")],
    [("receptor", ")", "1UP"), ("_", "_", "0"), ("_", "t", "1L"), ("_", "receptor", "1L")],
]
# in its own document TCR is not defined, occurs once and has no other next word
EXPECTED_DOC2 = [[("_", "_", "0"), ("_", "_", "0"), ("_", "_", "0")]]
# the same sentences as one document: TCR in the third sentence gets the first document's values too
EXPECTED_ONE_DOC_S3 = [("receptor", ")", "2UP"), ("_", "_", "0"), ("_", "_", "0")]


def _labels(sent):
    return ["B-protein" if w == "TCR" else "O" for w in sent]


def _file(path, docs, markers=True, labels=True):
    lines = []
    for d, doc in enumerate(docs):
        if markers:
            lines += [f"###MEDLINE:{100 + d}", ""]
        for sent in doc:
            lines += [f"{w}\t{lab}" if labels else w for w, lab in zip(sent, _labels(sent))]
            lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_values_of_two_documents_by_hand(tmp_path):
    c = chaintag.load_corpus(_file(tmp_path / "two.iob2", [DOC1, DOC2]), document_columns=True)
    assert c.columns == ("word",) + DOCUMENT_COLUMNS
    assert c.documents == [0, 0, 1]
    got = [[t[1:] for t in s] for s in c.tokens]
    assert got == EXPECTED_DOC1 + EXPECTED_DOC2
    assert [[t[0] for t in s] for s in c.tokens] == DOC1 + DOC2
    assert c.labels == [_labels(s) for s in DOC1 + DOC2]
    # the same through the functions, with document ids of any kind
    assert document_values(DOC1 + DOC2, ["a", "a", "b"]) == EXPECTED_DOC1 + EXPECTED_DOC2
    assert add_document_columns([[(w,) for w in s] for s in DOC2], None) == \
        [[(w,) + v for w, v in zip(DOC2[0], EXPECTED_DOC2[0])]]


def test_file_without_markers_is_one_document(tmp_path):
    c = chaintag.load_corpus(_file(tmp_path / "one.iob2", [DOC1, DOC2], markers=False), document_columns=True)
    assert c.documents == [0, 0, 0]
    assert [[t[1:] for t in s] for s in c.tokens][2] == EXPECTED_ONE_DOC_S3
    assert document_values(DOC1 + DOC2)[2] == EXPECTED_ONE_DOC_S3
    # without the option the corpus is as before
    plain = chaintag.load_corpus(tmp_path / "one.iob2")
    assert plain.columns == ("word",) and plain.tokens[2] == [("TCR",), ("is",), ("here",)]


def test_sentences_before_the_first_marker_and_empty_documents(tmp_path):
    path = tmp_path / "f.iob2"
    path.write_text("a\tO\n\n-DOCSTART- -X- O O\n\n-DOCSTART- -X- O O\n\nb\tO\n\nc\tO\n\n###MEDLINE:1\n\nd\tO\n",
                    encoding="utf-8")
    assert chaintag.load_corpus(path).documents == [0, 1, 1, 2]


def test_preset_and_what_templates_read():
    from chaintag.features.templates import PRESETS, resolve_templates
    assert PRESETS["ner+doc"] == PRESETS["ner+affixes"] + ["abbr[0]", "docnext[0]", "doccap[0]"]
    cols = ("word",) + DOCUMENT_COLUMNS
    assert [t.name for t in resolve_templates("ner+doc", cols)] == \
        [t.name for t in resolve_templates("ner+affixes;abbr[0];docnext[0];doccap[0]", cols)]
    assert document_columns_read("ner+doc", ("word",)) == list(DOCUMENT_COLUMNS)
    assert document_columns_read("w[0];doccap[-1]|w[0]", ("word", "pos")) == ["doccap"]
    assert document_columns_read("ner+affixes", ("word",)) == []
    assert document_columns_read("ner+doc", cols) == []


def _train_file(tmp_path):
    docs = [DOC1, DOC2, [["the", "IL-2", "receptor", "(", "IL-2R", ")", "is", "here"], ["IL-2R", "binds", "TCR"]]]
    return _file(tmp_path / "train.iob2", docs)


def test_cli_train_tag_evaluate(tmp_path, capsys):
    train = _train_file(tmp_path)
    model = tmp_path / "m.npz"
    gold = _file(tmp_path / "gold.iob2", [DOC2, DOC1])
    assert main(["train", "--train", str(train), "--model", str(model), "--algorithm", "sapo",
                 "--features", "ner+doc", "--epochs", "3", "--quiet", "--no-stream",
                 "--dev", str(gold), "--test", str(gold)]) == 0
    meta, _ = load_model(model)
    assert meta["document_columns"] == list(DOCUMENT_COLUMNS)
    assert meta["columns"] == ["word"] + list(DOCUMENT_COLUMNS)
    assert {"abbr[0]", "docnext[0]", "doccap[0]"} <= set(meta["extractor"]["templates"])
    tagger = chaintag.load(model)
    # tag a file of words only (two documents, markers copied through)
    test = _file(tmp_path / "test.txt", [DOC2, DOC1], labels=False)
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", str(model), str(test), "--output", str(out), "--quiet"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "###MEDLINE:100"
    tagged = [ln.split() for ln in lines if ln.strip() and not ln.startswith("###")]
    c = chaintag.load_corpus(test, labelled=False, document_columns=True)
    expected = [lab for s in tagger.predict(c.tokens) for lab in s]
    assert [t[0] for t in tagged] == [w for s in DOC2 + DOC1 for w in s]
    assert [t[1] for t in tagged] == expected
    # the columns the tagger computed are the module's, per document of the file
    rows = add_document_columns([[(w,) for w in s] for s in DOC2 + DOC1], [0, 1, 1])
    assert c.tokens == rows and [lab for s in tagger.predict(rows) for lab in s] == expected
    # small batches do not split a document
    out2 = tmp_path / "out2.txt"
    assert main(["tag", "--model", str(model), str(test), "--output", str(out2), "--quiet",
                 "--batch-size", "1"]) == 0
    assert out2.read_bytes() == out.read_bytes()
    # evaluate computes them too, and scores as the Python API does
    assert main(["eval", "--model", str(model), "--test", str(gold), "--quiet", "--json"]) == 0
    scored = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    g = chaintag.load_corpus(gold, document_columns=True)
    assert scored["f1"] == pytest.approx(tagger.evaluate(g.tokens, g.labels).f1)


def test_cli_refuses_streaming(tmp_path, capsys):
    assert main(["train", "--train", str(_train_file(tmp_path)), "--model", str(tmp_path / "m.npz"),
                 "--algorithm", "perceptron", "--features", "w[0];abbr[0]", "--epochs", "1", "--quiet",
                 "--stream"]) != 0
    assert "document columns" in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()


def test_api_fit_save_load_round_trip(tmp_path):
    c = chaintag.load_corpus(_train_file(tmp_path), document_columns=True)
    m = chaintag.make_learner("sapo", features="ner+doc", columns=c.columns, epochs=3, random_state=0, n_jobs=1)
    m.fit(c.tokens, c.labels)
    before = m.predict(c.tokens)
    m.save(tmp_path / "m.npz")
    back = chaintag.load(tmp_path / "m.npz")
    assert back.columns_ == c.columns and back.predict(c.tokens) == before
    back.save(tmp_path / "m2.npz")
    assert (tmp_path / "m2.npz").read_bytes() == (tmp_path / "m.npz").read_bytes()
    assert load_model(tmp_path / "m2.npz")[0]["document_columns"] == list(DOCUMENT_COLUMNS)
    # the model reads the columns it was trained on: the document columns change what it sees
    names = {m.extractor_.attribute_name(a) for a in range(m.extractor_.n_attributes)}
    assert "abbr[0]=receptor" in names and "doccap[0]=1UP" in names


def test_api_without_the_columns_says_how_to_add_them():
    with pytest.raises(InputError, match="document_columns=True"):
        chaintag.make_learner("sapo", features="ner+doc", epochs=1).fit([[("a",), ("b",)]], [["O", "O"]])


def test_service_computes_them_per_request(tmp_path):
    from chaintag.service.server import TaggingService
    c = chaintag.load_corpus(_train_file(tmp_path), document_columns=True)
    m = chaintag.make_learner("sapo", features="ner+doc", columns=c.columns, epochs=2, random_state=0, n_jobs=1)
    m.fit(c.tokens, c.labels)
    answer = TaggingService(m).tag({"sentences": DOC1})
    assert answer["labels"] == m.predict(add_document_columns([[(w,) for w in s] for s in DOC1]))


def test_missing_word_column(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("a X O\nb Y O\n", encoding="utf-8")
    with pytest.raises(InputError, match="'word' column"):
        chaintag.load_corpus(path, columns="tok,pos,label", document_columns=True)


def test_experiment_runner_computes_the_document_columns_a_run_reads(tmp_path):
    from chaintag_research import DataRef, Run, Runner
    path = str(_file(tmp_path / "d.iob2", [DOC1, DOC2, DOC1]))
    features = "ner;abbr[0];doccap[0]"
    run = Run(key="t/doc", label="doc", task="t", learner="perceptron", params={"averaged": True},
              features=features, epochs=2, train=DataRef(path), dev=None, test=DataRef(path), metric="f1")
    runner = Runner(tmp_path / "out", progress=False)
    result = runner.run_one(run)
    assert runner.columns[(path, "documents")] == ("word",) + DOCUMENT_COLUMNS
    # the same as fitting on the columns load_corpus computes
    c = chaintag.load_corpus(path, document_columns=True)
    m = chaintag.make_learner("perceptron", averaged=True, features=features, columns=c.columns, epochs=2)
    m.fit(c.tokens, c.labels)
    from chaintag_research import corpus_score, sentence_stats
    direct = corpus_score(sentence_stats(c.labels, m.predict(c.tokens)), "f1")
    assert result.summary["test_last"] == pytest.approx(direct)
    # a run that reads no document column keeps the plain tokens
    plain = Run(key="t/plain", label="plain", task="t", learner="perceptron", params={}, features="ner", epochs=1,
                train=DataRef(path), dev=None, test=DataRef(path), metric="f1")
    runner.run_one(plain)
    assert (path, "documents") in runner.columns and runner.columns[path] == ("word",)


def test_tune_computes_the_document_columns_before_cutting_the_dev_part(tmp_path, capsys):
    path = str(_file(tmp_path / "d.iob2", [DOC1, DOC2, DOC1, DOC2]))
    out = tmp_path / "tune"
    assert main(["tune", "-a", "perceptron", "--train", path, "--features", "ner;abbr[0];doccap[0]",
                 "--dev-fraction", "0.25", "--epochs", "2", "--out", str(out), "--quiet"]) == 0
    best = json.loads((out / "best.json").read_text(encoding="utf-8"))
    # the same as training on the first three quarters of load_corpus's sentences, scoring the rest
    c = chaintag.load_corpus(path, document_columns=True)
    cut = len(c.tokens) - 2
    m = chaintag.make_learner("perceptron", features="ner;abbr[0];doccap[0]", columns=c.columns, epochs=2)
    m.fit(c.tokens[:cut], c.labels[:cut], dev=(c.tokens[cut:], c.labels[cut:]))
    assert best["dev_score"] == pytest.approx(max(rec["dev_score"] for rec in m.history_))


def test_conllu_newdoc_comments_delimit_documents(tmp_path):
    def block(words, newdoc=None):
        head = [f"# newdoc id = {newdoc}"] if newdoc else []
        return "\n".join(head + [f"# text = {' '.join(words)}"] + [
            f"{i}\t{w}\t_\tX\tNN\t_\t0\tdep\t_\t_" for i, w in enumerate(words, 1)]) + "\n\n"
    sents = [w for doc in (DOC1, DOC2) for w in doc]
    text = block(sents[0], "d1") + block(sents[1]) + block(sents[2], "d2")
    path = tmp_path / "d.conllu"
    path.write_text(text, encoding="utf-8")
    c = chaintag.load_corpus(path, document_columns=True)
    assert c.documents == [0, 0, 1]
    assert [[tok[-3:] for tok in s] for s in c.tokens] == EXPECTED_DOC1 + EXPECTED_DOC2
    # without newdoc comments the file is one document: TCR in the third sentence sees the first two
    path.write_text(block(sents[0]) + block(sents[1]) + block(sents[2]), encoding="utf-8")
    c = chaintag.load_corpus(path, document_columns=True)
    assert c.documents == [0, 0, 0] and [tok[-3:] for tok in c.tokens[2]] == EXPECTED_ONE_DOC_S3


@pytest.mark.parametrize("name", ["sapo", "sapo2"])
def test_predicting_plain_words_computes_the_document_columns(name):
    # more in tests/test_document_predict.py
    m = chaintag.make_learner(name, features="w[0];doccap[0]", columns=("word",) + DOCUMENT_COLUMNS, epochs=1).fit(
        add_document_columns([["TCR", "binds"], ["the", "TCR"]]), [["B-protein", "O"], ["O", "B-protein"]])
    words = [["TCR", "binds"], ["the", "TCR"]]
    assert m.predict(words) == m.predict(add_document_columns(words))
    with pytest.raises(InputError, match="document columns abbr, docnext, doccap are computed"):
        m.predict([[("TCR", "x", "y")]] + [[()]])
