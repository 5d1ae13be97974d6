"""Distributed training from a file read in chunks: the driver never holds the corpus.

:func:`fit_distributed_file` extracts the attributes as streamed training does
(:func:`chaintag.streaming.train.prepare_streamed`: the file read three times
in chunks of sentences, the attribute table and its count cut-off built from
merged counts), writes each shard's compact arrays to ``.npy`` files
(:func:`chaintag.training.shard_files.write_shard_files`) and trains on them
exactly as :func:`chaintag.distributed.fit_distributed` does on the corpus in
memory: same shards, same model, byte for byte.
"""

from __future__ import annotations

import os
import tempfile

from ..errors import InputError


class ShardedData:
    """What the epoch driver is given in place of a :class:`~chaintag.learners.base.TrainData`:
    the shard files, the feature index and the corpus's sizes (``attrs.n_sentences``)."""

    def __init__(self, files, index):
        from types import SimpleNamespace
        self.shard_files, self.index = files, index
        self.attrs = SimpleNamespace(n_sentences=files.n_sentences, n_tokens=files.n_tokens)

    def gold_parts(self):
        """The gold label ids, shard by shard (the checkpoint's fingerprint hashes them in order)."""
        return self.shard_files.gold_parts()


def fit_distributed_file(learner, source, dev=None, *, client=None, workers=None, scheduler=None, shards=None,
                         mixing="uniform", checkpoint_dir=None, resume=False, max_retries=3, folder=None,
                         chunk_sentences: int = 5000, columns=None, data_dir=None, label_field: str = "xpos",
                         sep=None, encoding: str = "utf-8", nanny: bool = True):
    """Train ``learner`` on a Dask cluster from a labelled file, without holding the corpus in memory.

    The driver reads the file in chunks of ``chunk_sentences`` sentences (three
    times), builds the attribute table, the count cut-off and the feature index
    as ``fit`` does, and writes each shard's compact arrays (offsets, feature
    ranges, gold label ids) to ``.npy`` files in a temporary folder, removed at
    the end (also after an error; folders that killed runs left behind are
    removed by the next run). Workers that see that folder (a ``LocalCluster``,
    or a shared file system; asked of each worker with a marker file) map their
    own shard's files read-only; the others are sent their shard's arrays, 32 MiB
    at a time.

    Parameters
    ----------
    learner : SequenceTagger
        Perceptron (first order), MIRA, N-best MIRA, SAPO, CRF or CRF-LBFGS, exact
        attributes (no ``hash_bits``).
    source : str, os.PathLike or callable
        Training file or dataset reference (not standard input); or a chunk
        source: a callable returning a new iterator of ``(names, tokens, labels)``
        chunks each time it is called (three times), as
        :func:`chaintag.streaming.reader.iter_chunks` yields them (the reader
        options below are then unused).
    dev : tuple (sentences, labels), optional
        Held-out data, in memory, scored after each epoch.
    client, workers, scheduler, shards, mixing, checkpoint_dir, resume, max_retries, nanny
        As for :func:`chaintag.distributed.fit_distributed`; the model equals
        ``fit_distributed`` on the same sentences in memory with the same number
        of shards, byte for byte.
    folder : str, optional
        Where the shard files go (default: the temporary folder, ``$TMPDIR``).
        Workers must see it to map their shard; else they are sent the arrays.
    chunk_sentences : int, default 5000
        Sentences read at a time: the driver's memory beyond the model is about
        one chunk's strings and arrays.
    columns, data_dir, label_field, sep, encoding
        As for :func:`chaintag.load_corpus`.

    Returns
    -------
    learner
        Fitted; ``learner.distributed_`` as with ``fit_distributed``, and
        ``learner.streamed_`` (sentences, tokens, chunks read).

    Raises
    ------
    chaintag.errors.InputError
        For bad input (naming file and line), standard input, hashed attributes,
        a learner without a distributed version, bad ``shards`` or ``mixing``.
    chaintag.errors.TrainingError
        As for ``fit_distributed``, or when the count cut-off leaves no feature.

    References
    ----------
    R. McDonald, K. Hall, G. Mann. Distributed training strategies for the
    structured perceptron. NAACL 2010.
    """
    lbfgs, family = _check_options(learner, mixing, chunk_sentences)
    if client is None:
        from .cluster import open_client
        with open_client(workers=workers, scheduler=scheduler, nanny=nanny) as own:
            return fit_distributed_file(learner, source, dev, client=own, shards=shards or workers, mixing=mixing,
                                        checkpoint_dir=checkpoint_dir, resume=resume, max_retries=max_retries,
                                        folder=folder, chunk_sentences=chunk_sentences, columns=columns,
                                        data_dir=data_dir, label_field=label_field, sep=sep, encoding=encoding)
    k = _shard_count(client, shards)
    chunks = _chunk_source(source, chunk_sentences, columns, data_dir, label_field, sep, encoding)
    run = (learner, client, chunks, source, dev, k, family, lbfgs, mixing, max_retries, folder)
    if checkpoint_dir:
        from ..learners.checkpoint import folder_lock
        with folder_lock(checkpoint_dir):
            return _fit(*run, checkpoint_dir, resume)
    return _fit(*run, None, False)


def _check_options(learner, mixing, chunk_sentences):
    """Raise for a bad ``mixing``, learner or ``chunk_sentences``; return ``(lbfgs, family)``.

    ``lbfgs`` tells a learner whose gradient is summed over the shards;
    ``family`` is the mixing family of the others (None for ``lbfgs``).
    """
    from ..training.mixing import family_of
    if mixing not in ("uniform", "updates"):
        raise InputError(f"mixing must be 'uniform' or 'updates', not {mixing!r}")
    lbfgs = bool(getattr(type(learner), "gradient_sum", False))
    if not lbfgs and getattr(type(learner), "mixing_family", None) is None:
        raise InputError(f"distributed training is not offered for {learner.algorithm}")
    family = None if lbfgs else family_of(learner)
    if chunk_sentences < 1:
        raise InputError(f"chunk_sentences must be at least 1 (got {chunk_sentences})")
    if getattr(learner, "hash_bits", None) is not None:
        raise InputError("distributed training from a file uses exact attributes: leave out hash_bits")
    return lbfgs, family


def _shard_count(client, shards) -> int:
    """``shards``, or the number of live workers of ``client``; at least 1."""
    from .cluster import live_workers
    k = int(shards) if shards is not None else max(1, len(live_workers(client)))
    if k < 1:
        raise InputError(f"the number of shards must be at least 1 (got {k})")
    return k


def _chunk_source(source, chunk_sentences, columns, data_dir, label_field, sep, encoding):
    """A callable returning a new iterator of ``(names, tokens, labels)`` chunks of ``source``."""
    from ..streaming.reader import iter_chunks

    def chunks():
        if callable(source):
            return iter(source())
        return iter_chunks(source, chunk_sentences, columns=columns, data_dir=data_dir,
                           label_field=label_field, sep=sep, encoding=encoding)

    return chunks


def _fit(learner, client, chunks, source, dev, k, family, lbfgs, mixing, max_retries, folder,
         checkpoint_dir, resume):
    from ..streaming.train import prepare_streamed, remove_stale_chunks
    from ..training.shard_files import write_shard_files
    from .trainer import _Trainer
    from ..learners.transaction import fit_transaction
    remove_stale_chunks(folder)
    with fit_transaction(learner), \
            tempfile.TemporaryDirectory(prefix=f"chaintag-chunks-{os.getpid()}-", dir=folder) as tmp:
        corpus, dev_pack = prepare_streamed(learner, chunks, tmp, dev, None if callable(source) else source)
        index = learner.feature_index_
        files = write_shard_files(corpus, k, index.feat_label, index.n_labels)
        data = ShardedData(files, index)
        trainer = _Trainer(learner, client, files.k, family, mixing, max_retries, checkpoint_dir)
        try:  # the epochs run on the shards (crf-lbfgs: its objective is summed over them; no checkpoints)
            learner._train(data, dev_pack, checkpoint_dir, resume, trainer=trainer)
        finally:
            trainer.close()
        learner._finish_fit()
        learner.distributed_ = {"shards": trainer.k, "mixing": mixing if not lbfgs else "gradient sum",
                                "lost_workers": list(trainer.pool.lost_events) if trainer.pool else [],
                                "shard_files": {"mapped": "mapped by the workers", "sent": "sent to the workers"}.get(
                                    "".join(files.how), "mapped by some workers, sent to the others")}
        learner.streamed_ = {"n_sentences": corpus.n_sentences, "n_tokens": corpus.n_tokens,
                             "chunks": corpus.n_chunks}
    return learner
