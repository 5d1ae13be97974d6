"""The chosen presets in the SAPO reproduction (``chaintag reproduce sapo --presets``)."""

from __future__ import annotations

import csv
import os

import pytest

from chaintag.cli.main import main
from chaintag.cli.recipes import RECIPES
from chaintag_research import sapo
from chaintag_research.sapo_presets import RECIPE_OF_TASK, parse_resources, preset_learner, preset_settings


def test_every_task_of_the_reproduction_has_a_recipe():
    assert set(RECIPE_OF_TASK) == set(sapo.TASKS)
    assert all(RECIPES[name]["algorithm"] == "sapo" for name in RECIPE_OF_TASK.values())


def test_parse_resources(tmp_path):
    a, b = tmp_path / "vt.tsv", tmp_path / "w2v.txt"
    a.write_text("x\t1\n")
    b.write_text("1 1\nx 0.5\n")
    assert parse_resources([f"chunking={a},{b}", f"np={a}"]) == {"chunking": [str(a), str(b)], "np": [str(a)]}
    assert parse_resources(None) == {}
    for bad, message in ((["chunking"], "expected TASK=FILE"), ([f"wsj={a}"], "unknown task 'wsj'"),
                         ([f"np={a}", f"np={b}"], "given twice"), ([f"np={tmp_path / 'none.tsv'}"], "no such file")):
        with pytest.raises(ValueError, match=message):
            parse_resources(bad)


def test_preset_settings_follow_the_recipe(tmp_path):
    name, features, params, epochs = preset_settings("ner")
    recipe = RECIPES["bio-ner"]
    assert (name, features, epochs) == ("bio-ner", recipe["features"], recipe["epochs"])
    assert params == {"l2": recipe["l2"], "random_state": 0} and preset_learner("ner") == "sapo2"
    assert preset_learner("pos") == "sapo"
    with pytest.raises(ValueError, match="--preset-resources chunking="):
        preset_settings("chunking")
    table = tmp_path / "vt.tsv"
    table.write_text("x\t1\n")
    (tmp_path / "unlabeled_en").mkdir()
    name, features, params, epochs = preset_settings("np", {"np": [str(table)]})
    assert features == RECIPES["base-np"]["features"] + ";@clusters=" + os.path.abspath(table)
    assert params == {"random_state": 0} and epochs == RECIPES["base-np"]["epochs"]
    # a recipe that reads the labels of unlabeled text: its folder of the data directory
    name, features, params, epochs = preset_settings("chunking", {"chunking": [str(table)]}, data_dir=tmp_path)
    assert features == (RECIPES["chunking"]["features"] + ";@clusters=" + os.path.abspath(table)
                        + ";@autotags=" + os.path.abspath(tmp_path / "unlabeled_en"))
    assert params == {"feature_space": "all", "random_state": 0} and epochs == RECIPES["chunking"]["epochs"]
    name, features, params, epochs = preset_settings("ud", {"ud": [str(table)]}, data_dir=tmp_path)
    assert features.endswith(";@autotags=" + os.path.abspath(tmp_path / "unlabeled_en")) and "autotags" not in params
    with pytest.raises(ValueError, match="unlabeled text .* missing"):
        preset_settings("ud", {"ud": [str(table)]}, data_dir=tmp_path / "elsewhere")


def test_presets_options_are_checked(tmp_path, capsys):
    out = str(tmp_path / "r")
    assert main(["reproduce", "collins2002", "--presets", "--out", out]) == 2
    assert main(["reproduce", "sapo", "--preset-resources", "np=x", "--out", out]) == 2
    assert "needs --presets" in capsys.readouterr().err
    assert main(["reproduce", "sapo", "--quick", "--tasks", "chunking", "--presets", "--quiet", "--out", out]) == 2
    assert "reads word clusters or vectors" in capsys.readouterr().err
    assert not os.path.exists(os.path.join(out, "README.md"))


def _have_jnlpba() -> bool:
    from chaintag.data.datasets import resolve_data_dir
    return (resolve_data_dir() / "jnlpba").is_dir()


@pytest.mark.skipif(not _have_jnlpba(), reason="benchmark data folder not found")
def test_quick_reproduction_with_the_preset_of_bio_ner(tmp_path):
    out = tmp_path / "sapo"
    assert main(["reproduce", "sapo", "--quick", "--quiet", "--tasks", "ner", "--no-neural", "--no-sweep",
                 "--no-beam", "--presets", "--out", str(out)]) == 0
    report = (out / "README.md").read_text(encoding="utf-8")
    assert "## The chosen presets" in report and "second-order SAPO (n=5), preset `bio-ner`" in report
    assert "| `ner+doc` |" in report and "@clusters" not in report  # the recipe's document columns were computed for its run
    rows = list(csv.DictReader((out / "presets.csv").open(encoding="utf-8")))
    assert [r["row"] for r in rows] == ["SAPO (n=5)", "Perc-Avg", "CRF (SGD)"]
    final = {r["learner"]: float(r["test_F1_last"]) for r in csv.DictReader((out / "final_ner.csv").open())}
    for r in rows:
        assert float(r["row_test"]) == pytest.approx(final[r["row"]], abs=1e-3)
        assert float(r["preset_minus_row"]) == pytest.approx(float(r["preset_test"]) - float(r["row_test"]), abs=1e-3)
        assert 0 < float(r["ar_p"]) <= 1 and 0 < float(r["t_test_p"]) <= 1
    # the preset run is a run of its own: its attributes (a gazetteer) are not the other rows'
    assert len({r["preset_test"] for r in rows}) == 1 and rows[0]["preset_test"] != rows[0]["row_test"]
