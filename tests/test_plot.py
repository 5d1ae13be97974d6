"""Tests of training-curve plots: the history reader, the panels drawn, and ``chaintag plot``."""

from __future__ import annotations

import json

import pytest

from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag_research import curves
from chaintag.io.history import read_history

TRAIN = "The DT B-NP\ncat NN I-NP\nsat VBD B-VP\n. . O\n\nA DT B-NP\ndog NN I-NP\nran VBD B-VP\n. . O\n"


def _write(path, records, extra=""):
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + extra, encoding="utf-8")
    return path


def test_read_history_jsonl_and_errors(tmp_path):
    recs = [{"epoch": 1, "errors": 5, "dev_score": 90.0}, {"epoch": 2, "errors": 2, "dev_score": 91.5}]
    assert read_history(_write(tmp_path / "h.jsonl", recs, extra="\n")) == recs  # blank line ignored
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(recs[0]) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:2: not a JSON line"):
        read_history(bad)
    bad.write_text('{"epoch": 1}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:2: not a history record"):
        read_history(bad)
    bad.write_text('{"epoch": "1"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:1"):
        read_history(bad)
    bad.write_text('{"epoch": 1}\n{"epoch": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:2: epoch 1 comes after epoch 1"):
        read_history(bad)
    bad.write_text('{"epoch": 1, "dev_score": "x"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:1: 'dev_score' is not a number"):
        read_history(bad)
    bad.write_text('{"epoch": true}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:1: not a history record"):
        read_history(bad)
    bad.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="no history records"):
        read_history(bad)
    with pytest.raises(InputError, match="cannot read"):
        read_history(tmp_path / "missing.jsonl")


def test_panels_hold_the_histories_values(tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr(curves, "line_plots", lambda path, panels, **kw: seen.update(panels=panels, **kw))
    a = [{"epoch": 1, "dev_score": 90.0, "dev_f1": 90.0, "weight_complexity": 0.5, "seconds": 1.0},
         {"epoch": 2, "dev_score": 92.0, "dev_f1": 92.0, "weight_complexity": 0.7, "seconds": 1.1}]
    b = [{"epoch": 1, "dev_score": 91.0, "dev_f1": 91.0, "weight_complexity": 0.1, "loss": 3.0}]
    drawn = curves.plot_histories({"A": a, "B": b}, tmp_path / "x.png")
    assert drawn == ["dev_score", "weight_complexity", "seconds"]  # no "errors" in either history
    dev, wc, sec = seen["panels"]
    assert dev["series"] == [("A", [1, 2], [90.0, 92.0]), ("B", [1], [91.0])]
    assert dev["ylabel"] == "dev chunk F1 (%)" and wc["logy"] and not dev["logy"]
    assert wc["series"] == [("A", [1, 2], [0.5, 0.7]), ("B", [1], [0.1])]
    assert sec["series"] == [("A", [1, 2], [1.0, 1.1])]  # B has no timings
    assert seen["shared_legend"] is True
    curves.plot_histories({"B": b}, tmp_path / "x.png", metrics=["loss"])
    assert seen["panels"][0]["series"] == [("B", [1], [3.0])]
    # accuracy-scored dev data is named as such
    acc = [{"epoch": 1, "dev_score": 95.0, "dev_f1": None, "dev_accuracy": 95.0}]
    curves.plot_histories({"P": acc}, tmp_path / "x.png")
    assert seen["panels"][0]["ylabel"] == "dev token accuracy (%)"
    with pytest.raises(ValueError, match="unknown metric"):
        curves.plot_histories({"A": a}, tmp_path / "x.png", metrics=["f2"])
    with pytest.raises(ValueError, match="no history holds loss"):
        curves.plot_histories({"A": a}, tmp_path / "x.png", metrics=["loss"])


def test_cli_plot_from_history_and_model(tmp_path, capsys):
    train = tmp_path / "train.txt"
    train.write_text(TRAIN, encoding="utf-8")
    hist, model = tmp_path / "h.jsonl", tmp_path / "m.npz"
    assert main(["train", "--train", str(train), "--dev", str(train), "--features", "w[0];pos[0]",
                 "--epochs", "3", "--model", str(model), "--history", str(hist), "--quiet"]) == 0
    assert [r["epoch"] for r in read_history(hist)] == [1, 2, 3]
    from_model = read_history(model)  # the model keeps its history, without timings
    assert [r["dev_score"] for r in from_model] == [r["dev_score"] for r in read_history(hist)]
    out = tmp_path / "curves.png"
    assert main(["plot", str(hist), str(model), "-o", str(out), "--labels", "history", "model", "--quiet"]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # bad requests: exit 2, nothing written
    out.unlink()
    assert main(["plot", str(hist), "-o", str(out), "--metrics", "f2"]) == 2
    assert "unknown metric" in capsys.readouterr().err and not out.exists()
    assert main(["plot", str(hist), str(model), "-o", str(out), "--labels", "one"]) == 2
    assert main(["plot", str(hist), "-o", str(hist)]) == 2
    assert "overwrite an input" in capsys.readouterr().err
    assert read_history(hist)  # still intact
    assert main(["plot", str(train), "-o", str(out)]) == 2
    assert "train.txt:1: not a JSON line" in capsys.readouterr().err
    assert list(tmp_path.glob("*.png")) == [] and not list(tmp_path.glob(".*"))


def test_a_run_keeps_its_colour_in_every_panel(tmp_path, monkeypatch):
    """A run missing from one panel must not shift the colours of the others."""
    from matplotlib.colors import to_hex

    from chaintag_research import report
    real = report._pyplot()
    figures = []

    class Pyplot:
        def __getattr__(self, name):
            return getattr(real, name)

        def close(self, fig):
            figures.append(fig)

    monkeypatch.setattr(report, "_pyplot", lambda: Pyplot())
    a = [{"epoch": 1, "errors": 5, "loss": 1.0}]
    b = [{"epoch": 1, "loss": 2.0}]  # no errors: absent from that panel
    c = [{"epoch": 1, "errors": 3, "loss": 3.0}]
    curves.plot_histories({"A": a, "B": b, "C": c}, tmp_path / "x.png", metrics=["errors", "loss"])
    colours = [{line.get_label(): to_hex(line.get_color()) for line in ax.get_lines()} for ax in figures[0].axes]
    real.close(figures[0])
    want = {"A": to_hex("C0"), "B": to_hex("C1"), "C": to_hex("C2")}
    assert colours == [{"A": want["A"], "C": want["C"]}, want]


def test_cli_plot_refusals(tmp_path, capsys):
    hist = _write(tmp_path / "h.jsonl", [{"epoch": 1, "errors": 3}, {"epoch": 2, "errors": 1}])
    other = _write(tmp_path / "g.jsonl", [{"epoch": 1, "errors": 4}])
    assert main(["plot", str(hist), str(hist), "-o", str(tmp_path / "x.png")]) == 2
    assert "same file is given twice" in capsys.readouterr().err
    assert main(["plot", str(hist), str(other), "--labels", "X", "X", "-o", str(tmp_path / "x.png")]) == 2
    assert "same name" in capsys.readouterr().err
    assert main(["plot", str(hist), "--labels", " ", "-o", str(tmp_path / "x.png")]) == 2
    assert main(["plot", str(hist), "-o", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert main(["plot", str(hist), "-o", str(tmp_path / "missing" / "x.png")]) == 2
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "missing").exists()
    assert main(["plot", str(hist), "-o", str(tmp_path / "x.jpg")]) == 2
    assert ".png, .svg or .pdf" in capsys.readouterr().err
    assert main(["plot", str(hist), "-o", str(tmp_path / "x.svg"), "--quiet"]) == 0
    assert (tmp_path / "x.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert main(["plot", str(hist), "-o", str(tmp_path / "x.png"), "--metrics", "errors", "errors"]) == 0
    assert "wrote" in capsys.readouterr().err and "errors, errors" not in capsys.readouterr().err
