"""Training on a Dask cluster as ``chaintag train --workers N / --scheduler ADDRESS`` asks for it."""

from __future__ import annotations

__all__ = ["wants_distributed", "fit_with_options"]


def wants_distributed(args) -> bool:
    """Whether the command line asks for distributed training."""
    from ..errors import InputError
    if args.workers is not None and args.workers < 1:
        raise InputError(f"--workers must be at least 1 (got {args.workers})")
    on = args.workers is not None or bool(args.scheduler)
    if args.mixing and not on:
        raise InputError("--mixing applies with --workers or --scheduler")
    return on


def fit_with_options(learner, train, dev, args, fit_streamed=None) -> None:
    """Fit ``learner`` on the cluster the options name (see :func:`chaintag.distributed.fit_distributed`).

    With ``fit_streamed`` (a callable ``(learner, args, dev, train)``), ``train`` is the
    first chunk only (for the checks) and that callable reads ``args.train`` in chunks
    (:func:`chaintag.distributed.fit_distributed_file`).
    """
    from ..errors import InputError
    from ..distributed.trainer import fit_distributed
    cls = type(learner)
    if cls.mixing_family is None and not getattr(cls, "gradient_sum", False):  # what the learner declares
        shown = "--order 2" if cls.order == 2 else learner.algorithm
        raise InputError(f"--workers and --scheduler are not offered for {shown}")
    from ..errors import TrainingError
    try:
        if fit_streamed is not None:
            fit_streamed(learner, args, dev, train)
        else:
            fit_distributed(learner, train.tokens, train.labels, dev=dev, workers=args.workers,
                            scheduler=args.scheduler, shards=args.workers, mixing=args.mixing or "uniform",
                            checkpoint_dir=args.checkpoint_dir, resume=args.resume,
                            nanny=getattr(args, "nanny", True))
    except TrainingError as exc:  # the resume advice with this command line
        raise TrainingError(str(exc).replace("chaintag train ...", _command_line(args))) from None
    info = learner.distributed_
    if not args.quiet:
        import sys
        lost = f"; workers lost and replaced: {len(info['lost_workers'])}" if info["lost_workers"] else ""
        files = f"; shard files {info['shard_files']}" if "shard_files" in info else ""
        print(f"trained on {info['shards']} shard(s), mixing: {info['mixing']}{files}{lost}", file=sys.stderr)


def _command_line(args) -> str:
    """``chaintag train`` with this run's options, less ``--checkpoint-dir DIR`` and ``--resume``."""
    import shlex
    argv, kept, skip = list(getattr(args, "argv", None) or ["train"]), [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--checkpoint-dir":
            skip = True
        elif a != "--resume" and not a.startswith("--checkpoint-dir="):
            kept.append(a)
    return "chaintag " + shlex.join(kept)
