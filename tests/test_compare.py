"""Tests of ``chaintag compare``: learner specs, the chosen epoch, p-values and the report files."""

from __future__ import annotations

import csv
import json

import pytest

from chaintag.cli.main import main
from chaintag_research.compare import compare, parse_learner

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


def test_a_changed_template_file_is_retrained(tmp_path):
    train = _file(tmp_path, "train.txt", SENTS * 2)
    test = _file(tmp_path, "test.txt", SENTS[1:])
    feats = tmp_path / "feats.txt"
    feats.write_text("w[0]\n", encoding="utf-8")
    out = tmp_path / "cmp"
    kw = dict(features=str(feats), train=train, test=test, epochs=2, progress=False)
    compare(out, ["perceptron"], **kw)
    feats.write_text("w[0]\npos[0]\n", encoding="utf-8")
    compare(out, ["perceptron"], **kw)
    entries = [json.loads(line) for line in (out / "invocations.jsonl").read_text().splitlines()]
    assert [e["passes_trained"] for e in entries] == [2, 2]


@pytest.mark.parametrize("args, message", [
    (["--dev", "EMPTY"], "dev data: no sentences"),
    (["--test", "EMPTY"], "test data: no sentences"),
    (["--test", "POS"], "test data has the columns word besides the labels, the training data word, pos"),
    (["-a", "perceptron:averaged=maybe"], "averaged takes true or false"),
    (["-a", "sapo:n_best=2.5"], "n_best takes an integer"),
    (["-a", "perceptron:random_state=null"], "random_state takes an integer"),
    (["-a", "crf:l2=[1]"], "a single value"),
    (["--out", "FILE"], "--out names a file"),
])
def test_compare_refuses_bad_data_and_values(tmp_path, capsys, args, message):
    train = _file(tmp_path, "train.txt", SENTS)
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    pos = _file(tmp_path, "pos.txt", [[(w, p) for w, p, _ in s] for s in SENTS])
    names = {"EMPTY": str(empty), "POS": pos, "FILE": train}
    args = [names.get(a, a) for a in args]
    base = {"-a": ["perceptron", "sapo"], "--test": [train], "--out": [str(tmp_path / "o")]}
    for opt in list(base):
        if opt in args:
            i = args.index(opt)
            base[opt] = ["perceptron", args[i + 1]] if opt == "-a" else [args[i + 1]]
            del args[i:i + 2]
    argv = ["compare", "-a", *base["-a"], "--features", "w[0]", "--train", train, "--test", *base["--test"],
            "--epochs", "1", "--out", *base["--out"], "--quiet", *args]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_compare_reads_with_the_data_options_and_records_a_runnable_command(tmp_path, capsys):
    sents = [[(w, lab) for w, _, lab in s] for s in SENTS]
    path = tmp_path / "my data.tsv"
    path.write_text("".join("".join(f"{lab}\t{w}\n" for w, lab in s) + "\n" for s in sents), encoding="utf-8")
    out = tmp_path / "my out"
    assert main(["compare", "-a", "perceptron", "--features", "w[0];w[-1]", "--train", str(path), "--test", str(path),
                 "--columns", "label,word", "--sep", "tab", "--epochs", "2", "--out", str(out), "--quiet"]) == 0
    report = (out / "README.md").read_text(encoding="utf-8")
    import shlex
    line = next(ln for ln in report.splitlines() if ln.startswith("- Command: "))
    argv = shlex.split(line[len("- Command: `"):line.index("`. Machine")])
    assert argv[:2] == ["chaintag", "compare"] and str(path) in argv and "label,word" in argv
    assert main(argv[1:] + ["--quiet"]) == 0  # runs again as recorded, from the cache
    entries = [json.loads(x) for x in (out / "invocations.jsonl").read_text().splitlines()]
    assert [e["passes_trained"] for e in entries] == [2, 0]
    assert "2 epochs" in report and "1 epochs" not in report
