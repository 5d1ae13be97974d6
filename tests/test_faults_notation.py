"""Chunk labels in other notations: B_PER (MSRA-style), PER-B and PER_B (the prefix after the type,
seqeval's suffix=True). Detected from the labels or given; scored, and read into spans, exactly as
the same labels written B-PER."""

from __future__ import annotations

import json

import pytest

from chaintag.cli.main import main
from chaintag.evaluation import evaluate
from chaintag.evaluation.chunks import extract_chunks, label_spans
from chaintag.evaluation.schemes import detect_notation, detect_scheme, resolve_notation, split_scheme_spec
from chaintag.features.gazetteer import Gazetteer

# gold and predicted labels in the usual notation (B-PER), two sentences; then rewritten
GOLD = [["B-PER", "I-PER", "O", "B-ORG", "I-ORG", "I-ORG"], ["O", "B-LOC", "B-LOC", "O"]]
PRED = [["B-PER", "I-PER", "O", "B-ORG", "O", "B-ORG"], ["O", "B-LOC", "B-LOC", "B-PER"]]
BILOU_GOLD = [["U-PER", "O", "B-ORG", "I-ORG", "L-ORG"]]
BILOU_PRED = [["U-PER", "O", "B-ORG", "L-ORG", "U-ORG"]]


def rewrite(seqs, notation):
    """Labels of ``seqs`` (written B-X) in ``notation``."""
    out = []
    for seq in seqs:
        row = []
        for lab in seq:
            if lab == "O":
                row.append(lab)
                continue
            prefix, _, typ = lab.partition("-")
            row.append({"B-X": f"{prefix}-{typ}", "B_X": f"{prefix}_{typ}",
                        "X-B": f"{typ}-{prefix}", "X_B": f"{typ}_{prefix}"}[notation])
        out.append(row)
    return out


NOTATIONS = ["B-X", "B_X", "X-B", "X_B"]


def test_detect_notation_prefers_the_usual_on_a_tie():
    assert detect_notation({"B-PER": 2, "O": 1}) == "B-X"
    assert detect_notation({"B_PER": 2, "I_PER": 1}) == "B_X"
    assert detect_notation({"PER-B": 2, "PER-I": 1}) == "X-B"
    assert detect_notation({"PER_B": 2, "O": 1}) == "X_B"
    assert detect_notation({"O": 3}) == "B-X"
    assert detect_notation({"B-I": 1}) == "B-X"  # read both ways: the usual one wins
    # types holding the other separator stay whole
    assert detect_notation({"B-CARDINAL_NUM": 3, "O": 1}) == "B-X"
    assert detect_scheme([["B-CARDINAL_NUM", "I-CARDINAL_NUM"]]).read["I-CARDINAL_NUM"] == ("I", "CARDINAL_NUM")
    assert resolve_notation("suffix") == ("X-B", "X_B") and resolve_notation("B_X") == ("B_X",)
    assert split_scheme_spec("iob2:suffix") == ("iob2", "suffix") and split_scheme_spec("bilou") == ("bilou", "auto")
    with pytest.raises(ValueError, match="unknown label format"):
        resolve_notation("middle")


@pytest.mark.parametrize("notation", NOTATIONS)
def test_every_notation_scores_as_the_usual_one(notation):
    base = evaluate(GOLD, PRED)
    # gold PER ORG | LOC LOC; predicted PER ORG ORG | LOC LOC PER; right: PER, LOC, LOC
    assert (base.n_gold_chunks, base.n_pred_chunks, base.n_correct_chunks) == (4, 6, 3)
    assert (base.precision, base.recall, round(base.f1, 2), base.accuracy) == (50.0, 75.0, 60.0, 70.0)
    r = evaluate(rewrite(GOLD, notation), rewrite(PRED, notation))
    assert (r.precision, r.recall, r.f1, r.accuracy) == (base.precision, base.recall, base.f1, base.accuracy)
    assert r.per_type == base.per_type and r.scheme == "iob2" and r.label_format == notation
    assert r.to_dict()["label_format"] == notation
    if notation != "B-X":
        example = {"B_X": "B_PER", "X-B": "PER-B", "X_B": "PER_B"}[notation]
        assert f"({example})" in r.describe_scheme()
    # BILOU in the same notation
    b = evaluate(rewrite(BILOU_GOLD, notation), rewrite(BILOU_PRED, notation))
    assert b.scheme == "bilou" and (b.n_gold_chunks, b.n_pred_chunks, b.n_correct_chunks) == (2, 3, 1)


@pytest.mark.parametrize("notation", NOTATIONS)
def test_spans_are_read_by_the_same_logic(notation):
    spans = label_spans(rewrite(GOLD, notation))
    assert spans == [extract_chunks(seq) for seq in GOLD]
    assert spans[0] == [("PER", 0, 2), ("ORG", 3, 6)]
    assert label_spans(rewrite(BILOU_GOLD, notation)) == [[("PER", 0, 1), ("ORG", 2, 5)]]
    assert label_spans([["NN", "VB"]]) == [[]]  # not chunk labels


def test_a_given_format_and_the_scheme_spec():
    gold, pred = rewrite(GOLD, "X-B"), rewrite(PRED, "X-B")
    assert evaluate(gold, pred, label_format="suffix").f1 == evaluate(GOLD, PRED).f1
    assert evaluate(gold, pred, scheme="iob2:suffix").f1 == evaluate(GOLD, PRED).f1
    wrong = evaluate(gold, pred, scheme="iob2", label_format="prefix")
    assert wrong.n_gold_chunks == 0 and set(wrong.stray_gold) == {lab for s in gold for lab in s} - {"O"}


def test_gazetteer_reads_the_training_spans_in_any_notation():
    rows = [[("IL-2",), ("binds",), ("NF-kappa",), ("B",)]]
    for notation in NOTATIONS:
        labels = rewrite([["B-protein", "O", "B-protein", "I-protein"]], notation)
        gaz = Gazetteer.build(rows, labels, ["train"], folds=2)
        assert ("NF-kappa", "B") in gaz.entries and ("IL-2",) in gaz.entries


def _write(tmp_path, name, gold, pred):
    path = tmp_path / name
    path.write_text("\n".join("\n".join(f"w{i} {g} {p}" for i, (g, p) in enumerate(zip(gs, ps))) + "\n"
                              for gs, ps in zip(gold, pred)), encoding="utf-8")
    return str(path)


def test_cli_eval_detects_and_takes_the_format(tmp_path, capsys):
    path = _write(tmp_path, "gp.txt", rewrite(GOLD, "X_B"), rewrite(PRED, "X_B"))
    assert main(["eval", path]) == 0
    out = capsys.readouterr().out
    assert "accuracy:  70.00%; precision:  50.00%; recall:  75.00%; FB1:  60.00" in out
    # how the scheme was chosen follows the scheme's name, not the notation (which was detected too)
    assert "scheme: IOB2 (detected from the labels), labels written type_prefix (PER_B)" in out
    assert main(["eval", path, "--scheme", "iob2", "--label-format", "suffix"]) == 0
    assert "scheme: IOB2 (given), labels written type_prefix (PER_B)" in capsys.readouterr().out
    assert main(["eval", path, "--json"]) == 0
    fig = json.loads(capsys.readouterr().out)
    assert fig["label_format"] == "X_B" and round(fig["f1"], 2) == 60.0
    # given, in either order with --scheme
    for args in (["--label-format", "suffix", "--scheme", "iob2"], ["--scheme", "iob2", "--label-format", "x_b"]):
        assert main(["eval", path, "--json"] + args) == 0
        assert round(json.loads(capsys.readouterr().out)["f1"], 2) == 60.0
    assert main(["eval", path, "--label-format", "prefix"]) == 0
    assert "labels are not chunk labels" in capsys.readouterr().out  # read as B_PER: none is


def test_cli_train_scores_chunks_in_such_labels(tmp_path, capsys):
    sents = [[("Li", "B_PER"), ("Si", "I_PER"), ("in", "O"), ("Bei", "B_LOC"), ("jing", "I_LOC")],
             [("Wang", "B_PER"), ("went", "O"), ("to", "O"), ("Bei", "B_LOC"), ("jing", "I_LOC")]] * 3
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {lab}" for w, lab in s) for s in sents) + "\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--test", str(train), "--model", str(model), "-a", "perceptron",
                 "--epochs", "3", "--features", "w[0];w[-1];w[1]", "--json", "--quiet"]) == 0
    fig = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    test = fig.get("test", fig)
    assert test["is_chunking"] is True and test["label_format"] == "B_X" and test["f1"] == 100.0
