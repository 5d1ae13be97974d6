"""Helpers of the command-line tests: a command that must fail with one clear message."""

from __future__ import annotations

from chaintag.cli.main import main


def fails(capsys, argv, *messages) -> str:
    """Run ``chaintag ARGV``; assert exit code 2, every one of ``messages`` on stderr and no traceback.
    Returns stderr."""
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert all(m in err for m in messages) and "Traceback" not in err, err
    return err
