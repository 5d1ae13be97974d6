"""Training of one shard of a corpus: the pieces that serial, streamed and distributed training share.

- :mod:`~chaintag.training.shards`: a shard's arrays (sentences, attributes,
  labels) cut from the corpus arrays, and their digests;
- :mod:`~chaintag.training.shard_files`: the same arrays on disk, memory-mapped;
- :mod:`~chaintag.training.worker`: a learner's epochs over one shard;
- :mod:`~chaintag.training.mixing`: how a learner's epoch state is split and
  mixed between shards (iterative parameter mixing, McDonald et al. 2010).

Streamed training (:mod:`chaintag.streaming`) runs one shard worker in the
process; distributed training (:mod:`chaintag.distributed`) runs one per
Dask worker.
"""
