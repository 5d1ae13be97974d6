"""Threads of the compiled epoch kernels: the ``n_jobs`` hyper-parameter and numba's thread count."""

from __future__ import annotations

from contextlib import contextmanager


def resolve_threads(n_jobs) -> int:
    """Number of threads an ``n_jobs`` setting asks for.

    Parameters
    ----------
    n_jobs : int or None
        1 or None: one thread (the serial kernels, reproducible bit for bit);
        N > 1: N threads, at most numba's limit (``NUMBA_NUM_THREADS``, by
        default the number of cores); -1: all of them.

    Returns
    -------
    int
        At least 1.

    Raises
    ------
    ValueError
        For 0 or a negative value other than -1.
    """
    if n_jobs is None or n_jobs == 1:
        return 1
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive number of threads or -1 (all cores), not {n_jobs!r}")
    import numba
    limit = numba.config.NUMBA_NUM_THREADS
    return limit if n_jobs == -1 else min(n_jobs, limit)


@contextmanager
def numba_threads(n: int):
    """Run the enclosed compiled calls on ``n`` numba threads (the previous count is restored)."""
    import numba
    saved = numba.get_num_threads()
    numba.set_num_threads(n)
    try:
        yield
    finally:
        numba.set_num_threads(saved)


@contextmanager
def parallel_epoch(wanted: bool):
    """Whether a Hogwild epoch may run its parallel kernel now (see :func:`chaintag.parallel.parallel_region`).

    Waits while another thread is inside a parallel region of a layer that is
    not thread-safe; yields False (run the ``n_jobs=1`` epoch kernel, with a
    warning once per process) in a forked child of a process that had started
    numba's threading layer, where starting its threads again can end the child.
    """
    from ..parallel import parallel_allowed, parallel_region
    if wanted and not parallel_allowed():
        global _warned_fork
        if not _warned_fork:
            import warnings
            warnings.warn("n_jobs > 1 in a forked child of a process that ran parallel kernels: the threading "
                          "layer cannot start again here, so these epochs run on one thread (start the workers "
                          "with the 'spawn' or 'forkserver' method to train on several)", RuntimeWarning,
                          stacklevel=3)
            _warned_fork = True
    with parallel_region(wanted, wait=True) as parallel:
        yield parallel


_warned_fork = False
