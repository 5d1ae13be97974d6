"""chaintag.train: the library's training run gives the command line's model, byte for byte."""

from __future__ import annotations

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError

from toy_corpus import LABELS, SENTS


def _file(tmp_path, name="train.txt"):
    path = tmp_path / name
    path.write_text("".join("".join(f"{w} {p} {y}\n" for (w, p), y in zip(s, ls)) + "\n"
                            for s, ls in zip(SENTS * 3, LABELS * 3)), encoding="utf-8")
    return str(path)


def test_train_gives_the_commands_model_bytes(tmp_path):
    train = _file(tmp_path)
    cli, api = tmp_path / "cli.npz", tmp_path / "api.npz"
    assert main(["train", "-a", "sapo", "--train", train, "--features", "chunking", "--epochs", "3",
                 "--model", str(cli), "-p", "l2=0.5", "--dev-fraction", "0.2", "-q"]) == 0
    result = chaintag.train(train, algorithm="sapo", features="chunking", epochs=3, model=str(api),
                            params={"l2": 0.5}, dev_fraction=0.2)
    assert api.read_bytes() == cli.read_bytes()
    assert result.model.l2 == 0.5 and result.report["best_epoch"] == result.model.best_epoch_
    assert len(result.report["history"]) == 3 and "dev_score" in result.report["history"][0]


def test_train_scores_the_test_data_and_need_not_save(tmp_path):
    train = _file(tmp_path)
    lines = []
    result = chaintag.train(train, test=train, features="w[0];pos[0]", epochs=5, log=lines.append)
    assert result.test.accuracy == pytest.approx(100.0) and result.test_sentences == 15
    assert any(line.startswith("trained:") for line in lines) and result.report["model"] is None


def test_train_refuses_what_the_learner_does_not_declare(tmp_path):
    train = _file(tmp_path)
    with pytest.raises(InputError, match="perceptron has no parameter n_best"):
        chaintag.train(train, algorithm="perceptron", params={"n_best": 3})
    with pytest.raises(InputError, match="l2 must be"):
        chaintag.train(train, algorithm="sapo", params={"l2": -1})
    with pytest.raises(InputError, match=r"sapo \(the default learner for chunking; .*\) has no parameter nosuch"):
        chaintag.train(train, nosuch=1)  # the default learner, SAPO


def test_learner_parameters_by_name_among_the_settings(tmp_path):
    train = _file(tmp_path)
    a = chaintag.train(train, algorithm="sapo", features="w[0]", epochs=2, l2=0.25).model
    b = chaintag.train(train, algorithm="sapo", features="w[0]", epochs=2, params={"l2": 0.25}).model
    assert a.l2 == 0.25 and (a.weights_ == b.weights_).all()
