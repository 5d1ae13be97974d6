"""Start numba without SciPy in command-line processes (a shorter start, a smaller footprint).

When numba sets up its CPU target (at the first compiled call, or the first
kernel loaded from its cache) it imports ``scipy.linalg`` if it can, only to
offer ``np.dot`` and ``np.linalg`` inside compiled code. chaintag's kernels use
neither, and that import is about a quarter of the CPU time of ``chaintag
tag`` on a small file (0.25 of 0.92 s measured) and 13 MiB of its memory.

:func:`numba_without_scipy` lets numba set up its array functions while
``scipy.linalg`` cannot be imported, then makes it importable again: code
that needs SciPy later (the L-BFGS CRF, scikit-learn) imports it as usual;
only numba's compiled ``np.dot``/``np.linalg`` stay unavailable in that
process. (numba's own ``import numba`` also imports the top-level ``scipy``
package, to check its version: when numba is not imported yet, SciPy is left
out of that too, which numba allows.) The
command line calls it; the library never does, so a program that imports
chaintag keeps numba as it is.
"""

from __future__ import annotations

import os
import sys


class _NoScipy:
    """A meta-path finder that refuses ``scipy.linalg`` and its submodules (``everything``: all of
    SciPy), and PyYAML when ``no_yaml``. (A plain class: ``importlib.abc`` costs 15-30 ms to import.)"""

    def __init__(self, everything: bool = False, no_yaml: bool = False):
        self.everything = everything
        self.no_yaml = no_yaml

    def find_spec(self, name, path, target=None):
        if name == "scipy.linalg" or name.startswith("scipy.linalg.") or (
                self.everything and (name == "scipy" or name.startswith("scipy."))) or (
                self.no_yaml and (name == "yaml" or name.startswith("yaml."))):
            raise ImportError(f"{name} is not imported while numba starts (chaintag command line)")
        return None


def numba_without_scipy() -> bool:
    """Let numba set up its array functions without importing SciPy.

    Returns
    -------
    bool
        True when numba was set up so; False when ``scipy.linalg`` or numba's
        array functions were imported already (nothing is changed then).
    """
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return False
    # before numba is imported, SciPy as a whole is left out too: ``import numba`` imports it only
    # to check its version, and does without it when it cannot (about 0.03 s)
    # numba imports PyYAML only to read a ``.numba_config.yaml`` of the working directory (about 0.02 s)
    finder = _NoScipy(everything="numba" not in sys.modules and "scipy" not in sys.modules,
                      no_yaml=("numba" not in sys.modules and "yaml" not in sys.modules
                               and not os.path.isfile(".numba_config.yaml")))
    sys.meta_path.insert(0, finder)
    try:
        import numba.np.arraymath  # noqa: F401 (probes for BLAS once, at import)
    finally:
        sys.meta_path.remove(finder)
    return True


def passive_threads(command: str | None = None) -> None:
    """Let idle OpenMP threads sleep instead of spinning (unless ``OMP_WAIT_POLICY`` is set);
    for ``command == "tag"``, also start no OpenBLAS threads (unless ``OPENBLAS_NUM_THREADS`` is set).

    chaintag's parallel kernels run one parallel region per corpus or per
    epoch, so a worker thread that spins after a region only burns CPU time
    (0.17 of 1.05 CPU seconds of a short ``chaintag tag`` run on a loaded
    machine). Takes effect when numba starts its thread pool, at the first
    parallel kernel of the process. Tagging calls no BLAS routine, and the
    threads that OpenBLAS starts when NumPy is imported spin for a while: about
    0.1 of 0.45 CPU seconds of ``chaintag tag`` on a 10-token file. That part
    takes effect only when NumPy is not imported yet.
    """
    import os
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if command == "tag":
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
