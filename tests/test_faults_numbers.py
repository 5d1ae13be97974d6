"""Numbers that overflow: values that cannot be represented safely are refused when read, and no learner
ever keeps, saves or loads non-finite weights (chaintag.learners.finite)."""

from __future__ import annotations

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError, ModelFormatError, NumericalError, TrainingError
from chaintag.features.dicts import MAX_VALUE
from chaintag.io.model_file import load_model, save_model
from chaintag.learners.finite import all_finite, check_weights

Y = [["B-NP", "B-VP"], ["B-NP", "B-VP"]]
VALUED = ["perceptron", "sapo", "crf", "crf-lbfgs", "mira", "nbest-mira", "maxent"]


def corpus(value):
    return [[{"w": "He", "count": value}, {"w": "runs"}], [{"w": "She"}, {"w": "sings", "count": -3.0}]]


def make(algo, **kw):
    return chaintag.make_learner(algo, **({} if algo == "maxent" else {"epochs": 3}), **kw)


@pytest.mark.parametrize("value, shown", [(10 ** 400, "an int of 401 digits"), (-10 ** 400, "an int of 401 digits"),
                                          (1e151, "1e+151"), (-1e300, "-1e+300"), (2 ** 1100, "an int of 332")])
def test_values_too_large_are_refused_naming_sentence_token_and_attribute(value, shown):
    with pytest.raises(InputError) as err:
        make("perceptron").fit(corpus(value), Y)
    msg = str(err.value)
    assert "sentence 0, token 0: feature 'count'" in msg and shown in msg and f"{MAX_VALUE:g}" in msg
    assert not isinstance(err.value, OverflowError)


@pytest.mark.parametrize("algo", VALUED)
def test_the_largest_accepted_value_trains_finite_weights(algo, tmp_path):
    m = make(algo).fit(corpus(MAX_VALUE), Y)
    assert np.isfinite(m.weights_).all()
    m.save(tmp_path / "m.npz")
    assert np.isfinite(chaintag.load(tmp_path / "m.npz").weights_).all()
    assert make(algo).fit(corpus(10 ** 150), Y).predict(corpus(1.0))  # an int of that size too


@pytest.mark.parametrize("algo", ["sapo", "crf"])
def test_an_epoch_ending_with_non_finite_weights_stops_training(algo):
    """A huge learning rate with no L2 overflows the updates: the error names the epoch and the largest value."""
    with pytest.raises(NumericalError) as err:
        make(algo, learning_rate=1e300, l2=0.0).fit(corpus(1e150), Y)
    msg = str(err.value)
    assert "after epoch 1" in msg and "1e+150 (attribute 'count')" in msg and "no model was kept" in msg
    assert isinstance(err.value, TrainingError)


@pytest.mark.parametrize("algo", ["perceptron2", "sapo2", "perceptron", "mira"])
def test_every_learner_of_the_epoch_loop_is_checked(algo, monkeypatch):
    """Learners whose epochs the base class drives (second order included) stop on a non-finite epoch."""
    cls = type(make(algo))
    real = cls._current_weights

    def poisoned(self, state):
        w = real(self, state).copy()
        w[0] = np.nan
        return w
    monkeypatch.setattr(cls, "_current_weights", poisoned)
    X = [[("He", "PRP"), ("runs", "VBZ")], [("She", "PRP"), ("sings", "VBZ")]]
    with pytest.raises(NumericalError, match=f"^{cls.algorithm}: 1 weight.* after epoch 1: lower the learning"):
        make(algo).fit(X, Y)


def test_crf_lbfgs_checks_each_iteration(monkeypatch):
    """The L-BFGS callback (one call per iteration) stops on a non-finite iterate, and so does the end."""
    import scipy.optimize
    from scipy.optimize import OptimizeResult

    def fake_minimize(fun, x0, callback=None, **kw):
        x = np.full_like(x0, np.nan)
        if callback is not None and calls["callback"]:
            callback(OptimizeResult(x=x, fun=np.nan))
        return OptimizeResult(x=x, fun=np.nan, message="fake")
    monkeypatch.setattr(scipy.optimize, "minimize", fake_minimize)
    calls = {"callback": True}
    with pytest.raises(NumericalError, match="crf-lbfgs: .* not finite .* after epoch 1"):
        make("crf-lbfgs").fit(corpus(2.0), Y)
    calls["callback"] = False
    with pytest.raises(NumericalError, match="crf-lbfgs: .* not finite .* after training"):
        make("crf-lbfgs").fit(corpus(2.0), Y)


def test_save_refuses_non_finite_weights(tmp_path):
    m = make("perceptron").fit(corpus(2.0), Y)
    m.weights_ = m.weights_.copy()
    m.weights_[1] = np.inf
    with pytest.raises(NumericalError, match="after training"):
        m.save(tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


def test_load_refuses_a_model_file_with_non_finite_weights(tmp_path):
    make("perceptron").fit(corpus(2.0), Y).save(tmp_path / "m.npz")
    meta, arrays = load_model(tmp_path / "m.npz")
    arrays["weights"][0] = np.nan
    save_model(tmp_path / "nan.npz", meta, arrays)  # as a chaintag that did not check them wrote it
    with pytest.raises(ModelFormatError, match="nan.npz: .*not finite"):
        chaintag.load(tmp_path / "nan.npz")


def test_all_finite_and_check_weights():
    assert all_finite(np.zeros(0)) and all_finite(np.array([1.0, -2.0]))
    assert all_finite(np.array([1e308, 1e308]))  # the sum overflows; every weight is finite
    assert not all_finite(np.array([1.0, np.nan])) and not all_finite(np.array([-np.inf, 1.0]))
    m = make("perceptron")
    check_weights(m, np.ones(3))
    with pytest.raises(NumericalError, match="2 weight"):
        check_weights(m, np.array([np.nan, 1.0, np.inf]), epoch=4)
