"""numba's ``njit`` and ``prange`` for chaintag's kernels, with caches that follow every kernel module.

numba keeps a compiled kernel (``cache=True``) beside its module and takes it
again while that module's source is the same. A kernel also holds the code
of the kernels it calls from other modules (``find_feature``, the emission
sums, Viterbi), so a change there alone left it stale: after an upgrade
(the package manager leaves numba's cache files where they are) or a pull, a
learner could run with the old code of a kernel it calls, silently. Every
chaintag kernel module imports ``njit`` from here, which makes numba stamp
the cache of each chaintag kernel with the digest of **all** the modules of
:data:`KERNEL_MODULES` besides its own source: a change to any of them
compiles every kernel again, once (``tests/test_kernel_cache.py`` checks the
list against the package).

With a numba whose cache classes differ from those this module knows, the
kernels keep numba's own stamps.

Where no cache folder can be written (a read-only installation, and a home
folder that is missing or read-only: containers, services), numba refuses
``cache=True`` when the kernel is defined, which made every command fail,
``--version`` included. :func:`njit` then compiles the kernel without a
cache, with one warning naming ``NUMBA_CACHE_DIR``.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os

from numba import njit as _numba_njit, prange  # noqa: F401 (the names the kernel modules import)

__all__ = ["KERNEL_MODULES", "kernel_digest", "njit", "prange"]

_LOG = logging.getLogger("chaintag")
_WARNED = []


def uncached() -> bool:
    """Whether a kernel had to be compiled without a cache in this process (see :func:`njit`)."""
    return bool(_WARNED)


def njit(*args, **kwargs):
    """numba's ``njit``; with ``cache=True`` where no cache folder can be written, the kernel is compiled
    without a cache (each process compiles it again) and a warning says how to give one."""
    if not kwargs.get("cache"):
        return _numba_njit(*args, **kwargs)
    if args and callable(args[0]):  # njit(func, cache=True)
        return njit(*args[1:], **kwargs)(args[0])

    def define(func):
        try:
            return _numba_njit(*args, **kwargs)(func)
        except RuntimeError as exc:
            if "cannot cache" not in str(exc):
                raise
            if not _WARNED:
                _WARNED.append(True)
                _LOG.warning("chaintag: compiled kernels cannot be cached (no writable folder for numba's "
                             "cache); every run compiles them again: set NUMBA_CACHE_DIR to a writable folder")
            return _numba_njit(*args, **{**kwargs, "cache": False})(func)
    return define

KERNEL_MODULES = (
    "decoding/beam.py", "decoding/constraints.py", "decoding/forward_backward.py", "decoding/nbest.py",
    "decoding/nbest2.py", "decoding/scoring.py", "decoding/spans.py", "decoding/viterbi.py",
    "decoding/viterbi2.py", "features/dense_rows.py", "features/hashed.py", "features/hashing.py",
    "features/keys.py", "features/vectors.py", "learners/crf_kernels.py", "learners/hogwild_kernels.py",
    "learners/maxent_kernels.py", "learners/mira_kernels.py", "learners/neural/sapo_head.py",
    "learners/path_kernels.py", "learners/perceptron_kernels.py", "learners/sapo2_kernels.py",
    "learners/sapo_kernels.py", "learners/scale_kernels.py", "learners/second_order_kernels.py",
)
"""The package's modules that define compiled kernels (paths under the package folder)."""

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


@functools.lru_cache(maxsize=None)
def kernel_digest() -> str:
    """sha256 of the paths and contents of the :data:`KERNEL_MODULES` (hex; computed once a process).

    A module missing from the installation counts as empty.
    """
    h = hashlib.sha256()
    for rel in KERNEL_MODULES:
        h.update(rel.encode() + b"\0")
        try:
            with open(os.path.join(_PACKAGE, *rel.split("/")), "rb") as f:
                h.update(f.read())
        except OSError:
            pass
        h.update(b"\0")
    return h.hexdigest()


def _in_package(path: str) -> bool:
    return os.path.abspath(path).startswith(_PACKAGE + os.sep)


def _install() -> bool:
    """Put locators for the package's files first in numba's list, in numba's order (so that
    ``NUMBA_CACHE_DIR`` is still honoured); False when numba's caching differs."""
    try:
        from numba.core import caching

        def named(name):  # the public name of recent numba releases, else the private one of older ones
            return getattr(caching, name, None) or getattr(caching, "_" + name)
        impl = named("CacheImpl")
        # numba's order: NUMBA_CACHE_DIR when set, beside the module, else the user's cache folder
        bases = tuple(named(n) for n in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"))
        list(impl._locator_classes)
    except (ImportError, AttributeError, TypeError):
        return False
    if any(getattr(c, "_chaintag", False) for c in impl._locator_classes):
        return True
    ours = []
    for base in bases:
        def from_function(cls, py_func, py_file, _base=base):
            if not _in_package(py_file):
                return None
            return _base.from_function.__func__(cls, py_func, py_file)

        def get_source_stamp(self, _base=base):
            return (_base.get_source_stamp(self), kernel_digest())

        ours.append(type(f"Chaintag{base.__name__}", (base,), {
            "_chaintag": True, "from_function": classmethod(from_function),
            "get_source_stamp": get_source_stamp}))
    impl._locator_classes = [*ours, *impl._locator_classes]
    return True


INSTALLED = _install()
"""Whether the kernels' caches follow :data:`KERNEL_MODULES` (False: numba's own stamps)."""
