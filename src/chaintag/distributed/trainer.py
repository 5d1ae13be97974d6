"""Distributed training on Dask: parameter mixing for the online learners, a summed gradient for L-BFGS.

:func:`fit_distributed` trains a learner exactly as its ``fit`` does
(attribute extraction, feature index, dev scoring, best epoch, history,
checkpoints), except that each epoch runs on shards of the training
sentences held by Dask workers:

- perceptron, MIRA, N-best MIRA, SAPO and CRF (SGD): iterative parameter
  mixing (McDonald, Hall and Mann, NAACL 2010), see :mod:`chaintag.training.mixing`;
- crf-lbfgs: the objective and its gradient are sums over sentences, so each
  worker computes its shard's part and the driver adds them up for L-BFGS.

With one shard the model equals serial training bit for bit (same weights,
same history, same model file).
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..errors import InputError, TrainingError
from ..training.mixing import family_of, mix, mixing_coefficients
from .pool import ShardPool
from ..training.shards import MemoryShards, shard_bounds, shard_orders
from ..training.worker import initial_state, run_epoch, run_objective


def fit_distributed(learner, sentences, labels, dev=None, *, client=None, workers=None, scheduler=None,
                    shards=None, mixing="uniform", checkpoint_dir=None, resume=False, max_retries=3, nanny=True):
    """Train ``learner`` on a Dask cluster; returns the fitted learner.

    Parameters
    ----------
    learner : SequenceTagger
        Perceptron (first order), MIRA, N-best MIRA, SAPO, CRF or CRF-LBFGS, unfitted
        or not (it is refitted).
    sentences, labels, dev
        As for :meth:`~chaintag.learners.base.SequenceTagger.fit`.
    client : distributed.Client, optional
        A client of the cluster to use. Without it a cluster is opened for the
        call: the one at ``scheduler``, else an embedded ``LocalCluster`` of
        ``workers`` processes (default 2).
    workers : int, optional
        Processes of the embedded cluster.
    scheduler : str, optional
        Address of a running Dask scheduler.
    shards : int, optional
        Number of shards (default: ``workers`` when given, else the number of
        workers of the cluster). The shards, not the workers, define the
        result: the same number of shards gives the same model on any cluster.
    mixing : {"uniform", "updates"}, default "uniform"
        ``mu_i = 1/k``, or proportional to each shard's updated sentences in the
        epoch (McDonald et al. 2010, s. 3).
    checkpoint_dir, resume
        As for ``fit`` (the checkpoint holds every shard's state; it resumes
        with the same number of shards).
    max_retries : int, default 3
        Reruns of an epoch after workers are lost, on the workers left.
    nanny : bool, default True
        Whether the workers of the embedded cluster run under a nanny (which
        restarts a worker that died); see :func:`chaintag.distributed.open_client`.

    Returns
    -------
    learner
        Fitted; ``learner.distributed_`` records the shards, the mixing and
        the lost workers.

    Raises
    ------
    chaintag.errors.InputError
        For a learner without a distributed version, bad ``shards`` or
        ``mixing``, or when dask.distributed is missing.
    chaintag.errors.TrainingError
        When workers keep getting lost during an epoch, or none is left: the
        checkpoint of the last completed epoch (if any) is left as it was.

    References
    ----------
    R. McDonald, K. Hall, G. Mann. Distributed training strategies for the
    structured perceptron. NAACL 2010.
    """
    if mixing not in ("uniform", "updates"):
        raise InputError(f"mixing must be 'uniform' or 'updates', not {mixing!r}")
    lbfgs = bool(getattr(type(learner), "gradient_sum", False))  # distributed by its summed gradient
    family = None if lbfgs else family_of(learner)
    if client is None:
        from .cluster import open_client
        with open_client(workers=workers, scheduler=scheduler, nanny=nanny) as own:
            return fit_distributed(learner, sentences, labels, dev, client=own, shards=shards or workers,
                                   mixing=mixing, checkpoint_dir=checkpoint_dir, resume=resume,
                                   max_retries=max_retries)
    from .cluster import live_workers
    k = int(shards) if shards is not None else max(1, len(live_workers(client)))
    if k < 1:
        raise InputError(f"the number of shards must be at least 1 (got {k})")
    trainer = _Trainer(learner, client, k, family, mixing, max_retries, checkpoint_dir)
    try:
        learner.fit_with(sentences, labels, dev, trainer=trainer, checkpoint_dir=checkpoint_dir, resume=resume)
    finally:
        trainer.close()
    learner.distributed_ = {"shards": trainer.k, "mixing": mixing if not lbfgs else "gradient sum",
                            "lost_workers": list(trainer.pool.lost_events) if trainer.pool else []}
    return learner


class _Trainer:
    """The driver's side of one distributed run (see :func:`fit_distributed`)."""

    def __init__(self, learner, client, k, family, mixing, max_retries, checkpoint_dir=None):
        self.learner, self.client, self.family = learner, client, family
        self.k, self.mixing, self.max_retries = k, mixing, max_retries
        self.checkpoint_dir = checkpoint_dir
        self.pool = None

    def close(self):
        if self.pool is not None:
            self.pool.close()

    def _open(self, data, keys):
        source = getattr(data, "shard_files", None)  # a corpus sharded on disk (fit_distributed_file)
        if source is None:
            self.k = min(self.k, data.attrs.n_sentences)
            source = MemoryShards(data, shard_bounds(data.attrs.sent_ptr, data.attrs.tok_ptr, self.k))
        self.k, self.bounds = source.k, source.bounds
        self.pool = ShardPool(self.client, self.learner, source, keys, max_retries=self.max_retries)

    # ------------------------------------------------------------- crf-lbfgs
    def objective(self, data):
        """``w -> (value, gradient)`` of the CRF summed over the shards (replaces ``CRFLBFGS._objective``).

        Shard 0 adds the L2 term, the others none, so one shard computes
        exactly what the serial objective does.
        """
        self._open(data, ())
        l2 = float(self.learner.l2)

        def fun(w):
            w = np.ascontiguousarray(w, dtype=np.float64)
            sent = _Broadcast(self.client, self.pool, w)
            parts = self.pool.run(run_objective, lambda i: (sent.get(self.pool.where[i]), l2 if i == 0 else 0.0),
                                  "L-BFGS evaluation")
            value, grad = parts[0]
            for v, g in parts[1:]:
                value += v
                grad += g
            return value, grad

        return fun

    # ------------------------------------------------------- parameter mixing
    def source(self, data, dev_pack):
        """The epochs of :func:`chaintag.learners.epochs.run_epochs`, each a mixing step over the shards."""
        return _MixingSource(self, data, dev_pack)


class _MixingSource:
    """Epochs on the shards: every shard runs the learner's epoch from the mixed weights, which are
    then mixed again (McDonald et al. 2010, iterative parameter mixing)."""

    def __init__(self, trainer: _Trainer, data, dev_pack):
        self.t, self.data, self.dev_pack = trainer, data, dev_pack
        self.n_sentences = data.attrs.n_sentences
        fam = trainer.family
        try:
            trainer._open(data, trainer.family.keys)
            self.states = [{k: v for k, v in s.items() if k != fam.weights}
                           for s in trainer.pool.run(initial_state, lambda i: (), "before epoch 1")]
        except TrainingError as exc:
            raise TrainingError(f"{exc}; no model was made; {_where(trainer, 1)}") from None
        self.mixed = np.zeros(data.index.n_weights)
        self.averaged = bool(getattr(trainer.learner, "averaged", False))

    def fingerprint(self) -> str:
        from ..learners import checkpoint as ckpt
        t = self.t
        return hashlib.sha256((ckpt.fingerprint(t.learner, self.data, self.dev_pack)
                               + f"|mixing {t.mixing}|shards {min(t.k, self.n_sentences)}").encode()).hexdigest()

    def settings(self) -> dict:
        """The learner's settings with the mixing and the number of shards, recorded with a checkpoint."""
        from ..learners.checkpoint import run_settings
        t = self.t
        return run_settings(t.learner, mixing=t.mixing, shards=min(t.k, self.n_sentences))

    def state(self) -> dict:
        """The checkpoint's view of the run: the mixed weights and every shard's carried state."""
        flat = {"mixed": self.mixed}
        for i, s in enumerate(self.states):
            for k, v in s.items():
                flat[f"shard{i}.{k}"] = v
        return flat

    def restore(self, flat: dict) -> None:
        states = [dict() for _ in range(self.t.k)]
        for key, v in flat.items():
            if key.startswith("shard"):
                i, k = key[len("shard"):].split(".", 1)
                states[int(i)][k] = v
        self.mixed, self.states = flat["mixed"], states

    def weights(self) -> np.ndarray:
        return self.t.learner._current_weights(self.t.family.merged(self.mixed, self.states))

    def run_epoch(self, order: np.ndarray, epoch: int) -> dict:
        t, fam = self.t, self.t.family
        orders = shard_orders(order, t.bounds)
        wf = _Broadcast(t.client, t.pool, self.mixed)
        states = self.states

        def args_of(i):  # called again for the shards of a lost worker, after they moved
            w = t.pool.where[i]
            return t.pool.scatter_to(states[i], w, f"the state of shard {i}"), wf.get(w), orders[i]

        try:
            results = t.pool.run(run_epoch, args_of, f"epoch {epoch}")
        except TrainingError as exc:
            raise TrainingError(f"{exc}; no model was made; {_where(t, epoch)}") from None
        del wf
        stats = _sum_stats([r[1] for r in results])
        own = [r[0][fam.weights] for r in results]
        mu = mixing_coefficients([int(r[1].get("updates", 0)) for r in results], t.mixing)
        self.mixed = mix(own, mu)
        self.states = [{k: v for k, v in r[0].items() if k != fam.weights} for r in results]
        if t.k > 1:
            for s, w_own in zip(self.states, own):
                fam.jump(s, w_own, self.mixed, self.averaged)
        return stats


def _where(trainer, epoch: int) -> str:
    """What is left for a rerun after a failed ``epoch``, and how to continue."""
    if trainer.checkpoint_dir and epoch > 1:
        return (f"the checkpoint of epoch {epoch - 1} in {trainer.checkpoint_dir} is intact: continue with "
                f"chaintag train ... --checkpoint-dir {trainer.checkpoint_dir} --resume")
    if trainer.checkpoint_dir:
        return (f"no epoch was completed: rerun with chaintag train ... --checkpoint-dir {trainer.checkpoint_dir} "
                "--resume (it starts at epoch 1)")
    return ("no checkpoint holds a completed epoch: rerun with chaintag train ... --checkpoint-dir DIR, "
            "and after a failure with --resume")


class _Broadcast:
    """An array sent to each worker that needs it for one task round, one worker at a time with a
    deadline (no Dask broadcast, whose wait on a lost worker has no end); sent again for each rerun
    after a loss."""

    def __init__(self, client, pool, value):
        self.client, self.pool, self.value = client, pool, value
        self.generation, self.futures = None, {}

    def get(self, worker: str):
        """The future of the array on ``worker`` (scattered to it now if it has none yet)."""
        if self.generation != self.pool.generation:
            self.futures, self.generation = {}, self.pool.generation
        if worker not in self.futures:
            self.futures[worker] = self.pool.scatter_to(self.value, worker, "the weights")
        return self.futures[worker]


def _sum_stats(parts: list[dict]) -> dict:
    """Epoch figures summed over the shards (the first shard's values as they are)."""
    out = dict(parts[0])
    for p in parts[1:]:
        for k, v in p.items():
            out[k] = out.get(k, 0) + v
    return out
