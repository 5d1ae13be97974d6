"""Command-line options of distributed training (``chaintag train --workers N / --scheduler ADDRESS``)."""

from __future__ import annotations


def add_train_options(p) -> None:
    """Add the Dask options to the ``train`` parser."""
    g = p.add_argument_group("distributed training (Dask; pip install 'chaintag[dist]')")
    g.add_argument("--workers", type=int, default=None, metavar="N",
                   help="train on N shards of the sentences, one per Dask worker, by iterative "
                        "parameter mixing (perceptron, mira, nbest-mira, sapo, crf) or a gradient summed "
                        "over workers (crf-lbfgs); without --scheduler, N worker processes on this "
                        "machine. N = 1 gives the serial model exactly")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a running Dask scheduler (tcp://host:8786) whose workers train; "
                        "the shards are --workers N, or one per worker")
    g.add_argument("--mixing", choices=["uniform", "updates"], default=None,
                   help="weights of the shards' parameters at each mixing step: uniform (default) or "
                        "by each shard's number of updates in the epoch (McDonald et al. 2010)")


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
    if fit_streamed is not None:
        fit_streamed(learner, args, dev, train)
    else:
        fit_distributed(learner, train.tokens, train.labels, dev=dev, workers=args.workers,
                        scheduler=args.scheduler, shards=args.workers, mixing=args.mixing or "uniform",
                        checkpoint_dir=args.checkpoint_dir, resume=args.resume)
    info = learner.distributed_
    if not args.quiet:
        import sys
        lost = f"; workers lost and replaced: {len(info['lost_workers'])}" if info["lost_workers"] else ""
        files = f"; shard files {info['shard_files']}" if "shard_files" in info else ""
        print(f"trained on {info['shards']} shard(s), mixing: {info['mixing']}{files}{lost}", file=sys.stderr)
