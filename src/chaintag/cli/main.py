"""``chaintag`` command line: train, tag, eval, compare, plot, data, reproduce."""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from ..errors import ChaintagError


def build_parser() -> argparse.ArgumentParser:
    from . import compare_cmd, data_cmd, eval_cmd, plot_cmd, reproduce_cmd, tag_cmd, train_cmd
    from . import inspect_cmd
    parser = argparse.ArgumentParser(
        prog="chaintag",
        description="Train, run and evaluate linear-chain sequence labelers "
                    "(POS tagging, chunking, NER).")
    parser.add_argument("--version", action="version", version=f"chaintag {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in (train_cmd, tag_cmd, eval_cmd, compare_cmd, plot_cmd, data_cmd, reproduce_cmd,
                   inspect_cmd):
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``chaintag`` console script.

    Returns
    -------
    int
        0 on success, 2 on bad input (message on stderr, no traceback unless
        ``--debug``), 130 on Ctrl-C.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (ChaintagError, OSError, NotImplementedError) as exc:
        if getattr(args, "debug", False):
            raise
        if isinstance(exc, BrokenPipeError):
            return 0
        print(f"chaintag {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"chaintag {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
