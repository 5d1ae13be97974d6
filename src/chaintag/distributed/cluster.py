"""Dask clients: an embedded ``LocalCluster`` by default, or an existing cluster by its address."""

from __future__ import annotations

import contextlib
import logging


def _import_distributed():
    try:
        import distributed
    except ImportError:  # pragma: no cover - depends on the installation
        from ..errors import InputError
        raise InputError("distributed training and tagging need dask.distributed: "
                         "pip install 'chaintag[dist]'") from None
    return distributed


@contextlib.contextmanager
def open_client(workers: int | None = None, scheduler: str | None = None, memory_limit="auto", nanny: bool = True):
    """A Dask client for the duration of a ``with`` block.

    Parameters
    ----------
    workers : int, optional
        Worker processes of the embedded ``LocalCluster`` (one thread each;
        default 2). Ignored with ``scheduler``.
    scheduler : str, optional
        Address of a running scheduler (``tcp://host:8786``); its workers must
        have chaintag installed.
    memory_limit : str or int, default "auto"
        Per-worker memory limit of the embedded cluster.
    nanny : bool, default True
        Workers of the embedded cluster under a nanny process, which restarts
        a worker that died; False: plain worker processes, a dead one stays gone.

    Yields
    ------
    distributed.Client

    Raises
    ------
    chaintag.errors.InputError
        When dask.distributed is not installed, or the scheduler cannot be reached.
    """
    distributed = _import_distributed()
    from ..errors import InputError
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        try:
            yield client
        finally:
            client.close()
        return
    n = 2 if workers is None else int(workers)
    if n < 1:
        raise InputError(f"--workers must be at least 1 (got {n})")
    import dask
    # A LocalCluster closes a worker's nanny for good when, lost-worker-timeout after the worker
    # left, no worker of its name is registered; a worker that dies while the nanny restarts another
    # one of that name (two losses within the timeout, or a slow restart) would then leave the
    # cluster a worker short for the rest of the run. The nannies restart their workers, so none
    # is closed here.
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "30 days"}):
        cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                           dashboard_address=":0", memory_limit=memory_limit,
                                           silence_logs=logging.CRITICAL,
                                           worker_class=distributed.Nanny if nanny else distributed.Worker)
        try:
            client = distributed.Client(cluster)
            try:
                yield client
            finally:
                client.close()
        finally:
            cluster.close()


def live_workers(client) -> list[str]:
    """Addresses of the workers the scheduler knows now, sorted."""
    return sorted(client.nthreads())
