"""A user of CoNLL-2002-style data (IOB1 labels, other languages): what the scoring report says of the
scheme when the test file's labels are written in another scheme than the model's."""

from __future__ import annotations

import chaintag
from chaintag.cli.main import main

IOB1 = [(["Juan", "Pérez", "vive", "en", "Madrid", "."], ["I-PER", "I-PER", "O", "O", "I-LOC", "O"]),
        (["Ana", "Begoña", "Ruiz", "canta", "."], ["I-PER", "B-PER", "I-PER", "O", "O"])] * 6
IOB2 = [(["Juan", "Pérez", "vive", "en", "Madrid", "."], ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]),
        (["Ana", "Begoña", "Ruiz", "canta", "."], ["B-PER", "B-PER", "I-PER", "O", "O"])] * 6


def _write(path, data):
    path.write_text("".join("".join(f"{w} {lab}\n" for w, lab in zip(ws, ls)) + "\n" for ws, ls in data),
                    encoding="utf-8")
    return path


def test_the_scheme_line_says_the_gold_labels_were_rewritten(tmp_path, capsys):
    """``scheme: IOB1 (detected from the labels)`` was reported of a test file whose labels are IOB2 (the
    model's scheme, into which they were rewritten, was described as detected from them)."""
    model = chaintag.make_learner("perceptron", features="w[0]", epochs=3).fit([w for w, _ in IOB1],
                                                                                [y for _, y in IOB1])
    path = tmp_path / "m.npz"
    model.save(path)
    test = _write(tmp_path / "test.iob2", IOB2)
    assert main(["eval", "--model", str(path), "--test", str(test)]) == 0
    out = capsys.readouterr()
    line = next(ln for ln in out.out.splitlines() if ln.startswith("scheme:"))
    assert "IOB1" in line and "the file's gold labels, written otherwise, were rewritten in the model's scheme" \
        in line, line
    same = _write(tmp_path / "test.iob1", IOB1)
    assert main(["eval", "--model", str(path), "--test", str(same)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("scheme:"))
    assert "rewritten" not in line
