"""Looking inside a fitted model: top attributes per label, the transition table, a summary.

These play the role of ``crfsuite dump`` and of eli5's weight tables for
CRFsuite models. Every learner keeps its weights in the layout of
:mod:`chaintag.features.space`: features ``w[0:F]`` (attribute x label),
transitions ``[prev, cur]`` (``L*L``), ``L`` start and ``L`` end weights;
the second-order perceptron appends its ``L**3`` trigram weights, and the
max-ent model reads its transition block as weights of the previous-label
attribute (Ratnaparkhi 1996, s. 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class TransitionTable:
    """Transition, start and end weights with their labels.

    Attributes
    ----------
    labels : list of str
        Label of each row and column (the model's ``labels_``).
    values : float64 array, shape (n_labels, n_labels)
        ``values[i, j]`` is the weight of label ``labels[j]`` following
        ``labels[i]`` (rows: previous label, columns: current label).
    start, end : float64 arrays, shape (n_labels,)
        Weights of a label as the first, or the last, of a sentence.

    Examples
    --------
    ``table["B-NP", "I-NP"]`` is the weight of ``I-NP`` after ``B-NP``;
    ``table.to_dict()["B-NP"]["I-NP"]`` the same.
    """

    labels: list
    values: np.ndarray
    start: np.ndarray
    end: np.ndarray

    def _index(self, label: str) -> int:
        try:
            return self.labels.index(label)
        except ValueError:
            raise KeyError(f"unknown label {label!r}") from None

    def __getitem__(self, pair) -> float:
        prev, cur = pair
        return float(self.values[self._index(prev), self._index(cur)])

    def to_dict(self) -> dict:
        """``{prev: {cur: weight}}`` plus ``"<start>"`` and ``"<end>"`` rows of the label weights."""
        out = {p: {c: float(self.values[i, j]) for j, c in enumerate(self.labels)}
               for i, p in enumerate(self.labels)}
        out["<start>"] = {c: float(v) for c, v in zip(self.labels, self.start)}
        out["<end>"] = {c: float(v) for c, v in zip(self.labels, self.end)}
        return out

    def format(self, precision: int = 2) -> str:
        """The matrix as aligned text (rows: previous label, columns: current label)."""
        rows = [[f"{v:.{precision}f}" for v in row] for row in self.values]
        rows.append([f"{v:.{precision}f}" for v in self.start])
        rows.append([f"{v:.{precision}f}" for v in self.end])
        names = list(self.labels) + ["<start>", "<end>"]
        first = max(len(n) for n in names + ["prev\\cur"])
        width = max([len(x) for r in rows for x in r] + [len(c) for c in self.labels])
        lines = ["prev\\cur".ljust(first) + " " + " ".join(c.rjust(width) for c in self.labels)]
        for name, row in zip(names, rows):
            lines.append(name.ljust(first) + " " + " ".join(x.rjust(width) for x in row))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


class IntrospectionMixin:
    """``top_features``, ``transitions_`` and ``summary`` for fitted models (scikit-learn style)."""

    def _first_order_views(self):
        self._check_fitted()
        L = len(self.labels_)
        F = self.feature_index_.n_features
        w = self.weights_
        trans = w[F:F + L * L].reshape(L, L)
        start = w[F + L * L:F + L * L + L]
        end = w[F + L * L + L:F + L * L + 2 * L]
        return F, L, trans, start, end

    @property
    def transitions_(self) -> TransitionTable:
        """The transition weights as a :class:`TransitionTable` (labelled rows and columns).

        For the max-ent model these are the weights of the previous-label
        attribute on the local log-linear scores; for the second-order
        perceptron, its first-order (bigram) transitions.

        Raises
        ------
        chaintag.errors.NotFittedError
            If the model is not fitted (a RuntimeError, ValueError and AttributeError too).
        """
        _, _, trans, start, end = self._first_order_views()
        return TransitionTable(list(self.labels_), trans.copy(), start.copy(), end.copy())

    def top_features(self, label: str, k: int = 10) -> dict:
        """The attributes with the largest and the smallest weights for one label.

        Parameters
        ----------
        label : str
            One of ``labels_``.
        k : int, default 10
            How many of each sign.

        Returns
        -------
        dict
            ``{"positive": [(attribute, weight), ...], "negative": [...]}``:
            the up to ``k`` features of ``label`` with the largest positive
            weights (largest first) and the up to ``k`` with the most negative
            weights (most negative first). Attributes are named as in the
            templates (``w[-1]|w[0]=the|cat``; hashed ones as ``#key``). Ties
            go to the lower attribute id. Features of zero weight are in
            neither list.

        Raises
        ------
        KeyError
            For a label the model does not know.
        ValueError
            If ``k`` is not an integer of at least 0.
        """
        F, L, *_ = self._first_order_views()
        if label not in self.labels_:
            raise KeyError(f"unknown label {label!r}; the model's labels are {', '.join(self.labels_)}")
        from .params import check_count
        k = check_count(k, least=0)
        j = self.labels_.index(label)
        feats = np.flatnonzero(self.feature_index_.feat_label == j)
        weights = self.weights_[feats]
        attrs = np.searchsorted(self.feature_index_.feat_ptr, feats, side="right") - 1
        name = self.extractor_.attribute_name

        def pick(mask, sign):
            idx = np.flatnonzero(mask)
            # stable sort on -sign*weight keeps the lower attribute first on ties
            order = idx[np.argsort(-sign * weights[idx], kind="stable")][:k]
            return [(name(int(attrs[i])), float(weights[i])) for i in order]

        return {"positive": pick(weights > 0, 1.0), "negative": pick(weights < 0, -1.0)}

    def summary(self, k: int = 5) -> dict:
        """A JSON-ready description of the model (what ``chaintag inspect --json`` prints).

        Parameters
        ----------
        k : int, default 5
            Top positive and negative attributes listed per label.

        Returns
        -------
        dict
            ``algorithm``, ``class``, ``params`` (the hyper-parameters),
            ``training`` (sentences, tokens and label counts of the training
            data, or None for a model saved without them), ``best_epoch``,
            ``epochs_run``, ``labels``, ``columns``, ``n_attributes``,
            ``n_features``, ``n_weights``, ``nonzero_weights``,
            ``top_features`` (per label, as :meth:`top_features`),
            ``transitions`` (as :meth:`TransitionTable.to_dict`) and
            ``virtual_columns`` (the gazetteer's and the unlabeled text's record:
            sources, jackknife folds, entries or words; the word maps the model keeps
            from its resources, ``word_maps``: source, words, k-means sizes; empty without them);
            ``file_format``: the format version of the file it was loaded from and the chaintag
            release that wrote it (None for a model not loaded from a file).
        """
        self._check_fitted()
        training = getattr(self, "training_summary_", None)
        return {
            "algorithm": self.algorithm,
            "class": type(self).__name__,
            "params": {key: (list(v) if isinstance(v, tuple) else v) for key, v in self._stored_params().items()},
            "training": training,
            "best_epoch": getattr(self, "best_epoch_", None),
            "epochs_run": len(getattr(self, "history_", []) or []),
            "labels": list(self.labels_),
            "columns": list(self.columns_),
            "n_attributes": int(self.extractor_.n_attributes),
            "n_features": int(self.feature_index_.n_features),
            "n_weights": int(len(self.weights_)),
            "nonzero_weights": int(np.count_nonzero(self.weights_)),
            "top_features": {lab: {sign: [[a, w] for a, w in pairs] for sign, pairs in
                                   self.top_features(lab, k).items()} for lab in self.labels_},
            "transitions": self.transitions_.to_dict(),
            "virtual_columns": _virtual_sources(self.extractor_),
            "file_format": getattr(self, "file_format_", None),
        }


def _virtual_sources(extractor) -> dict:
    """What the model keeps for its virtual columns: the gazetteer's and the unlabeled text's record."""
    out = {}
    gaz = getattr(extractor, "gazetteer", None)
    if gaz is not None:
        out["gazetteer"] = {"sources": list(gaz.sources), "folds": gaz.folds, "entries": len(gaz.counts),
                            "types": list(gaz.types)}
    maps = getattr(extractor, "resources", None)
    if maps is not None:  # the word maps the model keeps (it needs no resource file to tag)
        out["word_maps"] = {"source": maps.source, "words": len(maps.words), "kmeans": sorted(maps.clusters),
                            "paths": maps.paths is not None, "vectors": maps.vectors is not None}
    auto = getattr(extractor, "autotags", None)
    if auto is not None:
        out["autotags"] = {"sources": list(auto.sources), "folds": auto.folds, "text_tokens": auto.n_tokens,
                           "words": len(auto.profile.words)}
    return out


def training_summary(n_sentences: int, gold: np.ndarray, labels: list, sequences=None, scheme="auto") -> dict:
    """Sentences, tokens, label counts and label scheme of a training corpus (kept with the model).

    Parameters
    ----------
    n_sentences : int
    gold : int array, shape (n_tokens,)
        Label id of each token.
    labels : list of str
        Label of each id.
    sequences : list of lists of str, optional
        The gold label sequences: their chunk scheme is recorded as
        ``label_scheme`` (:func:`chaintag.evaluation.schemes.detect_scheme`;
        ``"none"`` for labels that are not chunk labels).
    scheme : str, default "auto"
        The scheme the labels are read in (``--scheme``; ``auto``: detected); a spec ``NAME:FORMAT``
        records its name.
    """
    counts = np.bincount(np.asarray(gold, dtype=np.int64), minlength=len(labels))
    out = {"n_sentences": int(n_sentences), "n_tokens": int(len(gold)),
           "label_counts": {lab: int(c) for lab, c in zip(labels, counts.tolist())}}
    if sequences is not None:
        from ..evaluation.schemes import TRAINING_TYPO_PREFIXES, detect_scheme
        seqs = [s if all(type(x) is str for x in s) else [str(x) for x in s] for s in sequences]
        # a rare S-X or E-X among IOB2 labels is a typo, not IOBES (whose rules --constrain would enforce)
        out["label_scheme"] = detect_scheme(seqs, (), scheme or "auto",
                                            typo_prefixes=TRAINING_TYPO_PREFIXES).name
    return out
