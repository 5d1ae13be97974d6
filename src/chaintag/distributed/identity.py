"""The chaintag code a Dask worker runs: its version and a digest of its ``.py`` files, checked before use.

A worker whose chaintag differs from the driver's (another version, or the
same version with other code) could train or tag with other kernels, other
attribute rules or another model format, silently. Each worker is asked once
(:func:`identity`, run on it by ``client.run``); a worker that differs is
**excluded with a warning** naming it, its version and its digest, and the
run goes on with the workers that match; when none matches, the run stops
with :class:`~chaintag.errors.InputError`.
"""

from __future__ import annotations

import hashlib
import os
import warnings

_DIGEST: list = []  # the digest of this process's chaintag, computed once


def code_digest() -> str:
    """sha256 over the relative paths and bytes of the ``.py`` files of the installed chaintag package."""
    if not _DIGEST:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashlib.sha256()
        files = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
        for path in sorted(files, key=lambda p: os.path.relpath(p, root)):
            h.update(os.path.relpath(path, root).replace(os.sep, "/").encode() + b"\0")
            with open(path, "rb") as fh:
                h.update(fh.read() + b"\0")
        _DIGEST.append(h.hexdigest())
    return _DIGEST[0]


def identity() -> tuple[str, str]:
    """``(version, code digest)`` of the chaintag this process runs (what a worker reports)."""
    from .._version import __version__
    return __version__, code_digest()


class WorkerCheck:
    """Which workers run the driver's chaintag; each asked once.

    Parameters
    ----------
    client : distributed.Client
    """

    def __init__(self, client):
        self.client, self.verdict = client, {}
        self.own = identity()

    def accepted(self, workers) -> list[str]:
        """The workers among ``workers`` whose chaintag is the driver's (new ones asked now), sorted.

        Raises
        ------
        WorkerLost
            When asking takes too long or fails (a worker left meanwhile).
        chaintag.errors.InputError
            When none of ``workers`` runs the driver's chaintag.
        """
        from .deadline import bounded
        new = [w for w in workers if w not in self.verdict]
        if new:
            seen = bounded(self.client.run, identity, workers=new, on_error="return",
                           what="asking the workers for their chaintag")
            for w in new:
                got = seen.get(w)
                if isinstance(got, BaseException):  # left meanwhile: asked again next time
                    continue
                ok = tuple(got) == self.own
                self.verdict[w] = ok
                if not ok:
                    warnings.warn(f"Dask worker {w} runs chaintag {got[0]} (code digest {got[1][:12]}), not the "
                                  f"driver's {self.own[0]} ({self.own[1][:12]}): it is left out", RuntimeWarning,
                                  stacklevel=3)
        ok = sorted(w for w in workers if self.verdict.get(w))
        if workers and not ok and all(w in self.verdict for w in workers):
            from ..errors import InputError
            raise InputError(f"no Dask worker runs the driver's chaintag {self.own[0]} (code digest "
                             f"{self.own[1][:12]}): {', '.join(sorted(workers))} differ; install the same "
                             "chaintag on the workers")
        return ok
