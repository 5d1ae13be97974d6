"""The second-order (trigram) structured perceptron, as Collins's POS tagger, with a tag dictionary."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..decoding.scoring import feature_entries
from ..errors import ModelFormatError
from ..io.model_file import load_model, save_model
from .base import SequenceTagger, TrainData, as_rows, register
from .params import Param, pick
from .perceptron_kernels import gold_feature_ids
from .second_order_kernels import first_order_size, perceptron2_epoch, tag_corpus2

_NO_WORDS = np.zeros(0, dtype=np.int32)


@dataclass
class TagDictionary:
    """Labels allowed for the frequent words of the training data (Ratnaparkhi 1996).

    Attributes
    ----------
    words : list of str
        The restricted words (exact strings of the first token column).
    ptr : int64 array, shape (n_words + 1,)
    labels : int32 array, shape (n_entries,)
        Word ``k`` may take the label ids ``labels[ptr[k]:ptr[k+1]]`` (ascending).
    """

    words: list
    ptr: np.ndarray
    labels: np.ndarray
    index: dict = field(init=False, repr=False)

    def __post_init__(self):
        self.index = {w: k for k, w in enumerate(self.words)}

    @classmethod
    def build(cls, words, gold, n_labels: int, min_count: int) -> "TagDictionary":
        """Dictionary of the words seen at least ``min_count`` times.

        Parameters
        ----------
        words : list of str, one per training token
        gold : int array, shape (n_tokens,)
            Gold label id of each token.
        n_labels, min_count : int
        """
        vocab: dict[str, int] = {}
        ids = np.fromiter((vocab.setdefault(w, len(vocab)) for w in words), dtype=np.int64,
                          count=len(words))
        counts = np.bincount(ids, minlength=len(vocab))
        frequent = np.flatnonzero(counts >= min_count)
        renum = np.full(len(vocab), -1, dtype=np.int64)
        renum[frequent] = np.arange(len(frequent))
        names = list(vocab)
        kept = renum[ids]
        sel = kept >= 0
        codes = np.unique(kept[sel] * n_labels + np.asarray(gold, dtype=np.int64)[sel])
        ptr = np.zeros(len(frequent) + 1, dtype=np.int64)
        np.cumsum(np.bincount(codes // n_labels, minlength=len(frequent)), out=ptr[1:])
        return cls([names[k] for k in frequent.tolist()], ptr,
                   (codes % n_labels).astype(np.int32))

    def word_ids(self, rows) -> np.ndarray:
        """Dictionary id of every token's word (first column), ``-1`` when unrestricted.

        Returns
        -------
        int32 array, shape (n_tokens,)
        """
        get = self.index.get
        return np.fromiter((get(tok[0] if len(tok) else "", -1) for sent in rows for tok in sent),
                           dtype=np.int32)

    def arrays(self) -> dict[str, np.ndarray]:
        """The dictionary as numeric arrays (UTF-8 bytes for the words) for a model file."""
        blobs = [w.encode("utf-8", "surrogatepass") for w in self.words]
        word_ptr = np.zeros(len(blobs) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in blobs], out=word_ptr[1:])
        return {"tagdict_word_bytes": np.frombuffer(b"".join(blobs), dtype=np.uint8),
                "tagdict_word_ptr": word_ptr, "tagdict_ptr": self.ptr, "tagdict_labels": self.labels}

    @classmethod
    def from_arrays(cls, arrays: dict, n_labels: int) -> "TagDictionary":
        """Inverse of :meth:`arrays`.

        Raises
        ------
        ModelFormatError
            When the arrays are missing or inconsistent.
        """
        try:
            data = np.asarray(arrays["tagdict_word_bytes"], dtype=np.uint8).tobytes()
            word_ptr = np.asarray(arrays["tagdict_word_ptr"], dtype=np.int64)
            ptr = np.asarray(arrays["tagdict_ptr"], dtype=np.int64)
            labels = np.asarray(arrays["tagdict_labels"], dtype=np.int32)
        except KeyError as exc:
            raise ModelFormatError(f"model has no tag dictionary array {exc}") from None
        n = len(word_ptr) - 1
        if (n < 0 or len(ptr) != n + 1 or word_ptr[-1] != len(data) or ptr[-1] != len(labels)
                or np.any(np.diff(word_ptr) < 0) or np.any(np.diff(ptr) < 1)
                or (len(labels) and (labels.min() < 0 or labels.max() >= n_labels))):
            raise ModelFormatError("the tag dictionary arrays are inconsistent")
        bounds = word_ptr.tolist()
        words = [data[bounds[k]:bounds[k + 1]].decode("utf-8", "surrogatepass") for k in range(n)]
        return cls(words, ptr, labels)


@register
class SecondOrderPerceptron(SequenceTagger):
    """Collins's trigram perceptron tagger: second-order Viterbi, optional tag dictionary.

    The structured perceptron (naive or averaged, as
    :class:`~chaintag.learners.perceptron.StructuredPerceptron`) over the
    second-order model of :mod:`chaintag.decoding.viterbi2`: emissions, label
    bigrams ``U[prev, cur]``, start and end weights, plus label trigrams
    ``V[prev2, prev, cur]`` from the third token on (the sentence boundary
    enters through the start and end weights only).

    With ``tag_dict`` (Ratnaparkhi 1996; Collins 2002), a word seen at least
    ``tag_dict_min`` times in the training data (exact string of the first
    token column) may only take the labels it was seen with there; rarer and
    unseen words may take any label. The restriction applies to the
    search in training (the gold labels are always allowed) and in
    tagging; it brings the ``O(T L^3)`` search down to ``O(T K^3)`` with
    ``K`` allowed labels per token.

    Parameters
    ----------
    features : str or list of str, default "pos"
        Preset name (``chunking``, ``pos``, ``ner``), template file, or specs.
    columns : sequence of str, optional
        Names of the token columns (default ``word``, ``pos``, ...).
    averaged : bool, default True
        Averaged (Collins 2002, s. 2.5) or naive (Fig. 1) perceptron.
    epochs : int, default 10
    cc : int, default 0
        Count cut-off on (attribute, label) pairs (Collins 2002, s. 3).
    feature_space : {"gold", "all"}, default "gold"
    shuffle : bool, default False
    random_state : int, default 0
    progress : bool or None, default None
    tag_dict : bool, default True
        Restrict frequent words to their training labels.
    tag_dict_min : int, default 100
        Number of training occurrences from which a word is restricted.
        Chosen on ptb_sample's dev split (82k training tokens, 20 epochs):
        token accuracy 96.27 (10), 96.32 (20), 96.33 (50), 96.46 (100),
        96.40 (200), against 96.33 for the first-order perceptron. A low
        threshold restricts nearly every training token, so the training
        search rarely meets the unrestricted case that unknown words bring
        at tagging time (``tag_dict_min=1``: 90.5 at 10 epochs).

    Attributes
    ----------
    weights_ : float64 array, shape (F + L*L + 2*L + L**3,)
        The first-order layout followed by ``V`` (C order).
    tag_dict_ : TagDictionary or None
        None when ``tag_dict`` is false.
    cost_ : SecondOrderCost
        The cost estimated before training (label pairs, trigram weights,
        memory, search steps per epoch); training more than the memory
        limit or ``MAX_STEPS`` steps is refused before anything is allocated.

    Notes
    -----
    :meth:`predict_nbest`, :meth:`predict_confidence` and
    :meth:`predict_marginals` are not available (there is no second-order
    forward-backward, and the top-n search is the second-order SAPO's).
    :meth:`predict` takes ``constrain`` and ``fixed`` (constrained and
    partially labelled decoding, :mod:`chaintag.learners.constrained2`).
    Updates and lazy averaging are
    those of the first-order perceptron, with the trigram weights added to
    ``Phi``.

    References
    ----------
    M. Collins. Discriminative training methods for hidden Markov models:
    theory and experiments with perceptron algorithms. EMNLP 2002.
    A. Ratnaparkhi. A maximum entropy model for part-of-speech tagging. EMNLP 1996.

    Examples
    --------
    >>> tagger = SecondOrderPerceptron(features=["w[0]"], epochs=3)
    >>> _ = tagger.fit([["the", "dog"], ["a", "cat"]], [["D", "N"], ["D", "N"]])
    >>> tagger.predict([["the", "cat"]])
    [['D', 'N']]
    """

    order, first_order = 2, "perceptron"

    #: constrained and partially labelled decoding over the label-pair states (chaintag.learners.constrained2)
    constrained_decoding = True

    algorithm = "perceptron2"
    #: no span confidence: it has no n-best search (:mod:`chaintag.learners.spans`; the second-order SAPO has)
    span_confidence = None
    _empty_epoch_is_noop = True  # an epoch over no sentences changes no weight and no step
    _keeps_checkpoints = True  # the state is float arrays and a step; the tag dictionary is rebuilt from the data

    params = (
        *pick("features", "columns", "averaged", "epochs", "cc", "feature_space", "shuffle", "random_state",
              "progress"),
        Param("tag_dict", True, bool, "second order: restrict each frequent word to the labels it was seen with",
              group="second order"),
        Param("tag_dict_min", 100, int, "second order: words seen at least N times are restricted", low=1,
              group="second order", metavar="N"),
        *pick("hash_bits"),
    )

    # ------------------------------------------------------------------- fit
    def fit(self, sentences, labels, dev=None, *, checkpoint_dir=None, resume=False) -> "SecondOrderPerceptron":
        """Train on labelled sentences; see :meth:`SequenceTagger.fit`.

        The tag dictionary (when ``tag_dict``) is built first, from the first
        column of the training tokens and their gold labels.

        Raises
        ------
        ValueError
            If ``tag_dict_min`` is below 1.
        InputError
            As :meth:`SequenceTagger.fit`.
        """
        if (checkpoint_dir or resume) and not self._keeps_checkpoints:
            from ..errors import InputError
            raise InputError("the second-order perceptron keeps no checkpoints")
        if int(self.tag_dict_min) < 1:
            raise ValueError(f"tag_dict_min must be at least 1, got {self.tag_dict_min!r}")
        from .base import dev_pair
        dev = dev_pair(dev)
        rows = as_rows(sentences)
        labels = [list(map(str, ls)) for ls in labels]
        self._check_pairs(rows, labels, "training")
        self.tag_dict_ = None
        self._fit_word_ids = self._dev_word_ids = None
        if self.tag_dict:
            # the label ids the base class gives: sorted label strings
            names = sorted({lab for ls in labels for lab in ls})
            label_id = {lab: k for k, lab in enumerate(names)}
            words = [tok[0] if len(tok) else "" for sent in rows for tok in sent]
            gold = np.fromiter((label_id[lab] for ls in labels for lab in ls), dtype=np.int64,
                               count=len(words))
            self.tag_dict_ = TagDictionary.build(words, gold, len(names), int(self.tag_dict_min))
            self._fit_word_ids = self.tag_dict_.word_ids(rows)
            if dev is not None:
                self._dev_word_ids = self.tag_dict_.word_ids(self._dev_rows(dev[0], as_rows))
        long_run = self._check_cost(rows, labels)
        progress = self.progress
        if long_run and progress is None:
            self.progress = "log"  # a long run shows its epochs, one line each, wherever stderr goes
        try:
            super().fit(rows, labels, dev, checkpoint_dir=checkpoint_dir, resume=resume)
        finally:
            self.progress = progress
            del self._fit_word_ids, self._dev_word_ids
        if self.tag_dict and self.labels_ != names:
            raise RuntimeError("tag dictionary labels differ from the model's labels")
        return self

    def _check_cost(self, rows, labels) -> bool:
        """Estimate the label pairs, weights, memory and search steps before anything is allocated;
        refuse (TrainingError) or warn on stderr with the figures (see :mod:`.second_order_cost`).
        Returns whether the run is long (it then shows one line per epoch)."""
        from .second_order_cost import check_cost, estimate_cost
        n_labels = len({lab for ls in labels for lab in ls})
        allowed = None
        if self.tag_dict_ is not None and self._fit_word_ids is not None:
            sizes = np.diff(self.tag_dict_.ptr)
            wid = np.asarray(self._fit_word_ids, dtype=np.int64)
            allowed = np.full(len(wid), n_labels, dtype=np.int64)
            if len(sizes):
                allowed[wid >= 0] = sizes[wid[wid >= 0]]
        self.cost_ = estimate_cost(n_labels, [len(s) for s in rows], allowed, bool(self.averaged))
        warning = check_cost(self.cost_, int(self.epochs))
        if warning and self.progress is not False:
            import sys
            print(f"warning: {warning}", file=sys.stderr, flush=True)
        return warning is not None

    def _train(self, data: TrainData, dev_pack, checkpoint_dir=None, resume=False, trainer=None) -> None:
        if dev_pack is not None:
            dev_pack = (*dev_pack, self._dev_word_ids)
        super()._train(data, dev_pack, checkpoint_dir, resume, trainer)

    def _dict_arrays(self, word_ids):
        """(use_dict, word_ids, dict_ptr, dict_labels) for the compiled kernels."""
        td = getattr(self, "tag_dict_", None)
        if td is None or word_ids is None:
            return False, _NO_WORDS, np.zeros(1, dtype=np.int64), _NO_WORDS
        return True, np.ascontiguousarray(word_ids, dtype=np.int32), td.ptr, td.labels

    def _begin(self, data: TrainData) -> dict:
        n = data.index.n_weights + data.index.n_labels ** 3
        gold_feat = gold_feature_ids(data.attrs.tok_ptr, data.ent_lo, data.ent_n, data.gold,
                                     data.index.feat_label)
        return {"w": np.zeros(n), "u": np.zeros(n if self.averaged else 1), "step": 0,
                "gold_feat": gold_feat, "dict": self._dict_arrays(self._fit_word_ids)}

    def _run_epoch(self, state: dict, data: TrainData, order: np.ndarray) -> dict:
        a = data.attrs
        n_updates, n_errors, step = perceptron2_epoch(
            order, a.sent_ptr, a.tok_ptr, data.ent_lo, data.ent_n, data.gold, state["gold_feat"],
            data.index.feat_label, state["w"], state["u"], state["step"],
            data.index.n_labels, bool(self.averaged), *state["dict"])
        state["step"] = step
        return {"updates": int(n_updates), "errors": int(n_errors)}

    def _current_weights(self, state: dict) -> np.ndarray:
        if not self.averaged or state["step"] == 0:
            return state["w"].copy()
        k = float(state["step"])
        return (k * state["w"] - state["u"]) / k

    # ------------------------------------------------------------- predicting
    def _tag_ids(self, attrs, weights=None, word_ids=None, *, fixed=None, best=None) -> np.ndarray:
        """Second-order Viterbi labels of every token; ``word_ids`` applies the tag dictionary.

        Parameters
        ----------
        attrs : Attributes
        weights : float64 array, optional
            Default ``weights_``; may hold ``-inf`` (constrained decoding,
            :mod:`chaintag.learners.constrained2`).
        word_ids : int32 array, shape (n_tokens,), optional
            Tag-dictionary word ids (:meth:`TagDictionary.word_ids`).
        fixed : int32 array, shape (n_tokens,), optional
            Label id each token must take, or -1 (free).
        best : float64 array, shape (n_sentences,), optional
            Receives each sentence's best score (``-inf``: no sequence satisfies the constraints).

        Returns
        -------
        int32 array, shape (n_tokens,)
        """
        out = np.zeros(attrs.n_tokens, dtype=np.int32)
        scores = np.zeros(attrs.n_sentences) if best is None else best
        scores[:] = 0.0
        w = self.weights_ if weights is None else weights
        n_labels = len(self.labels_)
        if n_labels == 0 or attrs.n_tokens == 0:
            return out
        ent_lo, ent_n = feature_entries(attrs.attr_ids, self.feature_index_.feat_ptr, n_labels)
        tag_corpus2(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, self.feature_index_.feat_label,
                    np.ascontiguousarray(w, dtype=np.float64), n_labels,
                    *self._dict_arrays(word_ids), _NO_WORDS if fixed is None else fixed, out, scores)
        return out

    def _word_ids(self, rows):
        return None if self.tag_dict_ is None else self.tag_dict_.word_ids(rows)

    def predict(self, sentences, *, constrain=False, fixed=None) -> list[list[str]]:
        """Tag sentences with the best second-order label sequence (tag dictionary applied).

        Parameters
        ----------
        sentences : sequence of sequences of tokens (str or tuple of column strings)
            As :meth:`SequenceTagger.predict` (a model that reads document
            columns computes them from plain words, the sentences being one document).
        constrain : bool or str, default False
            Forbid the label sequences the chunk scheme makes invalid, as
            :meth:`SequenceTagger.predict`: a forbidden transition ``prev ->
            cur`` is ``-inf`` in every label-pair state and trigram that holds
            it, forbidden first and last labels ``-inf`` at the sentence's ends.
        fixed : sequence of sequences of (str or None), optional
            Partial labels: per token, the label it must take, or None. A fixed
            label overrides the tag dictionary at its token.

        Returns
        -------
        list of list of str

        Raises
        ------
        ValueError
            ``constrain`` on labels that follow no chunk scheme.
        InputError
            Fixed labels of the wrong shape, unknown to the model, or that no
            valid sequence can satisfy.

        Notes
        -----
        The search keeps to the tag dictionary (SAPO: the label pairs seen in
        training); a sentence where they leave no sequence that satisfies the
        constraints is searched again over every label (pair).
        """
        self._check_fitted()
        rows = self._rows(sentences)
        attrs = self.extractor_.transform(rows)
        if constrain or fixed is not None:
            from . import constrained2
            return self._split(constrained2.tag_ids(self, attrs, constrain, fixed, self._word_ids(rows)),
                               attrs.sent_ptr)
        return self._split(self._tag_ids(attrs, word_ids=self._word_ids(rows)), attrs.sent_ptr)

    def predict_nbest(self, sentences, k: int = 5, *, constrain=False, fixed=None):
        """Not available for the second-order perceptron (:class:`~chaintag.learners.sapo2.SecondOrderSAPO` has it).

        Raises
        ------
        NotImplementedError
            Always: its search is Viterbi over label pairs (with the tag
            dictionary); use :meth:`predict`, or the second-order SAPO for the
            exact second-order top-n.
        """
        raise NotImplementedError(f"{type(self).__name__} has no n-best search (its search is second-order "
                                  "Viterbi; the second-order SAPO, sapo --order 2, has the exact second-order "
                                  "top-n); use predict()")

    def predict_marginals(self, sentences, *, constrain=False, fixed=None):
        """Not available for the second-order models.

        Raises
        ------
        NotImplementedError
            Always: the first-order forward-backward would ignore the trigram
            weights and the tag dictionary.
        """
        raise NotImplementedError(f"{type(self).__name__} has no marginals (second-order "
                                  "forward-backward is not implemented); use predict()")

    def _evaluate_attrs(self, weights, attrs, gold_labels, word_ids=None):
        from ..evaluation import evaluate
        pred = self._split(self._tag_ids(attrs, weights, word_ids), attrs.sent_ptr)
        return evaluate(gold_labels, pred, scheme=self.eval_scheme)

    def evaluate(self, sentences, labels, scheme=None):
        """Token accuracy and chunk P/R/F1, tagging as :meth:`predict`; see :meth:`SequenceTagger.evaluate`."""
        self._check_fitted()
        rows = self._rows(sentences)
        labels = [list(map(str, ls)) for ls in labels]
        if rows:
            self._check_pairs(rows, labels, "test")
        from ..evaluation import evaluate
        attrs = self.extractor_.transform(rows)
        pred = self._split(self._tag_ids(attrs, self.weights_, self._word_ids(rows)), attrs.sent_ptr)
        return evaluate(labels, pred, scheme=self.eval_scheme if scheme is None else scheme)

    def allowed_labels(self, word: str) -> list[str]:
        """Labels the tag dictionary allows for ``word`` (all labels when it is unrestricted)."""
        self._check_fitted()
        td = self.tag_dict_
        k = -1 if td is None else td.index.get(word, -1)
        if k < 0:
            return list(self.labels_)
        return [self.labels_[j] for j in td.labels[td.ptr[k]:td.ptr[k + 1]].tolist()]

    # ------------------------------------------------------------ model files
    def save(self, path) -> None:
        """Save the fitted model, with its second-order weights and tag dictionary.

        Raises
        ------
        RuntimeError, ValueError
            As :meth:`SequenceTagger.save`.
        """
        super().save(path)
        if self.tag_dict_ is not None:
            meta, arrays = load_model(path)
            arrays.update(self.tag_dict_.arrays())
            save_model(path, meta, arrays)

    @classmethod
    def _from_saved(cls, meta: dict, arrays: dict) -> "SecondOrderPerceptron":
        n_labels = len(meta["labels"])
        n_first = first_order_size(len(arrays["feat_label"]), n_labels)
        weights = np.asarray(arrays["weights"], dtype=np.float64)
        if len(weights) != n_first + n_labels ** 3:
            raise ModelFormatError("model arrays are inconsistent (weights and features differ in size)")
        model = super()._from_saved(meta, dict(arrays, weights=weights[:n_first]))
        model.weights_ = weights
        model.tag_dict_ = TagDictionary.from_arrays(arrays, n_labels) if model.tag_dict else None
        return model
