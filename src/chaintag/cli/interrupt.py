"""What a command says when it is interrupted (Ctrl-C): how to resume it."""

from __future__ import annotations

import os
import shlex


def _command_line(args) -> str:
    argv = getattr(args, "argv", None)
    return "chaintag " + " ".join(shlex.quote(a) for a in argv) if argv else "the same command"


def train_hint(args) -> str:
    """The resume advice of ``chaintag train``: from the checkpoint when there is one."""
    if not getattr(args, "checkpoint_dir", None):
        return ("nothing was saved; to be able to resume an interrupted training, run it with "
                "--checkpoint-dir DIR, then again with --resume")
    from ..learners.checkpoint import FILE_NAME
    from ..io.model_file import load_model
    path = os.path.join(args.checkpoint_dir, FILE_NAME)
    try:
        epoch = int(load_model(path)[0].get("epoch"))
    except Exception:  # no checkpoint yet, or one being written
        return (f"no epoch was finished; rerun with --checkpoint-dir {args.checkpoint_dir} --resume "
                "(it starts at epoch 1)")
    again = _command_line(args)
    if "--resume" not in again:
        again += " --resume"
    return (f"the checkpoint in {args.checkpoint_dir} holds epochs 1-{epoch}: resume at epoch {epoch + 1} "
            f"with: {again}")


def cached_runs_hint(args) -> str:
    """The resume advice of ``compare`` and ``reproduce``: finished runs are cached."""
    return f"finished runs are cached; run the same command again to continue: {_command_line(args)}"
