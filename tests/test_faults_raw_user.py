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
