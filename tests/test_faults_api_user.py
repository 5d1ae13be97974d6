"""A Python user's and an operator's mistakes, and what chaintag then does: empty sentences for every
learner, model arguments given as files or names, misspelled learners, a malformed dev pair, counts and
fixed labels of the wrong type, tokens a column file cannot hold, inconsistent model files, empty test
data, tiny dev sets, odd gazetteer lists, a port in use, and learner parameters checked before a
comparison trains."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError, ModelFormatError
from chaintag.io.model_file import load_model, save_model
from chaintag.models.catalog import MODELS

X = [["the", "dog", "runs"], ["a", "cat", "sleeps"], ["the", "cat", "runs"]]
Y = [["DT", "NN", "VBZ"], ["DT", "NN", "VBZ"], ["DT", "NN", "VBZ"]]
CHUNK_X = [[("IL-2", "NN"), ("gene", "NN"), ("expression", "NN")], [("the", "DT"), ("cell", "NN"), ("line", "NN")]]
CHUNK_Y = [["B-DNA", "I-DNA", "O"], ["O", "B-cell_line", "I-cell_line"]]
IN_MEMORY = ("perceptron", "sapo", "crf", "crf-lbfgs", "mira", "nbest-mira", "perceptron2", "sapo2", "maxent")


@pytest.mark.parametrize("name", IN_MEMORY)
@pytest.mark.parametrize("where", [0, 1, 3])
def test_every_learner_trains_with_an_empty_sentence_anywhere(name, where):
    # MIRA sized its buffers with np.add.reduceat, which fails on an empty last sentence
    xs, ys = X[:where] + [[]] + X[where:], Y[:where] + [[]] + Y[where:]
    m = chaintag.make_learner(name, strict=False, features="w[0]", epochs=3, progress=False).fit(xs, ys)
    assert m.predict(X + [[]]) == Y + [[]]


def test_known_models_name_their_learner_and_attributes():
    # en-chunk and en-np named no learner, so they followed train's default (SAPO) and no longer were
    # the averaged perceptron their scores and docs describe
    for info in MODELS.values():
        assert info.settings.get("algorithm"), info.name
        assert info.settings.get("features"), info.name
    assert MODELS["en-chunk"].settings["algorithm"] == "perceptron"


def test_a_cached_model_built_with_another_learner_is_refused_naming_the_rebuild(tmp_path, monkeypatch):
    # a model cached under a known name before its catalog entry named its learner (en-chunk built with SAPO)
    monkeypatch.setenv("CHAINTAG_CACHE", str(tmp_path / "cache"))
    from chaintag.models.cache import cached_model_path
    path = cached_model_path("en-chunk")
    path.parent.mkdir(parents=True)
    chaintag.SAPO(features="w[0];pos[0]", columns=("word", "pos"), epochs=1, progress=False).fit(
        CHUNK_X, CHUNK_Y).save(path)
    with pytest.raises(InputError, match="the cached model en-chunk .* was built with sapo, but the catalog's "
                                         "en-chunk is perceptron: rebuild it with chaintag models build en-chunk"):
        chaintag.load("en-chunk")
    assert type(chaintag.load(str(path))).__name__ == "SAPO"  # the file itself, named as a file, loads
    chaintag.StructuredPerceptron(features="w[0];pos[0]", columns=("word", "pos"), epochs=1, progress=False).fit(
        CHUNK_X, CHUNK_Y).save(path)
    assert type(chaintag.load("en-chunk")).__name__ == "StructuredPerceptron"


@pytest.fixture()
def chunker(tmp_path):
    m = chaintag.StructuredPerceptron(features="w[0];pos[0]", columns=("word", "pos"), epochs=3,
                                      progress=False).fit(CHUNK_X, CHUNK_Y)
    path = tmp_path / "chunker.npz"
    m.save(path)
    return m, str(path)


def test_model_arguments_take_a_model_a_file_or_a_name(chunker, tmp_path):
    m, path = chunker
    test = chaintag.load_corpus(_write(tmp_path / "t.txt", CHUNK_X, CHUNK_Y))
    assert chaintag.score_model(path, test).f1 == chaintag.score_model(m, test).f1 == 100.0
    pos = chaintag.StructuredPerceptron(features="w[0]", epochs=3, progress=False).fit(
        [["IL-2", "gene", "expression"]], [["NN", "NN", "NN"]])
    pos_path = tmp_path / "pos.npz"
    pos.save(pos_path)
    doc = m.tag_text("IL-2 gene expression", pos_model=str(pos_path))
    assert [t.label for t in doc.tokens] == ["B-DNA", "I-DNA", "O"]
    assert doc.tokens == chaintag.tag_text(path, "IL-2 gene expression", pos_model=pos).tokens
    out = io.StringIO()
    chaintag.tag_stream(path, CHUNK_X, out)
    assert out.getvalue().splitlines()[0] == "IL-2 NN B-DNA"
    with pytest.raises(TypeError, match="pos_model must be a fitted model, a model file or a known model's "
                                        "name .*not int"):
        m.tag_text("IL-2 gene", pos_model=3)
    with pytest.raises(FileNotFoundError):
        chaintag.score_model(str(tmp_path / "missing.npz"), test)


def _write(path, xs, ys) -> str:
    path.write_text("".join("".join(" ".join(tok) + f" {lab}\n" for tok, lab in zip(x, y)) + "\n"
                            for x, y in zip(xs, ys)), encoding="utf-8")
    return str(path)


def test_an_unknown_learner_is_named_before_the_data_is_read(tmp_path):
    with pytest.raises(InputError, match=r"unknown learner 'sapoo' \(did you mean sapo or sapo2\?\); choose "
                                         r"from perceptron, sapo"):
        chaintag.train(str(tmp_path / "missing.txt"), algorithm="sapoo")


def test_a_malformed_dev_pair_gets_one_message():
    for dev, what in (((X,), "a sequence of 1"), ("abc", "str"), ((X, Y, Y), "a sequence of 3"), (3, "int")):
        with pytest.raises(InputError, match=f"dev must be a pair \\(sentences, labels\\).*not {what}$"):
            chaintag.StructuredPerceptron(features="w[0]", epochs=1, progress=False).fit(X, Y, dev=dev)
    m = chaintag.StructuredPerceptron(features="w[0];pos[0]", columns=("word", "pos"), epochs=1, progress=False)
    with pytest.raises(InputError, match=r"^dev data: sentence 0, token 0: token 'a' is one string"):
        m.fit(CHUNK_X, CHUNK_Y, dev=([["a"]], [["O"]]))
    corpus = chaintag.make_learner("sapo", features="w[0]", epochs=2, progress=False)
    assert corpus.fit(X, Y, dev=(iter(X), iter(Y))).best_epoch_ is not None  # iterables are read once


def test_counts_and_fixed_labels_of_the_wrong_type_are_named(chunker):
    m, _ = chunker
    for k in (2.0, "2", True, None):
        with pytest.raises(ValueError, match=f"k must be an integer of at least 1, not {k!r}"):
            m.predict_nbest(CHUNK_X, k=k)
        with pytest.raises(ValueError, match="k must be an integer"):
            m.predict_confidence(CHUNK_X, k=k)
    with pytest.raises(ValueError, match="k must be at least 1"):
        m.predict_nbest(CHUNK_X, k=0)
    assert len(m.predict_nbest(CHUNK_X, k=np.int64(2))[0]) == 2
    with pytest.raises(ValueError, match="k must be an integer of at least 0, not 1.5"):
        m.top_features("B-DNA", k=1.5)
    with pytest.raises(InputError, match="give one sequence per sentence .*not the string 'B-DNA'"):
        m.predict(CHUNK_X, fixed="B-DNA")
    with pytest.raises(InputError, match="sentence 1 is given the string 'OOO'"):
        m.predict(CHUNK_X, fixed=[None, "OOO"])
    with pytest.raises(InputError, match=r"None, null in JSON, for a free token"):
        m.predict(CHUNK_X, fixed=[None, [None]])


def test_predict_spans_takes_fixed_labels(chunker):
    m, _ = chunker
    fixed = [[None, None, "B-DNA"], ["B-DNA", None, None]]
    labels, spans = m.predict_spans(CHUNK_X, fixed=fixed)
    assert labels == m.predict(CHUNK_X, fixed=fixed)
    assert [lab[i] for lab, i in ((labels[0], 2), (labels[1], 0))] == ["B-DNA", "B-DNA"]
    assert [s[:3] for s in spans[1]][0] == ("DNA", 0, 1)
    assert all(0.0 <= p <= 1.0 for sent in spans for *_, p in sent)


def test_a_word_given_to_a_model_of_two_columns_is_quoted_as_given(chunker):
    m, _ = chunker
    with pytest.raises(InputError, match=r"sentence 0, token 0: token 'IL-2' is one string \(1 column\), but the "
                                         r"model reads 2 columns: give each token as a tuple"):
        m.predict([["IL-2", "gene"]])


def test_tokens_a_column_file_cannot_hold_are_named_before_tagging():
    xs = [[("big dog", "NN"), ("runs", "VBZ")]]
    m = chaintag.StructuredPerceptron(features="w[0]", columns=("word", "pos"), epochs=2,
                                      progress=False).fit(xs, [["B-NP", "B-VP"]])
    with pytest.raises(InputError, match=r"sentence 1, token 0: token \('big dog', 'NN'\) holds an empty value or "
                                         r"a space, a tab or a line break.*write tab-separated output"):
        chaintag.tag_stream(m, [[("a", "DT")], *xs], io.StringIO())
    with pytest.raises(InputError, match=r"sentence 0, token 1: token \('', 'NN'\) holds an empty value"):
        chaintag.tag_stream(m, [[("a", "DT"), ("", "NN")]], io.StringIO())
    with pytest.raises(InputError, match=r"token \('a\\tb', 'NN'\) holds an empty value or a tab or a line break, "
                                         r"which a column file separated by tabs cannot hold$"):
        chaintag.tag_stream(m, [[("a\tb", "NN")]], io.StringIO(), sep="\t")
    out = io.StringIO()
    chaintag.tag_stream(m, xs, out, sep="\t")
    assert out.getvalue() == "big dog\tNN\tB-NP\nruns\tVBZ\tB-VP\n\n"
    with pytest.raises(InputError, match=r"token \('big dog',\) holds .* which text output \(word/label between "
                                         r"spaces\) cannot hold: write columns separated by tabs"):
        chaintag.tag_stream(m, [["big dog"]], io.StringIO(), kind="text")
    # a no-break space belongs to a token of a column file, as the reader reads it: written, and read back
    out = io.StringIO()
    chaintag.tag_stream(m, [[("New\u00a0York", "NNP")]], out)
    assert out.getvalue().startswith("New\u00a0York NNP B-")


@pytest.mark.parametrize("change, message", [
    # one label fewer: some feature's label id is past the labels (checked before the weights' size)
    (lambda meta: meta.update(labels=meta["labels"][:-1]), r"a feature's label id \(feat_label\) is outside"),
    (lambda meta: meta.update(labels=meta["labels"][:1] * len(meta["labels"])), "not a list of distinct strings"),
    (lambda meta: meta.update(labels="B-NP"), "not a list of distinct strings"),
])
def test_an_inconsistent_model_file_is_refused_naming_it(chunker, tmp_path, change, message):
    _, path = chunker
    meta, arrays = load_model(path)
    change(meta)
    bad = tmp_path / "bad.npz"
    save_model(bad, meta, dict(arrays))  # well-formed, with its own digests
    with pytest.raises(ModelFormatError, match=f"^{bad}: .*{message}"):
        chaintag.load(bad)


def test_a_compressed_archive_is_named_as_such(chunker, tmp_path):
    _, path = chunker
    packed = tmp_path / "packed.npz"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(packed, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    with pytest.raises(ModelFormatError, match="is compressed, and chaintag writes its models uncompressed"):
        chaintag.load(packed)


def test_empty_test_data_is_refused_not_scored(tmp_path, chunker, capsys):
    _, model = chunker
    train = _write(tmp_path / "train.txt", CHUNK_X, CHUNK_Y)
    for text in ("", "\n\n\n"):
        empty = tmp_path / "empty.txt"
        empty.write_text(text, encoding="utf-8")
        assert main(["eval", str(empty)]) == 2
        assert "no token to score" in capsys.readouterr().err
        assert main(["eval", "--model", model, "--test", str(empty)]) == 2
        assert "no token to score" in capsys.readouterr().err
        out = tmp_path / "m.npz"
        assert main(["train", "--train", train, "--test", str(empty), "--model", str(out), "-a", "perceptron",
                     "--features", "w[0]", "--epochs", "1", "-q"]) == 2
        assert "no token to score: the test data is empty" in capsys.readouterr().err
        assert not out.exists()


def test_a_tiny_dev_set_is_warned_about(tmp_path, capsys):
    xs = [[(w, "X") for w in s] for s in X * 20]
    train = _write(tmp_path / "train.txt", xs, Y * 20)
    assert main(["train", "--train", train, "--dev-fraction", "0.05", "--model", str(tmp_path / "m.npz"),
                 "-a", "perceptron", "--features", "w[0]", "--epochs", "2"]) == 0
    assert "warning: the dev data has only 3 sentences: an epoch chosen on so few is mostly chance" in \
        capsys.readouterr().err


def test_gazetteer_lists_that_give_nothing_or_several_tabs_are_refused(tmp_path):
    from chaintag.features.gazetteer import read_list
    empty = tmp_path / "empty.tsv"
    empty.write_text("# people\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty gazetteer list"):
        read_list(str(empty))
    tabs = tmp_path / "tabs.tsv"
    tabs.write_text("PER\tJohn Smith\nprotein\tA\tB\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"tabs.tsv:2: expected one tab .*found 2"):
        read_list(str(tabs))
    ok = tmp_path / "ok.tsv"
    ok.write_text("PER\tJohn Smith\n", encoding="utf-8")
    assert read_list(str(ok)) == {(("John", "Smith"), "PER"): 1}


def test_a_port_in_use_is_named(chunker):
    from chaintag.service import make_server
    m, _ = chunker
    first = make_server(m, "127.0.0.1", 0)
    try:
        port = first.server_address[1]
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}: .*choose another with --port"):
            make_server(m, "127.0.0.1", port)
    finally:
        first.server_close()


def test_compare_checks_every_learners_parameters_before_training():
    compare = pytest.importorskip("chaintag_research.compare")
    with pytest.raises(ValueError, match=r"sapo:l2=-1: l2 must be a finite number of at least 0, not -1"):
        compare.compare_runs(["perceptron", "sapo:l2=-1"], features="w[0]", train="t.txt", test="t.txt")


def test_a_first_users_slips_get_messages_that_fit_them(tmp_path, capsys):
    from chaintag.errors import ChaintagError
    pos = chaintag.SAPO(features="w[0]", epochs=2, progress=False).fit(X, Y)
    with pytest.raises(ChaintagError, match="follow no chunk scheme"):  # an InputError, not a bare ValueError
        pos.predict(X, constrain=True)
    path = tmp_path / "pos.npz"
    pos.save(path)
    one = tmp_path / "one.txt"
    one.write_text("hello\n", encoding="utf-8")
    assert main(["eval", str(one)]) == 2
    assert "the file has 1 column, so column -2 (of the gold labels) does not exist" in capsys.readouterr().err
    assert main(["train", "--train", str(path), "--model", str(tmp_path / "w.npz")]) == 2
    assert "train's --model is where it saves one" in capsys.readouterr().err
    text = tmp_path / "words.txt"
    text.write_text("the\ndog\n", encoding="utf-8")
    assert main(["tag", "--model", str(path), str(text), "--marginals"]) == 0
    assert "sapo is not trained for the probabilities of the whole lattice" in capsys.readouterr().err
