"""Options given values no one means: numbers out of range, empty paths, an output that is an input, a
report folder of other files, a checkpoint of an earlier run, settings in the environment that are no
numbers; each one exit 2 with a message naming it, before any work."""

from __future__ import annotations

import pytest

from chaintag.cli.main import main

TRAIN = "He PRP B-NP\nruns VBZ B-VP\n. . O\n\nShe PRP B-NP\nsings VBZ B-VP\n\n"


@pytest.fixture()
def files(tmp_path):
    train = tmp_path / "train.txt"
    train.write_text(TRAIN, encoding="utf-8")
    text = tmp_path / "text.txt"
    text.write_text("the cat sat on the mat .\n" * 20, encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--model", str(model), "-a", "perceptron", "--epochs", "1",
                 "--features", "w[0]", "-q"]) == 0
    return train, text, model


def _fails(capsys, argv, message) -> None:
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


@pytest.mark.parametrize("option, value, message", [
    ("--window", "0", "--window must be at least 1 (got 0)"), ("--dim", "-1", "--dim must be at least 1"),
    ("--iter", "0", "--iter must be at least 1"), ("--min-count", "0", "--min-count must be at least 1"),
    ("--seed", "-1", "--seed must be between 0 and 2**32 - 1")])
def test_clusters_checks_its_numbers_before_any_work(files, tmp_path, capsys, option, value, message):
    _, text, _ = files
    _fails(capsys, ["clusters", str(text), "--k", "2", option, value, "--out", str(tmp_path / "c.tsv")], message)


def test_outputs_that_are_inputs_or_empty_are_refused(files, tmp_path, capsys):
    train, text, model = files
    before = text.read_bytes()
    _fails(capsys, ["clusters", str(text), "--k", "2", "--out", str(text)], "--out would overwrite an input")
    _fails(capsys, ["clusters", str(text), "--k", "2", "--out", str(tmp_path / "a.tsv"), "--save-vectors",
                    str(tmp_path / "a.tsv")], "--out would overwrite an input")
    assert text.read_bytes() == before
    _fails(capsys, ["tag", "--model", str(model), str(train), "--output", ""], "--output: an empty path")
    _fails(capsys, ["train", "--train", str(train), "--model", "", "-a", "perceptron"], "--model: an empty path")
    for option in ("--history", "--features", "--checkpoint-dir"):
        _fails(capsys, ["train", "--train", str(train), "--model", str(tmp_path / "x.npz"), option, ""],
               f"{option}: an empty value")
    _fails(capsys, ["plot", "x.jsonl", "--output", "-"], "a figure is written to a file")
    _fails(capsys, ["serve", str(model), "--host", ""], "--host: an empty name")


def test_report_folders_and_learner_names_are_checked_first(files, tmp_path, capsys):
    train, _, _ = files
    pytest.importorskip("chaintag_research")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "README.md").write_text("my notes\n", encoding="utf-8")
    for argv in (["compare", "-a", "perceptron", "--train", str(train), "--test", str(train), "--out", str(mine)],
                 ["tune", "-a", "perceptron", "-f", "w[0]", "--train", str(train), "--dev", str(train), "--out",
                  str(mine)]):
        _fails(capsys, argv + ["-q"], "is a folder of other files (README.md)")
    assert (mine / "README.md").read_text(encoding="utf-8") == "my notes\n"
    _fails(capsys, ["compare", "-a", "perceptron", "--train", str(train), "--test", str(train), "--out", ""],
           "--out: an empty path")
    # a report's own folder is reused, its runs/ cache gone or not (the reports of docs/results keep none)
    from chaintag_research.report import check_report_folder
    (mine / "invocations.jsonl").write_text("{}\n", encoding="utf-8")
    check_report_folder(mine)
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / ".gitkeep").write_text("", encoding="utf-8")
    check_report_folder(hidden)
    _fails(capsys, ["tune", "-a", "PERCEPTRON", "-f", "w[0]", "--train", str(train), "--dev", str(train), "--out",
                    str(tmp_path / "t")], "unknown learner 'PERCEPTRON'")
    _fails(capsys, ["reproduce", "sapo", "--finished-only", "--out", str(tmp_path / "r")],
           "--finished-only: no run of these settings has finished")


def test_a_checkpoint_of_an_earlier_run_is_not_replaced_without_resume(files, tmp_path, capsys):
    train, _, _ = files
    argv = ["train", "--train", str(train), "--model", str(tmp_path / "c.npz"), "-a", "perceptron", "--epochs",
            "2", "--features", "w[0]", "--checkpoint-dir", str(tmp_path / "ck"), "-q"]
    assert main(argv) == 0
    checkpoint = (tmp_path / "ck" / "checkpoint.npz").read_bytes()
    _fails(capsys, argv, "holds the checkpoint of an earlier run, which this run would replace: add --resume")
    assert (tmp_path / "ck" / "checkpoint.npz").read_bytes() == checkpoint
    assert main(argv + ["--resume"]) == 0


@pytest.mark.parametrize("value", ["abc", "1.5", "0", "-1"])
def test_environment_settings_that_are_no_positive_numbers_are_named(files, capsys, monkeypatch, value):
    train, _, model = files
    for name in ("CHAINTAG_MAX_LINE", "CHAINTAG_MAX_SENTENCE"):
        monkeypatch.setenv(name, value)
        _fails(capsys, ["tag", "--model", str(model), str(train)], f"{name}={value!r}: give a positive whole number")
        monkeypatch.delenv(name)


def test_stream_folders_are_not_made_for_a_mistyped_path(files, tmp_path, capsys):
    train, _, _ = files
    base = ["train", "--train", str(train), "--model", str(tmp_path / "s.npz"), "-a", "perceptron", "--epochs", "1",
            "--features", "w[0]", "--stream", "-q"]
    _fails(capsys, base + ["--stream-dir", str(tmp_path / "typo" / "deep")], "does not exist (it is not made")
    assert not (tmp_path / "typo").exists()
    _fails(capsys, base + ["--stream-dir", str(train)], "--stream-dir names a file")
    assert main(base + ["--stream-dir", str(tmp_path / "chunks")]) == 0 and (tmp_path / "chunks").is_dir()


def test_every_numeric_parameter_is_typed_so_that_p_converts_it():
    """A parameter of kind None keeps ``-p name=1.5`` a string: ``-p structure_reg=1.5`` ended in a
    TypeError traceback inside SAPO's check."""
    from chaintag.learners import LEARNERS
    untyped = []
    for name in LEARNERS:
        try:
            cls = LEARNERS[name]
        except ImportError:  # a learner of an extra not installed
            continue
        for param in cls.params:
            number = isinstance(param.default, (int, float)) and not isinstance(param.default, bool)
            if number and param.kind is None:
                untyped.append(f"{name}.{param.name}")
    assert untyped == []


def test_p_gives_structure_reg_as_a_number(files, tmp_path, capsys):
    train, _, _ = files
    model = tmp_path / "sr.npz"
    assert main(["train", "--train", str(train), "--model", str(model), "-a", "sapo", "--epochs", "1",
                 "--features", "w[0]", "-p", "structure_reg=1.5", "-q"]) == 0
    from chaintag import load
    assert load(model).structure_reg == 1.5
    _fails(capsys, ["train", "--train", str(train), "--model", str(tmp_path / "x.npz"), "-a", "sapo",
                    "-p", "structure_reg=many"], "structure_reg")
