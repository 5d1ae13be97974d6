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

__all__ = ["progress_mode", "step", "compile_step", "EpochProgress", "BarAdapter", "CountProgress", "say",
           "plural"]


def plural(n: int, noun: str, nouns: str | None = None, *, thousands: bool = False) -> str:
    """``n`` and the noun in the number it takes: ``1 sentence``, ``0 sentences``, ``4,260 sentences``.

    Parameters
    ----------
    n : int
    noun : str
        The singular (``"sentence"``).
    nouns : str, optional
        The plural, when it is not ``noun + "s"`` (``"entries"``).
    thousands : bool, default False
        Write ``n`` with thousands separators (``4,260``).

    Examples
    --------
    >>> plural(1, "sentence"), plural(2, "entry", "entries"), plural(4260, "token", thousands=True)
    ('1 sentence', '2 entries', '4,260 tokens')
    """
    number = f"{n:,}" if thousands else f"{n}"
    return f"{number} {noun if n == 1 else (nouns or noun + 's')}"


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
def step(mode: str | None, desc: str, detail=None):
    """Show one long step: a status bar with its elapsed time on a terminal, or one
    line when it ends (``desc: 2.3 s``); nothing when ``mode`` is None. ``detail``, a
    callable called when the step ends, adds what happened (``desc (detail): 2.3 s``)."""
    if mode is None:
        yield
        return
    t0 = time.perf_counter()
    bar = None
    if mode == "bar":
        from tqdm.auto import tqdm
        bar = tqdm(total=1, desc=desc, file=sys.stderr, bar_format="{desc}: {elapsed}{postfix}", leave=True)
    what = None
    try:
        yield
    finally:
        what = detail() if detail is not None else None
        if bar is not None:
            if what:
                bar.set_postfix_str(what)
            bar.update(1)
            bar.close()
    if mode == "log":
        shown = f"{desc} ({what})" if what else desc
        print(f"{shown}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)


@contextlib.contextmanager
def compile_step(mode: str | None):
    """:func:`step` for the warm-up of compiled kernels; the line says what happened.

    Numba compiles a kernel on its first call in a fresh cache and loads it
    from its on-disk cache afterwards. Compilations are counted with numba's
    ``numba:compile`` events (triggered by a real compilation only, never by
    a cache load), so the line reads ``compiled kernels (loaded from the
    cache): 0.8 s`` or ``compiled kernels (compiled on this run: 14
    functions; later runs load them from the cache): 12.9 s``.
    """
    if mode is None:
        yield
        return
    recorder = None
    try:
        from numba.core import event
        recorder = event.install_recorder("numba:compile")
    except (ImportError, AttributeError):  # another numba: the line cannot tell
        pass
    with (recorder if recorder is not None else contextlib.nullcontext()) as rec:

        def detail() -> str:
            if rec is None:
                return "loaded from the cache, or compiled on a first run"
            n = sum(1 for _, ev in rec.buffer if ev.is_start)
            from ._jit import uncached
            later = ("no cache folder can be written: every run compiles them" if uncached() else
                     "later runs load them from the cache")
            return "loaded from the cache" if n == 0 else f"compiled on this run: {plural(n, 'function')}; {later}"

        with step(mode, "compiled kernels", detail):
            yield


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


class CountProgress:
    """Progress over a count of items (runs of a grid, files): a bar on a terminal, else one line per item.

    Parameters
    ----------
    mode : {"bar", "log"} or None
        As :func:`progress_mode` gives it; None shows nothing.
    total : int
    desc : str
        E.g. ``"tune"``.
    unit : str, default "item"
        The singular name of an item (``"run"``).

    Notes
    -----
    Offers the part of tqdm's interface that counting loops use:
    ``update(n)``, ``set_postfix_str(text)`` and ``close()``. Off a terminal
    it writes ``tune: run 3/12 (dev 91.20), 4.1 s`` lines, never carriage returns.
    """

    def __init__(self, mode: str | None, total: int, desc: str, unit: str = "item"):
        self.mode, self.total, self.desc, self.unit = mode, total, desc, unit
        self.n = 0
        self.postfix = ""
        self.bar = None
        self._t0 = time.perf_counter()
        if mode == "bar":
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, unit=unit, file=sys.stderr, desc=desc, dynamic_ncols=True)

    def set_postfix_str(self, text: str) -> None:
        """Text shown with the count: a bar's postfix; off a terminal, the line of the item just done."""
        self.postfix = text
        if self.bar is not None:
            self.bar.set_postfix_str(text)
        self._flush()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more items done (off a terminal, its line waits for a postfix or the next item)."""
        self._flush()
        self.n += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.mode == "log":
            self._pending, self.postfix = True, ""

    _pending = False

    def _flush(self) -> None:
        if not self._pending:
            return
        self._pending = False
        extra = f" ({self.postfix})" if self.postfix else ""
        print(f"{self.desc}: {self.unit} {self.n}/{self.total}{extra}, {time.perf_counter() - self._t0:.1f} s",
              file=sys.stderr, flush=True)

    def close(self) -> None:
        self._flush()
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
