"""Second-order SAPO: search-based probabilistic online learning over label trigrams (Sun et al.)."""

from __future__ import annotations

import math

import numpy as np

from ..decoding.nbest2 import pair_lists, pair_matrix
from ..decoding.scoring import feature_entries
from ..errors import ModelFormatError
from ..io.model_file import load_model, save_model
from .base import TrainData, register
from .params import Param, pick
from .sapo2_kernels import nbest_corpus_sapo2, sapo2_epoch, tag_corpus_sapo2
from .scale_kernels import fold_average, fold_scale
from .sapo import check_sapo_settings
from .second_order import SecondOrderPerceptron

_NO_VALUES = np.zeros(0)
_NO_FIXED = np.zeros(0, dtype=np.int32)  # no label fixed


def _no_pair_features():
    return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)


def pair_feature_index(attrs, gold, n_labels: int, n_attributes: int, values=None):
    """The (attribute, label pair) features seen in training: every indicator attribute of a token
    from the second of its sentence on, with the gold pair ``(y_{i-1}, y_i)``.

    Parameters
    ----------
    attrs : Attributes
        The training attributes (CSR: ``sent_ptr``, ``tok_ptr``, ``attr_ids``).
    gold : int array, shape (n_tokens,)
    n_labels, n_attributes : int
    values : float64 array, shape (n_entries,), optional
        Entry values; an attribute with a value other than 1 anywhere (a word-vector component) gets
        no pair features.

    Returns
    -------
    ptr : int64 array, shape (n_attributes + 1,)
    code : int32 array
        Attribute ``a`` has the pair codes ``prev * L + cur`` in ``code[ptr[a]:ptr[a+1]]``, ascending.
    """
    L = n_labels
    gold = np.asarray(gold, dtype=np.int64)
    n_tok = len(gold)
    first = np.zeros(n_tok, dtype=bool)
    first[np.asarray(attrs.sent_ptr[:-1], dtype=np.int64)[np.diff(attrs.sent_ptr) > 0]] = True
    pair = np.full(n_tok, -1, dtype=np.int64)
    inner = np.flatnonzero(~first)
    pair[inner] = gold[inner - 1] * L + gold[inner]
    per_entry = np.repeat(pair, np.diff(np.asarray(attrs.tok_ptr, dtype=np.int64)))
    attr_ids = np.asarray(attrs.attr_ids, dtype=np.int64)
    keep = per_entry >= 0
    if values is not None:
        valued = np.zeros(n_attributes, dtype=bool)
        valued[attr_ids[np.asarray(values) != 1.0]] = True
        keep &= ~valued[attr_ids]
    keys = np.unique(attr_ids[keep] * (L * L) + per_entry[keep])
    ptr = np.zeros(n_attributes + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys // (L * L), minlength=n_attributes), out=ptr[1:])
    return ptr, (keys % (L * L)).astype(np.int32)


@register
class SecondOrderSAPO(SecondOrderPerceptron):
    """SAPO on a second-order (label-trigram) chain, searched over the label pairs seen in training.

    Each training sentence, in a seeded random order: the exact top-n label
    sequences by A* over label pairs with a backward second-order Viterbi
    heuristic (:mod:`chaintag.decoding.nbest2`), probabilities over the
    top-n, the update ``gamma * (Phi(x, y*) - sum_k P_k Phi(x, y_k))`` with
    ``Phi`` counting attributes x labels, label bigrams and label trigrams,
    then the L2 step. The model of
    :class:`~chaintag.learners.second_order.SecondOrderPerceptron` (trigram
    weights from the third token on), learned as
    :class:`~chaintag.learners.sapo.SAPO` learns the first-order one.

    By default (``pairs="seen"``) a label may only follow a label it followed
    in the training data (a label seen with no successor or no predecessor is
    left free): for IOB chunk labels that keeps the search near first-order
    cost (CoNLL-2000: 145 of 484 pairs, 1,270 trigram steps per token against
    10,648 for every pair), and it rules out sequences the training data never
    shows (``O I-NP``). The pairs are stored in the model and apply when tagging.

    Parameters
    ----------
    features : str or list of str, default "pos"
        Preset name, template file, or specs (as :class:`~chaintag.learners.sapo.SAPO`).
    columns : sequence of str, optional
    n_best : int, default 5
        Size ``n`` of the top-n.
    learning_rate : float, default 0.1
    lr_schedule : {"decay", "fixed"}, default "decay"
        ``gamma_t = gamma_0 / (1 + t / |S|)``, or fixed.
    l2 : float, default 1.0
        Regularization strength ``lambda`` (one step ``1 - gamma lambda / |S|`` per sample).
    stop_ratio : float or None, default None
        Stop the search once a candidate is this many times less probable than the best.
    averaged : bool, default False
        Tag with the average of the weights after every step (exact, lazy).
    pairs : {"seen", "all"}, default "seen"
        Allowed label pairs: those of the training data, or every pair (``O(T L^3)`` search).
    pair_features : bool, default False
        Also conjoin every indicator attribute with the label pair ``(y_{i-1}, y_i)`` at its token
        (from the second token on), as Sha and Pereira's chunking CRF (2003, s. 2); one weight per
        (attribute, pair) seen together in the training data. Real-valued attributes (word-vector
        components) get none.
    epochs : int, default 10
    cc : int, default 0
    feature_space : {"gold", "all"}, default "gold"
    shuffle : bool, default True
    random_state : int, default 0
    hash_bits : int or None, default None
    progress : bool or None, default None

    Attributes
    ----------
    weights_ : float64 array, shape (F + L*L + 2*L + L**3,)
        First-order layout, then ``V[prev2, prev, cur]`` (C order).
    pair_allowed_ : bool array, shape (L, L)
        Allowed pairs ``[prev, cur]``.
    pair_ptr_, pair_code_ : int64 array, shape (n_attributes + 1,); int32 array, shape (n_pair_features,)
        With ``pair_features``: attribute ``a`` has the pair codes ``prev * L + cur`` in
        ``pair_code_[pair_ptr_[a]:pair_ptr_[a+1]]`` (ascending), whose weights follow ``V`` in
        ``weights_``. Empty otherwise.

    Notes
    -----
    Trains on one thread (no Hogwild pass); keeps checkpoints (``checkpoint_dir``, ``resume``); it
    offers n-best output (:meth:`predict_nbest`, exact) and the confidences
    built on it (:meth:`predict_confidence`), constrained and partially
    labelled decoding (``constrain``, ``fixed``: :mod:`chaintag.learners.constrained2`),
    but no marginals; it reads real-valued attributes
    (word vectors). With ``n_best=1``, ``learning_rate=1``,
    ``lr_schedule="fixed"``, ``l2=0`` and ``pairs="all"`` the updates are
    those of the naive second-order perceptron, up to the choice among
    equal-scored sequences (the two searches break ties differently).

    References
    ----------
    X. Sun et al. Towards easier and faster sequence labeling for natural
    language processing: a search-based probabilistic online learning
    framework (SAPO), Algorithm 1 and s. 2 (top-n search).
    M. Collins. Discriminative training methods for hidden Markov models.
    EMNLP 2002 (the trigram model).

    Examples
    --------
    >>> tagger = SecondOrderSAPO(features=["w[0]"], epochs=3)
    >>> _ = tagger.fit([["the", "dog"], ["a", "cat"]], [["D", "N"], ["D", "N"]])
    >>> tagger.predict([["the", "cat"]])
    [['D', 'N']]
    """

    first_order = "sapo"

    algorithm = "sapo2"
    #: span confidence from its top-n sequences (:mod:`chaintag.learners.spans`)
    span_confidence = "top-n"
    _real_values = True
    _keeps_attr_ids = True  # pair features: the kernels read each entry's attribute
    _keeps_checkpoints = True  # the state is float arrays and scalars; the pairs are rebuilt from the data
    tag_dict = False  # no tag dictionary: the pairs restrict the search
    tag_dict_min = 100

    params = (
        *pick("features", "columns"),
        Param("n_best", 5, int, "size of the top-n", low=1, group="SAPO, CRF and MIRA", metavar="N"),
        Param("learning_rate", 0.1, float, "learning rate gamma_0", low=0, low_open=True, group="SAPO, CRF and MIRA",
              metavar="G"),
        Param("lr_schedule", "decay", str, "decay: gamma_0 / (1 + t/|S|); fixed", choices=("decay", "fixed"),
              group="SAPO, CRF and MIRA"),
        Param("l2", 1.0, float, "L2 strength lambda", low=0, group="SAPO, CRF and MIRA", metavar="LAMBDA"),
        Param("stop_ratio", None, float, "stop the top-n search once exp(s_1 - s_k) >= R (variant)", low=1,
              low_open=True, none=True, group="SAPO, CRF and MIRA", metavar="R"),
        *pick("averaged", averaged=False),
        Param("pairs", "seen", str, "label pairs searched: those seen in training, or all", choices=("seen", "all"),
              option=""),
        Param("pair_features", False, bool, "sapo --order 2: also conjoin every indicator attribute with the label "
              "pair (y[i-1], y[i]) at its token (Sha and Pereira 2003)", group="second order"),
        *pick("epochs", "cc", "feature_space", "shuffle", "random_state", "hash_bits", "progress", shuffle=True),
    )

    def fit(self, sentences, labels, dev=None, *, checkpoint_dir=None, resume=False) -> "SecondOrderSAPO":
        """Train on labelled sentences; see :meth:`SequenceTagger.fit`.

        Raises
        ------
        ValueError
            For a setting out of range (:func:`~chaintag.learners.sapo.check_sapo_settings`; ``pairs`` not
            "seen" or "all"; ``pair_features``, ``averaged`` or ``shuffle`` not a bool;
            ``learning_rate * l2 / |S|`` >= 1).
        InputError
            As :meth:`SequenceTagger.fit` (checkpoints included).
        """
        if self.pairs not in ("seen", "all"):
            raise ValueError(f"pairs must be 'seen' or 'all', not {self.pairs!r}")
        for name in ("pair_features", "averaged", "shuffle"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, not {getattr(self, name)!r}")
        check_sapo_settings(self.n_best, self.learning_rate, self.l2, self.lr_schedule, self.stop_ratio)
        return super().fit(sentences, labels, dev, checkpoint_dir=checkpoint_dir, resume=resume)

    def _check_cost(self, rows, labels) -> bool:
        """Refuse a model too big for memory or search (:func:`.second_order_cost.check_cost`), its
        search steps counted over the allowed pairs: ``sum_b in(b) out(b)`` per token. Returns False
        (the passes show their lines as SAPO's do)."""
        from dataclasses import replace

        from .second_order_cost import check_cost, estimate_cost
        names = sorted({lab for ls in labels for lab in ls})
        ids = {lab: k for k, lab in enumerate(names)}
        gold = np.fromiter((ids[lab] for ls in labels for lab in ls), dtype=np.int64)
        sent_ptr = np.zeros(len(labels) + 1, dtype=np.int64)
        np.cumsum([len(ls) for ls in labels], out=sent_ptr[1:])
        ok = pair_matrix(gold, sent_ptr, len(names), self.pairs == "seen")
        cost = estimate_cost(len(names), [len(s) for s in rows], None, False)
        # the weights v, and with averaging the sums u and acc as well (pair features not counted)
        self.cost_ = replace(cost, steps_per_epoch=int(len(gold) * (ok.sum(axis=0) @ ok.sum(axis=1))),
                             weight_bytes=cost.weight_bytes * (3 if self.averaged else 1))
        check_cost(self.cost_, int(self.epochs))
        return False

    def _check_weight_memory(self, weight_bytes: int) -> None:
        """Refuse, before allocating them, weights that with the search lattice exceed the memory limit.

        Before extraction :meth:`_check_cost` counts the trigram and bigram weights only; here, with
        the attributes known, ``weight_bytes`` counts every weight vector (features, trigram weights and
        pair features; three copies when averaged) and ``cost_`` is updated to it.

        Raises
        ------
        chaintag.errors.TrainingError
            As :func:`.second_order_cost.check_cost`.
        """
        from dataclasses import replace

        from .second_order_cost import check_cost
        cost = getattr(self, "cost_", None)
        if cost is None:
            return
        self.cost_ = replace(cost, weight_bytes=int(weight_bytes))
        check_cost(self.cost_, int(self.epochs))

    def _lists(self):
        return pair_lists(self.pair_allowed_)

    def _begin(self, data: TrainData) -> dict:
        n_train = data.attrs.n_sentences
        shrink = self.learning_rate * self.l2 / n_train
        if shrink >= 1:
            raise ValueError(f"learning_rate * l2 / |S| = {shrink:g} must be below 1")
        L = data.index.n_labels
        self.pair_allowed_ = pair_matrix(data.gold, data.attrs.sent_ptr, L, self.pairs == "seen")
        self.pair_ptr_, self.pair_code_ = (pair_feature_index(data.attrs, data.gold, L, self.extractor_.n_attributes,
                                                              data.ent_val)
                                           if self.pair_features else _no_pair_features())
        n = data.index.n_weights + L ** 3 + len(self.pair_code_)
        avg = bool(self.averaged)
        self._check_weight_memory(n * 8 * (3 if avg else 1))
        return {"v": np.zeros(n), "sigma": 1.0, "step": 0, "n_train": n_train, "lists": self._lists(),
                "u": np.zeros(n if avg else 1), "acc": np.zeros(n if avg else 1), "sigma_sum": 0.0}

    def _run_epoch(self, state: dict, data: TrainData, order: np.ndarray) -> dict:
        a = data.attrs
        valued = data.ent_val is not None
        sigma, step, n_updates, n_errors, loss, sigma_sum = sapo2_epoch(
            order, a.sent_ptr, a.tok_ptr, data.ent_lo, data.ent_n, data.ent_val if valued else _NO_VALUES,
            valued, data.gold, data.index.feat_label, state["v"], state["sigma"], state["step"],
            data.index.n_labels, *state["lists"], int(self.n_best),
            math.log(self.stop_ratio) if self.stop_ratio else np.inf, float(self.learning_rate),
            self.lr_schedule == "decay", float(self.l2), state["n_train"], bool(self.averaged),
            state["u"], state["acc"], state["sigma_sum"], *self._pair_args(data.attrs))
        if self.averaged:
            fold_average(state["v"], state["u"], state["acc"], sigma_sum)
            sigma_sum = 0.0
        if sigma != 1.0:
            sigma = fold_scale(state["v"], sigma)
        state["sigma"], state["step"], state["sigma_sum"] = sigma, step, sigma_sum
        return {"updates": int(n_updates), "errors": int(n_errors), "loss": float(loss)}

    def _current_weights(self, state: dict) -> np.ndarray:
        if self.averaged and state["step"] > 0:
            return state["acc"] / state["step"]
        return state["sigma"] * state["v"]

    def _kernel_args(self, attrs, weights=None):
        """The corpus kernels' arguments up to the pair features (entries, values, weights, pairs)."""
        n_labels = len(self.labels_)
        w = self.weights_ if weights is None else weights
        ent_lo, ent_n = feature_entries(attrs.attr_ids, self.feature_index_.feat_ptr, n_labels)
        values = getattr(attrs, "attr_values", None)
        return (attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n,
                _NO_VALUES if values is None else np.ascontiguousarray(values, dtype=np.float64),
                values is not None, self.feature_index_.feat_label, np.ascontiguousarray(w, dtype=np.float64),
                n_labels, *self._lists(), *self._pair_args(attrs))

    def _tag_ids(self, attrs, weights=None, word_ids=None, *, fixed=None, best=None) -> np.ndarray:
        """Best valid second-order labels of every token (the allowed pairs applied).

        With ``fixed`` (int32, shape (n_tokens,), -1: free) or ``best`` (float64, shape
        (n_sentences,), receiving each sentence's best score, ``-inf`` where no sequence satisfies
        the constraints), the search of :meth:`_search` (constrained decoding,
        :mod:`chaintag.learners.constrained2`); ``weights`` may then hold ``-inf``.
        """
        out = np.zeros(attrs.n_tokens, dtype=np.int32)
        if len(self.labels_) == 0 or attrs.n_tokens == 0:
            return out
        if fixed is None and best is None:
            tag_corpus_sapo2(*self._kernel_args(attrs, weights), _NO_FIXED, out)
            return out
        paths, scores, found = self._search(attrs, 1, weights, fixed)
        if best is not None:
            best[:] = np.where(found > 0, scores[:, 0], -np.inf)
            best[np.diff(attrs.sent_ptr) == 0] = 0.0
        return paths[0]

    def _search(self, attrs, k: int, weights=None, fixed=None):
        """``(paths, scores, found)`` of the exact top-k A* over the allowed label pairs (as
        :meth:`_nbest_arrays`), with ``weights`` (default ``weights_``; may hold ``-inf``) and
        ``fixed`` labels (int32, shape (n_tokens,), -1: free; None: none).

        A sentence with no sequence over the pairs seen in training that satisfies the constraints
        (fixed labels that need an unseen pair) is searched again over every pair; ``found`` is 0
        for a sentence where no sequence at all satisfies them.
        """
        paths = np.zeros((k, attrs.n_tokens), dtype=np.int32)
        scores = np.zeros((attrs.n_sentences, k))
        found = np.zeros(attrs.n_sentences, dtype=np.int32)
        if not attrs.n_tokens:
            return paths, scores, found
        fix = _NO_FIXED if fixed is None else np.ascontiguousarray(fixed, dtype=np.int32)
        args = list(self._kernel_args(attrs, weights))
        nbest_corpus_sapo2(*args, fix, k, paths, scores, found)
        empty = np.flatnonzero((found == 0) & (np.diff(attrs.sent_ptr) > 0))
        if len(empty) and not self.pair_allowed_.all():
            args[9:13] = pair_lists(np.ones_like(self.pair_allowed_))  # (succ_ptr, succ, pred_ptr, pred): every pair
            for s in empty.tolist():
                args[0] = attrs.sent_ptr[s:s + 2]  # that sentence alone (the kernels read tokens by corpus index)
                one_scores, one_found = np.zeros((1, k)), np.zeros(1, dtype=np.int32)
                nbest_corpus_sapo2(*args, fix, k, paths, one_scores, one_found)
                scores[s], found[s] = one_scores[0], one_found[0]
        return paths, scores, found

    def _nbest_arrays(self, attrs, k: int, constrain=False, fixed=None):
        if constrain or fixed is not None:
            from . import constrained2
            return constrained2.nbest(self, attrs, k, constrain, fixed)
        return self._search(attrs, k)

    def predict_nbest(self, sentences, k: int = 5, *, constrain=False, fixed=None):
        """The ``k`` best valid label sequences of each sentence, with scores and top-k probabilities.

        As :meth:`chaintag.learners.inference.InferenceMixin.predict_nbest`, by the second-order A*
        over the allowed label pairs; the first sequence is :meth:`predict`'s (the same search).
        ``constrain`` and ``fixed`` as in :meth:`predict`: only the sequences that satisfy them
        are searched (fewer than ``k`` when fewer exist).

        Raises
        ------
        ValueError
            If ``k < 1``, or ``constrain`` on labels that follow no chunk scheme.
        InputError
            Fixed labels of the wrong shape, unknown to the model, or that no valid sequence can satisfy.
        """
        from .inference import InferenceMixin
        return InferenceMixin.predict_nbest(self, sentences, k, constrain=constrain, fixed=fixed)

    def _pair_args(self, attrs):
        """(use_pairs, attr_ids, pf_ptr, pf_code) for the kernels."""
        ptr, code = getattr(self, "pair_ptr_", None), getattr(self, "pair_code_", None)
        if ptr is None or not len(code):
            return (False, np.zeros(0, dtype=np.int32), *_no_pair_features())
        return True, attrs.attr_ids, ptr, code

    def save(self, path) -> None:
        """Save the fitted model with its trigram weights and allowed label pairs (npz + JSON, atomic).

        Raises
        ------
        RuntimeError, ValueError
            As :meth:`SequenceTagger.save`.
        """
        super().save(path)
        meta, arrays = load_model(path)
        arrays["pair_allowed"] = self.pair_allowed_.astype(np.uint8)
        arrays["pair_feature_ptr"] = self.pair_ptr_
        arrays["pair_feature_code"] = self.pair_code_
        save_model(path, meta, arrays)

    @classmethod
    def _from_saved(cls, meta: dict, arrays: dict) -> "SecondOrderSAPO":
        L = len(meta["labels"])
        try:
            ptr = np.asarray(arrays["pair_feature_ptr"], dtype=np.int64)
            code = np.asarray(arrays["pair_feature_code"], dtype=np.int32)
        except KeyError:
            raise ModelFormatError("model has no pair-feature arrays") from None
        weights = np.asarray(arrays["weights"], dtype=np.float64)
        n_pair = len(code)
        if n_pair and (len(ptr) != int(meta.get("n_attributes", -1)) + 1 or ptr[0] != 0 or ptr[-1] != n_pair
                       or np.any(np.diff(ptr) < 0) or code.min() < 0 or code.max() >= L * L):
            raise ModelFormatError("the pair-feature arrays are inconsistent")
        if len(weights) < n_pair:
            raise ModelFormatError("model arrays are inconsistent (weights and features differ in size)")
        model = super()._from_saved(meta, dict(arrays, weights=weights[:len(weights) - n_pair]))
        model.weights_ = weights
        model.pair_ptr_, model.pair_code_ = (ptr, code) if n_pair else _no_pair_features()
        try:
            allowed = np.asarray(arrays["pair_allowed"])
        except KeyError:
            raise ModelFormatError("model has no allowed label pairs (pair_allowed)") from None
        if allowed.shape != (L, L) or not np.isin(allowed, (0, 1)).all():
            raise ModelFormatError("the allowed label pairs are inconsistent with the labels")
        allowed = allowed.astype(bool)
        if L and (not allowed.any(axis=1).all() or not allowed.any(axis=0).all()):
            raise ModelFormatError("the allowed label pairs leave a label with no successor or predecessor")
        model.pair_allowed_ = allowed
        return model
