"""Run experiment configurations with per-epoch dev and test scores, cached on disk.

How the test set is scored after every epoch
--------------------------------------------
The learners' ``fit`` scores one held-out set (``dev``) per epoch and keeps
the best epoch's weights; using the test set there would choose the epoch on
test data. The runner therefore never passes ``dev`` to ``fit``. It trains
*epoch by epoch* through the public checkpoint interface: for
``k = 1 .. epochs`` it calls ``fit(train, epochs=k, checkpoint_dir=d,
resume=True)``, which restores the state after epoch ``k - 1`` from ``d``,
trains epoch ``k`` and leaves the weights of epoch ``k`` in ``weights_``
(no ``dev``, so no selection). It then tags the dev and test sets with
:meth:`predict` and records both scores. Checkpoints replay the random draws,
so this equals one uninterrupted ``fit`` of ``epochs`` passes (the tests
check it). The epoch is then chosen on dev alone, and the test score is read
at that epoch.

Learners whose ``fit`` keeps no checkpoints (it refuses ``checkpoint_dir``)
are retrained from scratch for every ``k`` (``O(epochs^2)`` passes, the same
weights since training is seeded); learners without epochs (``maxent``) are
trained once.

Caching
-------
Each run gets a folder ``<out>/runs/<digest>/`` named by :meth:`Run.digest`
(settings, data file checksums, and a checksum of the library code that
trains and scores, :func:`~chaintag_research.config.code_digest`). Per epoch the runner appends
one JSON line to ``epochs.jsonl`` and saves the test set's per-sentence
counts (:func:`~chaintag_research.significance.sentence_stats`) as
``test-<epoch>.npy`` (and the dev set's as ``dev-<epoch>.npy``); ``summary.json``
is written last and marks the run as
complete. A complete run is read back, not retrained; an interrupted one
continues after its last recorded epoch (from its checkpoint).
"""

from __future__ import annotations

import hashlib
import inspect
import io
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from chaintag.errors import InputError
from .config import DataRef, Run, learner_class
from .significance import CORRECT_CHUNKS, GOLD_CHUNKS, PRED_CHUNKS, corpus_score, sentence_stats


#: Seconds between two looks at runs that other processes are training (:meth:`Runner.run_all`).
LOCK_POLL_SECONDS = 60.0
#: Age after which a lock of another host is taken for abandoned.
LOCK_STALE_SECONDS = 24 * 3600.0


def _lock_alive(path: Path) -> bool:
    """Whether the process that wrote the lock ``path`` still runs (on this host: it exists; on another
    host: the lock is younger than :data:`LOCK_STALE_SECONDS`)."""
    import socket
    try:
        pid, host = path.read_text(encoding="utf-8").split()
        age = time.time() - path.stat().st_mtime
    except (OSError, ValueError):
        return False
    if host != socket.gethostname():
        return age < LOCK_STALE_SECONDS
    if int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class RunResult:
    """The recorded outcome of one run.

    Attributes
    ----------
    run : Run
    digest : str
    folder : pathlib.Path
    records : list of dict
        One per epoch: the learner's history fields (``epoch``, ``seconds``,
        ``cpu_seconds``, ``updates``, ``errors``, ``loss``,
        ``weight_complexity``, ...) plus ``dev_score``, ``dev_accuracy``,
        ``test_score``, ``test_accuracy`` (and ``dev_f1``, ``test_f1``,
        ``test_precision``, ``test_recall`` for F1 tasks), ``fit_seconds``
        (wall time of the ``fit`` call) and ``eval_seconds``.
    summary : dict
        See :func:`summarize`.
    """

    run: Run
    digest: str
    folder: Path
    records: list
    summary: dict

    def curve(self, name: str) -> list:
        """The value of field ``name`` at every epoch (None where missing)."""
        return [rec.get(name) for rec in self.records]

    def test_stats(self, epoch: int | None = None) -> np.ndarray:
        """Per-sentence test counts (shape ``(n_sentences, 5)``) at ``epoch`` (default: the last).

        Raises
        ------
        chaintag.errors.InputError
            When the file is damaged (the message names it; rerun to recompute it).
        """
        epoch = len(self.records) if epoch is None else epoch
        path = self.folder / f"test-{epoch:03d}.npy"
        stats = _load_stats(path)
        if stats is None:
            raise InputError("cached test counts are damaged or missing; run again to recompute them", path)
        return stats

    def dev_stats(self, epoch: int | None = None) -> np.ndarray:
        """Per-sentence dev counts (shape ``(n_sentences, 5)``) at ``epoch`` (default: the last).

        Raises
        ------
        chaintag.errors.InputError
            When the run has no dev data, its dev counts were not kept (an earlier release), or the
            file is damaged (the message names it).
        """
        epoch = len(self.records) if epoch is None else epoch
        path = self.folder / f"dev-{epoch:03d}.npy"
        sha = self.records[epoch - 1].get("dev_stats_sha256") if 0 < epoch <= len(self.records) else None
        stats = _load_stats(path, sha) if sha else None
        if stats is None:
            raise InputError("cached dev counts are damaged or missing", path)
        return stats


def _load_stats(path: Path, sha256: str | None = None) -> np.ndarray | None:
    """A cached test counts file, or None when it is missing, unreadable or not the recorded bytes."""
    try:
        raw = path.read_bytes()
        if sha256 is not None and hashlib.sha256(raw).hexdigest() != sha256:
            return None
        return np.load(io.BytesIO(raw), allow_pickle=False)
    except Exception:  # damaged header: ValueError, SyntaxError, ... (the digest catches most first)
        return None


def summarize(run: Run, records: list[dict]) -> dict:
    """Headline figures of a run's epoch records.

    Returns
    -------
    dict
        ``best_epoch`` (highest dev score, first on ties; None without dev),
        ``dev_best``, ``test_at_best``, ``test_last``, ``test_max`` and
        ``test_max_epoch`` (the best test epoch, for curves only: choosing
        it would be selection on test data), ``seconds_per_epoch`` and
        ``cpu_seconds_per_epoch`` (medians of the learner's own per-epoch
        timings, training only: the median leaves out the first epoch's
        one-off start-up cost and passes slowed by other work), ``weight_complexity_last``,
        ``train_seconds`` (summed epoch times) and ``wall_seconds``
        (summed fit and evaluation wall times).
    """
    tests = [rec["test_score"] for rec in records]
    devs = [rec.get("dev_score") for rec in records]
    out = {"epochs_done": len(records), "test_last": tests[-1],
           "test_max": max(tests), "test_max_epoch": int(np.argmax(tests)) + 1,
           "best_epoch": None, "dev_best": None, "test_at_best": None}
    if run.dev is not None:
        best = int(np.argmax(devs))
        out.update(best_epoch=best + 1, dev_best=devs[best], test_at_best=tests[best])
    seconds = [rec.get("seconds", 0.0) for rec in records]
    cpu = [rec.get("cpu_seconds", 0.0) for rec in records]
    out.update(seconds_per_epoch=float(np.median(seconds)), cpu_seconds_per_epoch=float(np.median(cpu)),
               train_seconds=float(np.sum(seconds)),
               wall_seconds=float(sum(rec.get("fit_seconds", 0.0) + rec.get("eval_seconds", 0.0)
                                      for rec in records)),
               weight_complexity_last=records[-1].get("weight_complexity"))
    for extra in ("n_iter", "converged"):
        if extra in records[-1]:
            out[extra] = records[-1][extra]
    return out


def _sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_atomic(path: Path, text: str) -> None:
    from chaintag.io.atomic import atomic_open
    with atomic_open(path, "w") as fh:
        fh.write(text)


def _save_npy_atomic(path: Path, array: np.ndarray) -> str:
    """Save ``array`` as ``.npy`` atomically; returns the hex SHA-256 of the file's bytes."""
    from chaintag.io.atomic import atomic_open
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    with atomic_open(path, "wb", encoding=None) as fh:
        fh.write(buf.getvalue())
    return hashlib.sha256(buf.getvalue()).hexdigest()


def _text_check(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=_json_default).encode("utf-8")).hexdigest()


def _record_line(record: dict, stats_sha256: str) -> str:
    """One line of ``epochs.jsonl``: the record, the SHA-256 of its test counts file, and a check
    (SHA-256 of the rest), so that a damaged line is noticed, not read as another value."""
    body = dict(record, test_stats_sha256=stats_sha256)
    body = json.loads(json.dumps(body, default=_json_default))  # the values as they read back
    return json.dumps(dict(body, check=_text_check(body)), sort_keys=True) + "\n"


def _warn(path, what: str) -> None:
    print(f"warning: {path}: {what}", file=sys.stderr, flush=True)


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


class Runner:
    """Train and score :class:`Run` objects, caching each one's results under ``out_dir/runs``.

    Parameters
    ----------
    out_dir : str or os.PathLike
        Output folder of the experiment; results go to ``out_dir/runs``.
    data_dir : str or os.PathLike, optional
        Data directory for dataset references (see :func:`chaintag.load_corpus`).
    progress : bool, default True
        Show a tqdm progress bar over all epochs of all runs (on stderr).
    read_options : dict, optional
        How data files are read, passed to :func:`chaintag.load_corpus`
        (``columns``, ``label_field``, ``sep``, ``encoding``); part of every
        run's digest when given.
    desc : str, default "reproduce"
        Label of the progress bar.
    reuse_older_code : bool, default False
        When a run has no cached result for the current code, take a finished run of the same settings
        and data trained by an earlier version of the code (its summary says ``older_code``), instead of
        training it again. For runs that take hours (the neural learners) while unrelated code changes;
        reports name the rows it gives.

    Attributes
    ----------
    epochs_trained : int
        Epochs actually trained by this runner (0 when every run was cached).
    """

    def __init__(self, out_dir, *, data_dir=None, progress: bool = True, read_options: dict | None = None,
                 desc: str = "reproduce", reuse_older_code: bool = False):
        self.out_dir = Path(out_dir)
        self.reuse_older_code = reuse_older_code
        self.read_options = {k: v for k, v in (read_options or {}).items() if v is not None}
        self.desc = desc
        self.columns: dict[str, tuple] = {}
        self.runs_dir = self.out_dir / "runs"
        self.data_dir = data_dir
        self.progress = progress
        self.epochs_trained = 0
        self._corpora: dict[tuple, tuple[list, list]] = {}
        self._file_digests: dict[str, str] = {}
        self._sizes: dict[DataRef, tuple[int, int]] = {}
        self._no_checkpoints: set[str] = set()

    # ------------------------------------------------------------------ data
    def _file_digest(self, ref: str) -> str:
        from chaintag.data.datasets import resolve
        if ref not in self._file_digests:
            self._file_digests[ref] = _sha256(resolve(ref, self.data_dir).path)
        return self._file_digests[ref]

    def _path_digest(self, path: str) -> str:
        """sha256 of a file, once per runner (word vectors files are large)."""
        key = "path:" + os.path.abspath(path)
        if key not in self._file_digests:
            self._file_digests[key] = _sha256(path)
        return self._file_digests[key]

    def load(self, data: DataRef, documents: bool = False) -> tuple[list, list]:
        """Sentences and labels of ``data`` (each file is read once per runner).

        With ``documents``, every token also carries the document columns
        (:mod:`chaintag.features.document`), computed from the whole file's
        documents before any part is taken; their columns are
        ``self.columns[(ref, "documents")]``.

        Raises
        ------
        chaintag.errors.InputError
            The file cannot be read, or ``data`` holds no sentence.
        """
        from chaintag.api.corpus import load_corpus  # with the document columns
        key = (data.ref, "documents") if documents else data.ref
        if key not in self._corpora:
            corpus = load_corpus(data.ref, data_dir=self.data_dir, document_columns=documents,
                                 **self.read_options)
            self._corpora[key] = (corpus.tokens, corpus.labels)
            self.columns[key] = corpus.columns
        tokens, labels = self._corpora[key]
        if data.seed is None:
            lo, hi = data.bounds(len(tokens))
            part = (tokens[lo:hi], labels[lo:hi])
        else:
            idx = data.indices(len(tokens))
            part = ([tokens[i] for i in idx], [labels[i] for i in idx])
        if not part[0]:
            raise InputError(f"{data.describe()}: no sentences")
        self._sizes[data] = (len(part[0]), sum(len(s) for s in part[0]))
        return part

    def size(self, data: DataRef) -> tuple[int, int]:
        """``(n_sentences, n_tokens)`` of ``data``."""
        if data not in self._sizes:
            self.load(data)
        return self._sizes[data]

    def digest(self, run: Run, code: bool = True) -> str:
        """:meth:`Run.digest` (with the code digest or not) with the checksums of the run's data files (and of its template
        file, when ``features`` names one, and of the cluster, gazetteer list and unlabeled text
        files it names) and the read options."""
        from chaintag.features.templates import PRESETS
        refs = [run.train.ref, run.test.ref] + ([run.dev.ref] if run.dev else [])
        extra = {ref: self._file_digest(ref) for ref in sorted(set(refs))}
        if isinstance(run.features, str) and run.features not in PRESETS and os.path.isfile(run.features):
            extra["features file"] = _sha256(run.features)
        if isinstance(run.features, str):
            from chaintag.features.spec import resource_paths
            for k, path in enumerate(resource_paths(run.features)):
                if os.path.isfile(path):  # a missing one fails when the run trains
                    extra[f"cluster resource {k}"] = _sha256(path)
            from chaintag.features.autotags import text_files
            from chaintag.features.spec import autotag_sources, gazetteer_sources
            lists = [p for p in gazetteer_sources(run.features) if p != "train" and os.path.isfile(p)]
            for k, path in enumerate(lists):
                extra[f"gazetteer list {k}"] = _sha256(path)
            try:
                texts = text_files(autotag_sources(run.features))
            except InputError:  # a missing text fails when the run trains
                texts = []
            for k, path in enumerate(texts):
                extra[f"unlabeled text {k}"] = _sha256(path)
            from chaintag.features.spec import autotag_preset
            taggers = autotag_preset(run.features)
            if taggers is not None and taggers not in PRESETS and os.path.isfile(taggers):
                extra["features file of the text's taggers"] = _sha256(taggers)
        vectors = run.params.get("embeddings")
        if isinstance(vectors, str) and os.path.isfile(vectors):  # the neural learners' word vectors
            extra["word vectors"] = self._path_digest(vectors)
        if self.read_options:
            extra["read options"] = json.dumps(self.read_options, sort_keys=True)
        return run.digest(extra, code=code)

    # ------------------------------------------------------------------ runs
    def run_all(self, runs: list[Run]) -> dict[str, RunResult]:
        """Run (or read back) every run, in order; returns results by ``run.key``.

        Raises
        ------
        ValueError
            When two runs share a key.
        """
        keys = [r.key for r in runs]
        if len(set(keys)) != len(keys):
            raise ValueError("run keys must be unique")
        from chaintag.progress import progress_mode
        mode = progress_mode(True if self.progress else False)
        bar = None
        if mode == "bar":
            from tqdm.auto import tqdm
            bar = tqdm(total=sum(r.epochs for r in runs), unit="epoch", file=sys.stderr,
                       desc=self.desc, dynamic_ncols=True)
        number = {run.key: i for i, run in enumerate(runs, 1)}
        out: dict[str, RunResult] = {}
        pending = list(runs)
        try:
            while pending:
                deferred = []
                for run in pending:
                    # a run that another process is training (its lock) waits until the others are done
                    lock = None if self.finished(run) is not None else self._lock(run)
                    if lock is False:
                        deferred.append(run)
                        continue
                    t0 = time.perf_counter()
                    try:
                        out[run.key] = self.run_one(run, bar if mode != "log" else None)
                    finally:
                        if lock:
                            lock.unlink(missing_ok=True)
                    if mode == "log":  # one plain line per run when stderr is not a terminal
                        print(f"{self.desc or 'runs'}: run {number[run.key]}/{len(runs)} {run.key} "
                              f"({run.epochs} epochs): {time.perf_counter() - t0:.1f} s", file=sys.stderr,
                              flush=True)
                if deferred and len(deferred) == len(pending):
                    time.sleep(LOCK_POLL_SECONDS)  # every run left is another process's: wait for them
                pending = deferred
            return {run.key: out[run.key] for run in runs}
        finally:
            if bar is not None:
                bar.close()

    def _lock(self, run: Run) -> Path | None | bool:
        """Take the lock of ``run`` for this process: its path; False when another live process holds
        it (it trains the run); a lock of a process that is gone is taken over.

        The lock is named by the run's settings digest (without the code), so that processes of
        several versions of the code never train the same settings at once. It holds the process id
        and host name; a lock of another host is honoured while it is younger than
        :data:`LOCK_STALE_SECONDS`."""
        import socket
        folder = self.runs_dir / "locks"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (self.digest(run, code=False)[:16] + ".lock")
        me = f"{os.getpid()} {socket.gethostname()}"
        for _ in range(2):
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                if _lock_alive(path):
                    return False
                path.unlink(missing_ok=True)  # its process is gone: take it over
                continue
            with os.fdopen(fd, "w") as fh:
                fh.write(me + "\n")
            return path
        return False

    def finished(self, run: Run) -> RunResult | None:
        """The cached result of ``run`` when it is finished (or, with ``reuse_older_code``, a finished run of
        the same settings and data by other code), else None; never trains."""
        digest = self.digest(run)
        folder = self.runs_dir / digest[:16]
        summary = self._read_summary(folder / "summary.json") if (folder / "summary.json").exists() else None
        if summary is not None and summary.get("digest") == digest:
            records = self._read_records(folder, run.epochs)
            if len(records) == run.epochs:
                return RunResult(run, digest, folder, records, summary)
        if self.reuse_older_code:
            return self._older_code_result(run, self.digest(run, code=False))
        return None

    def run_one(self, run: Run, bar=None) -> RunResult:
        """Run one configuration, or read back its cached results.

        Returns
        -------
        RunResult
        """
        digest = self.digest(run)
        folder = self.runs_dir / digest[:16]
        summary_path = folder / "summary.json"
        if bar is not None:
            bar.set_postfix_str(run.key)
        if summary_path.exists():
            summary = self._read_summary(summary_path)
            if summary is not None and summary.get("digest") == digest:
                records = self._read_records(folder, run.epochs)
                if len(records) == run.epochs:
                    if bar is not None:
                        bar.update(run.epochs)
                    return RunResult(run, digest, folder, records, summary)
        settings_digest = self.digest(run, code=False)
        if self.reuse_older_code:
            older = self._older_code_result(run, settings_digest)
            if older is not None:
                if bar is not None:
                    bar.update(run.epochs)
                return older
        folder.mkdir(parents=True, exist_ok=True)
        _write_atomic(folder / "run.json", json.dumps({"key": run.key, "label": run.label, "task": run.task,
                                                       "digest": digest, "settings_digest": settings_digest,
                                                       **run.config()}, indent=1))
        records = self._read_records(folder, run.epochs)
        if not records and self._copy_prefix(run, folder):
            records = self._read_records(folder, run.epochs)
        continued = 0
        if not records and self.reuse_older_code:
            continued = self._continue_older_code(settings_digest, folder)
            records = self._read_records(folder, run.epochs) if continued else records
        if bar is not None:
            bar.update(len(records))
        documents = self.reads_documents(run)
        train = self.load(run.train, documents)
        test = self.load(run.test, documents)
        dev = self.load(run.dev, documents) if run.dev is not None else None
        columns = self.columns[(run.train.ref, "documents")] if documents else None
        strategy = self.strategy(run)
        started = time.perf_counter()
        for epoch in range(len(records) + 1, run.epochs + 1):
            record = self._train_epoch(run, strategy, epoch, train, folder / "checkpoint", columns)
            strategy = record.pop("_strategy")
            t0 = time.perf_counter()
            model = record.pop("_model")
            if dev is not None:
                dev_stats = sentence_stats(dev[1], model.predict(dev[0]))
                record.update(self._scores("dev", dev_stats, run.metric))
                record["dev_stats_sha256"] = _save_npy_atomic(folder / f"dev-{epoch:03d}.npy", dev_stats)
            test_stats = sentence_stats(test[1], model.predict(test[0]))
            record.update(self._scores("test", test_stats, run.metric))
            record["eval_seconds"] = time.perf_counter() - t0
            stats_sha256 = _save_npy_atomic(folder / f"test-{epoch:03d}.npy", test_stats)
            with open(folder / "epochs.jsonl", "a", encoding="utf-8") as fh:
                fh.write(_record_line(record, stats_sha256))
                fh.flush()
                os.fsync(fh.fileno())
            records.append(record)
            self.epochs_trained += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"{run.key} test {record['test_score']:.2f}")
        shutil.rmtree(folder / "checkpoint", ignore_errors=True)
        n_train = self.size(run.train)
        summary = {"key": run.key, "label": run.label, "task": run.task, "digest": digest,
                   "strategy": strategy, **run.config(),
                   "train_size": n_train, "test_size": self.size(run.test),
                   "dev_size": self.size(run.dev) if run.dev is not None else None,
                   **summarize(run, records),
                   **({"older_code": True, "older_code_epochs": continued} if continued else {}),
                   "session_seconds": time.perf_counter() - started,
                   "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        summary = json.loads(json.dumps(summary, default=_json_default))  # the same values as a cached read gives
        _write_atomic(summary_path, json.dumps(dict(summary, check=_text_check(summary)), indent=1))
        return RunResult(run, digest, folder, records, summary)

    def _same_settings(self, settings_digest: str):
        """``(folder, run.json contents)`` of every cached run with this settings digest (any code)."""
        for meta_path in self.runs_dir.glob("*/run.json"):
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if meta.get("settings_digest") == settings_digest:
                yield meta_path.parent, meta

    def _continue_older_code(self, settings_digest: str, folder: Path) -> int:
        """Seed ``folder`` with the recorded epochs and the checkpoint of an unfinished run of the same
        settings and data by other code (the one with the most epochs), so that training continues after
        them; returns how many epochs were taken (0: none). The summary then says ``older_code`` and how
        many epochs the older code trained (``older_code_epochs``)."""
        best = None
        for other, meta in self._same_settings(settings_digest):
            if other == folder or (other / "summary.json").exists():
                continue
            n = len(self._read_records(other, meta.get("epochs") or 0))
            if n and (best is None or n > best[0]):
                best = (n, other, meta.get("epochs"))
        if best is None:
            return 0
        n, other, epochs = best
        lines = []
        for rec in self._read_records(other, epochs)[:n]:
            for prefix in ("test", "dev"):
                name = f"{prefix}-{rec['epoch']:03d}.npy"
                sha = rec.get(f"{prefix}_stats_sha256")
                stats = _load_stats(other / name, sha) if (sha or prefix == "test") else None
                if prefix == "test" and stats is None:
                    return 0
                if stats is not None:
                    saved = _save_npy_atomic(folder / name, stats)
                    if prefix == "test":
                        test_sha = saved
            lines.append(_record_line(rec, test_sha))
        if (other / "checkpoint").is_dir():
            shutil.copytree(other / "checkpoint", folder / "checkpoint", dirs_exist_ok=True)
        _write_atomic(folder / "epochs.jsonl", "".join(lines))
        return len(lines)

    def _older_code_result(self, run: Run, settings_digest: str) -> RunResult | None:
        """A finished run of the same settings and data trained by other code (the newest), or None.

        Its summary gets ``older_code: True``, so that reports can say which rows it gives.
        """
        found = []
        for other, meta in self._same_settings(settings_digest):
            summary_path = other / "summary.json"
            summary = self._read_summary(summary_path) if summary_path.exists() else None
            if summary is None or summary.get("digest") != meta.get("digest"):
                continue
            records = self._read_records(other, run.epochs)
            if len(records) == run.epochs:
                found.append((summary_path.stat().st_mtime_ns, other, records, summary))
        if not found:
            return None
        _, folder, records, summary = max(found, key=lambda f: (f[0], str(f[1])))
        summary = dict(summary, key=run.key, label=run.label, older_code=True)
        return RunResult(run, summary["digest"], folder, records, summary)

    @staticmethod
    def _read_summary(path: Path) -> dict | None:
        """A run's summary, or None (with a warning naming the file) when it is damaged."""
        try:
            summary = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            _warn(path, f"damaged cache file ({exc}); recomputing its summary")
            return None
        if not isinstance(summary, dict):
            _warn(path, "damaged cache file (not a JSON object); recomputing its summary")
            return None
        check = summary.pop("check", None)
        if check != _text_check(summary):  # a summary is recomputed from the records in no time
            _warn(path, "damaged cache file (its SHA-256 check does not match, or is missing); "
                        "recomputing its summary")
            return None
        return summary

    def _copy_prefix(self, run: Run, folder: Path) -> bool:
        """Seed ``folder`` with the first epochs of a cached run that differs only by having more.

        Epoch ``k`` of a run is trained as a run of ``k`` epochs (stepwise through checkpoints, or
        retrained), so the records of a longer run's first ``run.epochs`` epochs are this run's.
        """
        import dataclasses
        # the settings as run.json holds them (JSON: tuples read back as lists)
        want = json.loads(json.dumps({k: v for k, v in run.config().items() if k != "epochs"}, default=str))
        for other in sorted(self.runs_dir.glob("*/run.json")):
            try:
                meta = json.loads(other.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            epochs = meta.get("epochs")
            if not isinstance(epochs, int) or epochs <= run.epochs or other.parent == folder:
                continue
            if {k: meta.get(k) for k in want} != want:
                continue
            if meta.get("digest") != self.digest(dataclasses.replace(run, epochs=epochs)):
                continue
            records = self._read_records(other.parent, run.epochs)
            if len(records) < run.epochs:
                continue
            lines = []
            for rec in records:
                name = f"test-{rec['epoch']:03d}.npy"
                stats = _load_stats(other.parent / name)
                if stats is None:
                    break
                dev_name = f"dev-{rec['epoch']:03d}.npy"
                if rec.get("dev_stats_sha256"):
                    dev = _load_stats(other.parent / dev_name, rec["dev_stats_sha256"])
                    if dev is None:
                        break
                    _save_npy_atomic(folder / dev_name, dev)
                lines.append(_record_line(rec, _save_npy_atomic(folder / name, stats)))
            _write_atomic(folder / "epochs.jsonl", "".join(lines))
            return bool(lines)
        return False

    def strategy(self, run: Run) -> str:
        """How the per-epoch weights are obtained: ``single``, ``stepwise`` or ``retrain``.

        ``stepwise`` for learners whose ``fit`` takes ``checkpoint_dir``; a
        learner that refuses it when called is switched to ``retrain``.
        """
        cls = learner_class(run.learner)
        if "epochs" not in inspect.signature(cls.__init__).parameters:
            return "single"
        if "checkpoint_dir" in inspect.signature(cls.fit).parameters and run.learner not in self._no_checkpoints:
            return "stepwise"
        return "retrain"

    def reads_documents(self, run: Run) -> bool:
        """Whether the run's templates read document columns its training data lacks."""
        if not isinstance(run.features, str) and not isinstance(run.features, (list, tuple)):
            return False
        from chaintag.features.document import document_columns_read
        self.load(run.train)
        return bool(document_columns_read(run.features, self.columns[run.train.ref]))

    def _train_epoch(self, run: Run, strategy: str, epoch: int, train, checkpoint_dir: Path,
                     columns=None) -> dict:
        """Train up to ``epoch`` and return its history record plus ``_model`` and ``fit_seconds``
        (``columns``: the feature columns of ``train``'s tokens, when not the learner's default)."""
        cls = learner_class(run.learner)
        from chaintag.features.spec import with_autoepochs
        # the labels of unlabeled text come from taggers of the run's length, not of each step's
        params = dict(run.params, features=with_autoepochs(run.features, run.epochs))
        if columns is not None:
            params["columns"] = columns
        accepted = set(inspect.signature(cls.__init__).parameters)
        if "epochs" in accepted:
            params["epochs"] = epoch
        if "progress" in accepted:
            params["progress"] = False
        model = cls(**params)
        t0 = time.perf_counter()
        if strategy == "stepwise":
            try:
                model.fit(train[0], train[1], checkpoint_dir=checkpoint_dir, resume=True)
            except InputError as exc:
                if "checkpoint" not in str(exc):
                    raise
                self._no_checkpoints.add(run.learner)
                strategy = "retrain"
                model = cls(**params)
                t0 = time.perf_counter()
        if strategy != "stepwise":
            model.fit(train[0], train[1])
        fit_seconds = time.perf_counter() - t0
        history = getattr(model, "history_", None) or [{}]
        record = {k: v for k, v in history[min(epoch, len(history)) - 1].items()
                  if not k.startswith("dev_")}
        record.update(epoch=epoch, fit_seconds=fit_seconds, _model=model, _strategy=strategy)
        return record

    @staticmethod
    def _scores(prefix: str, stats: np.ndarray, metric: str) -> dict:
        out = {f"{prefix}_accuracy": corpus_score(stats, "accuracy")}
        if metric == "f1":
            totals = stats.sum(axis=0)
            f1 = corpus_score(stats, "f1")
            out[f"{prefix}_f1"] = f1
            if prefix == "test":
                out["test_precision"] = 100.0 * totals[CORRECT_CHUNKS] / totals[PRED_CHUNKS] if totals[PRED_CHUNKS] else 0.0
                out["test_recall"] = 100.0 * totals[CORRECT_CHUNKS] / totals[GOLD_CHUNKS] if totals[GOLD_CHUNKS] else 0.0
        out[f"{prefix}_score"] = out[f"{prefix}_{metric}"]
        return out

    @staticmethod
    def _read_records(folder: Path, epochs: int) -> list[dict]:
        """The consistent prefix of the recorded epochs (1, 2, ... with their test counts saved).

        Each line's check and its test counts file's SHA-256 are verified
        (lines of earlier releases have neither, and are taken as they are;
        a summary without its check is recomputed from the records);
        a damaged line or file ends the prefix, with a warning naming it, and
        its epochs are trained again.
        """
        path = folder / "epochs.jsonl"
        if not path.exists():
            return []
        records, kept = [], []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            _warn(path, f"damaged cache file ({exc}); its epochs are trained again")
            lines = [""]
        for lineno, line in enumerate(lines, 1):
            try:
                rec = json.loads(line)
            except ValueError:
                if lineno < len(lines) or line.strip():  # not just a torn last line
                    _warn(f"{path}:{lineno}", "damaged cache line; this and later epochs are trained again")
                break
            if not isinstance(rec, dict):
                _warn(f"{path}:{lineno}", "damaged cache line; this and later epochs are trained again")
                break
            check = rec.pop("check", None)
            legacy = check is None and "test_stats_sha256" not in rec  # a line of an earlier release
            if not legacy and check != _text_check(rec):
                _warn(f"{path}:{lineno}", "damaged cache line (its SHA-256 check does not match); this and "
                                          "later epochs are trained again")
                break
            sha = rec.pop("test_stats_sha256", None)
            if rec.get("epoch") != len(records) + 1 or len(records) >= epochs:
                break
            stats_path = folder / f"test-{rec['epoch']:03d}.npy"
            if not stats_path.exists():
                break
            if _load_stats(stats_path, sha) is None:
                _warn(stats_path, "damaged cache file; this and later epochs are trained again")
                break
            records.append(rec)
            kept.append(line + "\n")
        if len(records) != len(lines):  # drop a torn, damaged or inconsistent tail
            _write_atomic(path, "".join(kept))
        return records
