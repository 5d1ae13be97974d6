"""Word vectors and clusters induced from a folder of unlabeled text, computed once and cached.

``--resources FOLDER`` (or a folder of the data directory by name, such as
``unlabeled_en``) names tokenized text, one sentence a line, in the folder's
``*.txt`` files. The first use trains word2vec on it and clusters the vectors
(k-means at 64, 256 and 1024 clusters, and the bit-string paths of a Ward
hierarchy over the finest clusters: :func:`chaintag.resources.induce.induce`,
the settings of ``chaintag clusters``), which takes minutes for millions of
tokens; the result is kept in the store of :mod:`chaintag.resources.store`
under a key made of the sha256 of every text file (and its name), the
settings and the versions of gensim and scikit-learn, so the next run reads
it in about a second and a changed text gives a new entry. The maps are those
``chaintag clusters`` would write for the same text, so ``brownK``, ``kmN``
and ``vec`` templates read them alike.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from ..errors import InputError
from .digest import file_sha256
from .store import entry_key, read_entry, say, store_enabled, write_entry
from .wordmaps import WordMaps

__all__ = ["INDUCE_SETTINGS", "text_files", "text_digest", "cached_induced"]

#: Version of the entry layout and of what :func:`cached_induced` derives (part of every key).
INDUCED_VERSION = 2
#: The settings of :func:`chaintag.resources.induce.induce` used for a folder of text (those of
#: ``chaintag clusters``).
INDUCE_SETTINGS = {"ks": (64, 256, 1024), "dim": 100, "window": 5, "min_count": 2, "epochs": 5, "sg": False,
                   "normalize": ("lower", "norm"), "seed": 0}


def text_files(folder) -> list[Path]:
    """The ``*.txt`` files under ``folder`` (recursively), sorted by their path in it.

    Raises
    ------
    InputError
        When the folder holds none.
    """
    folder = Path(folder)
    files = sorted((p for p in folder.rglob("*.txt") if p.is_file()), key=lambda p: p.relative_to(folder).as_posix())
    if not files:
        raise InputError("a folder of unlabeled text needs *.txt files (one tokenized sentence a line)", folder)
    return files


def text_digest(folder) -> str:
    """sha256 over the relative names and the sha256 of the folder's text files."""
    folder = Path(folder)
    h = hashlib.sha256()
    for p in text_files(folder):
        h.update(p.relative_to(folder).as_posix().encode("utf-8") + b"\0" + file_sha256(p).encode() + b"\n")
    return h.hexdigest()


def _versions() -> dict:
    from .induce import _version
    return {"gensim": _version("gensim"), "scikit-learn": _version("sklearn")}


def _blob(strings) -> np.ndarray:
    return np.frombuffer("\n".join(strings).encode("utf-8"), dtype=np.uint8)


def _unblob(arr: np.ndarray, n: int) -> list[str]:
    out = arr.tobytes().decode("utf-8").split("\n") if n else []
    if len(out) != n:
        raise ValueError(f"{len(out)} strings where {n} are described")
    return out


def _check(arrays: dict, meta: dict) -> None:
    n, dim = meta["n_words"], meta["dim"]
    if arrays["vectors"].shape != (n, dim) or arrays["vectors"].dtype != np.float32:
        raise ValueError(f"the vectors are not {n} x {dim} float32")
    arrays["_words"] = _unblob(arrays["words"], n)
    arrays["_paths"] = _unblob(arrays["paths"], n)
    for k in meta["ks"]:
        if arrays[f"km{k}"].shape != (n,):
            raise ValueError(f"km{k} does not hold one id per word")


def cached_induced(folder, log=say) -> WordMaps:
    """The word maps induced from the text files of ``folder``, from the cache when it holds them.

    Parameters
    ----------
    folder : str or os.PathLike
        A folder of ``*.txt`` files of tokenized text (one sentence a line).
    log : callable, optional
        Gets one line per step of a first computation (default: stderr).

    Returns
    -------
    WordMaps
        ``words``, ``vectors`` (float32, shape (n_words, 100)), ``paths`` and ``kmN`` ids (N = 64, 256,
        1024), normalized ``lower`` and ``norm``, as :func:`chaintag.resources.induce.induce` gives them.

    Raises
    ------
    chaintag.errors.InputError
        When the folder holds no text file, a file is not UTF-8 (file and line named), gensim is missing
        (the message names the ``clusters`` extra), or the text is too small for 1024 clusters.
    """
    folder = Path(folder)
    source = folder.name or str(folder)
    settings = dict(INDUCE_SETTINGS)
    key = entry_key({"what": "induced", "text_sha256": text_digest(folder), "settings": settings,
                     "version": INDUCED_VERSION, **_versions()}) if store_enabled() else None
    if key is not None:
        arrays = read_entry("induced", key, _check)
        if arrays is not None:
            ks = sorted(int(name[2:]) for name in arrays if name.startswith("km"))
            return WordMaps(arrays["_words"], arrays["_paths"], {k: arrays[f"km{k}"] for k in ks},
                            arrays["vectors"], settings["normalize"], source)
    from .induce import induce, read_sentences
    files = text_files(folder)
    log(f"inducing word vectors and clusters from {len(files)} text file(s) of {folder} (once: the result is "
        "cached; millions of tokens take minutes)")
    sentences = list(read_sentences([str(p) for p in files]))
    maps, info = induce(sentences, log=log, source=folder, **settings)
    maps.source = source
    if key is not None:
        write_entry("induced", key,
                    {"words": _blob(maps.words), "paths": _blob(maps.paths),
                     "vectors": np.ascontiguousarray(maps.vectors, dtype=np.float32),
                     **{f"km{k}": np.asarray(v, dtype=np.int32) for k, v in maps.clusters.items()}},
                    {"folder": os.path.abspath(folder), "n_words": len(maps.words),
                     "dim": int(maps.vectors.shape[1]), "ks": sorted(maps.clusters), **info})
    return maps
