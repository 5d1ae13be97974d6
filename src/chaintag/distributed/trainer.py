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
import time

import numpy as np

from ..errors import InputError, TrainingError
from ..training.mixing import family_of, mix, mixing_coefficients
from .pool import ShardPool
from ..training.shards import MemoryShards, shard_bounds, shard_orders
from ..training.worker import initial_state, run_epoch, run_objective


def fit_distributed(learner, sentences, labels, dev=None, *, client=None, workers=None, scheduler=None,
                    shards=None, mixing="uniform", checkpoint_dir=None, resume=False, max_retries=3):
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
    lbfgs = learner.algorithm == "crf-lbfgs"
    family = None if lbfgs else family_of(learner)
    if client is None:
        from .cluster import open_client
        with open_client(workers=workers, scheduler=scheduler) as own:
            return fit_distributed(learner, sentences, labels, dev, client=own, shards=shards or workers,
                                   mixing=mixing, checkpoint_dir=checkpoint_dir, resume=resume,
                                   max_retries=max_retries)
    from .cluster import live_workers
    k = int(shards) if shards is not None else max(1, len(live_workers(client)))
    if k < 1:
        raise InputError(f"the number of shards must be at least 1 (got {k})")
    trainer = _Trainer(learner, client, k, family, mixing, max_retries)
    name = "_objective" if lbfgs else "_train"
    setattr(learner, name, trainer.objective if lbfgs else trainer.train)  # this call only
    try:
        if checkpoint_dir:
            learner.fit(sentences, labels, dev=dev, checkpoint_dir=checkpoint_dir, resume=resume)
        else:
            learner.fit(sentences, labels, dev=dev)
    finally:
        learner.__dict__.pop(name, None)
        trainer.close()
    learner.distributed_ = {"shards": trainer.k, "mixing": mixing if not lbfgs else "gradient sum",
                            "lost_workers": list(trainer.pool.lost_events) if trainer.pool else []}
    return learner


class _Trainer:
    """The driver's side of one distributed run (see :func:`fit_distributed`)."""

    def __init__(self, learner, client, k, family, mixing, max_retries):
        self.learner, self.client, self.family = learner, client, family
        self.k, self.mixing, self.max_retries = k, mixing, max_retries
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
            parts = self.pool.run(run_objective, lambda i: (sent.get(), l2 if i == 0 else 0.0), "L-BFGS evaluation")
            value, grad = parts[0]
            for v, g in parts[1:]:
                value += v
                grad += g
            return value, grad

        return fun

    # ------------------------------------------------------- parameter mixing
    def train(self, data, dev_pack, checkpoint_dir=None, resume=False):
        """The epoch driver of ``SequenceTagger._train``, each epoch a mixing step over the shards."""
        from ..learners import checkpoint as ckpt
        learner, fam = self.learner, self.family
        rng = np.random.default_rng(learner.random_state)
        print_ = ""
        if checkpoint_dir:
            print_ = hashlib.sha256((ckpt.fingerprint(learner, data, dev_pack)
                                     + f"|mixing {self.mixing}|shards {min(self.k, data.attrs.n_sentences)}")
                                    .encode()).hexdigest()
        self._open(data, fam.keys)
        n_sent = data.attrs.n_sentences
        states = [{k: v for k, v in s.items() if k != fam.weights}
                  for s in self.pool.run(initial_state, lambda i: (), "start")]
        mixed = np.zeros(data.index.n_weights)
        history, best_score, best_weights, best_epoch, done = [], -np.inf, None, 0, 0
        if checkpoint_dir and resume:
            flat = self._flat(mixed, states)
            restored = ckpt.load_checkpoint(checkpoint_dir, flat, print_)
            if restored is not None:
                done, history, (best_score, best_weights, best_epoch) = restored
                if done > learner.epochs:
                    raise InputError(f"the checkpoint already holds {done} epochs, more than the "
                                     f"{learner.epochs} asked for; ask for at least {done}")
                mixed, states = self._unflat(flat)
                for _ in range(done):
                    if learner.shuffle:
                        rng.permutation(n_sent)
        averaged = bool(getattr(learner, "averaged", False))
        bar = learner._progress_bar()
        if bar is not None and done:
            bar.update(done)
        for epoch in range(done + 1, learner.epochs + 1):
            order = rng.permutation(n_sent).astype(np.int64) if learner.shuffle else np.arange(n_sent, dtype=np.int64)
            orders = shard_orders(order, self.bounds)
            t0, c0 = time.perf_counter(), time.process_time()
            wf = _Broadcast(self.client, self.pool, mixed)

            def args_of(i):  # called again for the shards of a lost worker, after they moved
                carried = self.client.scatter([states[i]], workers=[self.pool.where[i]], hash=False)[0]
                return carried, wf.get(), orders[i]

            try:
                results = self.pool.run(run_epoch, args_of, f"epoch {epoch}")
            except TrainingError as exc:
                where = (f"the checkpoint of epoch {epoch - 1} in {checkpoint_dir} is intact: continue with "
                         "--resume" if checkpoint_dir and epoch > 1 else "no checkpoint holds a completed epoch "
                         "(use --checkpoint-dir to keep one)")
                raise TrainingError(f"{exc}; no model was made; {where}") from None
            del wf
            stats = _sum_stats([r[1] for r in results])
            own = [r[0][fam.weights] for r in results]
            mu = mixing_coefficients([int(r[1].get("updates", 0)) for r in results], self.mixing)
            mixed = mix(own, mu)
            states = [{k: v for k, v in r[0].items() if k != fam.weights} for r in results]
            if self.k > 1:
                for s, w_own in zip(states, own):
                    fam.jump(s, w_own, mixed, averaged)
            del own, results
            seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
            weights = learner._current_weights(fam.merged(mixed, states))
            record = learner._epoch_record(epoch, seconds, cpu_seconds, stats, weights, dev_pack)
            if dev_pack is not None and record["dev_score"] > best_score:
                best_score, best_weights, best_epoch = record["dev_score"], weights.copy(), epoch
            history.append(record)
            if checkpoint_dir:
                ckpt.save_checkpoint(checkpoint_dir, epoch, self._flat(mixed, states), history,
                                     (best_score, best_weights, best_epoch), print_)
            if bar is not None:
                bar.update(1)
                bar.set_postfix({"errors": stats.get("errors", 0)})
        if bar is not None:
            bar.close()
        if best_weights is None:
            best_weights, best_epoch = learner._current_weights(fam.merged(mixed, states)), learner.epochs
        learner.weights_ = np.ascontiguousarray(best_weights, dtype=np.float64)
        learner.best_epoch_ = best_epoch
        learner.history_ = history

    def _flat(self, mixed, states) -> dict:
        """The checkpoint's view of the run: the mixed weights and every shard's carried state."""
        flat = {"mixed": mixed}
        for i, s in enumerate(states):
            for k, v in s.items():
                flat[f"shard{i}.{k}"] = v
        return flat

    def _unflat(self, flat):
        states = [dict() for _ in range(self.k)]
        for key, v in flat.items():
            if key.startswith("shard"):
                i, k = key[len("shard"):].split(".", 1)
                states[int(i)][k] = v
        return flat["mixed"], states


class _Broadcast:
    """An array sent to every worker for one task round, sent again for each rerun after a loss."""

    def __init__(self, client, pool, value):
        self.client, self.pool, self.value = client, pool, value
        self.generation, self.future = None, None

    def get(self):
        if self.generation != self.pool.generation:
            self.future = self.client.scatter(self.value, broadcast=True, hash=False)
            self.generation = self.pool.generation
        return self.future


def _sum_stats(parts: list[dict]) -> dict:
    """Epoch figures summed over the shards (the first shard's values as they are)."""
    out = dict(parts[0])
    for p in parts[1:]:
        for k, v in p.items():
            out[k] = out.get(k, 0) + v
    return out
