"""Tests for chaintag.data.datasets: named datasets, data directory, load_corpus."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from chaintag.data.datasets import (
    DATASETS, Corpus, DatasetFile, is_dataset_ref, load_corpus, parse_columns, resolve,
    resolve_data_dir, user_data_dir,
)
from chaintag.errors import InputError

CHUNKS = "He PRP B-NP\nreckons VBZ B-VP\n\nThe DT B-NP\ncat NN I-NP\n"
CONLLU = ("# text = I go\n"
          "1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n"
          "2\tgo\tgo\tVERB\tVBP\t_\t0\troot\t_\t_\n\n")


@pytest.fixture
def data_dir(tmp_path):
    """A fake data directory with a few tiny dataset files."""
    root = tmp_path / "data"
    (root / "conll2000").mkdir(parents=True)
    (root / "conll2000" / "train.txt").write_text(CHUNKS, encoding="utf-8")
    (root / "jnlpba").mkdir()
    (root / "jnlpba" / "Genia4EReval2.iob2").write_text(
        "###MEDLINE:1\n\nIL 2\tB-protein\ngene\tO\n", encoding="utf-8")
    (root / "ud_en_ewt").mkdir()
    (root / "ud_en_ewt" / "en_ewt-ud-dev.conllu").write_text(CONLLU, encoding="utf-8")
    return root


@pytest.fixture
def no_env(monkeypatch, tmp_path):
    monkeypatch.delenv("CHAINTAG_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    work = tmp_path / "work" / "project"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    return work


def test_registry_contents():
    assert set(DATASETS) == {"conll2000", "conll2000_np", "ptb_sample", "ud_en_ewt", "jnlpba"}
    assert DATASETS["jnlpba"].splits == {"train": "train.reconstructed.iob2",
                                         "train_gold": "train_gold_subset.iob2",
                                         "test": "Genia4EReval2.iob2"}
    assert DATASETS["jnlpba"].sep == "\t"
    assert DATASETS["ud_en_ewt"].format == "conllu"
    assert DATASETS["conll2000"].columns == ("word", "pos", "label")


def test_resolve_data_dir_order(no_env, monkeypatch, tmp_path):
    assert resolve_data_dir() == tmp_path / "xdg" / "chaintag" / "data"
    assert user_data_dir() == tmp_path / "xdg" / "chaintag" / "data"
    shared = no_env.parent / "shared" / "data"
    shared.mkdir(parents=True)
    assert resolve_data_dir() == shared
    monkeypatch.setenv("CHAINTAG_DATA", str(tmp_path / "env"))
    assert resolve_data_dir() == tmp_path / "env"
    assert resolve_data_dir(tmp_path / "explicit") == tmp_path / "explicit"


def test_user_data_dir_default(monkeypatch):
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert user_data_dir() == Path(os.path.expanduser("~")) / ".local/share/chaintag/data"


def test_is_dataset_ref(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert is_dataset_ref("conll2000:train")
    assert is_dataset_ref("conll2000:nosuchsplit")
    assert not is_dataset_ref("unknown:train")
    assert not is_dataset_ref("conll2000")
    assert not is_dataset_ref("file.txt")
    (tmp_path / "conll2000:train").write_text(CHUNKS, encoding="utf-8")
    assert not is_dataset_ref("conll2000:train")  # an existing path is a path


def test_resolve_ref(data_dir):
    found = resolve("conll2000:train", data_dir=data_dir)
    assert found == DatasetFile(data_dir / "conll2000" / "train.txt", "columns",
                                ("word", "pos", "label"), " ", "conll2000:train")


def test_resolve_with_env_var(data_dir, no_env, monkeypatch):
    monkeypatch.setenv("CHAINTAG_DATA", str(data_dir))
    assert resolve("ud_en_ewt:dev").path == data_dir / "ud_en_ewt" / "en_ewt-ud-dev.conllu"
    corpus = load_corpus("conll2000:train")
    assert corpus.labels == [["B-NP", "B-VP"], ["B-NP", "I-NP"]]


def test_resolve_plain_paths(tmp_path):
    p = tmp_path / "x.conllu"
    p.write_text(CONLLU, encoding="utf-8")
    assert resolve(p) == DatasetFile(p, "conllu", None, None, str(p))
    q = tmp_path / "x.txt"
    q.write_text(CHUNKS, encoding="utf-8")
    assert resolve(str(q)).format == "columns"


def test_unknown_dataset_lists_choices(data_dir):
    with pytest.raises(InputError) as err:
        resolve("conl2000:train", data_dir=data_dir)
    assert "conll2000" in str(err.value) and "ptb_sample" in str(err.value)


def test_unknown_split_lists_choices(data_dir):
    with pytest.raises(InputError) as err:
        resolve("conll2000:dev", data_dir=data_dir)
    assert "conll2000:train" in str(err.value) and "conll2000:test" in str(err.value)


def test_missing_dataset_file_says_how_to_fetch(data_dir):
    with pytest.raises(InputError) as err:
        resolve("ptb_sample:train", data_dir=data_dir)
    msg = str(err.value)
    assert "chaintag data fetch ptb_sample" in msg
    assert "--data-dir" in msg and "CHAINTAG_DATA" in msg


def test_missing_plain_path(tmp_path):
    with pytest.raises(InputError) as err:
        resolve(tmp_path / "none.txt")
    assert err.value.path == str(tmp_path / "none.txt")
    with pytest.raises(InputError) as err:
        resolve("conll2000")
    assert "conll2000:train" in str(err.value)


@pytest.mark.parametrize("spec, n, expected", [
    (None, 3, (("word", "pos", None), 2)),
    (None, 2, (("word", None), 1)),
    (None, 5, (("word", "pos", "c2", "c3", None), 4)),
    ("word,pos,label", 3, (("word", "pos", None), 2)),
    ("word, _ ,label", 3, (("word", None, None), 2)),
    (["label", "word"], 2, ((None, "word"), 0)),
])
def test_parse_columns(spec, n, expected):
    assert parse_columns(spec, n) == expected


def test_parse_columns_unlabelled():
    assert parse_columns(None, 2, labelled=False) == (("word", "pos"), None)
    assert parse_columns(None, 1, labelled=False) == (("word",), None)
    assert parse_columns("word,_", 2, labelled=False) == (("word", None), None)
    assert parse_columns("word,label", 2, labelled=False) == (("word", None), 1)


@pytest.mark.parametrize("spec, n, words", [
    ("word,label", 3, "names 2 columns but the file has 3"),
    ("word,word,label", 3, "twice"),
    ("word,label,label", 3, "two label"),
    ("_,label", 2, "no feature"),
    ("word,pos", 2, "no 'label'"),
    ("word,po-s,label", 3, "not a valid column name"),
    (None, 1, "needs a token column and a label column"),
])
def test_parse_columns_errors(spec, n, words):
    with pytest.raises(InputError) as err:
        parse_columns(spec, n, path="f.txt", line=4)
    assert words in str(err.value)
    assert str(err.value).startswith("f.txt:4: ")


def test_load_corpus_columns(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("\n\n" + CHUNKS, encoding="utf-8")
    corpus = load_corpus(p)
    assert corpus == Corpus(columns=("word", "pos"),
                            tokens=[[("He", "PRP"), ("reckons", "VBZ")],
                                    [("The", "DT"), ("cat", "NN")]],
                            labels=[["B-NP", "B-VP"], ["B-NP", "I-NP"]],
                            source=str(p), lines=[3, 6])
    assert (corpus.n_sentences, corpus.n_tokens) == (2, 4)


def test_load_corpus_with_spec(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text(CHUNKS, encoding="utf-8")
    pos = load_corpus(p, columns="word,label,_")
    assert pos.columns == ("word",)
    assert pos.tokens[0] == [("He",), ("reckons",)]
    assert pos.labels == [["PRP", "VBZ"], ["DT", "NN"]]


def test_load_corpus_unlabelled(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("He PRP\nruns VBZ\n", encoding="utf-8")
    corpus = load_corpus(p, labelled=False)
    assert corpus.labels is None
    assert corpus.columns == ("word", "pos")
    assert corpus.tokens == [[("He", "PRP"), ("runs", "VBZ")]]
    again = load_corpus(p, labelled=False, columns="word,label")
    assert again.labels == [["PRP", "VBZ"]] and again.columns == ("word",)


def test_load_corpus_spec_mismatch_names_file_and_line(tmp_path):
    p = tmp_path / "c.txt"
    p.write_text("\n" + CHUNKS, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_corpus(p, columns="word,label")
    assert (err.value.path, err.value.line) == (str(p), 2)


def test_load_corpus_refs(data_dir):
    chunks = load_corpus("conll2000:train", data_dir=data_dir)
    assert chunks.source == "conll2000:train"
    assert chunks.columns == ("word", "pos")
    bio = load_corpus("jnlpba:test", data_dir=data_dir)
    assert bio.tokens == [[("IL 2",), ("gene",)]]  # tab-separated: spaces inside tokens
    assert bio.labels == [["B-protein", "O"]]
    assert bio.lines == [3]
    ud = load_corpus("ud_en_ewt:dev", data_dir=data_dir)
    assert ud.tokens == [[("I",), ("go",)]] and ud.labels == [["PRP", "VBP"]]
    assert load_corpus("ud_en_ewt:dev", data_dir=data_dir, label_field="upos").labels == [
        ["PRON", "VERB"]]


def test_load_corpus_conllu_unlabelled(tmp_path):
    p = tmp_path / "raw.conllu"
    p.write_text(CONLLU.replace("PRP", "_").replace("VBP", "_"), encoding="utf-8")
    corpus = load_corpus(p, labelled=False)
    assert corpus.columns == ("word",) and corpus.labels is None
    with pytest.raises(InputError):
        load_corpus(p)


def test_load_corpus_stdin(monkeypatch):
    stdin = io.TextIOWrapper(io.BytesIO(CHUNKS.replace("\n", "\r\n").encode()), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    corpus = load_corpus("-")
    assert corpus.source == "<stdin>"
    assert corpus.labels == [["B-NP", "B-VP"], ["B-NP", "I-NP"]]


def test_load_corpus_stdin_conllu(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(CONLLU))
    assert load_corpus("-", format="conllu").labels == [["PRP", "VBP"]]


def test_load_corpus_empty(tmp_path):
    p = tmp_path / "empty.txt"
    p.write_text("\n \n", encoding="utf-8")
    corpus = load_corpus(p)
    assert (corpus.n_sentences, corpus.n_tokens, corpus.labels, corpus.columns) == (0, 0, [], ())
    assert load_corpus(p, columns="word,pos,label").columns == ("word", "pos")


def _shared_data() -> Path | None:
    env = os.environ.get("CHAINTAG_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[1].parent / "shared" / "data")
    for c in candidates:
        if (c / "ptb_sample" / "dev.txt").is_file():
            return c
    return None


@pytest.mark.skipif(_shared_data() is None, reason="shared data directory not available")
def test_real_datasets_counts():
    root = _shared_data()
    dev = load_corpus("ptb_sample:dev", data_dir=root)
    assert (dev.n_sentences, dev.n_tokens) == (273, 6327)
    if (root / "jnlpba" / "train_gold_subset.iob2").is_file():
        gold = load_corpus("jnlpba:train_gold", data_dir=root)
        assert (gold.n_sentences, gold.n_tokens) == (1739, 47461)
    if (root / "ud_en_ewt" / "en_ewt-ud-test.conllu").is_file():
        test = load_corpus("ud_en_ewt:test", data_dir=root)
        assert (test.n_sentences, test.n_tokens) == (2077, 25094)
