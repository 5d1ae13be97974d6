"""Learners declare their parameters once: __init__, get_params, checks and command-line options follow."""

from __future__ import annotations

import inspect

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.learners import LEARNERS
from chaintag.learners.params import Param, check_params, parse_value

from toy_corpus import LABELS, SENTS


@pytest.mark.parametrize("name", list(LEARNERS))
def test_signature_defaults_and_get_params_come_from_the_declarations(name):
    cls = LEARNERS[name]
    sig = inspect.signature(cls)
    assert [p for p in sig.parameters] == [p.name for p in cls.params]
    assert {k: v.default for k, v in sig.parameters.items()} == {p.name: p.default for p in cls.params}
    learner = cls()
    assert learner.get_params() == {p.name: p.default for p in cls.params}
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such'"):
        cls(no_such=1)


def test_a_subclass_declares_other_defaults():
    assert chaintag.MIRA().n_best == 1 and chaintag.NBestMIRA().n_best == 5
    assert [p.name for p in chaintag.MIRA.params] == [p.name for p in chaintag.NBestMIRA.params]


@pytest.mark.parametrize("param, good, bad", [
    (Param("n", 5, int, "", low=1), [1, 7], [0, -3, 2.5, True, "3"]),
    (Param("x", 0.1, float, "", low=0, low_open=True), [1e-9, 3], [0, -1, float("nan"), float("inf")]),
    (Param("r", None, float, "", low=1, low_open=True, none=True), [None, 1.5], [1, 0.5]),
    (Param("s", "a", str, "", choices=("a", "b")), ["a", "b"], ["c", 1]),
    (Param("j", 1, int, "", low=-1, forbid=(0,)), [-1, 1, 4], [0, -2]),
    (Param("b", True, bool, ""), [True, False], [1, "yes"]),
])
def test_constraints(param, good, bad):
    for v in good:
        param.check(v)
    for v in bad:
        with pytest.raises(InputError, match=f"{param.name} must be"):
            param.check(v)


def test_fit_checks_every_declared_parameter():
    with pytest.raises(InputError, match="n_best must be an integer of at least 1, not 0"):
        chaintag.SAPO(features="w[0]", n_best=0).fit(SENTS, LABELS)
    with pytest.raises(InputError, match="feature_space must be one of 'gold', 'all', not 'some'"):
        chaintag.StructuredPerceptron(features="w[0]", feature_space="some").fit(SENTS, LABELS)
    learner = chaintag.SAPO(features="w[0]", l2=0.5)
    check_params(learner)  # within bounds: no error


def test_parse_value():
    p = Param("l2", 1.0, float, "", low=0)
    assert parse_value(p, "2.5") == 2.5
    assert parse_value(Param("b", False, bool, ""), "true") is True
    assert parse_value(Param("r", None, float, "", none=True), "none") is None
    with pytest.raises(InputError, match="-p l2=abc"):
        parse_value(p, "abc")


def _train_file(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("".join("".join(f"{w} {p} {y}\n" for (w, p), y in zip(s, ls)) + "\n"
                            for s, ls in zip(SENTS, LABELS)), encoding="utf-8")
    return str(path)


def test_cli_p_sets_a_declared_parameter_and_refuses_others(tmp_path, capsys):
    train = _train_file(tmp_path)
    model = tmp_path / "m.npz"
    assert main(["train", "-a", "sapo", "--train", train, "--features", "w[0]", "--epochs", "2", "--model",
                 str(model), "-p", "l2=2.5", "-p", "n_best=3", "-q"]) == 0
    m = chaintag.load(model)
    assert m.l2 == 2.5 and m.n_best == 3
    assert main(["train", "-a", "sapo", "--train", train, "--model", str(tmp_path / "x.npz"), "-p", "nosuch=1",
                 "-q"]) == 2
    assert "sapo has no parameter 'nosuch'" in capsys.readouterr().err
    assert main(["train", "-a", "sapo", "--train", train, "--model", str(tmp_path / "x.npz"), "-p", "l2=-1",
                 "-q"]) == 2
    assert "l2 must be a finite number of at least 0, not -1.0" in capsys.readouterr().err
    assert main(["train", "--train", train, "--model", str(tmp_path / "x.npz"), "-a", "perceptron", "--beam-width", "4",
                 "-q"]) == 2
    assert "--beam-width does not apply to perceptron" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()


def test_cli_lists_a_learners_parameters(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", "--list-params", "nbest-mira"])
    assert stop.value.code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("n_best (--n-best): an integer of at least 1, default 5")
    assert any(line.startswith("C (--C): a finite number above 0 or None, default 1.0") for line in out)


def test_columns_as_one_string_of_names():
    a = chaintag.StructuredPerceptron(features="w[0];pos[0]", columns="word,pos", epochs=2).fit(SENTS, LABELS)
    b = chaintag.StructuredPerceptron(features="w[0];pos[0]", columns=("word", "pos"), epochs=2).fit(SENTS, LABELS)
    assert a.columns_ == ("word", "pos") and (a.weights_ == b.weights_).all()


def test_cli_second_order_names_and_own_options(tmp_path, capsys):
    train = _train_file(tmp_path)
    model = tmp_path / "m2.npz"
    assert main(["train", "-a", "perceptron2", "--train", train, "--features", "w[0]", "--epochs", "2",
                 "--model", str(model), "-q"]) == 0
    assert chaintag.load(model).algorithm == "perceptron2"
    assert main(["train", "--train", train, "--model", str(tmp_path / "x.npz"), "-p", "epochs=3", "-q"]) == 2
    assert "-p epochs: set it with --epochs" in capsys.readouterr().err


def test_a_fitted_model_pickles_and_predicts_the_same():
    import pickle
    m = chaintag.SAPO(features="ner", epochs=2).fit(SENTS, LABELS)  # affixes, shapes and flags
    back = pickle.loads(pickle.dumps(m))
    assert back.predict(SENTS) == m.predict(SENTS) and (back.weights_ == m.weights_).all()
