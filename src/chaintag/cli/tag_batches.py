"""Tagging output of ``chaintag tag``, batch by batch, in this process or in worker processes.

A batch of sentences is tagged and formatted into the text that replaces it
in the output (:func:`format_batch`). :class:`OrderedWriter` writes those
texts, and the literal lines between them (document markers), in input
order; with ``jobs > 1`` the batches are formatted by worker processes,
each holding its own copy of the model, while the input is still being read.
"""

from __future__ import annotations

import io
import json
from collections import deque

__all__ = ["format_batch", "OrderedWriter"]

# the model of a worker process (loaded once, by _init_worker)
_WORKER: dict = {}


def format_batch(model, kind: str, batch, picker, sep, options: dict) -> str:
    """Tag ``batch`` with ``model`` and return its output text.

    Parameters
    ----------
    model : SequenceTagger
    kind : {"columns", "conllu", "text"}
        ``text``: ``batch`` holds sentences as lists of column tuples (empty
        ones allowed), written one tagged sentence per line (``word/label``).
        ``columns``: ``batch`` holds sentences as lists of column tuples,
        written back with the predicted label (and ``options``' extra
        column) or as JSON lines for ``nbest``. ``conllu``: ``batch`` holds
        :class:`~chaintag.io.conllu_io.ConlluBlock` objects, written back
        with the labels in ``options["label_field"]``.
    picker : list of int or None
        Columns the model reads from the input, in its order (None: all, as they are). A model
        with document columns (:mod:`chaintag.features.document`) gets them computed on the
        batch, which is then one whole document.
    sep : str
        Column separator of the output.
    options : dict
        ``nbest``, ``confidence``, ``marginals`` (as the command's options) and
        ``label_field``.
    """
    out = io.StringIO()
    from ..features.document import model_rows  # a model with document columns: the batch is one document
    if kind == "conllu":
        from ..io.conllu_io import format_conllu_block
        labels = iter(model.predict(model_rows(model, [b.sentence.tokens for b in batch if b.sentence.tokens])))
        for block in batch:
            out.write(format_conllu_block(block, next(labels) if block.sentence.tokens else [],
                                          options["label_field"]))
        return out.getvalue()
    from ..io.columns import format_sentence
    rows = batch if picker is None else [[tuple(tok[i] for i in picker) for tok in s] for s in batch]
    rows = model_rows(model, rows)
    if kind == "text":  # one tagged sentence per line (an empty sentence: an empty line)
        from ..io.plain_text import format_tagged_line
        labels = iter(model.predict([r for r in rows if r]))
        for toks, row in zip(batch, rows):
            out.write(format_tagged_line([t[0] for t in toks], next(labels)) if row else "\n")
        return out.getvalue()
    if options.get("constrain") or options.get("partial"):
        from .constrain_opts import format_constrained
        return format_constrained(model, batch, rows, sep, options)
    if options.get("nbest"):
        for toks, cands in zip(batch, model.predict_nbest(rows, options["nbest"])):
            out.write(json.dumps({"tokens": [list(t) for t in toks],
                                  "nbest": [{"labels": labs, "score": score, "probability": prob}
                                            for labs, score, prob in cands]}, ensure_ascii=False))
            out.write("\n")
    elif options.get("marginals"):
        labels = model.predict(rows)
        index = {lab: j for j, lab in enumerate(model.labels_)}
        for toks, labs, marg in zip(batch, labels, model.predict_marginals(rows)):
            out.write(format_sentence([tok + (lab, f"{marg[i, index[lab]]:.4f}")
                                       for i, (tok, lab) in enumerate(zip(toks, labs))], sep))
    elif options.get("confidence"):
        labels, conf = model.predict_confidence(rows, options["confidence"])
        for toks, labs, cs in zip(batch, labels, conf):
            out.write(format_sentence([tok + (lab, f"{c:.4f}") for tok, lab, c in zip(toks, labs, cs)], sep))
    else:
        for toks, labs in zip(batch, model.predict(rows)):
            out.write(format_sentence([tok + (lab,) for tok, lab in zip(toks, labs)], sep))
    return out.getvalue()


def _die_with_parent(parent_pid: int, poll_seconds: float = 1.0) -> None:
    """End this worker process when its parent process ends, however it ends (even SIGKILL).

    On Linux the kernel sends SIGKILL when the parent dies (``PR_SET_PDEATHSIG``
    through ``prctl``); everywhere, a daemon thread checks every ``poll_seconds``
    that the parent is still this process's parent, and exits at once if not.
    """
    import os
    import sys
    import threading
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the thread below
            pass
    if os.getppid() != parent_pid:  # the parent died before we got here
        os._exit(1)

    def watch() -> None:
        import time
        while True:
            time.sleep(poll_seconds)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _init_worker(model_path: str, parent_pid: int | None = None) -> None:
    if parent_pid is not None:
        _die_with_parent(parent_pid)
    from ..learners import load
    _WORKER["model"] = load(model_path)


def _work(kind, batch, picker, sep, options) -> str:
    return format_batch(_WORKER["model"], kind, batch, picker, sep, options)


class OrderedWriter:
    """Write formatted batches and literal text to ``out`` in the order they are given.

    Parameters
    ----------
    out : text file
    model : SequenceTagger
        The model, for formatting in this process (``jobs == 1``).
    model_path : str
        Its file, loaded by each worker process (``jobs > 1``).
    jobs : int
        Processes formatting batches; 1 formats them here, as they come.
    options : dict
        As for :func:`format_batch`.

    Notes
    -----
    With ``jobs > 1`` at most ``2 * jobs`` batches are in flight, so memory
    stays bounded; the workers end when this process ends, even when it is
    killed (:func:`_die_with_parent`); output order and bytes are those of ``jobs == 1``. An
    error in a worker is raised here when its batch's turn to be written
    comes. Use as a context manager; leaving it writes what is pending
    (or, on an exception, stops the workers).
    """

    def __init__(self, out, model, model_path: str, jobs: int, options: dict):
        self.out, self.model, self.options = out, model, options
        self.pending: deque = deque()
        self.pool = None
        self.limit = 2 * jobs
        if jobs > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            import os
            # workers end with this process, even when it is killed (no orphans)
            self.pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_init_worker, initargs=(model_path, os.getpid()))

    def text(self, text: str) -> None:
        """Literal output (a document marker line)."""
        self.pending.append(text)
        self._drain(self.limit)

    def batch(self, kind: str, batch, picker, sep) -> None:
        """A batch of sentences to tag and write."""
        if self.pool is None:
            self.pending.append(format_batch(self.model, kind, batch, picker, sep, self.options))
        else:
            self.pending.append(self.pool.submit(_work, kind, batch, picker, sep, self.options))
        self._drain(self.limit)

    def _drain(self, keep: int) -> None:
        while self.pending and (isinstance(self.pending[0], str) or len(self.pending) > keep):
            item = self.pending.popleft()
            self.out.write(item if isinstance(item, str) else item.result())

    def __enter__(self) -> OrderedWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._drain(0)
        finally:
            if self.pool is not None:
                self.pool.shutdown(wait=exc_type is None, cancel_futures=exc_type is not None)
