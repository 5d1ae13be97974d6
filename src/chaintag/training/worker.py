"""What runs on a Dask worker: one shard's learner, its epoch, its CRF objective.

A :class:`ShardWorker` lives in a worker's memory for the whole run (the
result of one task). It holds one shard's compact arrays and the state the
learner derives from them once (gold feature ids, sizes); the weights and
the averaging sums come from the driver with each epoch and go back with its
result, so that an epoch can be rerun anywhere from the same inputs.
"""

from __future__ import annotations

import copy

import numpy as np

from .shards import shard_digest, shard_train_data


class ShardWorker:
    """One shard and a learner to train on it.

    Parameters
    ----------
    learner_cls : type
        A :class:`~chaintag.learners.base.SequenceTagger` subclass.
    params : dict
        Its hyper-parameters (``get_params()``).
    shard : dict of arrays
        From :func:`chaintag.training.shards.make_shard` (or memory-mapped shard files).
    feat_label : int32 array, shape (n_features,)
    n_labels : int
    keys : tuple of str
        State keys sent by the driver with every epoch
        (:attr:`chaintag.training.mixing.Family.keys`); empty for the batch
        objective of ``crf-lbfgs``.
    """

    def __init__(self, learner_cls, params: dict, shard: dict, feat_label, n_labels: int, keys: tuple):
        self.learner = learner_cls(**{**params, "progress": False})
        self.data = shard_train_data(shard, feat_label, n_labels)
        self.keys = tuple(keys)
        self.template = None
        self.initial = None
        if self.keys:
            state = self.learner._begin(self.data)
            # the epoch kernels compile (or load from numba's cache) now, not in the first epoch, by an
            # epoch over no sentences on a copy of the epoch state (the keys); the rest, derived from the
            # shard (gold feature ids: 4 bytes per entry), is shared, not copied: every epoch reads it
            # uncopied from the template, so no epoch writes to it
            warm = {k: (copy.deepcopy(v) if k in self.keys else v) for k, v in state.items()}
            self.learner._run_epoch(warm, self.data, np.zeros(0, dtype=np.int64))
            del warm
            self.initial = {k: state[k] for k in self.keys}
            self.template = {k: v for k, v in state.items() if k not in self.keys}

    @property
    def n_sentences(self) -> int:
        return self.data.attrs.n_sentences

    def epoch(self, carried: dict, weights: np.ndarray, order: np.ndarray) -> tuple[dict, dict]:
        """One pass of the learner's compiled epoch over the shard, from the driver's state.

        Parameters
        ----------
        carried : dict
            The shard's state other than the weights (values of ``keys[1:]``).
        weights : float64 array, shape (n_weights,)
            The mixed weights (``keys[0]``). Inputs are copied here: they stay
            as sent, so a rerun of the task gives the same result.
        order : int64 array
            Local sentence ids in visiting order.

        Returns
        -------
        state : dict
            The values of ``keys`` after the pass.
        stats : dict
            The learner's epoch figures (updates, errors, loss, ...).
        """
        state = dict(self.template)
        state[self.keys[0]] = np.array(weights, dtype=np.float64)
        for k in self.keys[1:]:
            v = carried[k]
            state[k] = v.copy() if isinstance(v, np.ndarray) else v
        stats = self.learner._run_epoch(state, self.data, np.ascontiguousarray(order, dtype=np.int64))
        return {k: state[k] for k in self.keys}, stats

    def objective(self, w: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
        """The CRF's negative log-likelihood on the shard plus ``l2 ||w||^2 / 2``, and its gradient."""
        from ..learners.crf_kernels import crf_objective
        from ..learners.path_kernels import training_arrays
        d = self.data
        grad = np.zeros(d.index.n_weights)
        value = crf_objective(w, training_arrays(d), d.index.n_labels, float(l2), grad)
        return float(value), grad


def load_shard(learner_cls, params, shard, feat_label, n_labels, keys, digest=None) -> ShardWorker:
    """Task: build a :class:`ShardWorker` in the worker's memory.

    ``shard`` is a dict of arrays, or a
    :class:`~chaintag.training.shard_files.ShardPaths` whose files are mapped here.

    Raises
    ------
    RuntimeError
        When ``digest`` is given and the arrays received do not have it (a
        shard mixed up with another one or damaged on the way).
    """
    from .shard_files import ShardPaths
    if isinstance(shard, ShardPaths):  # files this worker sees: mapped read-only, not copied
        shard = shard.load()
    elif any(isinstance(v, list) for v in shard.values()):  # arrays sent block by block
        shard = {name: np.concatenate(v) if isinstance(v, list) else v for name, v in shard.items()}
    if digest is not None:
        got = shard_digest(shard)
        if got != digest:
            raise RuntimeError(f"the shard received has checksum {got}, not the {digest} that was sent")
    return ShardWorker(learner_cls, params, shard, feat_label, n_labels, keys)


def initial_state(worker: ShardWorker) -> dict:
    """Task: the shard's state before the first epoch (the values of its keys)."""
    return worker.initial


def run_epoch(worker: ShardWorker, carried: dict, weights: np.ndarray, order: np.ndarray):
    """Task: :meth:`ShardWorker.epoch`."""
    return worker.epoch(carried, weights, order)


def run_objective(worker: ShardWorker, w: np.ndarray, l2: float):
    """Task: :meth:`ShardWorker.objective`."""
    return worker.objective(w, l2)
