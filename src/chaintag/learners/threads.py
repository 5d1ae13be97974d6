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
