"""chaintag tune: grid search on dev data through the cached runner."""

import json

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag_research.tune import parse_grid, tune
from toy_corpus import LABELS, SENTS


def _write_corpus(path, sents, labels):
    path.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                for s, ls in zip(sents, labels)) + "\n")
    return str(path)


def test_parse_grid():
    assert parse_grid(["n_best=5,10", "l2=0.5", "lr_schedule=fixed,decay", "averaged=false"]) == {
        "n_best": [5, 10], "l2": [0.5], "lr_schedule": ["fixed", "decay"], "averaged": [False]}
    for bad in (["n_best"], ["n_best=5", "n_best=6"], ["l2="]):
        with pytest.raises(InputError):
            parse_grid(bad)


def test_tune_scores_dev_only_and_caches(tmp_path):
    train = _write_corpus(tmp_path / "train.txt", SENTS * 4, LABELS * 4)
    dev_s = [[("a", "DT"), ("dog", "NN"), ("barks", "VBZ")], [("the", "DT"), ("cat", "NN"), ("sleeps", "VBZ")]]
    dev_l = [["B-NP", "I-NP", "B-VP"], ["B-NP", "I-NP", "B-VP"]]
    dev = _write_corpus(tmp_path / "dev.txt", dev_s, dev_l)
    out = tmp_path / "tune"
    trials, best = tune(out, "sapo", train=train, dev=dev, features=["w[0]", "w[0];pos[0]"],
                        grid={"n_best": [2, 3]}, epochs=3, progress=False)
    assert [(t.features, t.params) for t in trials] == [
        ("w[0]", {"n_best": 2}), ("w[0]", {"n_best": 3}), ("w[0];pos[0]", {"n_best": 2}),
        ("w[0];pos[0]", {"n_best": 3})]
    assert best.dev_score == max(t.dev_score for t in trials)
    # each trial's dev curve is what fit(dev=...) records: the dev data, not another set
    for t in trials:
        model = chaintag.SAPO(features=t.features, epochs=3, progress=False, **t.params)
        model.fit(*_read(train), dev=_read(dev))
        curve = [rec["dev_score"] for rec in model.history_]
        assert t.dev_score == pytest.approx(max(curve))
        assert t.best_epoch == curve.index(max(curve)) + 1
    saved = json.loads((out / "best.json").read_text())
    assert saved["features"] == best.features and saved["epochs"] == best.best_epoch
    assert len((out / "tune.csv").read_text().splitlines()) == 5
    n_runs = len(list((out / "runs").iterdir()))
    again, best2 = tune(out, "sapo", train=train, dev=dev, features=["w[0]", "w[0];pos[0]"],
                        grid={"n_best": [2, 3]}, epochs=3, progress=False)
    assert [t.dev_score for t in again] == [t.dev_score for t in trials]
    assert len(list((out / "runs").iterdir())) == n_runs  # read back, nothing retrained


def _read(path):
    c = chaintag.load_corpus(path)
    return c.tokens, c.labels


def test_tune_cli_holds_out_the_end_of_train(tmp_path, capsys):
    train = _write_corpus(tmp_path / "train.txt", SENTS * 4, LABELS * 4)
    out = tmp_path / "t"
    assert main(["tune", "-a", "perceptron", "--train", train, "--features", "w[0];pos[0]",
                 "--grid", "averaged=true,false", "--epochs", "2", "--out", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:4] == ["dev", "epoch", "s/epoch", "features"] and len(table) == 3
    best = json.loads((out / "best.json").read_text())
    assert best["dev"].startswith("last 0.1 of") and best["learner"] == "perceptron"
    assert main(["tune", "-a", "perceptron", "--train", train, "--features", "w[0]",
                 "--grid", "no_such=1", "--out", str(out), "--quiet"]) == 2


def test_tune_maxent_without_passes(tmp_path, capsys):
    """The maxent tagger has no passes: tune runs it once per grid point (epoch 1), and refuses --epochs 3."""
    train = _write_corpus(tmp_path / "train.txt", SENTS * 4, LABELS * 4)
    out = tmp_path / "t"
    assert main(["tune", "-a", "maxent", "--train", train, "--features", "w[0];pos[0]", "--grid", "C=0.1,10",
                 "--out", str(out), "--quiet"]) == 0
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines()[1:]]
    assert len(rows) == 2 and all(r[1] == "1" for r in rows) and {r[4] for r in rows} == {"0.1", "10"}
    assert main(["tune", "-a", "maxent", "--train", train, "--features", "w[0]", "--epochs", "3",
                 "--out", str(out), "--quiet"]) == 2
    assert "--epochs does not apply to maxent" in capsys.readouterr().err
