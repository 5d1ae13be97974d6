"""Attribute extraction in bounded chunks, with the corpus's compact arrays written to disk.

Three passes over the file, each holding one chunk of sentences at a time:

1. labels and the vocabularies of the derived columns (words, suffixes, shapes:
   grown in order of first appearance, exactly as one pass over the whole
   corpus would grow them), then each template's radix;
2. each template's keys and the counts of their (key, label) pairs, merged
   chunk by chunk (their size follows the attribute table, not the corpus),
   then the sorted attribute table, the feature index and the pruning, as
   :meth:`~chaintag.features.extract.AttributeExtractor.fit_transform_counts`
   and :func:`~chaintag.features.space.build_feature_index` make them;
3. each chunk's attribute ids, turned into feature entries and written as
   ``.npy`` files: ``sent_ptr``, ``tok_ptr`` (int64, from 0 in the chunk),
   ``ent_lo``, ``ent_n``, ``gold``.

The extractor, feature index and entries are the ones ``fit`` builds from the
whole corpus in memory, so the model is the same.
"""

from __future__ import annotations

import os

import numpy as np

from ..features.hashing import intern_keys
from ..features.space import FeatureIndex
from .reader import iter_chunks

ARRAYS = ("sent_ptr", "tok_ptr", "ent_lo", "ent_n", "gold")


class StreamedCorpus:
    """The training corpus as chunk files on disk.

    Attributes
    ----------
    folder : str
    n_chunks, n_sentences, n_tokens : int
    bounds : int64 array, shape (n_chunks + 1,)
        Chunk ``c`` holds sentences ``bounds[c]:bounds[c+1]``.
    gold_digest : bytes
        sha256 of the gold label ids (for checkpoint fingerprints).
    """

    def __init__(self, folder: str, bounds: list[int], n_tokens: int):
        self.folder = folder
        self.bounds = np.asarray(bounds, dtype=np.int64)
        self.n_chunks = len(bounds) - 1
        self.n_sentences = int(bounds[-1])
        self.n_tokens = int(n_tokens)

    def path(self, c: int, name: str) -> str:
        return os.path.join(self.folder, f"chunk{c:06d}.{name}.npy")

    def load(self, c: int) -> dict:
        """Chunk ``c``'s arrays, memory-mapped read-only (unmapped when no longer referenced)."""
        return {name: np.load(self.path(c, name), mmap_mode="r") for name in ARRAYS}


def _merge_pairs(keys, labels, counts):
    """Sum the counts of equal (key, label) pairs; sorted by key, then label."""
    order = np.lexsort((labels, keys))
    keys, labels, counts = keys[order], labels[order], counts[order]
    if len(keys) == 0:
        return keys, labels, counts
    new = np.ones(len(keys), dtype=bool)
    new[1:] = (keys[1:] != keys[:-1]) | (labels[1:] != labels[:-1])
    starts = np.flatnonzero(new)
    return keys[starts], labels[starts], np.add.reduceat(counts, starts)


def _grow_vocabularies(extractor, chunks, sequences) -> list:
    """Pass 1: grow the derived columns' vocabularies in order of first appearance.

    Returns the sorted labels; fills ``sequences`` (when given) with the
    gold label sequences, one string object per label within a chunk.
    """
    label_set = set()
    for _, tokens, labels in chunks():
        extractor._derive(tokens, grow=True)
        for ls in labels:
            label_set.update(ls)
        if sequences is not None:
            canon: dict = {}
            sequences.extend([canon.setdefault(y, y) for y in ls] for ls in labels)
    return sorted(label_set)


def _set_radix(extractor) -> None:
    """Each template's radix (its atoms' vocabulary sizes) and whether its keys are hashed."""
    extractor.radix, extractor.hashed = [], []
    for t in range(len(extractor.templates)):
        radix, hashed = extractor._template_radix(t)
        extractor.radix.append(radix)
        extractor.hashed.append(hashed)


def _count_pairs(extractor, chunks, label_id: dict, n_labels: int) -> list:
    """Pass 2: per template, the (key, label, count) arrays merged over all chunks."""
    n_t = len(extractor.templates)
    acc = [(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)) for _ in range(n_t)]
    for _, tokens, labels in chunks():
        sent_ptr, derived = extractor._derive(tokens, grow=False)
        gold = np.fromiter((label_id[y] for ls in labels for y in ls), dtype=np.int64,
                           count=int(sent_ptr[-1]))
        for t in range(n_t):
            ids, uniques = intern_keys(extractor._keys(sent_ptr, derived, t))
            fired = ids >= 0
            codes, counts = np.unique(ids[fired].astype(np.int64) * n_labels + gold[fired], return_counts=True)
            k0, l0, c0 = acc[t]
            acc[t] = _merge_pairs(np.concatenate([k0, uniques[codes // n_labels]]),
                                  np.concatenate([l0, codes % n_labels]),
                                  np.concatenate([c0, counts.astype(np.int64)]))
        del sent_ptr, derived, gold
    return acc


def _attribute_table(extractor, acc: list, n_labels: int):
    """Set the extractor's sorted attribute table from the pair counts (``acc`` is emptied).

    Returns the (attribute id * n_labels + label) codes and their counts.
    """
    keys_per_template, codes, counts = [], [], []
    offset = 0
    for t in range(len(acc)):
        k, lab, c = acc[t]
        table = np.unique(k)
        keys_per_template.append(table)
        codes.append((offset + np.searchsorted(table, k)) * n_labels + lab)
        counts.append(c)
        offset += len(table)
    acc.clear()  # the pair counts are no longer needed
    extractor._set_table(keys_per_template)
    return np.concatenate(codes), np.concatenate(counts)


def _table_and_index(extractor, acc: list, n_labels: int, cc: int, space: str) -> FeatureIndex:
    """The attribute table, then the feature index of ``space`` with cut-off ``cc``; prunes the extractor."""
    codes, counts = _attribute_table(extractor, acc, n_labels)
    minimum = max(int(cc), 1)
    n_attr = extractor.n_attributes
    if space == "gold":
        codes = np.sort(codes[counts >= minimum])
        feat_attr = codes // n_labels
        feat_label = (codes % n_labels).astype(np.int32)
    else:
        attr_counts = np.bincount(codes // n_labels, weights=counts, minlength=n_attr)
        kept = np.flatnonzero(attr_counts >= minimum)
        feat_attr = np.repeat(kept, n_labels)
        feat_label = np.tile(np.arange(n_labels, dtype=np.int32), len(kept))
    per_attr = np.bincount(feat_attr, minlength=n_attr)
    keep = per_attr > 0
    feat_ptr = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
    np.cumsum(per_attr[keep], out=feat_ptr[1:])
    index = FeatureIndex(feat_ptr, np.ascontiguousarray(feat_label, dtype=np.int32), n_labels)
    extractor.prune(keep)
    return index


def stream_dir_error(exc: OSError, folder: str):
    """The error of a chunk folder that cannot be written: one line naming ``--stream-dir`` and the folder
    with the reason (numpy's partial write says only "N requested and M written": a full disk)."""
    import shutil
    from ..errors import OutputError
    import errno as errnos
    if exc.errno is not None:
        reason, full = exc.strerror or os.strerror(exc.errno), exc.errno in (errnos.ENOSPC, errnos.EDQUOT)
    else:
        try:
            full = shutil.disk_usage(folder).free < 16 * 2**20
        except OSError:
            full = False
        reason = "no space left on device" if full else str(exc)
    advice = "free some space or give another --stream-dir" if full else "give another --stream-dir (a folder you can write)"
    return OutputError(f"{folder}: cannot write the training data's arrays to the chunk folder ({reason}); {advice}",
                       folder, exc.errno)


def _write_chunks(extractor, chunks, folder: str, index: FeatureIndex, label_id: dict,
                  n_labels: int) -> tuple[list[int], int]:
    """Pass 3: each chunk's arrays, to disk; returns the chunk bounds and the token count."""
    from ..decoding.scoring import feature_entries
    bounds, n_tokens = [0], 0
    corpus = StreamedCorpus(folder, [0], 0)
    for c, (_, tokens, labels) in enumerate(chunks()):
        attrs = extractor.transform(tokens)
        ent_lo, ent_n = feature_entries(attrs.attr_ids, index.feat_ptr, n_labels)
        gold = np.fromiter((label_id[y] for ls in labels for y in ls), dtype=np.int32, count=attrs.n_tokens)
        for name, arr in zip(ARRAYS, (attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, gold)):
            try:
                np.save(corpus.path(c, name), arr)
            except OSError as exc:
                raise stream_dir_error(exc, os.path.dirname(os.path.abspath(folder))) from None
        bounds.append(bounds[-1] + attrs.n_sentences)
        n_tokens += attrs.n_tokens
        del attrs, ent_lo, ent_n, gold
    return bounds, n_tokens


def extract_to_disk(extractor, chunks, folder: str, cc: int = 0, space: str = "gold", sequences=None):
    """Fit ``extractor`` and build the feature index over a corpus read in chunks; write the chunks' arrays.

    Parameters
    ----------
    extractor : AttributeExtractor
        Unfitted (exact attributes; hashed extractors are not offered here).
    chunks : callable
        ``chunks()`` returns a new iterator of ``(names, tokens, labels)`` chunks
        (:func:`~chaintag.streaming.reader.iter_chunks`); called three times.
    folder : str
        Where the chunk files are written (an existing folder).
    cc : int
        Count cut-off.
    space : {"gold", "all"}
    sequences : list, optional
        Filled with the gold label sequences (sharing one string object per
        label: about 8 bytes per token), for the training summary.

    Returns
    -------
    labels : list of str
        Sorted (label ``k`` has id ``k``, as ``fit`` numbers them).
    index : FeatureIndex
    corpus : StreamedCorpus

    Raises
    ------
    ValueError
        For an unknown ``space``.
    """
    if space not in ("gold", "all"):
        raise ValueError(f"unknown feature space {space!r}; expected 'gold' or 'all'")
    label_list = _grow_vocabularies(extractor, chunks, sequences)
    label_id = {lab: k for k, lab in enumerate(label_list)}
    n_labels = len(label_list)
    _set_radix(extractor)
    acc = _count_pairs(extractor, chunks, label_id, n_labels)
    index = _table_and_index(extractor, acc, n_labels, cc, space)
    bounds, n_tokens = _write_chunks(extractor, chunks, folder, index, label_id, n_labels)
    return label_list, index, StreamedCorpus(folder, bounds, n_tokens)
