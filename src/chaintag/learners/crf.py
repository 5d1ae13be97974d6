"""Linear-chain CRFs: SGD with lazy L2 (``crf``) and batch L-BFGS (``crf-lbfgs``)."""

from __future__ import annotations

import time

import numpy as np

from .base import SequenceTagger, TrainData, register
from .params import Param, pick
from .crf_kernels import crf_objective, crf_sgd_epoch
from .finite import check_weights
from .path_kernels import training_arrays
from .scale_kernels import fold_average, fold_scale


@register
class CRF(SequenceTagger):
    """Linear-chain conditional random field trained by stochastic gradient descent.

    Per sample: ``w += gamma_t (Phi(x, y*) - E_{P(y|x)}[Phi(x, y)])``, then
    ``w *= 1 - gamma_t lambda / |S|`` (an O(1) step through a global scale),
    with Bottou's ``gamma_t = gamma_0 / (1 + gamma_0 lambda t / |S|)``
    (``t`` = samples seen) by default.

    Parameters
    ----------
    features, columns, epochs, cc, feature_space, shuffle, random_state, progress
        As for :class:`~chaintag.learners.perceptron.StructuredPerceptron`
        (``shuffle`` defaults to True: SGD visits samples in random order).
    learning_rate : float, default 0.1
        ``gamma_0``.
    lr_schedule : {"bottou", "decay", "fixed"}, default "bottou"
        ``gamma_0 / (1 + gamma_0 lambda t / |S|)`` (Bottou 2012, the rate for an
        L2-regularized objective), ``gamma_0 / (1 + t / |S|)``, or fixed.
    l2 : float, default 1.0
        ``lambda`` of the objective ``sum log P(y*|x) - lambda ||w||^2 / 2``.
    averaged : bool, default True
        Averaged SGD: tag with the average of the weights after every step
        (Polyak & Juditsky 1992; computed lazily and exactly). It smooths the
        noise of the last SGD iterates.

    References
    ----------
    J. Lafferty, A. McCallum, F. Pereira. Conditional random fields. ICML 2001.
    L. Bottou. Stochastic gradient descent tricks (2012); Y. Tsuruoka, J. Tsujii,
    S. Ananiadou. Stochastic gradient descent training for L1-regularized
    log-linear models with cumulative penalty. ACL 2009.
    """

    mixing_family = "scaled"  # scaled weights, averaged sums, the scale

    algorithm = "crf"
    _real_values = True  # feature-dict numbers: the kernels read the values (ent_val)

    params = (
        *pick("features", "columns"),
        Param("learning_rate", 0.1, float, "learning rate gamma_0", low=0, low_open=True, group="SAPO, CRF and MIRA",
              metavar="G"),
        Param("lr_schedule", "bottou", str, "bottou: gamma_0 / (1 + gamma_0 lambda t/|S|); decay; fixed",
              choices=("bottou", "decay", "fixed"), group="SAPO, CRF and MIRA"),
        Param("l2", 1.0, float, "L2 strength lambda", low=0, group="SAPO, CRF and MIRA", metavar="LAMBDA"),
        *pick("averaged", "epochs", "cc", "feature_space", "shuffle", "random_state", "hash_bits", "progress",
              shuffle=True),
    )

    def _begin(self, data: TrainData) -> dict:
        n_train = data.attrs.n_sentences
        if self.lr_schedule not in ("bottou", "decay", "fixed"):
            raise ValueError(f"lr_schedule must be 'bottou', 'decay' or 'fixed', not {self.lr_schedule!r}")
        if self.learning_rate <= 0 or self.l2 < 0:
            raise ValueError("learning_rate must be > 0 and l2 >= 0")
        if self.learning_rate * self.l2 / n_train >= 1:
            raise ValueError("learning_rate * l2 / |S| must be below 1")
        n = data.index.n_weights
        avg = bool(self.averaged)
        return {"v": np.zeros(n), "sigma": 1.0, "step": 0, "n_train": n_train,
                "u": np.zeros(n if avg else 1), "acc": np.zeros(n if avg else 1), "sigma_sum": 0.0}

    def _run_epoch(self, state: dict, data: TrainData, order: np.ndarray) -> dict:
        avg = bool(self.averaged)
        sigma, step, loss, sigma_sum = crf_sgd_epoch(  # 0/1 attributes or attributes with values alike
            order, training_arrays(data), state["v"], state["sigma"], state["step"], data.index.n_labels,
            float(self.learning_rate), self._decay(), float(self.l2), state["n_train"], avg, state["u"],
            state["acc"], state["sigma_sum"])
        if avg:
            fold_average(state["v"], state["u"], state["acc"], sigma_sum)
            sigma_sum = 0.0
        if sigma != 1.0:
            sigma = fold_scale(state["v"], sigma)
        state["sigma"], state["step"], state["sigma_sum"] = sigma, step, sigma_sum
        return {"updates": int(len(order)), "loss": float(loss)}

    def _decay(self) -> float:
        return {"fixed": 0.0, "decay": 1.0, "bottou": float(self.learning_rate) * float(self.l2)}[self.lr_schedule]

    def _current_weights(self, state: dict) -> np.ndarray:
        if self.averaged and state["step"] > 0:
            return state["acc"] / state["step"]
        return state["sigma"] * state["v"]


@register
class CRFLBFGS(SequenceTagger):
    """Linear-chain CRF trained in batch by L-BFGS (SciPy), CRFsuite's default method.

    Minimizes ``sum_x [log Z(x) - s(x, y*)] + l1 ||w||_1 + l2 ||w||^2 / 2``
    with the same compiled gradient code as :class:`CRF`. One "epoch" of the
    history is one L-BFGS iteration.

    With ``l1 > 0`` the weights are split as ``w = u - v`` with ``u, v >= 0``
    and L-BFGS-B minimizes the smooth objective ``f(u - v) + l1 sum(u + v)``
    under those bounds: the same minimum as the L1-penalized objective
    (CRFsuite reaches it with OWL-QN, Andrew and Gao 2007), at twice the
    optimizer memory.

    Parameters
    ----------
    features, columns, cc, feature_space, progress
        As for :class:`CRF`.
    l2 : float, default 1.0
        Coefficient of the L2 penalty ``l2 ||w||^2 / 2`` (CRFsuite's and
        sklearn-crfsuite's ``c2`` is ``l2 / 2``).
    l1 : float, default 0.0
        Coefficient of the L1 penalty ``l1 ||w||_1`` (CRFsuite's ``c1``);
        drives weights to exactly zero.
    epochs : int, default 100
        Maximum number of L-BFGS iterations.
    tol : float, default 1e-5
        Stop when the relative decrease of the objective falls below ``tol``
        (SciPy's ``ftol``).
    memory : int, default 6
        Number of correction pairs kept (CRFsuite's ``num_memories``).

    References
    ----------
    J. Nocedal. Updating quasi-Newton matrices with limited storage (1980);
    D. C. Liu, J. Nocedal (1989). SciPy's ``L-BFGS-B``.
    """

    gradient_sum = True  # distributed by summing the objective's gradient over the shards
    supports_checkpoints = False  # the L-BFGS state is not saved

    algorithm = "crf-lbfgs"
    _real_values = True  # feature-dict numbers: the kernels read the values (ent_val)

    params = (
        *pick("features", "columns"),
        Param("l2", 1.0, float, "L2 strength lambda (CRFsuite's c2 = l2 / 2)", low=0, group="SAPO, CRF and MIRA",
              metavar="LAMBDA"),
        Param("l1", 0.0, float, "L1 strength (CRFsuite's c1)", low=0, group="SAPO, CRF and MIRA", metavar="C1"),
        *pick("epochs", epochs=100),
        Param("tol", 1e-5, float, "L-BFGS stopping tolerance", low=0, low_open=True, option=""),
        Param("memory", 6, int, "L-BFGS memory (corrections kept)", low=1, option=""),
        *pick("cc", "feature_space", "random_state", "hash_bits", "progress"),
    )

    shuffle = False  # the driver asks; batch training has no sample order

    def _objective(self, data: TrainData):
        """The function L-BFGS minimizes: ``w -> (value, gradient)`` over the training corpus.

        (:func:`chaintag.distributed.fit_distributed` swaps in a sum over Dask workers.)
        """
        c = training_arrays(data)  # 0/1 attributes or attributes with values alike
        grad = np.zeros(data.index.n_weights)

        def fun(w):
            value = crf_objective(w, c, data.index.n_labels, float(self.l2), grad)
            return value, grad.copy()

        return fun

    def _train(self, data: TrainData, dev_pack, checkpoint_dir=None, resume=False, trainer=None) -> None:
        from ..lazy import require
        optimize = require("scipy.optimize", "lbfgs", "crf-lbfgs (L-BFGS)")
        Bounds, minimize = optimize.Bounds, optimize.minimize

        if checkpoint_dir:
            from ..errors import InputError
            raise InputError("crf-lbfgs keeps no checkpoints (L-BFGS state is not saved); "
                             "use crf (SGD) for resumable training")

        history: list[dict] = []
        calls = {"n": 0}
        objective = self._objective(data) if trainer is None else trainer.objective(data)  # summed over shards
        l1 = float(self.l1)
        if l1 < 0 or float(self.l2) < 0:
            from ..errors import InputError
            raise InputError(f"l1 and l2 must be 0 or more (got l1={self.l1}, l2={self.l2})")
        n = data.index.n_weights

        def unsplit(x):
            return x if l1 == 0 else x[:n] - x[n:]

        def fun(x):
            calls["n"] += 1
            if l1 == 0:
                return objective(x)
            value, g = objective(x[:n] - x[n:])  # w = u - v with u, v >= 0
            return value + l1 * x.sum(), np.concatenate([g + l1, l1 - g])

        best = {"score": -np.inf, "w": None, "epoch": 0}
        t_last = [time.perf_counter(), time.process_time()]

        def callback(intermediate_result):
            w = unsplit(intermediate_result.x)
            check_weights(self, w, data, len(history) + 1)  # NumericalError on NaN or inf (finite.py)
            now = [time.perf_counter(), time.process_time()]
            rec = {"epoch": len(history) + 1, "seconds": now[0] - t_last[0],
                   "cpu_seconds": now[1] - t_last[1], "loss": float(intermediate_result.fun),
                   "evaluations": calls["n"], "weight_complexity": float(np.abs(w).mean())}
            if dev_pack is not None:
                result = self._evaluate_attrs(w, *dev_pack)
                score = result.f1 if result.is_chunking else result.accuracy
                rec.update(dev_accuracy=result.accuracy, dev_f1=result.f1 if result.is_chunking else None,
                           dev_score=score)
                if score > best["score"]:
                    best.update(score=score, w=w.copy(), epoch=rec["epoch"])
            history.append(rec)
            t_last[:] = [time.perf_counter(), time.process_time()]

        res = minimize(fun, np.zeros(n if l1 == 0 else 2 * n), jac=True, method="L-BFGS-B", callback=callback,
                       bounds=None if l1 == 0 else Bounds(np.zeros(2 * n), np.full(2 * n, np.inf)),
                       options={"maxiter": int(self.epochs), "ftol": float(self.tol), "gtol": 1e-8,
                                "maxcor": int(self.memory)})
        w = unsplit(res.x) if best["w"] is None else best["w"]
        check_weights(self, w, data)
        self.weights_ = np.ascontiguousarray(w, dtype=np.float64)
        self.best_epoch_ = best["epoch"] if best["w"] is not None else len(history)
        self.history_ = history
        self.optimizer_message_ = str(res.message)
