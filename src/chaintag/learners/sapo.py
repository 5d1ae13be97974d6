"""SAPO: search-based probabilistic online learning (Sun et al.)."""

from __future__ import annotations

import math

import numpy as np

from .base import SequenceTagger, TrainData, register
from .params import Param, pick
from .hogwild_kernels import sapo_epoch_hogwild, sapo_scales
from .path_kernels import training_arrays
from .sapo_kernels import sapo_epoch
from .scale_kernels import FOLD_BELOW, fold_average, fold_scale
from .threads import numba_threads, parallel_epoch, resolve_threads


def check_sapo_settings(n_best, learning_rate, l2, lr_schedule, stop_ratio) -> None:
    """Refuse SAPO settings out of range (shared by :class:`SAPO` and the second-order SAPO).

    Raises
    ------
    ValueError
        ``n_best`` not an integer of at least 1; ``learning_rate`` not finite and > 0; ``l2`` not finite
        and >= 0; ``lr_schedule`` not "decay" or "fixed"; ``stop_ratio`` not None and not above 1.
    """
    if lr_schedule not in ("decay", "fixed"):
        raise ValueError(f"lr_schedule must be 'decay' or 'fixed', not {lr_schedule!r}")
    if isinstance(n_best, (bool, np.bool_)) or not isinstance(n_best, (int, np.integer)) or n_best < 1:
        raise ValueError(f"n_best must be an integer of at least 1, not {n_best!r}")
    if not (math.isfinite(learning_rate) and learning_rate > 0):
        raise ValueError(f"learning_rate must be a finite number above 0, not {learning_rate!r}")
    if not (math.isfinite(l2) and l2 >= 0):
        raise ValueError(f"l2 must be a finite number of at least 0, not {l2!r}")
    if stop_ratio is not None and not (math.isfinite(stop_ratio) and stop_ratio > 1):
        raise ValueError(f"stop_ratio must be None or a finite number above 1, not {stop_ratio!r}")


@register
class SAPO(SequenceTagger):
    """Search-based probabilistic online learning for linear-chain tagging.

    For each training sentence, drawn in a seeded random order: find the
    top-n label sequences (exact A* or beam search), turn their scores into
    probabilities over the top-n, and move the weights toward the gold
    features and away from each candidate's, in proportion to its
    probability and the learning rate; then shrink the weights (L2).

    Parameters
    ----------
    features : str or list of str, default "pos"
        Preset name (``chunking``, ``pos``, ``ner``), template file, or specs.
    columns : sequence of str, optional
        Names of the token columns.
    n_best : int, default 5
        Size ``n`` of the top-n.
    search : {"astar", "beam"}, default "astar"
        Exact top-n (A* with a backward-Viterbi heuristic) or beam search.
    beam_width : int, default 50
    learning_rate : float, default 0.1
        ``gamma`` (``gamma_0`` with a decayed schedule).
    lr_schedule : {"decay", "fixed"}, default "decay"
        ``gamma_t = gamma_0 / (1 + t / |S|)`` (t = samples seen), or fixed.
    l2 : float, default 1.0
        Regularization strength ``lambda`` (the paper: 2 POS, 5 Bio-NER,
        1 chunking); 0 disables it.
    l2_per_pass : bool, default False
        Variant of the authors' code: one step ``w *= 1 - gamma lambda`` per
        pass instead of ``1 - gamma lambda / |S|`` after every sample.
    stop_ratio : float or None, default None
        Variant of the authors' code: stop the top-n search once a candidate
        is ``stop_ratio`` times less probable than the best
        (``exp(s_1 - s_k) >= stop_ratio``; they used 20).
    averaged : bool, default False
        Variant of the authors' code: tag with the average of the weights
        after every step (computed lazily and exactly, as for the perceptron).
    structure_reg : float, default 0.0
        Structure regularization (Sun 2014), as in the authors' code: when
        > 0, each training sentence is cut at random into pieces of geometric
        length with this mean (they used 1.5), each searched and updated as a
        sentence of its own. 0 disables it.
    epochs : int, default 10
    cc : int, default 0
        Count cut-off on (attribute, label) pairs.
    feature_space : {"gold", "all"}, default "gold"
    shuffle : bool, default True
        Random sample order each pass; False visits the file order.
    random_state : int, default 0
    progress : bool or None, default None
    n_jobs : int, default 1
        Threads of a pass. 1: the serial pass, reproducible bit for bit.
        N > 1 (-1: all cores): the samples of the pass are split into N
        blocks searched and updated in parallel on shared weights without
        locks (Hogwild, as the authors trained; see
        :mod:`chaintag.learners.hogwild_kernels`, real-valued attributes
        such as word vectors included): accuracy within run-to-run
        noise, not reproducible bit for bit. Averaged weights and
        structure regularization train on one thread.

    Notes
    -----
    With ``n_best=1``, ``learning_rate=1``, ``lr_schedule="fixed"`` and
    ``l2=0`` the updates are exactly the (naive) perceptron's. The L2 step
    costs O(1) through a global scale factor (see
    :mod:`chaintag.learners.sapo_kernels`).

    References
    ----------
    X. Sun et al. Towards easier and faster sequence labeling for natural
    language processing: a search-based probabilistic online learning
    framework (SAPO), Algorithm 1.
    """

    _full_rows = True  # the epoch kernels find features with find_feature only
    mixing_family = "scaled"  # scaled weights, averaged sums, the scale

    algorithm = "sapo"
    #: span confidence from the top-n sequences (:mod:`chaintag.learners.spans`)
    span_confidence = "top-n"
    #: epochs of ``chaintag train`` / :func:`chaintag.train` when none are named: 20 had the higher summed
    #: dev score than 10 over every trial of every kind of task (docs/results/kind_defaults); ``epochs``
    #: below stays the constructor's default
    train_epochs = 20
    #: settings for a kind of task (:func:`chaintag.api.train_checks.task_kind`) when ``chaintag train`` uses
    #: the kind's default attributes: one per kind, the highest dev score summed over the kind's tasks with
    #: and without resources (docs/results/kind_defaults, second round)
    kind_params = {"pos": {"feature_space": "all"}, "chunking": {"feature_space": "all", "l2": 2.0},
                   "ner": {"feature_space": "all", "l2": 2.0}}
    _real_values = True  # feature-dict numbers: the kernels read the values (ent_val)

    params = (
        *pick("features", "columns"),
        Param("n_best", 5, int, "size of the top-n", low=1, group="SAPO, CRF and MIRA", metavar="N"),
        Param("search", "astar", str, "top-n search: exact A* or beam", choices=("astar", "beam"), group="SAPO, CRF and MIRA"),
        Param("beam_width", 50, int, "beam width of the beam search", low=1, group="SAPO, CRF and MIRA", metavar="B"),
        Param("learning_rate", 0.1, float, "learning rate gamma_0", low=0, low_open=True, group="SAPO, CRF and MIRA",
              metavar="G"),
        Param("lr_schedule", "decay", str, "decay: gamma_0 / (1 + t/|S|); fixed", choices=("decay", "fixed"),
              group="SAPO, CRF and MIRA"),
        Param("l2", 1.0, float, "L2 strength lambda (the SAPO paper used 2 POS, 5 NER, 1 chunking)", low=0,
              group="SAPO, CRF and MIRA", metavar="LAMBDA"),
        Param("l2_per_pass", False, bool, "one L2 step per pass instead of one per sample (variant)",
              group="SAPO, CRF and MIRA", negatable=False),
        Param("stop_ratio", None, float, "stop the top-n search once exp(s_1 - s_k) >= R (variant)", low=1,
              low_open=True, none=True, group="SAPO, CRF and MIRA", metavar="R"),
        *pick("averaged", averaged=False),
        Param("structure_reg", 0.0, float, "structure regularization (the SAPO authors' variant): a mean piece "
              "length, 0 (off) or at least 1 (checked by SAPO)", low=0, option=""),
        *pick("epochs", "cc", "feature_space", "shuffle", "random_state", "hash_bits", "progress", "n_jobs",
              shuffle=True),
    )

    def _check(self, n_train: int) -> None:
        if self.search not in ("astar", "beam"):
            raise ValueError(f"search must be 'astar' or 'beam', not {self.search!r}")
        check_sapo_settings(self.n_best, self.learning_rate, self.l2, self.lr_schedule, self.stop_ratio)
        if int(self.beam_width) < 1:
            raise ValueError(f"beam_width must be at least 1, not {self.beam_width!r}")
        if self.structure_reg and self.structure_reg < 1:
            raise ValueError("structure_reg is a mean piece length: 0 (off) or at least 1")
        shrink = self.learning_rate * self.l2 / (1 if self.l2_per_pass else n_train)
        if shrink >= 1:
            raise ValueError(f"learning_rate * l2{'' if self.l2_per_pass else ' / |S|'} = {shrink:g} "
                             "must be below 1 (the L2 step would flip or zero the weights)")

    def _begin(self, data: TrainData) -> dict:
        n_train = data.attrs.n_sentences
        self._check(n_train)
        n = data.index.n_weights
        avg = bool(self.averaged)
        return {"v": np.zeros(n), "sigma": 1.0, "step": 0, "n_train": n_train,
                "u": np.zeros(n if avg else 1), "acc": np.zeros(n if avg else 1), "sigma_sum": 0.0}

    def _run_epoch(self, state: dict, data: TrainData, order: np.ndarray) -> dict:
        stop_gap = math.log(self.stop_ratio) if self.stop_ratio else np.inf
        step_before = state["step"]
        # the cutting seed depends on the seed and the pass only (resumable)
        seed = int(np.random.SeedSequence([int(self.random_state), int(state["step"])]).generate_state(1)[0])
        c = training_arrays(data)  # 0/1 attributes or attributes with values alike
        threads = resolve_threads(getattr(self, "n_jobs", 1))
        parallel = threads > 1 and not self.averaged and not self.structure_reg
        if parallel:
            gammas, sigmas = sapo_scales(len(order), state["sigma"], state["step"], float(self.learning_rate),
                                         self.lr_schedule == "decay", float(self.l2), state["n_train"],
                                         not self.l2_per_pass)
            parallel = sigmas[-1] >= FOLD_BELOW  # no fold of the scale within the pass
        with parallel_epoch(parallel) as parallel:  # the serial epoch after fork (threads.py)
            if parallel:
                with numba_threads(threads):
                    n_updates, n_errors, loss = sapo_epoch_hogwild(
                        order, c, state["v"], gammas, sigmas, data.index.n_labels, int(self.n_best),
                        self.search == "beam", int(self.beam_width), stop_gap, threads)
                sigma, step, sigma_sum = float(sigmas[-1]), state["step"] + len(order), state["sigma_sum"]
        if not parallel:
            sigma, step, n_updates, n_errors, loss, sigma_sum = sapo_epoch(
                order, c, state["v"], state["sigma"], state["step"], data.index.n_labels, int(self.n_best),
                self.search == "beam", int(self.beam_width), stop_gap, float(self.learning_rate),
                self.lr_schedule == "decay", float(self.l2), state["n_train"], not self.l2_per_pass,
                bool(self.averaged), state["u"], state["acc"], state["sigma_sum"],
                float(self.structure_reg), seed)
        if self.l2 > 0 and self.l2_per_pass:
            gamma = self.learning_rate / (1 + step_before / state["n_train"]) \
                if self.lr_schedule == "decay" else self.learning_rate
            sigma *= 1 - gamma * self.l2
        if self.averaged:
            fold_average(state["v"], state["u"], state["acc"], sigma_sum)
            sigma_sum = 0.0
        if sigma != 1.0:
            sigma = fold_scale(state["v"], sigma)  # keep v = w between passes (cheap: once a pass)
        state["sigma"], state["step"], state["sigma_sum"] = sigma, step, sigma_sum
        return {"updates": int(n_updates), "errors": int(n_errors), "loss": float(loss)}

    def _current_weights(self, state: dict) -> np.ndarray:
        if self.averaged and state["step"] > 0:
            # between passes: sigma == 1, u == 0 and sigma_sum == 0 (folded)
            return state["acc"] / state["step"]
        return state["sigma"] * state["v"]
