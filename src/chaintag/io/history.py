"""Training histories: the per-epoch records of ``chaintag train --history`` or of a model file."""

from __future__ import annotations

import json
import os
import zipfile

from chaintag.errors import InputError

__all__ = ["read_history"]


def read_history(path) -> list[dict]:
    """Read the per-epoch training records of a history file or a model file.

    Parameters
    ----------
    path : str or os.PathLike
        A JSON-lines history (``chaintag train --history PATH``: one object per
        epoch) or a model file (``.npz``), whose metadata keeps the history.

    Returns
    -------
    list of dict
        One record per epoch, in file order, each with at least ``epoch``
        (int, from 1) and the learner's figures: ``seconds`` and
        ``cpu_seconds`` (training time of the epoch, s), ``weight_complexity``
        (mean absolute weight), ``errors`` / ``updates`` / ``loss`` where the
        learner reports them, and ``dev_score`` / ``dev_f1`` /
        ``dev_accuracy`` (%) when a development set was given.

    Raises
    ------
    InputError
        The file cannot be read, a line is not a JSON object with an integer
        ``epoch``, a figure is not a number, the epochs do not increase (the
        message names the file and line), or the file holds no record.
    chaintag.errors.ModelFormatError
        A model file that is not a valid chaintag model.
    """
    name = os.fspath(path)
    if _looks_like_zip(name):  # a model file (even a damaged one: load_model says what is wrong)
        from chaintag.io.model_file import load_model
        meta, _ = load_model(name)
        records = meta.get("history") or []
        if not records:
            raise InputError("the model file keeps no training history", name)
        return [dict(r) for r in records]
    records = []
    try:
        with open(name, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"not a JSON line: {exc.msg}", name, lineno) from None
                if not isinstance(rec, dict) or not isinstance(rec.get("epoch"), int) \
                        or isinstance(rec["epoch"], bool):
                    raise InputError("not a history record (a JSON object with an integer 'epoch')",
                                     name, lineno)
                if records and rec["epoch"] <= records[-1]["epoch"]:
                    raise InputError(f"epoch {rec['epoch']} comes after epoch {records[-1]['epoch']}: a history "
                                     "file holds one run, its epochs in increasing order", name, lineno)
                bad = [k for k, v in rec.items()
                       if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)))]
                if bad:
                    raise InputError(f"{bad[0]!r} is not a number: {rec[bad[0]]!r}", name, lineno)
                records.append(rec)
    except UnicodeDecodeError:
        raise InputError("not a history file (not UTF-8 text)", name) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", name) from None
    if not records:
        raise InputError("no history records in the file", name)
    return records


def _looks_like_zip(name: str) -> bool:
    """Whether ``name`` starts like a zip archive, or is one (its end record found)."""
    try:
        with open(name, "rb") as fh:
            if fh.read(4) == b"PK\x03\x04":
                return True
    except OSError:
        return False
    return zipfile.is_zipfile(name)
