"""Progress on stderr: bars on a terminal, one plain line per step or epoch otherwise.

A ``progress`` setting (the learners' hyper-parameter, the commands' default)
is read by :func:`progress_mode`:

- ``False``: nothing;
- ``None`` (the library's default): bars when stderr is a terminal, else nothing;
- ``True`` (the command line's default): bars on a terminal, else one plain
  log line per step or epoch (no carriage returns, so a log file stays
  readable);
- ``"bar"`` or ``"log"``: that form, wherever stderr goes.
"""

from __future__ import annotations

import contextlib
import sys
import time

__all__ = ["progress_mode", "step", "EpochProgress", "BarAdapter", "say"]


def _is_terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):
        return False


def progress_mode(progress) -> str | None:
    """``"bar"``, ``"log"`` or None (silent) for a progress setting (see the module notes).

    Raises
    ------
    ValueError
        For a setting that is none of False, None, True, "bar", "log".
    """
    if progress is False or progress is None and not _is_terminal():
        return None
    if progress is None:
        return "bar"
    if progress is True:
        return "bar" if _is_terminal() else "log"
    if progress in ("bar", "log"):
        return progress
    raise ValueError(f"progress must be True, False, None, 'bar' or 'log', not {progress!r}")


def say(mode: str | None, message: str) -> None:
    """One line on stderr unless ``mode`` is None."""
    if mode is not None:
        print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def step(mode: str | None, desc: str):
    """Show one long step: a status bar with its elapsed time on a terminal, or one
    line when it ends (``desc: 2.3 s``); nothing when ``mode`` is None."""
    if mode is None:
        yield
        return
    t0 = time.perf_counter()
    bar = None
    if mode == "bar":
        from tqdm.auto import tqdm
        bar = tqdm(total=1, desc=desc, file=sys.stderr, bar_format="{desc}: {elapsed}{postfix}", leave=True)
    try:
        yield
    finally:
        if bar is not None:
            bar.update(1)
            bar.close()
    if mode == "log":
        print(f"{desc}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)


class EpochProgress:
    """Epochs of a training run: a bar on a terminal, else one line per epoch.

    Parameters
    ----------
    mode : {"bar", "log"} or None
    total : int
        Number of epochs of the run.
    desc : str
        E.g. ``"perceptron epochs"``.
    done : int, default 0
        Epochs already done (a resumed run).
    """

    def __init__(self, mode: str | None, total: int, desc: str, done: int = 0):
        self.mode = mode
        self.total = total
        self.desc = desc
        self.bar = None
        if mode == "bar":
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, desc=desc, unit="epoch", file=sys.stderr, initial=done)

    def update(self, epoch: int, record: dict) -> None:
        """Report the end of ``epoch`` (1-based) with its history ``record``."""
        post = {"errors": record.get("errors", 0)}
        if record.get("dev_score") is not None:
            post["dev"] = f"{record['dev_score']:.2f}"
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(post)
        elif self.mode == "log":
            parts = [f"{record.get('seconds', 0.0):.1f} s"]
            if "errors" in record:
                parts.append(f"{record['errors']} training errors")
            if record.get("loss") is not None:
                parts.append(f"loss {record['loss']:.4g}")
            if record.get("dev_score") is not None:
                parts.append(f"dev {record['dev_score']:.2f}")
            print(f"{self.desc} {epoch}/{self.total}: " + ", ".join(parts), file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class BarAdapter:
    """:class:`EpochProgress`'s interface over a learner's own tqdm-like epoch bar
    (``update(n)``, ``set_postfix(dict)``, ``close()``; None: nothing shown)."""

    def __init__(self, bar, done: int = 0):
        self.bar = bar
        if bar is not None and done:
            bar.update(done)

    def update(self, epoch: int, record: dict) -> None:
        if self.bar is None:
            return
        self.bar.update(1)
        post = {"errors": record.get("errors", 0)}
        if record.get("dev_score") is not None:
            post["dev"] = f"{record['dev_score']:.2f}"
        self.bar.set_postfix(post)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
