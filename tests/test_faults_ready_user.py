"""Ready models and the page, as a practitioner showing results uses them: the POS pipeline's brackets,
what a span's confidence is, names in the wrong case, the data directory's places, the licence."""

from __future__ import annotations

from pathlib import Path

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.service.tagging_service import confidence_kind

ROOT = Path(__file__).resolve().parents[1]


def _fit(name, sents, labels, **kw):
    return chaintag.make_learner(name, **kw).fit(sents, labels)


def test_brackets_reach_a_chunker_as_it_read_them_in_training():
    """CoNLL-2000 writes the word ``-LRB-`` with the tag ``(``; raw text gives ``(`` and en-pos the tag
    ``-LRB-``: a chunker saw an unknown word and tag and put the brackets in chunks."""
    from chaintag.learners.spans import _piped_tokens
    chunk_train = [[("the", "DT"), ("dog", "NN"), ("-LRB-", "("), ("a", "DT"), ("cat", "NN"), ("-RRB-", ")")]] * 8
    chunk_labels = [["B-NP", "I-NP", "O", "B-NP", "I-NP", "O"]] * 8
    chunker = _fit("perceptron", chunk_train, chunk_labels, features="chunking", epochs=3, columns=["word", "pos"])
    got = _piped_tokens(chunker, [["the", "dog", "(", "a", "cat", ")", "["]],
                        [["DT", "NN", "-LRB-", "DT", "NN", "-RRB-", "-LRB-"]])
    assert got == [[("the", "DT"), ("dog", "NN"), ("-LRB-", "("), ("a", "DT"), ("cat", "NN"), ("-RRB-", ")"),
                    ("[", "(")]]  # "-LSB-" is no word of this chunker: "[" stays
    # a chunker that reads the words lowercased and the tags' suffixes sees them through its functions
    lowered = _fit("perceptron", chunk_train, chunk_labels, features="lower(w[0]);suf1(pos[0])", epochs=3,
                   columns=["word", "pos"])
    assert _piped_tokens(lowered, [["the", "("]], [["DT", "-LRB-"]]) == [[("the", "DT"), ("-LRB-", "(")]]
    pos = _fit("perceptron", [["the", "dog", "(", "a", "cat", ")"]] * 8,
               [["DT", "NN", "-LRB-", "DT", "NN", "-RRB-"]] * 8, features="pos", epochs=3)
    doc = chunker.tag_text("the dog (a cat)", pos_model=pos)
    assert [(t.text, t.label) for t in doc.tokens] == [("the", "B-NP"), ("dog", "I-NP"), ("(", "O"), ("a", "B-NP"),
                                                       ("cat", "I-NP"), (")", "O")]


def test_the_server_says_what_a_span_confidence_is():
    """The page showed the perceptron's spans at 1.00 (2,734 of 2,929 at >= 0.995, 73 % right) as if
    they were probabilities."""
    sents, labels = [["John", "runs"], ["Mary", "sleeps"]] * 4, [["B-PER", "O"], ["B-PER", "O"]] * 4
    assert confidence_kind(_fit("perceptron", sents, labels, features="w[0]", epochs=2)) == "relative"
    assert confidence_kind(_fit("mira", sents, labels, features="w[0]", epochs=2)) == "relative"
    assert confidence_kind(_fit("crf", sents, labels, features="w[0]", epochs=2)) == "probability"
    assert confidence_kind(_fit("sapo", sents, labels, features="w[0]", epochs=2)) == "probability"
    assert confidence_kind(_fit("perceptron2", sents, labels, features="w[0]", epochs=2)) is None
    page = (ROOT / "src/chaintag/service/static/page.js").read_text(encoding="utf-8")
    assert "info.confidence" in page and "(relative)" in page


def test_a_ready_models_name_in_another_case_is_named(capsys):
    assert main(["inspect", "EN-POS"]) == 2
    assert "model names are lower case: en-pos" in capsys.readouterr().err


def test_inspect_of_a_ready_model_names_its_data_and_licence(capsys):
    assert main(["inspect", "en-pos", "--top", "0"]) == 0
    out = capsys.readouterr().out
    assert "ready model: trained on ud_en_ewt:train; licence CC BY-SA 4.0" in out


def test_a_place_not_used_for_the_data_directory_is_not_called_not_set(monkeypatch, tmp_path):
    from chaintag.data.location import data_dir_places
    monkeypatch.setenv("CHAINTAG_DATA", str(tmp_path))
    text = data_dir_places(tmp_path / "given")
    assert f"CHAINTAG_DATA={tmp_path} (not used: an earlier place is)" in text and "(not set)" not in text


def test_the_code_carries_its_licence_text():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "CC BY-SA 4.0" in text


def test_raw_text_advice_names_en_pos_only_for_penn_treebank_tags():
    """A chunker of CoNLL-2002's Spanish tags (NP, VM, Fc) was told to take --pos-model en-pos, which then
    refused it: 0 of en-pos's 49 labels are its tags."""
    from chaintag.errors import InputError
    spanish = _fit("perceptron", [[("Juan", "NP"), ("vive", "VM"), (",", "Fc")]] * 4, [["B-PER", "O", "O"]] * 4,
                   features="w[0];pos[0]", epochs=1, columns=["word", "pos"])
    with pytest.raises(InputError) as info:
        spanish.tag_text("Juan vive.")
    assert "a model of this model's tags (Fc, NP, VM, ...)" in str(info.value) and "en-pos" not in str(info.value)
    assert "train on the words alone" in str(info.value)
    english = _fit("perceptron", [[("John", "NNP"), ("lives", "VBZ"), (",", ",")]] * 4, [["B-PER", "O", "O"]] * 4,
                   features="w[0];pos[0]", epochs=1, columns=["word", "pos"])
    with pytest.raises(InputError, match=r"--pos-model en-pos"):
        english.tag_text("John lives.")
