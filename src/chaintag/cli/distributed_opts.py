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
    g.add_argument("--no-nanny", dest="nanny", action="store_false",
                   help="with --workers: plain worker processes, not restarted when they die (by default "
                        "a nanny process restarts each); the workers left take over the shards of a lost one")
