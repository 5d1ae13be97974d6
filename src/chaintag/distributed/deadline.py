"""Cluster calls with a deadline: a call that a lost worker makes fail or hang ends in :class:`WorkerLost`.

A Dask call that involves a worker which died (kill -9, a lost machine) may
raise one of several errors (``FutureCancelledError``, ``CommClosedError``,
``KeyError``, "Stream is closed"), or wait for a reply that never comes.
:func:`bounded` runs the call in a daemon thread and waits at most
``timeout`` seconds; every failure of the call becomes one
:class:`WorkerLost`, which the callers answer by recomputing what was lost
on the workers left.
"""

from __future__ import annotations

import threading

from ..errors import ChaintagError

#: seconds a cluster call (scatter, result, worker list) may take before it counts as lost
CALL_TIMEOUT = 60.0


class WorkerLost(Exception):
    """A worker holding a shard or a batch left the cluster (``worker``: its address, when known)."""

    def __init__(self, message: str, worker: str | None = None):
        super().__init__(message)
        self.worker = worker


def bounded(fn, *args, timeout: float | None = None, what: str = "a cluster call", worker: str | None = None,
            **kwargs):
    """``fn(*args, **kwargs)``, or :class:`WorkerLost` when it fails or takes more than ``timeout`` s.

    Parameters
    ----------
    fn : callable
        A blocking Dask client call (``client.scatter``, ``future.result``, ...).
    timeout : float, optional
        Seconds (default :data:`CALL_TIMEOUT`). The thread of a call past its
        deadline is left behind (a daemon: it does not hold the process at exit).
    what : str
        Named in the error.
    worker : str, optional
        The worker the call concerns, given to the :class:`WorkerLost`.

    Raises
    ------
    WorkerLost
        When the call raised (any exception but ``KeyboardInterrupt``) or did not return in time.
    """
    limit = CALL_TIMEOUT if timeout is None else float(timeout)
    box: dict = {}

    def target():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 (reported to the caller below)
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="chaintag-cluster-call")
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        raise WorkerLost(f"{what} took more than {limit:.0f} s", worker)
    if "error" in box:
        exc = box["error"]
        if isinstance(exc, KeyboardInterrupt):
            raise exc
        raise WorkerLost(f"{what} failed: {type(exc).__name__}: {exc}", worker) from None
    return box.get("value")


class ClusterError(ChaintagError):
    """The Dask workers were lost for good (none left, or lost again and again): the message says
    what was done and how to continue."""
