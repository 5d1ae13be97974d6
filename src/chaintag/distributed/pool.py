"""Shards placed on Dask workers, and tasks run on every shard with lost workers handled.

Each shard is sent once to one worker as compact arrays and turned into a
:class:`~chaintag.training.worker.ShardWorker` there; tasks over the shards
are pinned to the shard's worker. When a worker disappears (crash, kill, lost
connection), the shards it held are sent again to the workers left (from the
driver's copy of the corpus arrays, or from the shard files on disk) and the
unfinished tasks are rerun there.
Every task is a pure function of its inputs, so a rerun gives the same result
as an undisturbed run.
"""

from __future__ import annotations

import time
import warnings

from .cluster import live_workers
from .deadline import WorkerLost, bounded
from ..training.worker import load_shard

__all__ = ["ShardPool", "WorkerLost"]

#: seconds to wait for a worker when none is left, before the run stops
WAIT_WORKERS = 30.0


class ShardPool:
    """The shards of one training run on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client
    learner : SequenceTagger
        Its class and hyper-parameters are sent (not its fitted state).
    source : MemoryShards or ShardFiles
        The shards (:class:`chaintag.training.shards.MemoryShards`: the
        driver's corpus arrays; :class:`chaintag.training.shard_files.ShardFiles`:
        files on disk): kept, to resend lost shards.
    keys : tuple of str
        Epoch state keys (:attr:`~chaintag.training.mixing.Family.keys`), or () for crf-lbfgs.
    max_retries : int
        Reruns allowed per task round after lost workers.
    wait_workers : float, optional
        Seconds to wait for a worker to come back when none is left (default :data:`WAIT_WORKERS`).
    """

    def __init__(self, client, learner, source, keys=(), max_retries: int = 3, wait_workers: float | None = None):
        self.client, self.source, self.bounds = client, source, source.bounds
        self.cls, self.params = type(learner), learner.get_params()
        self.keys = tuple(keys)
        self.max_retries = int(max_retries)
        self.wait_workers = float(WAIT_WORKERS if wait_workers is None else wait_workers)
        self.k = len(self.bounds) - 1
        self.where: list[str | None] = [None] * self.k
        self.futures: list = [None] * self.k
        self.lost_events: list[str] = []
        self.generation = 0  # grows with every rerun: what a task round scattered before may be lost
        self.feat_label: dict = {}  # worker -> its own copy of the feature labels
        from .identity import WorkerCheck
        self.check = WorkerCheck(client)  # workers that run other chaintag code are left out
        self._start()

    def _start(self) -> None:
        """Place every shard, again on the workers left when a worker is lost meanwhile."""
        from ..errors import TrainingError
        reasons = []
        for attempt in range(self.max_retries + 1):
            try:
                self._place(list(range(self.k)), self._workers(exclude=self._suspects(reasons)))
                return
            except WorkerLost as exc:
                reasons.append(exc)
        raise TrainingError(f"before epoch 1: Dask workers were lost {len(reasons)} times while the shards were "
                            f"sent ({'; '.join(map(str, reasons))}); giving up") from None

    @staticmethod
    def _suspects(reasons) -> tuple:
        return tuple(r.worker for r in reasons[-1:] if r.worker)

    def scatter_to(self, value, worker: str, what: str):
        """``value`` scattered to ``worker`` alone (a future), or :class:`WorkerLost`."""
        return bounded(self.client.scatter, [value], workers=[worker], hash=False, what=f"sending {what} to {worker}",
                       worker=worker)[0]

    # ------------------------------------------------------------ placement
    def _live(self) -> set:
        """The workers the scheduler lists now that run the driver's chaintag."""
        return set(self.check.accepted(bounded(live_workers, self.client, what="asking the scheduler for its workers")))

    def _workers(self, exclude=()) -> list[str]:
        workers = sorted(self._live() - set(exclude))
        deadline = time.monotonic() + self.wait_workers
        while not workers and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = sorted(self._live() - set(exclude))
        if not workers:
            from ..errors import TrainingError
            raise TrainingError(f"no Dask worker is left (waited {self.wait_workers:.0f} s)")
        return workers

    def _place(self, shards: list[int], workers: list[str]) -> None:
        load = {w: 0 for w in workers}
        for i, w in enumerate(self.where):
            if w in load and i not in shards:
                load[w] += 1
        n_labels = self.source.n_labels
        for i in shards:
            w = min(workers, key=lambda x: (load[x], x))
            load[w] += 1
            if w not in self.feat_label:  # each worker its own copy, sent to it alone (no broadcast to wait for)
                self.feat_label[w] = self.scatter_to(self.source.feat_label, w, "the feature labels")
            # one Dask key per shard: a dict given to scatter would be scattered value by value under its
            # own keys ("sent_ptr", ...), the same keys for every shard, so that two shards on one worker
            # (or a shard fetched from another worker) would read another shard's arrays
            # (shard files on a disk the workers see are sent by name: each worker maps its own)
            arrays, digest = bounded(self.source.send, self.client, i, w, timeout=self._send_timeout(i),
                                     what=f"sending shard {i} to {w}", worker=w)
            self.futures[i] = self.client.submit(load_shard, self.cls, self.params, arrays, self.feat_label[w],
                                                 n_labels, self.keys, digest, workers=[w],
                                                 allow_other_workers=False,
                                                 pure=False, key=f"chaintag-shard-{i}-{time.monotonic_ns()}")
            self.where[i] = w

    def _send_timeout(self, i: int) -> float:
        """The deadline of sending shard ``i``: a minute, and a second per 20 MB of its entries beyond."""
        from .deadline import CALL_TIMEOUT
        entries = int(self.bounds[i + 1] - self.bounds[i])  # sentences: a bound, not a size; generous
        return CALL_TIMEOUT + entries / 2000.0

    def replace_lost(self, suspect: str | None = None) -> list[int]:
        """Send the shards of workers that left to the workers left; returns the shards moved.

        ``suspect``, the worker a task was lost on, counts as gone even while the
        scheduler still lists it (it may not have noticed the loss yet): its shards
        move too, so that the rerun does not go back to a dead worker.
        """
        alive = set(self._workers(exclude=(suspect,) if suspect else ()))
        self.feat_label = {w: f for w, f in self.feat_label.items() if w in alive}
        lost = [i for i, w in enumerate(self.where) if w not in alive]
        if lost:
            gone = ", ".join(sorted({self.where[i] for i in lost}))
            self.lost_events.append(gone)
            warnings.warn(f"Dask worker(s) {gone} left; shard(s) {', '.join(map(str, lost))} were sent "
                          f"to the workers left and the unfinished tasks are rerun", RuntimeWarning, stacklevel=2)
            self._place(lost, sorted(alive))
        return lost

    # ----------------------------------------------------------------- tasks
    def run(self, fn, args_of, what: str) -> list:
        """Run ``fn(shard_worker, *args_of(i))`` on every shard, rerunning those a lost worker held.

        Parameters
        ----------
        fn : callable
            A module-level function (sent by reference).
        args_of : callable
            ``i -> tuple`` of further arguments (futures or values). Called again
            for a rerun, after :attr:`generation` grew: data it scattered for an
            earlier round must be scattered again (Dask may have kept its only
            copy on the lost worker).
        what : str
            Named in the error, e.g. ``"epoch 3"``.

        Returns
        -------
        list
            The result of each shard, in shard order.

        Raises
        ------
        chaintag.errors.TrainingError
            When workers keep getting lost (after ``max_retries`` reruns) or none is left.
        Exception
            An error raised by ``fn`` itself, as raised.
        """
        from ..errors import TrainingError
        results: list = [None] * self.k
        done = [False] * self.k
        reasons: list[str] = []
        pending: dict = {}
        for attempt in range(self.max_retries + 1):
            try:
                pending = {}
                if attempt:
                    self.replace_lost(reasons[-1].worker)
                for i in range(self.k):
                    if not done[i]:
                        args = args_of(i)
                        pending[i] = bounded(self.client.submit, fn, self.futures[i], *args, workers=[self.where[i]],
                                             allow_other_workers=False, pure=False, what=f"submitting shard {i}",
                                             worker=self.where[i])
                self._collect(pending, results, done)
                return results
            except WorkerLost as exc:
                for f in pending.values():
                    f.cancel()
                reasons.append(exc)
                self.generation += 1
            except TrainingError as exc:  # no worker left
                raise TrainingError(f"{what}: {exc}") from None
        raise TrainingError(f"{what}: Dask workers were lost {len(reasons)} times ({'; '.join(map(str, reasons))}); "
                            "giving up")

    def _collect(self, pending: dict, results: list, done: list) -> None:
        import distributed
        check_every, last_check = 0.5, time.monotonic()
        while True:
            left = [i for i in pending if not done[i]]
            if not left:
                return
            try:
                distributed.wait([pending[i] for i in left], timeout=check_every, return_when="FIRST_COMPLETED")
            except Exception:  # noqa: BLE001 (a timeout, or a cancelled future: the statuses tell)
                pass
            for i in left:
                f = pending[i]
                if f.status == "finished":  # its result may live on a worker that died since: then it is rerun
                    results[i] = bounded(f.result, what=f"fetching the result of shard {i}", worker=self.where[i])
                    done[i] = True
                elif f.status in ("error", "cancelled", "lost"):
                    if self._gone([i]) or f.status != "error":
                        raise WorkerLost(f"worker {self.where[i]} left while it ran shard {i} (task {f.status})",
                                         self.where[i])
                    exc = bounded(f.exception, what=f"fetching the error of shard {i}", worker=self.where[i])
                    if type(exc).__name__ in ("KilledWorker", "CommClosedError", "FutureCancelledError"):
                        raise WorkerLost(f"shard {i}: {type(exc).__name__}: {exc}", self.where[i])
                    raise exc
            if time.monotonic() - last_check >= check_every:
                last_check = time.monotonic()
                gone = self._gone([i for i in pending if not done[i]])
                if gone:
                    raise WorkerLost(f"worker {self.where[gone[0]]} left while it ran shard {gone[0]}",
                                     self.where[gone[0]])

    def _gone(self, shards: list[int]) -> list[int]:
        """The shards among ``shards`` whose worker the scheduler no longer lists (asked twice, 0.2 s
        apart, so that a slow answer is not taken for a departure)."""
        gone = [i for i in shards if self.where[i] not in self._live()]
        if gone:
            time.sleep(0.2)
            alive = self._live()
            gone = [i for i in gone if self.where[i] not in alive]
        return gone

    def close(self) -> None:
        """Release the shards on the workers."""
        for f in list(self.futures) + list(self.feat_label.values()):
            if f is not None:
                try:
                    f.release()
                except Exception:  # noqa: BLE001 (a client already closed: nothing to release)
                    pass
        self.futures, self.feat_label = [None] * self.k, {}
