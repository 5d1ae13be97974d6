"""Training checkpoints: the state after each epoch, to resume an interrupted run.

A checkpoint is a model-format file (npz arrays + JSON, written atomically)
holding the learner's float arrays and numeric scalars, the history so far,
the best epoch's weights, and a fingerprint of the training data and
hyper-parameters. Derived arrays (integer lookups rebuilt from the data) are
not stored: they are rebuilt by ``_begin`` before the saved values are put
back. A resumed run replays the random draws of the epochs already done, so
it ends with the same weights as an uninterrupted run with the same seed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os

import numpy as np

from ..errors import InputError, OutputError
from ..io.model_file import load_model, save_model

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None

FILE_NAME = "checkpoint.npz"
LOCK_NAME = "checkpoint.lock"


def fingerprint(model, data, dev_pack=None) -> str:
    """sha256 over the hyper-parameters (except epochs and progress), the labels, the
    attribute table, the training labels, the labels of unlabeled text that the training tokens
    read (when the templates read them) and the dev data (its presence and content)."""
    h = hashlib.sha256()
    params = {k: v for k, v in model._stored_params().items() if k not in ("epochs", "progress")}
    h.update(json.dumps([model.algorithm, params, model.labels_], sort_keys=True, default=str).encode())
    h.update(np.ascontiguousarray(model.extractor_.attr_keys).tobytes())
    # a corpus sharded on disk gives its gold labels part by part (the same bytes, in order)
    for gold in (data.gold_parts() if hasattr(data, "gold_parts") else (data.gold,)):
        h.update(np.ascontiguousarray(gold).tobytes())
    h.update(np.ascontiguousarray(data.index.feat_label).tobytes())
    auto = getattr(model.extractor_, "autotags", None)  # the labels of unlabeled text each training token read
    if auto is not None and auto.digest:
        h.update(auto.digest.encode())
    keys = getattr(model.extractor_, "bucket_keys", None)
    if keys is not None:
        h.update(np.ascontiguousarray(keys).tobytes())
    if dev_pack is None:
        h.update(b"no dev")
    else:
        attrs, labels = dev_pack[0], dev_pack[1]
        h.update(np.ascontiguousarray(attrs.tok_ptr).tobytes())
        h.update(np.ascontiguousarray(attrs.attr_ids).tobytes())
        h.update(json.dumps(labels).encode())
    return h.hexdigest()


def run_settings(learner, **extra) -> dict:
    """The settings a checkpoint records beside its fingerprint, so that a refusal to resume can name what
    differs: the algorithm and the hyper-parameters (except epochs, progress, device and time budget), as
    JSON values, with ``extra`` (a distributed run's mixing and shards)."""
    params = {k: v for k, v in learner._stored_params().items()
              if k not in ("epochs", "progress", "device", "max_seconds")}
    return json.loads(json.dumps({"algorithm": learner.algorithm, **params, **extra}, sort_keys=True, default=str))


def vocabulary_digest(learner) -> str | None:
    """sha256 of the attribute extractor's saved state (its vocabularies: the words, tags and other values
    the attribute ids stand for), or None for a learner without one. The fingerprint counts the attribute
    ids, not their values: the same data with one word replaced everywhere had the same fingerprint."""
    extractor = getattr(learner, "extractor_", None)
    if extractor is None or not hasattr(extractor, "state"):
        return None
    state = extractor.state()
    meta, arrays = state if isinstance(state, tuple) else (state, {})
    h = hashlib.sha256(json.dumps(meta, sort_keys=True, default=str).encode())
    for name in sorted(arrays):
        h.update(name.encode() + b"\0")
        h.update(memoryview(np.ascontiguousarray(arrays[name])).cast("B"))  # no copy of large vectors
    return h.hexdigest()


def epochs_held(n: int) -> str:
    """``"epoch 1"`` or ``"epochs 1-N"``: the epochs a checkpoint holds, in messages."""
    return "epoch 1" if n == 1 else f"epochs 1-{n}"


def _difference(then: dict | None, now: dict | None) -> str:
    """What differs between the recorded settings and this run's, in words ("" when unknown or none)."""
    if not isinstance(then, dict) or not isinstance(now, dict):
        return ""
    names = _differing(then, now)
    algorithm = now.get("algorithm") or then.get("algorithm")
    return "; ".join(f"{k} ({_option(k, algorithm)}): {then.get(k, '(unset)')!r} in the checkpoint, "
                     f"{now.get(k, '(unset)')!r} now" for k in names)


def _differing(then: dict, now: dict) -> list[str]:
    return sorted(k for k in set(then) | set(now) if then.get(k, "(unset)") != now.get(k, "(unset)"))


#: Settings named otherwise on the command line than in Python.
_OPTIONS = {"n_jobs": "--threads", "random_state": "--seed", "shards": "--workers", "averaged": "--average",
            "shuffle": "--shuffle", "features": "--features", "columns": "--columns", "cc": "--cc",
            "feature_space": "--feature-space", "hash_bits": "--hash-bits", "algorithm": "--algorithm",
            "mixing": "--mixing"}
#: Settings that shape the attribute vocabulary: with one of them changed, another vocabulary says nothing
#: of the training data.
VOCABULARY_SETTINGS = frozenset({"features", "hash_bits", "columns", "cc", "feature_space", "algorithm"})


def _option(name: str, algorithm) -> str:
    """The command-line option that sets a learner setting (``-p NAME=VALUE`` when none does)."""
    if name in _OPTIONS:
        return _OPTIONS[name]
    try:
        from . import LEARNERS
        for param in LEARNERS[algorithm].params:
            if param.name == name:
                return f"-p {name}=..." if param.option == "" else (param.option or "--" + name.replace("_", "-"))
    except KeyError:  # an unknown learner: the setting's plain name
        pass
    return "--" + name.replace("_", "-")


# folders this process holds, by (real path, thread): a holder may take its own lock again
_HELD: dict[tuple[str, int], int] = {}


@contextlib.contextmanager
def folder_lock(folder):
    """Hold ``folder/checkpoint.lock`` for the duration of a training run.

    The lock is an exclusive ``flock`` on the file, which the operating
    system releases when the process ends, however it ends: a dead run
    never keeps the folder. The file holds the pid of the run holding it
    (for the message); it is left in place, empty of meaning once unlocked.
    The thread holding the lock may take it again (``chaintag train`` holds
    it from before reading its data until the model is saved; ``fit``
    takes it too).

    Raises
    ------
    chaintag.errors.InputError
        When another run (another process, or another thread) holds the folder.
    """
    import threading
    os.makedirs(folder, exist_ok=True)
    key = (os.path.realpath(folder), threading.get_ident())
    if key in _HELD:
        _HELD[key] += 1
        try:
            yield os.path.join(folder, LOCK_NAME)
        finally:
            _HELD[key] -= 1
        return
    path = os.path.join(folder, LOCK_NAME)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                who = f"process {holder}" if holder.isdigit() else "another process"
                raise InputError(f"another training run ({who}) is using this checkpoint folder; wait for it "
                                 "to end, or use another --checkpoint-dir", folder) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        _HELD[key] = 1
        try:
            yield path
        finally:
            del _HELD[key]
    finally:
        os.close(fd)


def save_checkpoint(folder, epoch: int, state: dict, history: list, best: tuple, print_: str,
                    settings: dict | None = None, vocabulary: str | None = None,
                    epochs: int | None = None) -> None:
    """Write the state after ``epoch`` to ``folder/checkpoint.npz`` (atomically).

    Raises
    ------
    chaintag.errors.OutputError
        When it cannot be written (a full disk, ...): the message names the
        file and says which epoch's checkpoint is kept.
    """
    arrays, scalars = {}, {}
    for key, value in state.items():
        if isinstance(value, np.ndarray) and value.dtype == np.float64:
            arrays["state." + key] = value
        elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            scalars[key] = value.item() if isinstance(value, np.generic) else value
    best_score, best_weights, best_epoch = best
    if best_weights is not None:
        arrays["best_weights"] = best_weights
    meta = {"algorithm": "checkpoint", "epoch": epoch, "scalars": scalars, "history": history,
            "best_score": None if not np.isfinite(best_score) else best_score, "best_epoch": best_epoch,
            "fingerprint": print_, **({"settings": settings} if settings is not None else {}),
            **({"vocabulary": vocabulary} if vocabulary is not None else {}),
            **({"epochs": int(epochs)} if epochs is not None else {})}
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, FILE_NAME)
    try:
        save_model(path, meta, arrays)
    except OSError as exc:
        kept = (f"the checkpoint of epoch {epoch - 1} is kept: free some space and rerun with --resume"
                if epoch > 1 and os.path.exists(path) else "no checkpoint is kept")
        raise OutputError(f"{exc}; training stopped after epoch {epoch}, {kept}", path,
                          getattr(exc, "errno", None)) from None


def load_checkpoint(folder, state: dict, print_: str, settings: dict | None = None,
                    vocabulary: str | None = None):
    """Put a saved state back into ``state``; returns (epoch, history, best) or None if there is none.

    Parameters
    ----------
    settings : dict, optional
        This run's :func:`run_settings`: a refusal names the settings that differ from the checkpoint's.
    vocabulary : str, optional
        This run's :func:`vocabulary_digest`, checked against a checkpoint that records one.

    Raises
    ------
    chaintag.errors.InputError
        When the file is no checkpoint (a model file), or the checkpoint was made with other data or
        settings (those that differ named, when the checkpoint records them).
    """
    path = os.path.join(folder, FILE_NAME)
    if not os.path.exists(path):
        return None
    meta, arrays = load_model(path)
    if meta.get("algorithm") != "checkpoint":
        raise InputError(f"this is not a checkpoint but a model file ({meta.get('algorithm')}); remove it or use "
                         "another --checkpoint-dir (the model is written with --model, outside that folder)", path)
    other_words = meta.get("vocabulary") is not None and vocabulary is not None and meta["vocabulary"] != vocabulary
    if meta.get("fingerprint") != print_:
        differs = _difference(meta.get("settings"), settings)
        if differs:
            # another vocabulary is other data only when no setting that shapes the vocabulary changed
            data = other_words and not VOCABULARY_SETTINGS & set(_differing(meta["settings"], settings))
            raise InputError(f"this checkpoint was made with other settings ({differs})"
                             + (" and other training data (other words or values): remove it or use another "
                                "--checkpoint-dir" if data else
                                "; resume with its settings, or remove it or use another --checkpoint-dir"),
                             path)
        same = " (the settings are the same)" if isinstance(meta.get("settings"), dict) and settings else ""
        raise InputError(f"this checkpoint was made with other training data or settings{same}; "
                         "remove it or use another --checkpoint-dir", path)
    if other_words:
        raise InputError("this checkpoint was made with other training data (the same settings and counts, "
                         "other words or values); remove it or use another --checkpoint-dir", path)
    for key, value in arrays.items():
        if key.startswith("state."):
            name = key[len("state."):]
            if name not in state or np.shape(state[name]) != value.shape:
                raise InputError(f"checkpoint array {name!r} does not fit this learner", path)
            state[name] = np.array(value, dtype=np.float64)
    for key, value in meta["scalars"].items():
        state[key] = value
    best_score = meta["best_score"] if meta["best_score"] is not None else -np.inf
    best = (best_score, arrays.get("best_weights"), meta["best_epoch"])
    return meta["epoch"], meta["history"], best
