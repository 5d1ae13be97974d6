"""Faults found by a user tagging raw text (spans out), each as a kind."""

import pytest

import chaintag
from chaintag.errors import InputError

from toy_corpus import LABELS, SENTS

WORDS = [[w for w, _ in s] for s in SENTS]
TAGS = [[p for _, p in s] for s in SENTS]


@pytest.fixture(scope="module")
def models():
    chunker = chaintag.StructuredPerceptron(features="w[0];pos[0];pos[-1]", columns=("word", "pos"),
                                            epochs=3).fit(SENTS, LABELS)
    pos = chaintag.StructuredPerceptron(features="w[0];w[-1]", columns=("word",), epochs=3).fit(WORDS, TAGS)
    chunks_of_words = chaintag.StructuredPerceptron(features="w[0];w[-1]", columns=("word",),
                                                    epochs=3).fit(WORDS, LABELS)
    return chunker, pos, chunks_of_words


def test_a_pos_model_of_other_labels_is_refused(models):
    """--pos-model took any model that reads words: an NER model's labels (or Universal tags for a
    chunker of Penn Treebank tags) were fed as POS tags and the chunks came out wrong, exit 0."""
    chunker, pos, chunks_of_words = models
    doc = chunker.tag_text("the dog barks here", pos_model=pos)
    assert [t.label for t in doc.tokens] == chunker.predict([list(zip(*[["the", "dog", "barks", "here"],
                                                                         pos.predict([["the", "dog", "barks",
                                                                                       "here"]])[0]]))])[0]
    with pytest.raises(InputError, match="the POS model's labels are not the POS tags this model was trained on: "
                                         "0 of its 4 labels"):
        chunker.tag_text("the dog barks", pos_model=chunks_of_words)


def test_a_pos_model_for_a_model_of_words_is_refused(models):
    """--pos-model with a model that reads the words alone was ignored without a word."""
    _, pos, chunks_of_words = models
    with pytest.raises(InputError, match="this model reads the words alone: leave out --pos-model"):
        chunks_of_words.tag_text("the dog barks", pos_model=pos)


def test_documents_know_their_line_and_stay_within_the_cap(tmp_path, monkeypatch):
    """Documents could pass the cap by a whole line (1,650,001 characters for lines of 825,000), and a JSON
    line did not say where in the file its paragraph was."""
    from chaintag.api import text_tagging
    monkeypatch.setattr(text_tagging, "MAX_DOCUMENT_CHARS", 40)
    path = tmp_path / "in.txt"
    path.write_text("first para\n\nsecond para line one\nsecond para line two\nand three\n\n"
                    + "word " * 20 + "\n")
    docs = list(text_tagging.iter_documents(str(path)))
    assert all(len(d.text) < 40 for d in docs)
    assert [(d.line, d.text) for d in docs] == [
        (1, "first para"), (3, "second para line one"), (4, "second para line two\nand three"),
        (7, "word word word word word word word"), (7, "word word word word word word word"),
        (7, "word word word word word word ")]  # the line's own last space
    assert docs[0].to_dict()["line"] == 1
    words = [[w for w, _ in s] for s in SENTS]
    model = chaintag.StructuredPerceptron(features="w[0]", columns=("word",), epochs=2).fit(words, LABELS)
    out = tmp_path / "out.jsonl"
    text_tagging.tag_text_file(model, str(path), str(out))
    import json
    assert [json.loads(line)["line"] for line in out.read_text().splitlines()] == [1, 3, 4, 7, 7, 7]
