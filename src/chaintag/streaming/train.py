"""``fit_streamed``: train a learner from a file read in chunks, one chunk's arrays in memory at a time."""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from ..errors import InputError, TrainingError


def fit_streamed(learner, source, *, dev=None, folder=None, chunk_sentences: int = 20000, columns=None,
                 data_dir=None, label_field: str = "xpos", sep=None, encoding: str = "utf-8"):
    """Fit ``learner`` on a labelled file without holding the corpus in memory.

    Parameters
    ----------
    learner : SequenceTagger
        Perceptron (first order), MIRA, N-best MIRA, SAPO or CRF (SGD), exact
        attributes (no ``hash_bits``).
    source : str or os.PathLike
        Training file or dataset reference (read three times, in chunks).
    dev : tuple (sentences, labels), optional
        Held-out data, in memory, scored after each epoch (the best epoch is kept).
    folder : str, optional
        Where the chunk files go (default: a temporary folder removed at the end).
    chunk_sentences : int, default 20000
        Sentences per chunk: memory while reading and training is about one
        chunk's strings and arrays.
    columns, data_dir, label_field, sep, encoding
        As for :func:`chaintag.load_corpus`.

    Returns
    -------
    learner
        Fitted, as by ``fit``. With the perceptron and MIRA without shuffling
        the model equals ``fit`` on the whole corpus bit for bit (the chunks are
        visited in file order with the learner's state carried from one to the
        next). With shuffling, each chunk visits its sentences in the relative
        order of one corpus-wide permutation, chunk after chunk. SAPO and CRF
        fold their scale at the end of each chunk instead of each epoch, which
        changes the rounding only.

    Raises
    ------
    chaintag.errors.InputError
        For bad input (named by file and line), standard input, hashed
        attributes, or a learner without a compiled epoch.
    """
    from ..training.mixing import family_of
    from .reader import iter_chunks
    fam = family_of(learner)
    if chunk_sentences < 1:
        raise InputError(f"chunk_sentences must be at least 1 (got {chunk_sentences})")

    def chunks():
        return iter_chunks(source, chunk_sentences, columns=columns, data_dir=data_dir,
                           label_field=label_field, sep=sep, encoding=encoding)

    remove_stale_chunks(folder)
    from ..learners.transaction import fit_transaction
    from .extract import stream_dir_error
    try:
        chunk_dir = tempfile.TemporaryDirectory(prefix=f"chaintag-chunks-{os.getpid()}-", dir=folder)
    except OSError as exc:  # a read-only or missing folder
        raise stream_dir_error(exc, folder or tempfile.gettempdir()) from None
    with fit_transaction(learner), chunk_dir as tmp:
        corpus, dev_pack = prepare_streamed(learner, chunks, tmp, dev, source)
        _train_chunks(learner, fam, corpus, dev_pack)
        learner._finish_fit()
        learner.streamed_ = {"n_sentences": corpus.n_sentences, "n_tokens": corpus.n_tokens,
                             "chunks": corpus.n_chunks}
    return learner


def prepare_streamed(learner, chunks, folder: str, dev=None, source=None):
    """Extract a corpus read in chunks to ``folder`` and set the learner's fitted vocabulary, as ``fit`` does.

    Parameters
    ----------
    learner : SequenceTagger
        Exact attributes (no ``hash_bits``).
    chunks : callable
        ``chunks()`` returns a new iterator of ``(names, tokens, labels)`` chunks
        (:func:`~chaintag.streaming.reader.iter_chunks`).
    folder : str
        Where the chunk files are written.
    dev : tuple (sentences, labels), optional
    source : str, optional
        The training file, named in errors.

    Returns
    -------
    corpus : chaintag.streaming.extract.StreamedCorpus
    dev_pack : tuple (Attributes, list of list of str) or None
        The dev data's attributes and labels, as ``_train`` takes them.

    Raises
    ------
    chaintag.errors.InputError
        For bad input (named by file and line), hashed attributes, bad epochs or cc,
        or columns that do not match the file.
    chaintag.errors.TrainingError
        When the count cut-off leaves no feature.
    """
    from ..features.extract import AttributeExtractor
    from ..features.templates import resolve_templates
    from .extract import extract_to_disk
    if getattr(learner, "hash_bits", None) is not None:
        raise InputError("streamed training uses exact attributes: leave out hash_bits")
    epochs = getattr(learner, "epochs", 1)
    if not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise InputError(f"epochs must be a positive integer, not {epochs!r}")
    if getattr(learner, "cc", 0) < 0:
        raise InputError(f"cc must be 0 or more, not {learner.cc!r}")
    first = next(chunks(), None)
    if first is None:
        raise InputError("training data: no sentences", None if source is None else str(source))
    from ..learners.tokens import column_names
    names = column_names(learner.columns) if learner.columns else first[0]
    if len(names) != len(first[0]):
        raise InputError(f"columns {names} do not match the {len(first[0])} columns of the tokens")
    del first
    learner.columns_ = names
    t0 = time.perf_counter()
    from ..features.spec import resolve_resources
    extractor = AttributeExtractor(resolve_templates(learner.features, names), names,
                                   resources=resolve_resources(learner.features))
    if extractor.has_vectors:
        raise InputError("vec(...) templates (real-valued word-vector attributes) are not offered by "
                         "streamed training; train in memory (chaintag train --no-stream)")
    if extractor.has_grams:
        raise InputError("cngramK(...) templates (character n-grams) are not offered by streamed training; "
                         "train in memory (chaintag train --no-stream)")
    sequences: list = []
    labels, index, corpus = extract_to_disk(extractor, chunks, folder, cc=learner.cc,
                                            space=learner.feature_space, sequences=sequences)
    from ..learners.introspect import training_summary
    label_id = {lab: k for k, lab in enumerate(labels)}
    gold = np.fromiter((label_id[y] for ls in sequences for y in ls), dtype=np.int32, count=corpus.n_tokens)
    learner.training_summary_ = training_summary(corpus.n_sentences, gold, labels, sequences,
                                                getattr(learner, "eval_scheme", "auto"))
    del gold, sequences
    if index.n_features == 0:
        raise TrainingError(f"no features left: every attribute-label pair occurs fewer than "
                            f"cc={learner.cc} times")
    learner.labels_, learner.extractor_, learner.feature_index_ = labels, extractor, index
    learner.extraction_seconds_ = time.perf_counter() - t0
    dev_pack = None
    if dev is not None:
        from ..learners.tokens import as_rows
        dev_rows = as_rows(dev[0], len(names))
        dev_labels = [list(map(str, ls)) for ls in dev[1]]
        learner._check_pairs(dev_rows, dev_labels, "dev")
        dev_pack = (extractor.transform(dev_rows), dev_labels)
    return corpus, dev_pack


def remove_stale_chunks(folder=None) -> list[str]:
    """Remove the chunk folders that streamed runs killed before their end left in ``folder``.

    A run's folder is named ``chaintag-chunks-PID-*`` after its process; it is
    removed only when no process of that id is running (a folder of a live
    run, or of a name this code did not make, is left alone).

    Parameters
    ----------
    folder : str, optional
        Default: the temporary folder (``$TMPDIR``, else the system's).

    Returns
    -------
    list of str
        The folders removed.
    """
    import re
    import shutil
    base = folder or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        m = re.fullmatch(r"chaintag-chunks-(\d+)-\w+", name)
        if not m or not os.path.isdir(os.path.join(base, name)):
            continue
        pid = int(m.group(1))
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:  # no such process: its run is over
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
            removed.append(os.path.join(base, name))
        except OSError:  # another user's live process
            continue
    return removed


def _train_chunks(learner, fam, corpus, dev_pack) -> None:
    """The epochs (:func:`chaintag.learners.epochs.run_epochs`), each visiting the chunks in order."""
    from ..learners.epochs import run_epochs
    run_epochs(learner, _ChunkSource(learner, fam, corpus), dev_pack, learner._callbacks())


class _ChunkSource:
    """Epochs over a corpus on disk, one chunk's arrays in memory at a time, the learner's state
    carried from chunk to chunk (:class:`chaintag.training.worker.ShardWorker` runs each chunk)."""

    def __init__(self, learner, fam, corpus):
        self.learner, self.fam, self.corpus = learner, fam, corpus
        self.n_sentences = corpus.n_sentences
        self.carried = None

    def run_epoch(self, order: np.ndarray, epoch: int) -> dict:
        from ..training.shards import shard_orders
        from ..training.worker import ShardWorker
        learner, fam, corpus = self.learner, self.fam, self.corpus
        index = learner.feature_index_
        cls, params = type(learner), learner.get_params()
        orders = shard_orders(order, corpus.bounds)
        stats: dict = {}
        for c in range(corpus.n_chunks):
            worker = ShardWorker(cls, params, corpus.load(c), index.feat_label, index.n_labels, fam.keys)
            if "n_train" in worker.template:
                worker.template["n_train"] = self.n_sentences  # |S| is the corpus's, not the chunk's
            if self.carried is None:
                self.carried = worker.initial
            rest = {k: v for k, v in self.carried.items() if k != fam.weights}
            self.carried, part = worker.epoch(rest, self.carried[fam.weights], orders[c])
            for k, v in part.items():
                stats[k] = stats[k] + v if k in stats else v
            del worker
        return stats

    def weights(self) -> np.ndarray:
        state = dict(self.carried)
        state.setdefault("sigma", 1.0)
        return self.learner._current_weights(state)
