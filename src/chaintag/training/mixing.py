"""Iterative parameter mixing (McDonald, Hall and Mann, NAACL 2010, s. 3, Fig. 2).

Each epoch, every shard's learner starts from the mixed weights ``w``, runs one
pass over its own sentences and returns its weights ``w_i``; the new mixed
weights are ``w = sum_i mu_i w_i`` with ``mu_i = 1 / k`` (``uniform``) or
``mu_i = updates_i / sum_j updates_j`` (``updates``: the shard's number of
updated sentences in the epoch, the weighting of their convergence theorem).

What is averaged (the averaged variants). A step is one sentence visited by
one shard. The averaged weights after epoch ``N`` are the mean, over every
step of every shard in epochs ``1 .. N``, of the weights that shard held just
after that step (each shard's pass starting from the mixed weights of the
epoch before). The mixed vectors themselves are not among the averaged
ones: no step produced them. With one shard this is exactly the serial
average of Collins (2002, s. 2.5). It is kept exactly, with the lazy sums of
the serial learners:

``lazy`` family (perceptron, MIRA)
    shard ``i`` keeps ``u_i`` with ``sum of its step weights = K_i w_i - u_i``
    (``K_i`` its steps so far, ``w_i`` its current weights). Moving the shard
    to the mixed weights ``w`` between epochs is a jump that no later step
    saw before, so ``u_i += K_i (w - w_i)`` keeps the identity with ``w_i = w``.
    The average is ``(K w - sum_i u_i) / K`` with ``K = sum_i K_i``.
``scaled`` family (SAPO, CRF by SGD)
    between passes the scaled weights are folded (``sigma = 1``, ``u = 0``)
    and shard ``i``'s ``acc_i`` is the plain sum of its step weights, which a
    jump does not change. The average is ``sum_i acc_i / K``.
"""

from __future__ import annotations

import numpy as np

MIXINGS = ("uniform", "updates")


class Family:
    """How a learner's epoch state is split between the driver and the shards.

    Attributes
    ----------
    weights : str
        State key of the weights that are mixed.
    carried : tuple of str
        Per-shard state the driver keeps between epochs and sends back with
        the mixed weights (float64 arrays and numeric scalars only).
    """

    def __init__(self, name: str, weights: str, carried: tuple[str, ...]):
        self.name, self.weights, self.carried = name, weights, carried

    @property
    def keys(self) -> tuple[str, ...]:
        return (self.weights,) + self.carried

    def jump(self, shard_state: dict, old_weights: np.ndarray, mixed: np.ndarray, averaged: bool) -> None:
        """Move a shard from its own weights to the mixed ones, keeping its lazy average exact."""
        if self.name == "lazy" and averaged and shard_state["step"] > 0:
            shard_state["u"] += float(shard_state["step"]) * (mixed - old_weights)

    def merged(self, mixed: np.ndarray, shards: list[dict]) -> dict:
        """A state of the serial learner whose ``_current_weights`` is the mixed model.

        The carried arrays are summed over the shards (the first one as is, so
        that one shard gives the serial state bit for bit).
        """
        state = {self.weights: mixed, "sigma": 1.0, "step": sum(int(s["step"]) for s in shards)}
        for key in ("u", "acc"):
            if key in self.carried:
                total = shards[0][key].copy()
                for s in shards[1:]:
                    total += s[key]
                state[key] = total
        return state


LAZY = Family("lazy", "w", ("u", "step"))
SCALED = Family("scaled", "v", ("acc", "step", "sigma", "sigma_sum"))
#: A learner class names its family in its ``mixing_family`` attribute.
FAMILIES = {"lazy": LAZY, "scaled": SCALED}


def family_of(learner) -> Family:
    """The mixing family of a learner.

    Raises
    ------
    chaintag.errors.InputError
        For learners that cannot be trained by parameter mixing (the
        second-order perceptron, max-ent; crf-lbfgs is distributed by summing
        its gradient instead).
    """
    from ..errors import InputError
    family = FAMILIES.get(getattr(type(learner), "mixing_family", None))
    if family is None:
        raise InputError(f"distributed training is offered for perceptron, mira, nbest-mira, sapo, crf and "
                         f"crf-lbfgs, not {learner.algorithm}")
    return family


def mixing_coefficients(updates: list[int], mixing: str) -> list[float]:
    """``mu_i`` of each shard.

    Parameters
    ----------
    updates : list of int
        Updated sentences of each shard in the epoch.
    mixing : {"uniform", "updates"}

    Returns
    -------
    list of float, summing to 1
        Uniform when ``mixing`` is ``uniform`` or no shard made an update
        (then every shard still holds the mixed weights).

    Raises
    ------
    ValueError
        For an unknown ``mixing``.
    """
    if mixing not in MIXINGS:
        raise ValueError(f"mixing must be one of {', '.join(MIXINGS)}, not {mixing!r}")
    k = len(updates)
    total = sum(updates)
    if mixing == "uniform" or total == 0:
        return [1.0 / k] * k
    return [u / total for u in updates]


def mix(weights: list[np.ndarray], mu: list[float]) -> np.ndarray:
    """``sum_i mu_i w_i``; one shard's weights are returned as they are (no rounding)."""
    if len(weights) == 1:
        return weights[0]
    out = mu[0] * weights[0]
    for m, w in zip(mu[1:], weights[1:]):
        out += m * w
    return out
