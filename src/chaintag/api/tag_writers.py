"""Tagged output, batch by batch, in this process or in worker processes.

A batch of sentences is tagged and formatted into the text that replaces it
in the output (:func:`chaintag.api.tag_output.format_batch`). :class:`OrderedWriter` writes those
texts, and the literal lines between them (document markers), in input
order; with ``jobs > 1`` the batches are formatted by worker processes,
each holding its own copy of the model, while the input is still being read.
"""

from __future__ import annotations

from collections import deque

from .tag_output import format_batch

__all__ = ["OrderedWriter"]

# the model of a worker process (loaded once, by _init_worker)
_WORKER: dict = {}


def _die_with_parent(parent_pid: int, poll_seconds: float = 1.0) -> None:
    """End this worker process when its parent process ends, however it ends (even SIGKILL).

    On Linux the kernel sends SIGKILL when the parent dies (``PR_SET_PDEATHSIG``
    through ``prctl``); everywhere, a daemon thread checks every ``poll_seconds``
    that the parent is still this process's parent, and exits at once if not.
    """
    import os
    import sys
    import threading
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread below
            pass
    if os.getppid() != parent_pid:  # the parent died before we got here
        os._exit(1)

    def watch() -> None:
        import time
        while True:
            time.sleep(poll_seconds)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _init_worker(model_path: str, parent_pid: int | None = None) -> None:
    if parent_pid is not None:
        _die_with_parent(parent_pid)
    from ..learners import load
    _WORKER["model"] = load(model_path)


def _work(kind, batch, picker, sep, options) -> str:
    return format_batch(_WORKER["model"], kind, batch, picker, sep, options)


class OrderedWriter:
    """Write formatted batches and literal text to ``out`` in the order they are given.

    Parameters
    ----------
    out : text file
    model : SequenceTagger
        The model, for formatting in this process (``jobs == 1``).
    model_path : str
        Its file, loaded by each worker process (``jobs > 1``).
    jobs : int
        Processes formatting batches; 1 formats them here, as they come.
    options : dict
        As for :func:`format_batch`.

    Notes
    -----
    With ``jobs > 1`` at most ``2 * jobs`` batches are in flight, so memory
    stays bounded; the workers end when this process ends, even when it is
    killed (:func:`_die_with_parent`); output order and bytes are those of ``jobs == 1``. An
    error in a worker is raised here when its batch's turn to be written
    comes. Use as a context manager; leaving it writes what is pending
    (or, on an exception, stops the workers).
    """

    def __init__(self, out, model, model_path: str, jobs: int, options: dict):
        self.out, self.model, self.options = out, model, options
        self.pending: deque = deque()
        self.pool = None
        self.limit = 2 * jobs
        if jobs > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            import os
            # workers end with this process, even when it is killed (no orphans)
            self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_init_worker, initargs=(model_path, os.getpid()))

    def text(self, text: str) -> None:
        """Literal output (a document marker line)."""
        self.pending.append(text)
        self._drain(self.limit)

    def batch(self, kind: str, batch, picker, sep) -> None:
        """A batch of sentences to tag and write."""
        if self.pool is None:
            self.pending.append(format_batch(self.model, kind, batch, picker, sep, self.options))
        else:
            self.pending.append(self.pool.submit(_work, kind, batch, picker, sep, self.options))
        self._drain(self.limit)

    def _drain(self, keep: int) -> None:
        while self.pending and (isinstance(self.pending[0], str) or len(self.pending) > keep):
            item = self.pending.popleft()
            self.out.write(item if isinstance(item, str) else item.result())

    def __enter__(self) -> OrderedWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._drain(0)
        finally:
            if self.pool is not None:
                self.pool.shutdown(wait=exc_type is None, cancel_futures=exc_type is not None)
