"""Tests of ``chaintag compare``: learner specs, the chosen epoch, p-values and the report files."""

from __future__ import annotations

import csv
import json

import pytest

from chaintag.cli.main import main
from chaintag.experiments.compare import compare, parse_learner

SENTS = [
    [("He", "PRP", "B-NP"), ("reckons", "VBZ", "B-VP"), ("the", "DT", "B-NP"), ("deficit", "NN", "I-NP")],
    [("The", "DT", "B-NP"), ("cat", "NN", "I-NP"), ("sat", "VBD", "B-VP"), ("down", "RP", "B-PRT")],
    [("A", "DT", "B-NP"), ("dog", "NN", "I-NP"), ("ran", "VBD", "B-VP"), (".", ".", "O")],
    [("She", "PRP", "B-NP"), ("saw", "VBD", "B-VP"), ("a", "DT", "B-NP"), ("bird", "NN", "I-NP")],
]


def _file(tmp_path, name, sents):
    path = tmp_path / name
    path.write_text("".join("".join(" ".join(t) + "\n" for t in s) + "\n" for s in sents), encoding="utf-8")
    return str(path)


def test_parse_learner():
    assert parse_learner("perceptron") == ("perceptron", {})
    assert parse_learner("sapo:n_best=10,l2=0.5,lr-schedule=fixed,averaged=true") == \
        ("sapo", {"n_best": 10, "l2": 0.5, "lr_schedule": "fixed", "averaged": True})
    with pytest.raises(ValueError, match="not key=value"):
        parse_learner("sapo:n_best")
    with pytest.raises(ValueError, match="no learner name"):
        parse_learner(":n_best=3")


def test_compare_reads_the_dev_chosen_epoch_and_tests_against_the_first(tmp_path):
    train = _file(tmp_path, "train.txt", SENTS * 3)
    dev = _file(tmp_path, "dev.txt", SENTS[:2])
    test = _file(tmp_path, "test.txt", SENTS[2:])
    out = tmp_path / "cmp"
    learners = ["perceptron", "perceptron:averaged=true", "perceptron:averaged=false", "sapo"]
    path, rows = compare(out, learners, features="w[0];pos[0]", train=train, test=test, dev=dev, epochs=3,
                         progress=False)
    assert [r["learner"] for r in rows] == learners
    curves = list(csv.DictReader((out / "curves.csv").open(encoding="utf-8")))
    for row in rows:
        mine = [c for c in curves if c["learner"] == row["learner"]]
        devs = [float(c["dev_score"]) for c in mine]
        best = devs.index(max(devs)) + 1  # first best dev epoch
        assert row["epoch"] == best
        assert row["score"] == pytest.approx(float(mine[best - 1]["test_score"]))
    # the reference has no p-value; the same learner spelled twice is the same system: p = 1
    assert rows[0]["ar_p"] is None and rows[0]["t_p"] is None
    assert rows[1]["score"] == rows[0]["score"] and rows[1]["ar_p"] == 1.0
    assert all(0.0 <= r["ar_p"] <= 1.0 for r in rows[1:])
    report = path.read_text(encoding="utf-8")
    assert "best epoch on the development data" in report and "| perceptron:averaged=false |" in report
    assert (out / "curves.png").read_bytes()[:4] == b"\x89PNG"
    assert list(csv.reader((out / "results.csv").open(encoding="utf-8")))[0][:3] == ["learner", "epoch", "score"]
    # a second invocation reads every run back
    compare(out, learners, features="w[0];pos[0]", train=train, test=test, dev=dev, epochs=3, progress=False)
    entries = [json.loads(line) for line in (out / "invocations.jsonl").read_text().splitlines()]
    assert [e["passes_trained"] for e in entries] == [12, 0]


def test_compare_without_dev_reads_the_last_epoch(tmp_path, capsys):
    train = _file(tmp_path, "train.txt", SENTS * 2)
    test = _file(tmp_path, "test.txt", SENTS[1:])
    out = tmp_path / "cmp"
    assert main(["compare", "-a", "perceptron", "maxent", "--features", "w[0]", "--train", train, "--test", test,
                 "--epochs", "2", "--out", str(out), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("learner") and lines[1].split()[:2] == ["perceptron", "2"]
    assert lines[2].split()[:2] == ["maxent", "1"]  # trained once
    report = (out / "README.md").read_text(encoding="utf-8")
    assert "the last one (no development data was given)" in report and "dashed" in report


@pytest.mark.parametrize("specs, message", [
    (["perceptron", "nope"], "unknown learner"),
    (["perceptron", "sapo:n_best"], "not key=value"),
    (["perceptron", "sapo:epochs=3"], "--epochs"),
    (["perceptron", "sapo:bogus=1"], "bogus"),
    (["perceptron", "perceptron"], "once"),
])
def test_compare_refuses_bad_specs(tmp_path, capsys, specs, message):
    train = _file(tmp_path, "train.txt", SENTS)
    assert main(["compare", "-a", *specs, "--features", "w[0]", "--train", train, "--test", train,
                 "--epochs", "1", "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert message in capsys.readouterr().err
