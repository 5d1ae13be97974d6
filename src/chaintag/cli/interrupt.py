"""What a command says when it is interrupted (Ctrl-C): how to resume it."""

from __future__ import annotations

import os
import shlex


def _command_line(args) -> str:
    argv = getattr(args, "argv", None)
    return "chaintag " + " ".join(shlex.quote(a) for a in argv) if argv else "the same command"


def train_hint(args) -> str:
    """The resume advice of ``chaintag train``: what was saved before the interrupt, else how to resume
    (from the checkpoint when there is one)."""
    model = getattr(args, "model", None)
    if model and getattr(args, "model_saved", False):  # set by the library once the model file is written
        history = getattr(args, "history", None)
        missing = (f"; the history ({history}) was not written" if history and not getattr(args, "history_written", False)
                   else "")
        return f"the model was saved whole to {model} before the interrupt{missing}"
    if not getattr(args, "checkpoint_dir", None):
        if getattr(args, "streamed_run", False):
            return ("nothing was saved; streamed training keeps no checkpoint: to be able to resume, train in "
                    "memory (--no-stream) with --checkpoint-dir DIR, then again with --resume")
        return ("nothing was saved; to be able to resume an interrupted training, run it with "
                "--checkpoint-dir DIR, then again with --resume")
    from ..learners.checkpoint import FILE_NAME, epochs_held
    from ..io.model_file import load_model
    path = os.path.join(args.checkpoint_dir, FILE_NAME)
    try:
        meta = load_model(path)[0]
        epoch = int(meta.get("epoch"))
    except Exception:  # no checkpoint yet, or one being written
        return (f"no epoch was finished; rerun with --checkpoint-dir {args.checkpoint_dir} --resume "
                "(it starts at epoch 1)")
    again = _command_line(args)
    if "--resume" not in again:
        again += " --resume"
    held = epochs_held(epoch)
    # the epochs asked for: this command's, else those of the run that wrote the checkpoint (named in the
    # advised command, whose default could be fewer than the checkpoint holds)
    total = getattr(args, "epochs", None)
    if total is None and meta.get("epochs"):
        total = int(meta["epochs"])
        again += f" --epochs {total}"
    total = total or getattr(args, "epochs_run", None)
    if total is not None and epoch >= total:
        return (f"the checkpoint in {args.checkpoint_dir} holds all the epochs ({held}): write the model "
                f"without training again with: {again}")
    return f"the checkpoint in {args.checkpoint_dir} holds {held}: resume at epoch {epoch + 1} with: {again}"


def cached_runs_hint(args) -> str:
    """The resume advice of ``compare`` and ``reproduce``: finished runs are cached."""
    return f"finished runs are cached; run the same command again to continue: {_command_line(args)}"
