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


def _tag_task(digest, blob, kind, batch, picker, sep, options) -> str:
    """Task: format one batch with the model (loaded once per worker process)."""
    return format_batch(_model_on_worker(digest, blob), kind, batch, picker, sep, options)


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

    Notes
    -----
    Same interface as :class:`~chaintag.api.tag_writers.OrderedWriter`. An
    error in a task is raised here when its batch's turn to be written comes.
    """

    def __init__(self, out, model_path: str, options: dict, workers=None, scheduler=None):
        self.out, self.options = out, options
        self.model_path, self.workers, self.scheduler = model_path, workers, scheduler
        self.pending: deque = deque()

    def __enter__(self) -> DaskOrderedWriter:
        from ..distributed.cluster import live_workers, open_client
        self._ctx = open_client(workers=self.workers, scheduler=self.scheduler)
        self.client = self._ctx.__enter__()
        with open(self.model_path, "rb") as fh:
            blob = fh.read()
        self.digest = hashlib.sha256(blob).hexdigest()
        self.blob = self.client.scatter(blob, broadcast=True, hash=False)
        self.limit = 2 * max(1, len(live_workers(self.client)))
        return self

    def text(self, text: str) -> None:
        """Literal output (a document marker line)."""
        self.pending.append(text)
        self._drain(self.limit)

    def batch(self, kind: str, batch, picker, sep) -> None:
        """A batch of sentences to tag and write."""
        self.pending.append(self.client.submit(_tag_task, self.digest, self.blob, kind, batch, picker, sep,
                                               self.options, pure=False))
        self._drain(self.limit)

    def _drain(self, keep: int) -> None:
        while self.pending and (isinstance(self.pending[0], str) or len(self.pending) > keep):
            item = self.pending.popleft()
            self.out.write(item if isinstance(item, str) else item.result())

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._drain(0)
        finally:
            for item in self.pending:
                if not isinstance(item, str):
                    item.cancel()
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
