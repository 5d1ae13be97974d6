"""When a parallel (``numba.prange``) kernel may run: after ``fork()``, and with concurrent callers.

chaintag's compiled kernels come in pairs: a parallel kernel (tagging more
than :data:`chaintag.decoding.scoring.SENTENCES_PER_CHUNK` sentences, the
attribute lookup of large inputs, Hogwild epochs) and a serial one that gives
the same labels (Hogwild aside, whose serial counterpart is the ``n_jobs=1``
epoch). A parallel kernel runs on numba's threading layer, which numba picks
at the first parallel call of the process, in the order of
``NUMBA_THREADING_LAYER_PRIORITY`` (by default TBB, then OpenMP, then its own
workqueue; a user's ``NUMBA_THREADING_LAYER`` is left as it is). Two of these
layers are not safe everywhere the kernels are called:

- **after fork.** GNU OpenMP cannot start threads in a ``fork()``-ed child of
  a process whose OpenMP threads already ran: the child prints "fork() called
  from a process already using GNU OpenMP" and ends (a ``multiprocessing``
  Pool with the ``fork`` start method, after tagging in the parent);
- **concurrent callers.** The workqueue layer aborts the process (exit 134)
  when two threads enter parallel regions at once (``chaintag serve``'s
  handler threads, a ``ThreadPoolExecutor`` calling one model).

:func:`parallel_region` decides, for one kernel call, whether the parallel
kernel may be entered now: never in a forked child of a process that had
started the threading layer (whatever the layer: the serial kernel is always
safe there); with a layer that is not known to be thread-safe (workqueue, or
none chosen yet), only when no other thread is inside a parallel region (a
process-wide lock, not waited for when tagging: the caller runs the serial
kernel instead). TBB and OpenMP are thread-safe, so once one of them runs,
concurrent callers all get the parallel kernel.

See numba's documentation, "The Threading Layers" (thread and fork safety
of each layer).
"""

from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager

#: Threading layers that numba documents as safe with concurrent callers.
THREAD_SAFE_LAYERS = ("tbb", "omp")

_lock = threading.RLock()
#: pid of the process in which a parallel kernel ran (None: none yet)
_started_in: int | None = None
#: True in a forked child of a process whose threading layer had started
_forked_after_start = False


def _layer_started() -> bool:
    """Whether numba's threading layer was started in this process's memory (by chaintag or not)."""
    if _started_in is not None:
        return True
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    return bool(getattr(parallel, "_is_initialized", False))


def _after_fork_in_child() -> None:
    global _lock, _forked_after_start
    _lock = threading.RLock()  # a lock a parent thread held at the fork would stay held here
    if _layer_started():
        _forked_after_start = True


os.register_at_fork(after_in_child=_after_fork_in_child)


def threading_layer() -> str | None:
    """The threading layer numba runs parallel kernels on in this process, or None before the first one."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None or not getattr(parallel, "_is_initialized", False):
        return None
    try:
        import numba
        return numba.threading_layer()
    except ValueError:
        return None


def parallel_allowed() -> bool:
    """False where no parallel kernel may run at all: a forked child of a process that had started the layer."""
    return not _forked_after_start


@contextmanager
def parallel_region(wanted: bool = True, wait: bool = False):
    """Whether the enclosed kernel call may be the parallel kernel (True) or must be the serial one (False).

    Parameters
    ----------
    wanted : bool, default True
        Whether the caller would run the parallel kernel at all (e.g. more
        than one chunk of sentences); False yields False at no cost.
    wait : bool, default False
        With a layer that is not thread-safe and another thread inside a
        parallel region: wait for it (training epochs) instead of yielding
        False (tagging, which runs the serial kernel, with the same output).

    Yields
    ------
    bool
        True: the caller may run the parallel kernel inside the ``with``
        block (the region is held for it until the block ends).

    Notes
    -----
    Never raises; a forked child of a process that had run a parallel
    kernel always gets False (:func:`parallel_allowed`).
    """
    global _started_in
    if not wanted or _forked_after_start:
        yield False
        return
    if threading_layer() in THREAD_SAFE_LAYERS:
        yield True
        return
    lock = _lock
    if not lock.acquire(blocking=wait):
        yield False
        return
    try:
        _started_in = os.getpid()
        yield True
    finally:
        lock.release()
