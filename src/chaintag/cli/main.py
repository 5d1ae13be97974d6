"""``chaintag`` command line: train, tag, eval, compare, plot, data, models, reproduce."""

from __future__ import annotations

import argparse
import errno
import sys

from .._version import __version__
from ..errors import ChaintagError


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``chaintag train: error: ...``) with the way to the
    options, not the whole usage block (40 lines for ``train``) before the message."""

    def error(self, message):
        import difflib
        import re
        hint = ""
        bad = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if bad:
            close = difflib.get_close_matches(bad.group(1), re.findall(r"'([^']*)'", bad.group(2)), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
        self.exit(2, f"{self.prog}: error: {message}{hint} ({self.prog} --help lists the options)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser. ``train``'s learner options come from every learner's declarations,
    which imports the learner classes: they are added when ``command`` is ``train`` or not known."""
    from . import compare_cmd, data_cmd, eval_cmd, plot_cmd, reproduce_cmd, tag_cmd, train_cmd
    from . import inspect_cmd, models_cmd, serve_cmd
    from . import clusters_cmd, tune_cmd
    parser = OneLineParser(
        prog="chaintag",
        description="Train, run and evaluate linear-chain sequence labelers "
                    "(POS tagging, chunking, NER).")
    parser.add_argument("--version", action="version", version=f"chaintag {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    train_cmd.add_parser(sub, learner_options=command in (None, "train"))
    for module in (tag_cmd, eval_cmd, compare_cmd, plot_cmd, data_cmd, models_cmd, reproduce_cmd,
                   inspect_cmd, serve_cmd, clusters_cmd, tune_cmd):
        module.add_parser(sub)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs (temporary files removed)."""


def _on_sigterm(signum, frame):
    raise Terminated()


def _catch_sigterm():
    """Install the SIGTERM handler (main thread, default handling only); returns a restorer."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
        return lambda: None
    signal.signal(signal.SIGTERM, _on_sigterm)
    return lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _interrupt_inside(exc: BaseException):
    """The KeyboardInterrupt (Ctrl-C or SIGTERM's Terminated) that ``exc`` was raised in handling, or None.
    numba reports a Ctrl-C inside a compiled function as ``SystemError: ... returned a result with an
    exception set`` whose context is the KeyboardInterrupt."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, KeyboardInterrupt):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def _ignore_interrupts():
    """Ignore Ctrl-C (main thread only) while an interrupted command reports and cleans up; returns the
    restorer. A second Ctrl-C there raised KeyboardInterrupt out of the clean-up: a traceback, exit -2."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    return lambda: signal.signal(signal.SIGINT, old)


def main(argv=None) -> int:
    """Entry point of the ``chaintag`` console script.

    Returns
    -------
    int
        The exit code: 0 on success; 2 on bad input, a failed command or
        memory running out (one message line on stderr naming the file, no
        traceback unless ``--debug``); 3 when ``train`` saved the model but
        could not write the history; 4 when ``train`` could not save the model but kept the
        trained state (the message says where); 130 on Ctrl-C, 143 on
        SIGTERM (temporary files removed in both cases).
    """
    from .lean_numba import numba_without_scipy, passive_threads
    words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
    passive_threads(words[0] if words else None)  # before NumPy is imported
    numba_without_scipy()  # a command's kernels need no SciPy: a shorter start (before the commands import numba)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(argv)
    from .common import library_messages
    restore_messages = library_messages(args)  # -q reaches the library's lines (first-use fetching, log records)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for the resume advice after Ctrl-C
    restore = _catch_sigterm()
    restore_gc = _fewer_collections()
    restore_sigint = lambda: None  # noqa: E731 - replaced when an interrupt is being reported
    try:
        try:
            return int(args.run(args) or 0)
        except SystemError as exc:  # a Ctrl-C inside a compiled function: numba wraps the KeyboardInterrupt
            interrupt = _interrupt_inside(exc)
            if interrupt is None:
                raise
            raise interrupt from None
    except (ChaintagError, OSError, NotImplementedError) as exc:
        if getattr(args, "debug", False):
            raise
        if isinstance(exc, BrokenPipeError) or getattr(exc, "errno", None) == errno.EPIPE:
            return 0
        print(f"chaintag {args.command}: error: {exc}", file=sys.stderr)
        return int(getattr(exc, "exit_code", 2))
    except MemoryError as exc:  # an allocation past the machine's memory (numpy's message names the size)
        if getattr(args, "debug", False):
            raise
        detail = str(exc).strip() or "an allocation failed"
        print(f"chaintag {args.command}: error: out of memory ({detail}); fewer labels or attributes "
              "(--cc, --hash-bits, a smaller feature set) or a machine with more memory", file=sys.stderr)
        return 2
    except Terminated:
        restore_sigint = _ignore_interrupts()  # an impatient second Ctrl-C does not cut the report short
        hint = _resume_hint(args)
        print(f"chaintag {args.command}: terminated" + (f"; {hint}" if hint else ""), file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        restore_sigint = _ignore_interrupts()
        hint = _resume_hint(args)
        print(f"chaintag {args.command}: interrupted" + (f"; {hint}" if hint else ""), file=sys.stderr)
        return 130
    finally:
        restore()
        restore_gc()
        restore_messages()
        restore_sigint()
        if argv is None:  # the command line of this process, which exits next
            _skip_final_collection()


#: Allocations between two collections of the youngest generation while a command runs (Python's: 700).
GC_THRESHOLD = (100_000, 50, 50)


def _fewer_collections():
    """Run the cyclic garbage collector less often while a command runs; returns the undo.

    A command allocates millions of short-lived objects (tokens, fields, output lines) and makes
    almost no reference cycles, yet every 700 allocations start a collection, and the older
    generations' passes walk every live object, the model's included: about 7 % of the CPU time of
    ``chaintag tag`` on a file of 947,540 tokens (5.13-5.58 against 4.70-5.21 CPU s, five runs
    each). Objects are freed by reference counting as before; only cycles wait longer.
    """
    import gc
    old = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    return lambda: gc.set_threshold(*old)


def _skip_final_collection():
    """Leave the objects alive now out of the garbage collector's passes at exit.

    Python's last collection walks every object left, numba's type system
    included: about 0.1 CPU s of a short ``chaintag tag`` run. The process
    exits next and the memory goes back whole, so nothing is lost; exit
    handlers and file closing run as usual.
    """
    import gc
    gc.freeze()


def _resume_hint(args):
    """How to resume an interrupted command (Ctrl-C or SIGTERM), or None."""
    hint = getattr(args, "resume_hint", None)
    try:
        return hint(args) if callable(hint) else hint
    except Exception:  # the advice must never hide the interrupt
        return None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
