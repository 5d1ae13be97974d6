"""Up-front cost of the second-order model: label pairs, weights, memory and search steps.

The second-order model keeps ``L**3`` trigram weights (twice, when averaged)
and searches over label pairs: ``K_{t-2} K_{t-1} K_t`` label triples at token
``t``, where ``K`` is the number of labels the tag dictionary allows (all
``L`` for rare and unseen words). Both grow with the cube of the number of
labels, so a rich tagset (1,500 morphological tags: 3.4e9 trigram weights,
27 GB each) would otherwise run for minutes with memory climbing before
failing. :func:`estimate_cost` gives the figures before anything is
allocated, and :func:`check_cost` refuses or warns with them, as the
first-order model refuses more than ``MAX_LABELS`` labels.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

__all__ = ["SecondOrderCost", "estimate_cost", "check_cost", "memory_limit", "WARN_STEPS", "MAX_STEPS"]

#: Label-triple steps per epoch above which training warns and shows one line per epoch
#: (about a second of search at the kernels' speed of roughly 1e9 steps per second).
WARN_STEPS = 1e9
#: Label-triple steps of a whole training run above which it is refused (hours of search).
MAX_STEPS = 1e12
#: Environment variable: the memory the model may take, in GiB (default: half the machine's memory).
MEMORY_ENV = "CHAINTAG_MEMORY_LIMIT_GB"
#: Environment variable: the label-triple steps a run may take (default: ``MAX_STEPS``).
STEPS_ENV = "CHAINTAG_MAX_SEARCH_STEPS"


@dataclass
class SecondOrderCost:
    """What training the second-order model would take.

    Attributes
    ----------
    n_labels : int
    label_pairs : int
        ``L**2``: the states of the second-order search.
    trigram_weights : int
        ``L**3``.
    weight_bytes : int
        Bytes of the weight vectors (trigram and bigram weights; features come
        on top, as for the first-order model), both copies when averaged.
    lattice_bytes : int
        Bytes of the search lattice of the longest sentence (scores and
        back-pointers over label pairs).
    steps_per_epoch : int
        Label triples the search visits in one pass over the training data.
    """

    n_labels: int
    label_pairs: int
    trigram_weights: int
    weight_bytes: int
    lattice_bytes: int
    steps_per_epoch: int

    @property
    def memory_bytes(self) -> int:
        """``weight_bytes + lattice_bytes``."""
        return self.weight_bytes + self.lattice_bytes

    def describe(self) -> str:
        """The figures in one phrase."""
        return (f"{self.n_labels:,} labels: {self.label_pairs:,} label pairs, {self.trigram_weights:,} "
                f"trigram weights, {_gib(self.memory_bytes)} of weights and search lattice, "
                f"{self.steps_per_epoch:.2e} label-triple steps per epoch")


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


def memory_limit() -> int:
    """Bytes the second-order model may take: ``$CHAINTAG_MEMORY_LIMIT_GB``, else half the machine's memory."""
    env = os.environ.get(MEMORY_ENV)
    if env:
        try:
            return int(float(env) * 2**30)
        except ValueError:
            pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2)
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 8 * 2**30


def estimate_cost(n_labels: int, sent_lengths, allowed=None, averaged: bool = True) -> SecondOrderCost:
    """Weights, memory and search steps of the second-order model, before training.

    Parameters
    ----------
    n_labels : int
        ``L``.
    sent_lengths : sequence of int
        Tokens of each training sentence.
    allowed : int array, shape (n_tokens,), optional
        Labels the tag dictionary allows for each token, in corpus order
        (default: all ``L``).
    averaged : bool
        Averaged perceptron: a second copy of the weights.

    Returns
    -------
    SecondOrderCost

    Notes
    -----
    The steps of a sentence are ``sum_t K_{t-2} K_{t-1} K_t`` with ``K = 1``
    before the first token, computed with numpy in ``O(n_tokens)``.
    """
    L = int(n_labels)
    lengths = np.asarray(list(sent_lengths), dtype=np.int64)
    n_tokens = int(lengths.sum())
    k = np.full(n_tokens, L, dtype=np.float64) if allowed is None else np.asarray(allowed, dtype=np.float64)
    starts = np.zeros(len(lengths), dtype=np.int64)
    if len(lengths) > 1:
        np.cumsum(lengths[:-1], out=starts[1:])
    k1 = np.ones(n_tokens)
    k2 = np.ones(n_tokens)
    if n_tokens:
        k1[1:] = k[:-1]
        k2[2:] = k[:-2]
        k1[starts[lengths > 0]] = 1.0
        k2[starts[lengths > 0]] = 1.0
        second = starts[lengths > 1] + 1
        k2[second] = 1.0
    steps = int(float(np.sum(k2 * k1 * k)))
    copies = 2 if averaged else 1
    weight_bytes = 8 * copies * (L ** 3 + L ** 2 + 2 * L)
    t_max = int(lengths.max()) if len(lengths) else 0
    lattice_bytes = 12 * t_max * L * L
    return SecondOrderCost(L, L * L, L ** 3, weight_bytes, lattice_bytes, steps)


def check_cost(cost: SecondOrderCost, epochs: int, limit: int | None = None) -> str | None:
    """Refuse a second-order model that would not fit in memory; a warning when its search is long.

    Parameters
    ----------
    cost : SecondOrderCost
    epochs : int
    limit : int, optional
        Bytes allowed (default :func:`memory_limit`).

    Returns
    -------
    str or None
        A warning to show (the search would take more than ``WARN_STEPS``
        label-triple steps per epoch), or None.

    Raises
    ------
    chaintag.errors.TrainingError
        When the weights and lattice need more memory than ``limit``, or the
        search of all epochs more than ``MAX_STEPS`` label-triple steps; the
        message gives the label pairs, the trigram weights, the memory and
        the search steps, and what to do instead.
    """
    from ..errors import TrainingError
    limit = memory_limit() if limit is None else int(limit)
    if cost.memory_bytes > limit:
        raise TrainingError(
            f"the second-order model over {cost.describe()}: it needs {_gib(cost.memory_bytes)}, more than "
            f"the {_gib(limit)} allowed (half this machine's memory, or ${MEMORY_ENV}). Train the first-order "
            f"model instead (leave out --order 2), or use fewer labels")
    max_steps = float(os.environ.get(STEPS_ENV) or MAX_STEPS)
    if cost.steps_per_epoch * max(int(epochs), 1) > max_steps:
        raise TrainingError(
            f"the second-order model over {cost.describe()}: {epochs} epochs would take "
            f"{cost.steps_per_epoch * max(int(epochs), 1):.1e} steps of search, more than the {max_steps:.0e} "
            f"allowed (hours at about 1e9 steps a second; ${STEPS_ENV} raises it). Train the first-order "
            f"model instead (leave out --order 2), use fewer labels, or a lower --tag-dict-min")
    if cost.steps_per_epoch > WARN_STEPS:
        return (f"the second-order model over {cost.describe()} (x {epochs} epochs): expect long epochs; "
                f"a lower --tag-dict-min restricts more words to their labels, or leave out --order 2")
    return None
