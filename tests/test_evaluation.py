"""Tests of chaintag.evaluation against hand-worked conlleval figures."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chaintag.evaluation import (
    EvalResult,
    conlleval_report,
    evaluate,
    extract_chunks,
    token_accuracy,
)
from chaintag.evaluation.chunks import split_label


# --------------------------------------------------------------------------
# Label splitting
# --------------------------------------------------------------------------

def test_split_label_first_hyphen_and_bare_tags():
    assert split_label("B-NP") == ("B", "NP")
    assert split_label("I-GPE-ORG") == ("I", "GPE-ORG")
    assert split_label("O") == ("O", "")
    assert split_label("NN") == ("NN", "")
    with pytest.raises(TypeError):
        split_label(3)


# --------------------------------------------------------------------------
# Chunk extraction
# --------------------------------------------------------------------------

def test_iob2_basic():
    labels = ["B-NP", "I-NP", "O", "B-VP", "B-NP", "I-NP", "I-NP"]
    assert extract_chunks(labels) == [("NP", 0, 2), ("VP", 3, 4), ("NP", 4, 7)]


def test_iob1_i_after_o_starts_and_b_separates_same_type():
    # IOB1: a chunk normally starts with I; B only marks the first token of a
    # chunk that directly follows another chunk of the same type.
    labels = ["I-NP", "I-NP", "B-NP", "I-NP", "O", "I-VP", "I-NP"]
    assert extract_chunks(labels) == [("NP", 0, 2), ("NP", 2, 4), ("VP", 5, 6), ("NP", 6, 7)]


def test_iob1_and_iob2_of_the_same_chunks_score_100_chunk_f1():
    iob1 = [["I-NP", "I-NP", "B-NP", "O", "I-VP"]]
    iob2 = [["B-NP", "I-NP", "B-NP", "O", "B-VP"]]
    r = evaluate(iob1, iob2)
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (3, 3, 3)
    assert r.precision == r.recall == r.f1 == 100.0
    # Labels differ on tokens 0 and 4: accuracy compares labels, not chunks.
    assert r.n_correct_tokens == 3
    assert r.accuracy == pytest.approx(60.0)


def test_iobes():
    labels = ["S-PER", "B-ORG", "I-ORG", "E-ORG", "S-ORG", "O",
              "B-LOC", "E-LOC", "B-LOC", "E-LOC"]
    assert extract_chunks(labels) == [
        ("PER", 0, 1), ("ORG", 1, 4), ("ORG", 4, 5), ("LOC", 6, 8), ("LOC", 8, 10)]


def test_ioe_style_end_tags():
    # E closes a chunk; I or E right after it opens the next one.
    assert extract_chunks(["I-NP", "E-NP", "I-NP", "E-NP"]) == [("NP", 0, 2), ("NP", 2, 4)]
    assert extract_chunks(["E-NP", "E-NP"]) == [("NP", 0, 1), ("NP", 1, 2)]
    assert extract_chunks(["S-NP", "I-NP", "E-NP"]) == [("NP", 0, 1), ("NP", 1, 3)]


def test_i_after_a_different_type_starts_a_new_chunk():
    assert extract_chunks(["B-NP", "I-VP", "I-VP"]) == [("NP", 0, 1), ("VP", 1, 3)]
    assert extract_chunks(["B-NP", "I-NP", "E-VP"]) == [("NP", 0, 2), ("VP", 2, 3)]
    assert extract_chunks(["I-PER", "I-LOC", "I-PER"]) == [
        ("PER", 0, 1), ("LOC", 1, 2), ("PER", 2, 3)]


def test_chunk_at_sentence_end_and_i_at_next_sentence_start_are_two_chunks():
    gold = [["O", "B-NP"], ["I-NP", "O"]]
    pred = [["O", "B-NP"], ["B-NP", "O"]]
    assert extract_chunks(gold[1]) == [("NP", 0, 1)]
    r = evaluate(gold, pred)
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (2, 2, 2)
    assert r.f1 == 100.0
    assert r.n_correct_tokens == 3
    assert r.accuracy == pytest.approx(75.0)


def test_bare_tags_have_an_empty_type_and_form_no_chunks():
    # conlleval reads "NN" as prefix "NN" with an empty type: no chunks.
    assert extract_chunks(["NN", "VB", "DT", "NN"]) == []
    r = evaluate([["NN", "VB", "DT"]], [["NN", "NN", "DT"]])
    assert r.n_gold_chunks == r.n_pred_chunks == 0
    assert r.per_type == {}
    assert r.accuracy == pytest.approx(200.0 / 3.0)


def test_bracket_and_dot_tags():
    # "[" and "]" chunks have length one; "." is outside any chunk.
    assert extract_chunks(["[-NP", "]-NP", "O", "[-VP"]) == [
        ("NP", 0, 1), ("NP", 1, 2), ("VP", 3, 4)]
    assert extract_chunks([".", "I-NP", "I-NP", ".", "B-NP"]) == [("NP", 1, 3), ("NP", 4, 5)]


def test_extract_chunks_edge_cases():
    assert extract_chunks([]) == []
    assert extract_chunks(["O", "O"]) == []
    assert extract_chunks(["I-X"]) == [("X", 0, 1)]
    assert extract_chunks(("B-A-B", "I-A-B")) == [("A-B", 0, 2)]
    with pytest.raises(TypeError):
        extract_chunks("B-NP")


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------

def test_wrong_boundary_or_type_is_not_correct():
    r = evaluate([["B-NP", "I-NP", "O", "B-PP"]], [["B-NP", "O", "O", "B-VP"]])
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (2, 2, 0)
    assert r.precision == r.recall == r.f1 == 0.0
    assert r.n_correct_tokens == 2


def test_type_only_in_gold_is_reported_with_zero_precision_and_recall():
    r = evaluate([["B-PER", "I-PER", "O", "B-LOC"]], [["B-PER", "I-PER", "O", "O"]])
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (2, 1, 1)
    assert r.precision == 100.0
    assert r.recall == 50.0
    assert r.f1 == pytest.approx(200.0 / 3.0)
    assert r.per_type["LOC"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                                 "n_gold": 1, "n_pred": 0, "n_correct": 0}
    assert r.per_type["PER"] == {"precision": 100.0, "recall": 100.0, "f1": 100.0,
                                 "n_gold": 1, "n_pred": 1, "n_correct": 1}
    assert list(r.per_type) == ["LOC", "PER"]


def test_type_only_in_predictions_is_reported_with_zero_recall():
    r = evaluate([["B-PER", "O", "O"]], [["B-PER", "O", "B-ORG"]])
    assert (r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks) == (1, 2, 1)
    assert r.precision == 50.0
    assert r.recall == 100.0
    assert r.f1 == pytest.approx(200.0 / 3.0)
    assert r.per_type["ORG"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0,
                                 "n_gold": 0, "n_pred": 1, "n_correct": 0}


def test_no_predicted_chunks_gives_zero_precision():
    r = evaluate([["B-PER", "O"]], [["O", "O"]])
    assert (r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0)
    assert r.accuracy == 50.0


def test_empty_input():
    r = evaluate([], [])
    assert isinstance(r, EvalResult)
    assert (r.n_sentences, r.n_tokens, r.n_gold_chunks, r.n_pred_chunks,
            r.n_correct_chunks, r.n_correct_tokens) == (0, 0, 0, 0, 0, 0)
    assert (r.accuracy, r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0, 0.0)
    assert r.per_type == {}
    # conlleval prints no score line when it has seen no tokens.
    assert conlleval_report(r) == (
        "processed 0 tokens with 0 phrases; found: 0 phrases; correct: 0.\n")
    r = evaluate([[], []], [[], []])
    assert (r.n_sentences, r.n_tokens) == (2, 0)
    assert token_accuracy([], []) == 0.0


def test_mismatched_sentence_counts_raise():
    with pytest.raises(ValueError, match="gold has 2 sentences but pred has 1"):
        evaluate([["O"], ["O"]], [["O"]])


def test_mismatched_sentence_lengths_raise_with_index_and_lengths():
    with pytest.raises(ValueError, match="sentence 1: gold has 3 labels but pred has 2"):
        evaluate([["O"], ["O", "B-X", "I-X"]], [["O"], ["O", "B-X"]])
    with pytest.raises(ValueError, match="sentence 0: gold has 1 label but pred has 2"):
        token_accuracy([["O"]], [["O", "O"]])


def test_a_flat_string_sentence_is_rejected():
    with pytest.raises(TypeError):
        evaluate(["B-X"], ["B-X"])
    with pytest.raises(TypeError):
        evaluate("B-X", "B-X")


def test_to_dict_is_json_ready():
    r = evaluate([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER", "B-LOC"]])
    d = r.to_dict()
    for key in ("f1", "precision", "recall", "accuracy", "per_type", "n_sentences", "n_tokens",
                "n_gold_chunks", "n_pred_chunks", "n_correct_chunks", "n_correct_tokens"):
        assert key in d
    assert set(d["per_type"]) == {"LOC", "PER"}
    assert set(d["per_type"]["PER"]) == {"precision", "recall", "f1", "n_gold", "n_pred",
                                         "n_correct"}
    assert json.loads(json.dumps(d)) == d
    d["per_type"]["PER"]["n_gold"] = 99
    assert r.per_type["PER"]["n_gold"] == 1


# --------------------------------------------------------------------------
# Token accuracy
# --------------------------------------------------------------------------

def test_token_accuracy_nested_and_flat():
    gold = [["B-NP", "I-NP", "O"], ["B-VP"]]
    pred = [["B-NP", "B-NP", "O"], ["B-VP"]]
    assert token_accuracy(gold, pred) == 75.0
    assert token_accuracy(gold, pred) == evaluate(gold, pred).accuracy
    assert token_accuracy(["NN", "VB"], ["NN", "NN"]) == 50.0
    with pytest.raises(ValueError, match="gold has 2 labels but pred has 1"):
        token_accuracy(["NN", "VB"], ["NN"])
    with pytest.raises(ValueError, match="shapes"):
        token_accuracy(["NN"], [["NN"]])
    with pytest.raises(ValueError, match="gold has 1 sentence but pred has 2"):
        token_accuracy([["NN"]], [["NN"], ["VB"]])


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def test_report_small_case_line_by_line():
    gold = [["B-PER", "I-PER", "O", "B-LOC", "O"], ["B-LOC", "O", "B-MISC"]]
    pred = [["B-PER", "I-PER", "O", "B-ORG", "O"], ["B-LOC", "O", "O"]]
    # 8 tokens, 6 labels right: accuracy 75.00.
    # Gold chunks: PER, LOC, LOC, MISC (4); predicted: PER, ORG, LOC (3);
    # correct: PER and the second LOC (2).
    # P = 2/3 = 66.67, R = 2/4 = 50.00, F = 2*66.667*50/116.667 = 57.14.
    # LOC: 1 of 1 predicted right, 1 of 2 found: P 100, R 50, F 66.67.
    expected = [
        "processed 8 tokens with 4 phrases; found: 3 phrases; correct: 2.",
        "accuracy:  75.00%; precision:  66.67%; recall:  50.00%; FB1:  57.14",
        "              LOC: precision: 100.00%; recall:  50.00%; FB1:  66.67  1",
        "             MISC: precision:   0.00%; recall:   0.00%; FB1:   0.00  0",
        "              ORG: precision:   0.00%; recall:   0.00%; FB1:   0.00  1",
        "              PER: precision: 100.00%; recall: 100.00%; FB1: 100.00  1",
    ]
    text = conlleval_report(evaluate(gold, pred))
    assert text.endswith("\n")
    assert text.splitlines() == expected


def test_report_layout_of_published_figures():
    stats = {"precision": 80.29, "recall": 73.52, "f1": 76.76,
             "n_gold": 437, "n_pred": 401, "n_correct": 322}
    result = EvalResult(
        accuracy=100.0 * 45425 / 47377,
        precision=100.0 * 22231 / 23857,
        recall=100.0 * 22231 / 23852,
        f1=93.19,
        per_type={"ADJP": stats},
        n_sentences=2012,
        n_tokens=47377,
        n_gold_chunks=23852,
        n_pred_chunks=23857,
        n_correct_chunks=22231,
        n_correct_tokens=45425,
    )
    assert conlleval_report(result).splitlines() == [
        "processed 47377 tokens with 23852 phrases; found: 23857 phrases; correct: 22231.",
        "accuracy:  95.88%; precision:  93.18%; recall:  93.20%; FB1:  93.19",
        "             ADJP: precision:  80.29%; recall:  73.52%; FB1:  76.76  401",
    ]


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

ALPHABET = ["O"] + [f"{p}-{t}" for p in "BIES" for t in ("PER", "LOC", "ORG")]


@st.composite
def aligned_corpora(draw):
    lengths = draw(st.lists(st.integers(min_value=0, max_value=12), max_size=6))
    label = st.sampled_from(ALPHABET)
    gold = [draw(st.lists(label, min_size=n, max_size=n)) for n in lengths]
    pred = [draw(st.lists(label, min_size=n, max_size=n)) for n in lengths]
    return gold, pred


@settings(max_examples=300, deadline=None)
@given(aligned_corpora())
def test_scores_are_bounded_and_counts_consistent(corpora):
    gold, pred = corpora
    r = evaluate(gold, pred)
    for value in (r.accuracy, r.precision, r.recall, r.f1):
        assert 0.0 <= value <= 100.0
    assert r.n_correct_chunks <= min(r.n_gold_chunks, r.n_pred_chunks)
    assert sum(s["n_gold"] for s in r.per_type.values()) == r.n_gold_chunks
    assert sum(s["n_pred"] for s in r.per_type.values()) == r.n_pred_chunks
    assert sum(s["n_correct"] for s in r.per_type.values()) == r.n_correct_chunks
    for stats in r.per_type.values():
        for key in ("precision", "recall", "f1"):
            assert 0.0 <= stats[key] <= 100.0
        assert stats["n_gold"] + stats["n_pred"] > 0
    assert r.n_tokens == sum(len(s) for s in gold)
    assert r.accuracy == token_accuracy(gold, pred)
    report = conlleval_report(r)
    assert len(report.splitlines()) == (2 if r.n_tokens else 1) + len(r.per_type)


@settings(max_examples=300, deadline=None)
@given(aligned_corpora())
def test_gold_against_itself_scores_100(corpora):
    gold, _ = corpora
    r = evaluate(gold, gold)
    if r.n_tokens:
        assert r.accuracy == 100.0
    if r.n_gold_chunks:
        assert r.precision == r.recall == r.f1 == 100.0
        for stats in r.per_type.values():
            assert stats["precision"] == stats["recall"] == stats["f1"] == 100.0
            assert stats["n_gold"] == stats["n_pred"] == stats["n_correct"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=20))
def test_chunks_are_ordered_disjoint_and_cover_chunk_tags(labels):
    chunks = extract_chunks(labels)
    covered = set()
    previous_end = 0
    for kind, start, end in chunks:
        assert previous_end <= start < end <= len(labels)
        previous_end = end
        for i in range(start, end):
            assert labels[i].split("-", 1)[1] == kind
            covered.add(i)
    # Every token with a B/I/E/S label is inside a chunk; O never is.
    assert covered == {i for i, label in enumerate(labels) if label != "O"}
