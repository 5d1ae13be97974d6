"""The one epoch driver of every online learner: a source of epochs, and callbacks around them.

:func:`run_epochs` runs a learner's epochs over a *source*, scores each epoch
on the dev data, and keeps the history and the best epoch's weights. Where
the epochs run is the source's business:

- :class:`MemorySource`: the corpus arrays in memory (``fit``);
- the chunks of a file on disk (:mod:`chaintag.streaming.train`);
- shards on Dask workers, mixed after each epoch (:mod:`chaintag.distributed.trainer`).

What happens around the epochs is the callbacks' business: checkpoints
(:class:`Checkpoints`), a wall-clock budget (:class:`TimeBudget`) and the
progress display (:class:`Progress`). A source is any object with

- ``n_sentences`` (int);
- ``run_epoch(order, epoch) -> dict``: one epoch over the sentences in ``order``
  (int64 array), returning the epoch's counts (updates, errors, loss, ...);
- ``weights() -> float64 array``: the weights a model saved now would hold;
- ``state() -> dict`` and ``restore(state)``: the arrays and numbers a checkpoint
  keeps (``state()`` is filled in place by a checkpoint's load, then restored);
- ``fingerprint() -> str``: the checksum of data and settings a checkpoint must match;
- optionally ``warm_up()``: compile (or load) the kernels before the timed epochs.

References
----------
M. Collins. Discriminative training methods for hidden Markov models. EMNLP 2002,
s. 2.5 (averaged parameters) and s. 4 (passes tuned on held-out data).
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .finite import check_weights

__all__ = ["Run", "MemorySource", "Checkpoints", "TimeBudget", "Progress", "run_epochs"]


@dataclass
class Run:
    """The state of one training run, as the callbacks see it.

    Attributes
    ----------
    learner : SequenceTagger
    source : object
        The source of epochs (see the module notes).
    epochs : int
        The epochs asked for.
    rng : numpy.random.Generator
        Draws each epoch's sentence order (seeded by the learner's ``random_state``).
    done : int
        Epochs completed (restored ones included).
    history : list of dict
        One record per epoch (:meth:`SequenceTagger._epoch_record`).
    best_score, best_weights, best_epoch
        The best dev score so far, its weights and epoch (``-inf``, None, 0 without dev data).
    """

    learner: object
    source: object
    epochs: int
    rng: np.random.Generator
    done: int = 0
    history: list = field(default_factory=list)
    best_score: float = -np.inf
    best_weights: np.ndarray | None = None
    best_epoch: int = 0

    def order(self) -> np.ndarray:
        """The next epoch's sentence order: a permutation when the learner shuffles, else file order."""
        n = self.source.n_sentences
        if self.learner.shuffle:
            return self.rng.permutation(n).astype(np.int64)
        return np.arange(n, dtype=np.int64)


class Callback:
    """Hooks around the epochs; every method is optional."""

    def on_start(self, run: Run) -> None:
        """Before the first epoch (a resumed run restores its state here)."""

    def keep_going(self, run: Run, epoch: int) -> bool:
        """Before ``epoch``: False ends the run."""
        return True

    def on_epoch(self, run: Run, epoch: int, record: dict) -> None:
        """After ``epoch``, its record appended to ``run.history``."""

    def on_end(self, run: Run) -> None:
        """After the last epoch, or when a callback ended the run."""


class MemorySource:
    """Epochs over the corpus arrays held in memory, by the learner's own hooks.

    Parameters
    ----------
    learner : SequenceTagger
        Its ``_begin(data)``, ``_run_epoch(state, data, order)`` and ``_current_weights(state)``
        run the epochs.
    data : TrainData
    dev_pack : tuple or None
        The dev data, part of the checkpoint's fingerprint.
    """

    def __init__(self, learner, data, dev_pack=None):
        self.learner, self.data, self.dev_pack = learner, data, dev_pack
        self.n_sentences = data.attrs.n_sentences
        # a learner whose kernels take full rows gets the data in that layout (chaintag.features.dense_rows;
        # the same scores and updates, faster emissions); its weights go back to the model's layout
        self.layout = None
        if type(learner)._full_rows and data.index.feat_ptr is not None:
            from ..features.dense_rows import row_layout
            self.layout = row_layout(data.index)
            if self.layout is not None:
                data.use_layout(self.layout)
        self._state = learner._begin(data)

    def run_epoch(self, order: np.ndarray, epoch: int) -> dict:
        return self.learner._run_epoch(self._state, self.data, order)

    def weights(self) -> np.ndarray:
        w = self.learner._current_weights(self._state)
        return w if self.layout is None else self.layout.sparse_weights(w)

    def state(self) -> dict:
        """The learner's state, its weight vectors in the model's layout (what a checkpoint keeps, so
        that it resumes whatever layout the kernels use)."""
        if self.layout is None:
            return self._state
        n = self.layout.index.n_weights
        return {k: self.layout.sparse_weights(v) if _weight_vector(v, n) else v for k, v in self._state.items()}

    def restore(self, state: dict) -> None:
        """Take ``state`` (as :meth:`state` gives it) as the learner's state."""
        if self.layout is not None:
            n = self.layout.source.n_weights
            state = {k: self.layout.dense_weights(v) if _weight_vector(v, n) else v for k, v in state.items()}
        self._state = state

    def fingerprint(self) -> str:
        data = self.data
        if self.layout is not None:  # the model's layout: a checkpoint's print does not depend on the kernels'
            from types import SimpleNamespace
            data = SimpleNamespace(gold=data.gold, ent_val=data.ent_val, index=self.layout.source)
        return self.learner._fingerprint(data, self.dev_pack)

    def settings(self) -> dict:
        """The learner's settings, recorded with a checkpoint (:func:`chaintag.learners.checkpoint.run_settings`)."""
        from .checkpoint import run_settings
        return run_settings(self.learner)

    def warm_up(self) -> None:
        """Compile the epoch kernels (or load them from numba's cache) with an epoch over no sentences,
        on a copy of the state unless the learner's empty epoch changes nothing."""
        if not type(self.learner)._compiled_kernels:
            return
        learner = self.learner
        empty = np.zeros(0, dtype=np.int64)
        state = self._state if learner._empty_epoch_is_noop else copy.deepcopy(self._state)
        learner._run_epoch(state, self.data, empty)


def _weight_vector(value, n: int) -> bool:
    """Whether a state value is a float64 vector of ``n`` weights (weights, averaging sums)."""
    return isinstance(value, np.ndarray) and value.dtype == np.float64 and value.shape == (n,)


class Checkpoints(Callback):
    """Save the run after every epoch into ``folder``; with ``resume``, continue from what is there.

    A resumed run replays the sentence orders of the epochs done, so that it ends with the
    same bytes as an uninterrupted run (:mod:`chaintag.learners.checkpoint`).

    Parameters
    ----------
    folder : str or os.PathLike
    resume : bool
    mode : {"bar", "log"} or None
        Where the resume message goes (:func:`chaintag.progress.say`).
    explain : callable, optional
        ``explain(InputError) -> InputError``: a refusal to resume made clearer by the caller.
    """

    def __init__(self, folder, resume: bool = False, mode=None, explain=None):
        self.folder, self.resume, self.mode, self.explain = folder, resume, mode, explain
        self.print_ = ""
        self.settings = self.vocabulary = None

    def on_start(self, run: Run) -> None:
        from ..progress import say
        from . import checkpoint as ckpt
        self.print_ = run.source.fingerprint()
        settings = getattr(run.source, "settings", None)
        self.settings = settings() if settings is not None else None
        learner = getattr(run.source, "learner", None) or getattr(getattr(run.source, "t", None), "learner", None)
        self.vocabulary = ckpt.vocabulary_digest(learner) if learner is not None else None
        if not self.resume:
            return
        state = run.source.state()
        try:
            restored = ckpt.load_checkpoint(self.folder, state, self.print_, self.settings, self.vocabulary)
        except InputError as exc:
            raise (exc if self.explain is None else self.explain(exc)) from None
        if restored is None:
            say(self.mode, f"no checkpoint in {self.folder} yet: starting at epoch 1")
            return
        run.source.restore(state)
        done, run.history, (run.best_score, run.best_weights, run.best_epoch) = restored
        if done > run.epochs:
            raise InputError(f"the checkpoint already holds {done} epochs, more than the "
                             f"{run.epochs} asked for; ask for at least {done}")
        for _ in range(done):  # replay the sample orders of the epochs done
            run.order()
        run.done = done
        say(self.mode, f"resuming from the checkpoint in {self.folder}: "
                       f"{ckpt.epochs_held(done)} restored, "
                       f"continuing at epoch {done + 1} of {run.epochs}" if done < run.epochs else
                       f"resuming from the checkpoint in {self.folder}: "
                       + ("the one epoch is done" if done == 1 else f"all {done} epochs are done"))

    def on_epoch(self, run: Run, epoch: int, record: dict) -> None:
        from . import checkpoint as ckpt
        ckpt.save_checkpoint(self.folder, epoch, run.source.state(), run.history,
                             (run.best_score, run.best_weights, run.best_epoch), self.print_, self.settings,
                             self.vocabulary, run.epochs)


class TimeBudget(Callback):
    """End the run before an epoch once ``seconds`` of wall clock have passed (one epoch always runs)."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def on_start(self, run: Run) -> None:
        self.t0, self.first = time.perf_counter(), run.done + 1

    def keep_going(self, run: Run, epoch: int) -> bool:
        return epoch <= self.first or time.perf_counter() - self.t0 <= self.seconds


class Progress(Callback):
    """The epochs on the terminal (a bar) or as plain lines, and the kernels' warm-up step.

    Parameters
    ----------
    mode : {"bar", "log"} or None
        As :func:`chaintag.progress.progress_mode` gives it; None shows nothing.
    bar : tqdm-like, optional
        A learner's own epoch bar (shown instead).
    """

    def __init__(self, mode, bar=None):
        self.mode, self.own_bar = mode, bar

    def on_start(self, run: Run) -> None:
        from ..progress import BarAdapter, EpochProgress, compile_step
        warm_up = getattr(run.source, "warm_up", None)
        if run.done < run.epochs and warm_up is not None and type(run.learner)._compiled_kernels:
            with compile_step(self.mode):  # the line says whether they were compiled or loaded from the cache
                warm_up()
        if self.own_bar is not None:
            self.bar = BarAdapter(self.own_bar, run.done)
        else:
            algorithm = run.learner.algorithm
            self.bar = EpochProgress(self.mode, run.epochs, f"{algorithm} epoch" + ("s" if self.mode == "bar" else ""),
                                     run.done)

    def on_epoch(self, run: Run, epoch: int, record: dict) -> None:
        self.bar.update(epoch, record)

    def on_end(self, run: Run) -> None:
        self.bar.close()


def run_epochs(learner, source, dev_pack=None, callbacks=()) -> Run:
    """Run ``learner.epochs`` epochs over ``source``, keep the best dev epoch, and set the fitted weights.

    Parameters
    ----------
    learner : SequenceTagger
        Reads ``epochs``, ``shuffle`` and ``random_state``; gets ``weights_``, ``best_epoch_``
        and ``history_``.
    source : object
        Where the epochs run (see the module notes).
    dev_pack : tuple (Attributes, list of list of str), optional
        The dev data, scored after every epoch; the weights of the best epoch are kept
        (the last epoch's without dev data).
    callbacks : sequence of Callback
        Called in order around the epochs (checkpoints, time budget, progress, ...).

    Returns
    -------
    Run
        The finished run.

    Raises
    ------
    chaintag.errors.InputError
        From a callback (e.g. a checkpoint that does not match the run).
    """
    run = Run(learner, source, int(learner.epochs), np.random.default_rng(learner.random_state))
    for cb in callbacks:
        cb.on_start(run)
    for epoch in range(run.done + 1, run.epochs + 1):
        if not all(cb.keep_going(run, epoch) for cb in callbacks):
            break
        order = run.order()
        t0, c0 = time.perf_counter(), time.process_time()
        stats = source.run_epoch(order, epoch)
        seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
        weights = source.weights()
        check_weights(learner, weights, getattr(source, "data", None), epoch)  # NumericalError on NaN or inf
        record = learner._epoch_record(epoch, seconds, cpu_seconds, stats, weights, dev_pack)
        if dev_pack is not None and record["dev_score"] > run.best_score:
            run.best_score, run.best_weights, run.best_epoch = record["dev_score"], weights.copy(), epoch
        run.history.append(record)
        run.done = epoch
        for cb in callbacks:
            cb.on_epoch(run, epoch, record)
    for cb in callbacks:
        cb.on_end(run)
    best_weights, best_epoch = run.best_weights, run.best_epoch
    if best_weights is None:
        best_weights, best_epoch = source.weights(), len(run.history)
    learner.weights_ = np.ascontiguousarray(best_weights, dtype=np.float64)
    learner.best_epoch_ = best_epoch
    learner.history_ = run.history
    return run
