"""Dask clients: an embedded ``LocalCluster`` by default, or an existing cluster by its address."""

from __future__ import annotations

import contextlib
import logging
import os


def _import_distributed():
    try:
        import distributed
    except ImportError:  # pragma: no cover - depends on the installation
        from ..errors import MissingExtraError
        raise MissingExtraError("distributed training and tagging need dask.distributed, which is not installed: "
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
        Workers of the embedded cluster under a nanny, which restarts a worker
        process that died; False: a worker process that dies stays gone (its
        nanny closes), and the workers left take over its shards.

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
        cluster = _start_local(distributed, n, memory_limit, nanny)
        try:
            client = distributed.Client(cluster)
            try:
                yield client
            finally:
                client.close()
        finally:
            cluster.close()


def _start_local(distributed, n: int, memory_limit, nanny: bool, tries: int = 3):
    """A ``LocalCluster`` of ``n`` worker processes; started again (up to ``tries`` times) when a worker
    process dies while it starts (the cluster then refuses to start: "Nanny failed to start")."""
    from ..errors import TrainingError
    errors = []
    for _ in range(tries):
        try:
            return distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                            dashboard_address=":0", memory_limit=memory_limit,
                                            silence_logs=logging.CRITICAL,
                                            worker_class=distributed.Nanny if nanny else _no_restart_nanny())
        except (RuntimeError, OSError, TimeoutError) as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
    import __main__
    script = getattr(__main__, "__file__", None)
    hint = ("; in a Python script, call chaintag's functions with workers under `if __name__ == \"__main__\":` "
            "(the worker processes import the script first)" if script and "chaintag" not in
            os.path.basename(script) else "")
    raise TrainingError(f"the local Dask cluster did not start in {tries} tries ({'; '.join(errors)}); nothing "
                        f"was run: run the command again{hint}")


def live_workers(client) -> list[str]:
    """Addresses of the workers the scheduler knows now, sorted."""
    return sorted(client.nthreads())


_NO_RESTART = []


def _no_restart_nanny():
    """A ``distributed.Nanny`` that closes when its worker process dies instead of starting another."""
    if not _NO_RESTART:
        distributed = _import_distributed()
        from distributed.core import Status

        class NoRestartNanny(distributed.Nanny):
            async def _on_worker_exit(self, exitcode):
                if self.status == Status.running:
                    self.status = Status.closing_gracefully  # the nanny closes, the worker stays gone
                await super()._on_worker_exit(exitcode)

        _NO_RESTART.append(NoRestartNanny)
    return _NO_RESTART[0]
