"""Induce word clusters from raw text: word2vec vectors, k-means at several sizes, a binary hierarchy.

The pipeline (``chaintag clusters``):

1. word vectors by word2vec (Mikolov et al. 2013; gensim's implementation,
   one worker thread and a fixed seed, so the same text and settings give
   the same vectors);
2. for each requested N, the k-means clustering of the (unit-length) vectors
   into N clusters (scikit-learn's MiniBatchKMeans, seed 0): ``kmN``;
3. a binary hierarchy over the centroids of the largest clustering (Ward's
   agglomerative linkage, SciPy); each word's bit-string path is the path
   of its cluster from the root (0 = left). Prefixes of these paths
   (``brownK``) give coarse-to-fine classes, as Brown clusters do (Brown et
   al. 1992; their use as attributes: Miller et al. 2004, Turian et al. 2010).

gensim is an optional dependency (``pip install 'chaintag[clusters]'``).
"""

from __future__ import annotations

import os
import sys
import time
import zlib
from typing import Iterable, Iterator

import numpy as np

from ..errors import InputError
from .kmeans import KMEANS_PASSES, _kmeans, kmeans_ids  # noqa: F401 - part of this module's interface
from .wordmaps import WordMaps, _NORMALIZERS


def _stable_hash(s: str) -> int:
    """A hash that does not change between processes (gensim seeds each word's vector with it)."""
    return zlib.crc32(s.encode("utf-8"))


def hierarchy_paths(centroids: np.ndarray) -> list[str]:
    """Bit-string path of each centroid in Ward's binary hierarchy over them.

    Parameters
    ----------
    centroids : float array, shape (n, dim), n >= 2

    Returns
    -------
    list of str
        ``paths[c]`` is the path from the root to leaf ``c`` (0 = left child).
    """
    from ..lazy import require
    hierarchy = require("scipy.cluster.hierarchy", "clusters", "the hierarchy of word clusters")
    linkage, to_tree = hierarchy.linkage, hierarchy.to_tree
    root = to_tree(linkage(np.asarray(centroids, dtype=np.float64), method="ward"))
    paths = [""] * len(centroids)
    stack = [(root, "")]
    while stack:
        node, prefix = stack.pop()
        if node.is_leaf():
            paths[node.id] = prefix or "0"
        else:
            stack.append((node.get_left(), prefix + "0"))
            stack.append((node.get_right(), prefix + "1"))
    return paths


def read_sentences(sources: Iterable[str], data_dir=None) -> Iterator[list[str]]:
    """Token lists from raw text files (one sentence per line) and dataset references.

    A source that is an existing file is read as raw text, tokens separated
    by whitespace; otherwise it must be a dataset reference (``conll2000:train``),
    whose first column (the words) is used. Use training splits only.

    Raises
    ------
    InputError
        When a source is neither a file nor a known dataset reference, or is not UTF-8.
    """
    from ..data.datasets import is_dataset_ref, load_corpus
    for src in sources:
        if os.path.isfile(src):
            from ..io.text_lines import numbered_lines  # byte-order marks and CRLF dropped
            _warn_if_columns(src)
            for _, line in numbered_lines(src, what="text"):
                toks = line.split()
                if toks:
                    yield toks
        elif is_dataset_ref(src):
            corpus = load_corpus(src, data_dir=data_dir, labelled=False)
            for sent in corpus.tokens:
                yield [tok if isinstance(tok, str) else tok[0] for tok in sent]
        else:
            raise InputError("neither a text file nor a dataset reference such as conll2000:train", src)


def _warn_if_columns(path) -> None:
    """Warn (logger ``chaintag.resources``) when a text file begins like a column or CoNLL-U file: its tags
    and labels would be read as words."""
    import itertools
    import logging
    from ..io.column_sniff import column_file_kind
    from ..io.text_lines import numbered_lines
    head = [line for _, line in itertools.islice(
        ((n, ln) for n, ln in numbered_lines(path, what="text") if ln.strip()), 30)]
    what = column_file_kind(head)
    if what is not None:
        logging.getLogger("chaintag.resources").warning(
            "warning: %s looks like %s, but it is read as text, every field a word (its tags and labels "
            "too); give the words alone, one sentence a line (a dataset reference such as conll2000:train "
            "reads only its words)", path, what)


def check_settings(*, ks=(2,), dim: int = 1, window: int = 1, min_count: int = 1, epochs: int = 1,
                   seed: int = 0) -> None:
    """Refuse settings of :func:`induce` (and of clustering given vectors: ``ks``, ``seed``) before any work.

    Parameters
    ----------
    ks : sequence of int
        Numbers of k-means clusters, each at least 2.
    dim, window, min_count, epochs : int
        word2vec's vector size, context window, least count and passes, each at least 1.
    seed : int
        Between 0 and 2**32 - 1.

    Raises
    ------
    InputError
        Naming the first setting out of range with the command-line option that sets it.
    """
    if not ks or any(int(k) < 2 for k in ks):
        raise InputError("--k: every number of clusters must be at least 2")
    for option, value in (("--dim", dim), ("--window", window), ("--min-count", min_count), ("--iter", epochs)):
        if value < 1:
            raise InputError(f"{option} must be at least 1 (got {value})")
    if not 0 <= seed < 2 ** 32:
        raise InputError(f"--seed must be between 0 and 2**32 - 1 (got {seed})")


#: Most tokens of one sentence that word2vec reads (gensim's ``MAX_WORDS_IN_BATCH``: it drops the rest of a
#: longer one, and the words seen only there would keep their random initial vectors): longer lines of
#: text are cut into pieces of this many tokens.
MAX_SENTENCE_TOKENS = 10000


def sentence_pieces(text: list[list[str]], limit: int = MAX_SENTENCE_TOKENS) -> tuple[list[list[str]], int]:
    """``text`` with every sentence longer than ``limit`` tokens cut into consecutive pieces of at most
    ``limit``; returns the pieces and how many sentences were cut."""
    out, cut = [], 0
    for sent in text:
        if len(sent) <= limit:
            out.append(sent)
        else:
            cut += 1
            out.extend(sent[i:i + limit] for i in range(0, len(sent), limit))
    return out, cut


def induce(sentences: list[list[str]], *, ks=(64, 256, 1024), dim: int = 100, window: int = 5,
           min_count: int = 2, epochs: int = 5, sg: bool = False, normalize=("lower", "norm"),
           seed: int = 0, log=None, source=None) -> tuple[WordMaps, dict]:
    """Word vectors, k-means clusters and hierarchy paths from tokenized text.

    Parameters
    ----------
    sentences : list of list of str
    ks : sequence of int
        Numbers of k-means clusters; the hierarchy is built over the largest.
    dim, window, min_count, epochs, sg : word2vec settings (vector size,
        context window, minimum count, passes, skip-gram instead of CBOW).
    normalize : sequence of {"lower", "norm"}
        Applied to every token before training (and, at tagging, before each lookup).
    seed : int
    log : callable, optional
        Called with one line per step.
    source : str or os.PathLike, optional
        The text's file or folder, named in errors.

    Returns
    -------
    maps : WordMaps
        Words with their vectors, paths and ``kmN`` ids.
    settings : dict
        The settings and the text's size, to record with results.

    Raises
    ------
    InputError
        When gensim is not installed, the text holds no word seen ``min_count`` times, or it is too small
        for the largest ``k``.

    Notes
    -----
    A sentence of more than :data:`MAX_SENTENCE_TOKENS` tokens (a file without line breaks) is cut into
    pieces of that many tokens, with a log line: word2vec would read only its first piece.
    """
    check_settings(ks=ks, dim=dim, window=window, min_count=min_count, epochs=epochs, seed=seed)
    try:
        from gensim.models import Word2Vec
    except ImportError:
        raise InputError("inducing clusters needs gensim: pip install 'chaintag[clusters]'") from None
    log = log or (lambda msg: None)
    norm = [_NORMALIZERS[n] for n in normalize]

    def clean(tok):
        for f in norm:
            tok = f(tok)
        return tok

    text = [[clean(t) for t in s] for s in sentences]
    n_tokens = sum(map(len, text))
    n_sentences = len(text)
    text, cut = sentence_pieces(text)
    if cut:
        log(f"word2vec: {cut} line(s) longer than {MAX_SENTENCE_TOKENS:,} tokens cut into pieces of that many "
            "(word2vec reads no more of a sentence)")
    t0 = time.perf_counter()
    try:
        model = Word2Vec(text, vector_size=dim, window=window, min_count=min_count, sg=int(bool(sg)),
                         epochs=epochs, seed=seed, workers=1, hashfxn=_stable_hash)
    except RuntimeError as exc:  # gensim: "you must first build vocabulary before training the model"
        if "vocabulary" not in str(exc):
            raise
        distinct = len({tok for sent in text for tok in sent})  # counted only here, for the message
        raise InputError(f"the text holds no word seen at least {min_count} times ({n_tokens} tokens, "
                         f"{distinct} distinct); word2vec needs some (more text, or a lower --min-count)",
                         source) from None
    words = list(model.wv.index_to_key)
    vectors = model.wv.vectors.astype(np.float32)
    log(f"word2vec: {len(words)} words (min count {min_count}) from {n_tokens} tokens "
        f"in {time.perf_counter() - t0:.1f} s")
    ks = sorted({int(k) for k in ks})
    clusters = {}
    centers = None
    for k in ks:
        t1 = time.perf_counter()
        try:
            clusters[k], centers = _kmeans(vectors, k, seed)
        except InputError as exc:
            raise InputError(f"{exc.message} (--min-count {min_count} keeps {len(words)} words)", source) from None
        log(f"k-means: {k} clusters in {time.perf_counter() - t1:.1f} s")
    leaf_paths = hierarchy_paths(centers)
    finest = clusters[ks[-1]]
    paths = [leaf_paths[c] if c >= 0 else "" for c in finest.tolist()]
    log(f"hierarchy: paths of {min(map(len, leaf_paths))}-{max(map(len, leaf_paths))} bits")
    settings = {"method": "word2vec+kmeans+ward", "gensim": _version("gensim"),
                "scikit-learn": _version("sklearn"), "dim": dim, "window": window,
                "min_count": min_count, "epochs": epochs, "sg": bool(sg), "ks": ks,
                "normalize": list(normalize), "seed": seed, "tokens": n_tokens,
                "sentences": n_sentences, "words": len(words)}
    return WordMaps(words, paths, clusters, vectors, normalize, "chaintag clusters"), settings


def _version(module: str) -> str:
    try:
        return str(__import__(module).__version__)
    except Exception:  # noqa: BLE001 - a missing version is not an error
        return "?"


def stderr_log(msg: str) -> None:
    """One plain line per step on stderr."""
    print(msg, file=sys.stderr, flush=True)
