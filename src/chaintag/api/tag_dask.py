"""Batches tagged on a Dask cluster, written in input order (``chaintag tag --workers N / --scheduler``).

The cluster-wide version of ``jobs`` (:class:`~chaintag.api.tag_writers.OrderedWriter`):
the model file's bytes are sent once to every worker, which loads the model
once (checked as any model file); each batch of sentences is one task; at
most ``2 * workers`` batches are in flight, so the memory of the driver, the
scheduler and every worker stays bounded by the model plus a few batches,
whatever the input's size. The output bytes are those of a run in one
process.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import deque

from .tag_output import format_batch
from .tag_writers import OrderedWriter

# models loaded in a worker process, by the sha256 of their file
_MODELS: dict = {}


def _model_on_worker(digest: str, blob: bytes):
    model = _MODELS.get(digest)
    if model is None:
        from ..learners import load
        fd, path = tempfile.mkstemp(suffix=".npz", prefix="chaintag-model-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
            model = load(path)
        finally:
            os.unlink(path)
        _MODELS.clear()  # one model per worker at a time
        _MODELS[digest] = model
    return model


def _tag_task(digest, blob, args, options) -> str:
    """Task: format one batch (``args``: kind, sentences, picker, separator; scattered to the worker) with the
    model (loaded once per worker process)."""
    kind, batch, picker, sep = args
    return format_batch(_model_on_worker(digest, blob), kind, batch, picker, sep, options)


class _Batch:
    """One batch's task: its arguments (kept to submit it again after a lost worker), their copy on the
    worker (``data``, a future of scattered data: the task's spec holds only its key, so that the scheduler
    in this process keeps no sentence once the batch is written) and the task's future."""

    __slots__ = ("args", "data", "future", "worker", "tries")

    def __init__(self, args):
        self.args, self.data, self.future, self.worker, self.tries = args, None, None, None, 0


class DaskOrderedWriter:
    """Write batches tagged on a Dask cluster, and literal text, to ``out`` in input order.

    Parameters
    ----------
    out : text file
    model_path : str
        The model file (its bytes are sent to the workers).
    options : dict
        As for :func:`~chaintag.api.tag_output.format_batch`.
    workers : int, optional
        Processes of an embedded ``LocalCluster``.
    scheduler : str, optional
        Address of a running scheduler (instead of ``workers``).
    max_retries : int, default 3
        Times a batch is submitted again after the worker tagging it was lost.
    wait_workers : float, optional
        Seconds to wait for a worker when none is left (default
        :data:`chaintag.distributed.pool.WAIT_WORKERS`).

    Notes
    -----
    Same interface as :class:`~chaintag.api.tag_writers.OrderedWriter`. An
    error in a task is raised here when its batch's turn to be written comes.
    Each batch is pinned to one worker, which holds its own copy of the model
    bytes; when that worker is lost, the batch is tagged again on another
    one (a task is a pure function of its batch: the output is the same).
    Every cluster call has a deadline (:mod:`chaintag.distributed.deadline`).

    Raises
    ------
    chaintag.distributed.deadline.ClusterError
        When workers keep getting lost, or none is left: naming the batch;
        what was written before it is complete and in order.
    """

    def __init__(self, out, model_path: str, options: dict, workers=None, scheduler=None, max_retries: int = 3,
                 wait_workers: float | None = None):
        self.out, self.options = out, options
        self.model_path, self.workers, self.scheduler = model_path, workers, scheduler
        from ..distributed.pool import WAIT_WORKERS
        self.max_retries = int(max_retries)
        self.wait_workers = float(WAIT_WORKERS if wait_workers is None else wait_workers)
        self.pending: deque = deque()
        self.blobs: dict = {}  # worker -> its copy of the model bytes
        self.turn = self.written = 0

    def __enter__(self) -> DaskOrderedWriter:
        from ..distributed.cluster import open_client
        from ..distributed.identity import WorkerCheck
        self._ctx = open_client(workers=self.workers, scheduler=self.scheduler)
        self.client = self._ctx.__enter__()
        try:
            with open(self.model_path, "rb") as fh:
                self.blob = fh.read()
            self.digest = hashlib.sha256(self.blob).hexdigest()
            self.check = WorkerCheck(self.client)
            self.limit = 2 * max(1, len(self._workers()))
        except BaseException:
            self._ctx.__exit__(None, None, None)
            raise
        return self

    def text(self, text: str) -> None:
        """Literal output (a document marker line)."""
        self.pending.append(text)
        self._drain(self.limit)

    def batch(self, kind: str, batch, picker, sep) -> None:
        """A batch of sentences to tag and write."""
        item = _Batch((kind, batch, picker, sep))
        self._submit(item)
        self.pending.append(item)
        self._drain(self.limit)

    # ------------------------------------------------------------ the cluster
    def _workers(self) -> list[str]:
        """The live workers that run the driver's chaintag (waiting up to ``wait_workers`` s for one)."""
        import time
        from ..distributed.cluster import live_workers
        from ..distributed.deadline import ClusterError, WorkerLost, bounded
        deadline = time.monotonic() + self.wait_workers
        while True:
            try:
                ok = self.check.accepted(bounded(live_workers, self.client, what="asking for the workers"))
            except WorkerLost:
                ok = []
            if ok or time.monotonic() >= deadline:
                break
            time.sleep(0.2)
        if not ok:
            raise ClusterError(f"no Dask worker is left (waited {self.wait_workers:.0f} s); "
                               f"{self.written} batch(es) were written, in order; tag the rest again")
        return ok

    def _submit(self, item: _Batch) -> None:
        """Submit ``item`` to the least busy live worker, sending it the model bytes first if needed."""
        from ..distributed.deadline import WorkerLost, bounded
        while True:
            workers = self._workers()
            self.turn += 1
            w = workers[self.turn % len(workers)]
            try:
                if w not in self.blobs:
                    self.blobs[w] = bounded(self.client.scatter, [self.blob], workers=[w], hash=False,
                                            what=f"sending the model to {w}", worker=w)[0]
                item.data = bounded(self.client.scatter, [item.args], workers=[w], hash=False,
                                    what=f"sending a batch to {w}", worker=w)[0]
                item.future = bounded(self.client.submit, _tag_task, self.digest, self.blobs[w], item.data,
                                      self.options, workers=[w], allow_other_workers=False, pure=False,
                                      what=f"submitting a batch to {w}", worker=w)
                item.worker = w
                return
            except WorkerLost as exc:
                self._lost(item, exc)

    def _lost(self, item: _Batch, exc) -> None:
        from ..distributed.deadline import ClusterError
        self.blobs.pop(exc.worker, None)
        item.tries += 1
        if item.tries > self.max_retries:
            raise ClusterError(f"batch {self.written + 1}: Dask workers were lost {item.tries} times ({exc}); "
                               f"{self.written} batch(es) were written, in order; tag the rest again") from None

    def _result(self, item: _Batch) -> str:
        """The text of ``item``, tagged again elsewhere when its worker is lost."""
        import distributed
        from ..distributed.deadline import WorkerLost, bounded
        while True:
            f = item.future
            try:
                distributed.wait([f], timeout=0.5)
            except Exception:  # noqa: BLE001 (a timeout; the status tells the rest)
                pass
            try:
                if f.status == "finished":
                    return bounded(f.result, what=f"fetching a batch from {item.worker}", worker=item.worker)
                if f.status == "error":
                    exc = bounded(f.exception, what="fetching a batch's error", worker=item.worker)
                    if type(exc).__name__ not in ("KilledWorker", "CommClosedError", "FutureCancelledError"):
                        raise exc
                    raise WorkerLost(f"{type(exc).__name__}: {exc}", item.worker)
                if f.status in ("cancelled", "lost") or item.worker not in self._workers():
                    raise WorkerLost(f"worker {item.worker} left while it tagged a batch", item.worker)
            except WorkerLost as exc:
                f.cancel()
                self._lost(item, exc)
                self._submit(item)

    def _drain(self, keep: int) -> None:
        while self.pending and (isinstance(self.pending[0], str) or len(self.pending) > keep):
            item = self.pending.popleft()
            if isinstance(item, str):
                self.out.write(item)
            else:
                self.out.write(self._result(item))
                item.data = item.future = item.args = None  # released: the cluster forgets the batch
                self.written += 1

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._drain(0)
        finally:
            for item in self.pending:
                if not isinstance(item, str) and item.future is not None:
                    item.future.cancel()
            self.pending.clear()
            self._ctx.__exit__(exc_type, exc, tb)


def make_writer(out, model, model_path, options: dict, *, jobs: int = 1, workers: int | None = None,
                scheduler: str | None = None):
    """The writer of tagged batches: in this process, in ``jobs`` processes, or on a Dask cluster.

    Parameters
    ----------
    out : text file
        Where the output goes.
    model : SequenceTagger
        The model (formats in this process when ``jobs == 1`` and no cluster is named).
    model_path : str or os.PathLike
        Its file, loaded by each worker process or Dask worker.
    options : dict
        As for :func:`~chaintag.api.tag_output.format_batch`.
    jobs : int, default 1
        Processes of this machine.
    workers, scheduler
        Processes of an embedded Dask ``LocalCluster``, or a running scheduler's address.

    Returns
    -------
    OrderedWriter or DaskOrderedWriter
        A context manager with ``text(str)`` and ``batch(kind, batch, picker, sep)``.

    Raises
    ------
    chaintag.errors.InputError
        For ``workers`` below 1, or ``jobs`` above 1 together with a cluster.
    """
    from ..errors import InputError
    if workers is None and not scheduler:
        return OrderedWriter(out, model, model_path, jobs, options)
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1 (got {workers})")
    if jobs != 1:
        raise InputError("give --jobs (processes of this machine) or --workers/--scheduler (Dask), not both")
    return DaskOrderedWriter(out, model_path, options, workers=workers, scheduler=scheduler)
