"""A column-count fault while tagging: explained when the input is no column file from its first
sentence on, named alone when whole sentences of the expected columns came before it."""

from __future__ import annotations

from chaintag import StructuredPerceptron
from chaintag.cli.main import main


def _model(tmp_path):
    path = tmp_path / "m.npz"
    StructuredPerceptron(features=["w[0]", "p[0]"], columns=("word", "pos"), epochs=1, progress=False).fit(
        [[("The", "DT"), ("cat", "NN")]], [["B-NP", "I-NP"]]).save(path)
    return path


def _tag_error(tmp_path, capsys, name: str, text: str) -> str:
    """``chaintag tag`` of ``text`` (as file ``name``) with the tiny model: exit 2, its message."""
    model = _model(tmp_path)
    (tmp_path / name).write_text(text)
    assert main(["tag", "-m", str(model), str(tmp_path / name)]) == 2
    return capsys.readouterr().err


def test_a_fault_after_good_sentences_is_named_alone(tmp_path, capsys):
    err = _tag_error(tmp_path, capsys, "late.txt", "The DT\ncat NN\n\nA DT B\n")
    assert "late.txt:4: expected 2 columns (as on line 1), found 3" in err
    assert "not a column file" not in err


def test_a_fault_in_the_first_sentence_says_what_a_column_file_is(tmp_path, capsys):
    err = _tag_error(tmp_path, capsys, "early.txt", "The DT x y\ncat NN\n\n")
    assert "early.txt:2: expected 4 columns (as on line 1), found 2: this is not a column file" in err


def test_a_command_in_process_leaves_the_collector_as_it_found_it(tmp_path, capsys):
    import gc
    model = _model(tmp_path)
    (tmp_path / "ok.txt").write_text("The DT\ncat NN\n\n")
    before = gc.get_threshold()
    seen = []
    real = gc.set_threshold
    try:
        gc.set_threshold = lambda *a: (seen.append(a), real(*a))[1]
        assert main(["tag", "-m", str(model), str(tmp_path / "ok.txt")]) == 0
    finally:
        gc.set_threshold = real
    assert gc.get_threshold() == before
    assert seen[0][0] > before[0] and seen[-1] == before  # fewer collections while it ran, then undone
