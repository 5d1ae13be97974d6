"""A researcher's mistakes and what the comparison and tuning commands then do: test data given as dev
data (by name, as the --test file, or as a copy of a test split), test data given as training data, and
an F1 asked of labels that make no chunks."""

from __future__ import annotations

import json
import os

import pytest

from chaintag.api.train_checks import dev_test_reason
from chaintag.cli.main import main

pytest.importorskip("chaintag_research")

SENTS = [
    [("He", "PRP", "B-NP"), ("reckons", "VBZ", "B-VP"), ("the", "DT", "B-NP"), ("deficit", "NN", "I-NP")],
    [("The", "DT", "B-NP"), ("cat", "NN", "I-NP"), ("sat", "VBD", "B-VP"), ("down", "RP", "B-PRT")],
    [("A", "DT", "B-NP"), ("dog", "NN", "I-NP"), ("ran", "VBD", "B-VP"), (".", ".", "O")],
]


def _file(path, sents) -> str:
    path.write_text("".join("".join(" ".join(t) + "\n" for t in s) + "\n" for s in sents), encoding="utf-8")
    return str(path)


@pytest.fixture()
def data_dir(tmp_path):
    """A data directory with a conll2000 test split (the registry's file name)."""
    from chaintag.data.registry import DATASETS
    folder = tmp_path / "data" / "conll2000"
    folder.mkdir(parents=True)
    _file(folder / DATASETS["conll2000"].splits["test"], SENTS)
    return str(tmp_path / "data")


def test_a_copy_of_a_test_split_is_known_by_its_bytes(tmp_path, data_dir):
    copy = _file(tmp_path / "mine.txt", SENTS)
    other = _file(tmp_path / "other.txt", SENTS[:2])
    assert dev_test_reason(copy, None, data_dir) == "it is a copy of conll2000:test"
    assert dev_test_reason(copy, other, data_dir) == "it is a copy of conll2000:test"
    assert dev_test_reason(other, None, data_dir) is None
    same_test = _file(tmp_path / "test.txt", SENTS[:2])
    assert dev_test_reason(other, same_test, data_dir) == "it is the --test data"  # same bytes as --test


def test_compare_refuses_test_data_as_dev_data(tmp_path, data_dir, capsys):
    train = _file(tmp_path / "train.txt", SENTS * 3)
    test = _file(tmp_path / "test.txt", SENTS[1:])
    copy = _file(tmp_path / "copy.txt", SENTS[1:])
    for dev, why in ((test, "it is the --test data"), (copy, "it is the --test data"),
                     ("conll2000:test", "it is a test split")):
        out = tmp_path / "cmp"
        assert main(["compare", "-a", "perceptron", "--features", "w[0]", "--train", train, "--dev", dev, "--test",
                     test, "--epochs", "1", "--out", str(out), "--data-dir", data_dir, "-q"]) == 2
        err = capsys.readouterr().err
        assert f"--dev {dev}: {why}" in err and "epoch would be chosen on the test data" in err
        assert not out.exists()
    # training data that is the test data: a smoke run, said and not refused
    assert main(["compare", "-a", "perceptron", "--features", "w[0]", "--train", test, "--test", test, "--epochs",
                 "1", "--out", str(tmp_path / "smoke"), "-q"]) == 0
    assert "the test scores below are scores on training data" in capsys.readouterr().err
    # the report names each learner's parameters as trained, the defaults included
    readme = (tmp_path / "smoke" / "README.md").read_text(encoding="utf-8")
    assert "- `perceptron`: averaged=True, cc=0, feature_space=gold" in readme


def test_tune_refuses_f1_of_labels_without_chunks_and_records_its_metric(tmp_path, capsys):
    pos = [[(w, p) for w, p, _ in s] for s in SENTS]
    train = _file(tmp_path / "train.txt", pos * 3)
    dev = _file(tmp_path / "dev.txt", pos[:2])
    assert main(["tune", "-a", "perceptron", "--train", train, "--dev", dev, "--features", "w[0]", "--metric", "f1",
                 "--epochs", "1", "--out", str(tmp_path / "t1"), "-q"]) == 2
    assert "--metric f1 scores chunks, but these labels are not chunk labels" in capsys.readouterr().err
    assert main(["tune", "-a", "perceptron", "--train", train, "--dev", dev, "--features", "w[0]", "--epochs", "1",
                 "--out", str(tmp_path / "t2"), "-q"]) == 0
    with open(os.path.join(tmp_path, "t2", "best.json"), encoding="utf-8") as fh:
        assert json.load(fh)["metric"] == "accuracy"


def test_collins_quick_mode_keeps_the_seeded_dev_split():
    """--quick rebuilt the data references without their seed: the NP dev split was the last 10 % in file
    order while the report said "a seeded random 10 %"."""
    from chaintag_research.collins2002 import _task_data
    full, quick = _task_data("np", False), _task_data("np", True)
    for part in ("train", "dev"):
        assert quick[part].seed == full[part].seed == 0 and quick[part].limit is not None
        assert "random order (seed 0)" in quick[part].describe()


def test_reports_name_the_commit_of_the_code_that_ran():
    """The SAPO report named "chaintag 0.1.0" only: which code made it could not be told."""
    from chaintag_research.report import machine_details, source_commit
    commit = source_commit()
    assert machine_details()["commit"] == commit
    if commit is not None:  # a git checkout (a wheel has none)
        import re
        assert re.fullmatch(r"[0-9a-f]{12}( \+ changes)?", commit)


def test_the_compare_report_says_which_learners_read_no_attributes():
    """The report said "Attributes: `chunking` for every learner" of a BiLSTM, which ignores --features."""
    from types import SimpleNamespace
    from chaintag_research.compare import _attributes_line
    run = lambda label, learner: SimpleNamespace(label=label, learner=learner, features="chunking")  # noqa: E731
    assert _attributes_line([run("perceptron", "perceptron"), run("sapo", "sapo")]) == \
        "`chunking` for every learner"
    assert _attributes_line([run("perceptron", "perceptron"), run("bilstm:hidden=8", "bilstm")]) == \
        "`chunking` for every learner but `bilstm:hidden=8`, which read the words themselves"
    assert _attributes_line([run("bilstm-crf", "bilstm-crf")]) == \
        "none: `bilstm-crf` read the words themselves (--features is not used)"


def test_compare_warns_of_clusters_that_no_template_reads(tmp_path, capsys):
    """``compare --clusters FILE --features chunking`` named the file in the report's attributes, silently
    unused (train says so)."""
    pytest.importorskip("chaintag_research")
    from chaintag.cli.main import main
    data = tmp_path / "d.txt"
    data.write_text("He PRP B-NP\nruns VBZ B-VP\n. . O\n\nShe PRP B-NP\nsings VBZ B-VP\n\n" * 10, encoding="utf-8")
    paths = tmp_path / "paths.txt"
    paths.write_text("0101\tHe\t5\n0110\truns\t3\n", encoding="utf-8")
    out = tmp_path / "cmp"
    assert main(["compare", "-a", "perceptron", "--features", "chunking", "--clusters", str(paths), "--train",
                 str(data), "--test", str(data), "--epochs", "1", "--out", str(out), "-q"]) == 0
    err = capsys.readouterr().err
    assert f"--clusters {paths} not used: no template of --features chunking reads word clusters" in err
    report = (out / "README.md").read_text(encoding="utf-8")
    assert "Attributes: `chunking` for every learner" in report and "@clusters" not in report
