"""The maximum-entropy tagger (Ratnaparkhi 1996), the baseline of Collins (2002, s. 4).

A locally normalized model: each label is predicted from its history
``h_i = (t_{i-1}, x, i)`` by a multinomial logistic regression,

    P(t_i = l | h_i) = exp(E[i, l] + U[t_{i-1}, l]) / sum_k exp(E[i, k] + U[t_{i-1}, k]),

where ``E[i, l] = sum_{a in a(x, i)} W[a, l]`` sums the weights of the
token's attributes and ``U[prev, l]`` is the weight of the previous label
(``start[l]`` for the first token, whose "previous label" is the sentence
start). Training is plain classification of tokens with the gold previous
label in the history, by scikit-learn's ``LogisticRegression`` (L2,
inverse strength ``C``). Tagging maximizes the product of the local
probabilities over the whole sentence by Viterbi:

    delta[i, l] = max_{l'} delta[i-1, l'] + log P(l | x, i, prev=l')

with ``log P(l | ., prev=l') = E[i, l] + U[l', l] - logsumexp_k(E[i, k] + U[l', k])``:
``O(T L^2)`` additions and exponentials per sentence. The normalizer
depends on the position *and* the previous label, so this is not the
linear-chain Viterbi of :mod:`chaintag.decoding.viterbi` (whose transitions
do not depend on the position); the kernel here does it.

Weights are stored in the shared flat layout (:mod:`chaintag.features.space`)
with the ``all`` feature space: every label for every kept attribute, the
intercept folded into the bias attribute (which fires on every token), the
previous-label coefficients as transitions ``U[prev, cur]``, the sentence-start
coefficients as ``start``, and ``end = 0`` (a local model has no end
weights). Saving and loading are the base class's.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from ..decoding.scoring import entry_values, feature_entries
from ..features.extract import Attributes
from ..features.space import FeatureIndex
from .base import SequenceTagger, TrainData, register
from .params import Param, pick
from .finite import check_weights
from .maxent_kernels import (local_log_proba, local_marginals_kernel, local_viterbi_kernel,  # noqa: F401
                             marginals_corpus_local, tag_corpus_local)

#: Solvers of ``LogisticRegression`` that minimize the multinomial loss with an L2 penalty.
SOLVERS = ("saga", "lbfgs", "sag", "newton-cg")


# ------------------------------------------------------------------ training
def previous_labels(sent_ptr, labels, n_labels: int) -> np.ndarray:
    """Previous label of every token, ``n_labels`` (the start symbol) at sentence starts.

    Parameters
    ----------
    sent_ptr : int64 array, shape (n_sentences + 1,)
    labels : int array, shape (n_tokens,)
    n_labels : int

    Returns
    -------
    int64 array, shape (n_tokens,)
    """
    labels = np.asarray(labels, dtype=np.int64)
    prev = np.empty(len(labels), dtype=np.int64)
    if len(labels):
        prev[0] = n_labels
        prev[1:] = labels[:-1]
        starts = np.asarray(sent_ptr[:-1], dtype=np.int64)
        prev[starts[starts < len(labels)]] = n_labels
    return prev


def design_matrix(tok_ptr, attr_ids, prev, n_attributes: int, n_labels: int, values=None):
    """Sparse design matrix of the token classifier.

    Parameters
    ----------
    tok_ptr : int64 array, shape (n_tokens + 1,)
    attr_ids : int array, shape (n_entries,)
        Attribute ids in ``0 .. n_attributes - 1`` (CSR with ``tok_ptr``).
    prev : int array, shape (n_tokens,)
        Previous label of each token, ``n_labels`` for the sentence start
        (:func:`previous_labels`).
    n_attributes, n_labels : int
    values : float64 array, shape (n_entries,), optional
        Real value of every attribute entry (feature-dict numbers); 1 when None.

    Returns
    -------
    scipy.sparse.csr_matrix, float64, shape (n_tokens, n_attributes + n_labels + 1)
        Row ``i``: a 1 in the column of each attribute of token ``i``, and a 1
        in column ``n_attributes + prev[i]`` (previous-label indicators, the
        last one for the sentence start).
    """
    from ..lazy import require
    csr_matrix = require("scipy.sparse", "maxent", "the maxent tagger").csr_matrix

    tok_ptr = np.asarray(tok_ptr, dtype=np.int64)
    n_tokens = len(tok_ptr) - 1
    indptr = tok_ptr + np.arange(n_tokens + 1, dtype=np.int64)
    nnz = int(indptr[-1])
    indices = np.empty(nnz, dtype=np.int64)
    is_prev = np.zeros(nnz, dtype=bool)
    is_prev[indptr[1:] - 1] = True
    indices[~is_prev] = attr_ids
    indices[is_prev] = n_attributes + np.asarray(prev, dtype=np.int64)
    index_type = np.int32 if max(nnz, n_attributes + n_labels + 1) < 2 ** 31 else np.int64
    data = np.ones(nnz)
    if values is not None:
        data[~is_prev] = values
    return csr_matrix((data, indices.astype(index_type), indptr.astype(index_type)),
                      shape=(n_tokens, n_attributes + n_labels + 1))


def fold_coefficients(coef, intercept, n_attributes: int, n_labels: int, bias_attribute: int | None = 0):
    """Flat weights (``all`` feature space) of a fitted token classifier.

    Parameters
    ----------
    coef : float array, shape (n_labels, n_attributes + n_labels + 1), or (1, ...) when ``n_labels == 2``
        ``LogisticRegression.coef_`` over the columns of :func:`design_matrix`.
        A binary (sigmoid) model ``P(1) = sigma(w x + b)`` is the softmax
        with weights ``0`` for label 0 and ``w`` for label 1.
    intercept : float array, shape (n_labels,) or (1,)
        ``LogisticRegression.intercept_``.
    n_attributes, n_labels : int
    bias_attribute : int or None, default 0
        Attribute that fires on every token, which takes the intercept. With
        None the intercept goes to every previous-label weight instead
        (exactly one of them fires on every token), which is the same model.

    Returns
    -------
    float64 array, shape (n_attributes * n_labels + n_labels * n_labels + 2 * n_labels,)
        Features ``W[a, l]`` at ``a * n_labels + l``, then ``U[prev, cur]``,
        start, and end (zeros).
    """
    coef = np.asarray(coef, dtype=np.float64)
    intercept = np.asarray(intercept, dtype=np.float64).ravel()
    if coef.shape[0] == 1 and n_labels == 2:
        coef = np.vstack([np.zeros_like(coef), coef])
        intercept = np.array([0.0, intercept[0]])
    per_label = coef.T  # (n_attributes + n_labels + 1, n_labels)
    W = per_label[:n_attributes].copy()
    prev_rows = per_label[n_attributes:].copy()  # (n_labels + 1, n_labels): U then start
    if bias_attribute is not None:
        W[bias_attribute] += intercept
    else:
        prev_rows += intercept
    return np.concatenate([W.ravel(), prev_rows[:n_labels].ravel(), prev_rows[n_labels],
                           np.zeros(n_labels)])


def full_feature_index(n_attributes: int, n_labels: int) -> FeatureIndex:
    """The ``all`` feature space over ``n_attributes`` attributes (every label for each)."""
    feat_ptr = np.arange(n_attributes + 1, dtype=np.int64) * n_labels
    feat_label = np.tile(np.arange(n_labels, dtype=np.int32), n_attributes)
    return FeatureIndex(feat_ptr, feat_label, n_labels)


@register
class MaxEnt(SequenceTagger):
    """Maximum-entropy (locally normalized) tagger, decoded by Viterbi.

    A multinomial logistic regression predicts each label from the token's
    attributes and the previous label (Ratnaparkhi 1996; the baseline that
    Collins 2002, s. 4, compares the perceptron with). It is trained once,
    on the tokens with their *gold* previous labels, by scikit-learn; tagging
    finds the sequence with the highest product of local probabilities.

    Parameters
    ----------
    features : str or list of str, default "pos"
        Preset name (``chunking``, ``pos``, ``ner``), template file, or specs.
    columns : sequence of str, optional
        Names of the token columns (default ``word``, ``pos``, ...).
    C : float, default 1.0
        Inverse L2 strength of ``LogisticRegression``: the objective is
        ``C * sum_i -log P(t_i | h_i) + ||w||^2 / 2`` (the intercept is not
        penalized).
    max_iter : int, default 100
        Iterations of the solver (passes over the tokens for ``saga``).
    tol : float, default 1e-3
        Stopping tolerance of the solver: for ``saga``/``sag``, the largest
        change of a weight in one pass relative to the largest weight; for
        ``lbfgs``, the projected gradient (scikit-learn's default there is 1e-4).
    solver : {"saga", "lbfgs", "sag", "newton-cg"}, default "saga"
        ``saga`` (stochastic, lazy sparse updates) reaches the test scores of
        the ``lbfgs`` optimum in a quarter of the time on CoNLL-2000, where
        the 7 million weights make each L-BFGS iteration slow.
    cc : int, default 0
        Count cut-off. With ``feature_space="gold"``, an attribute is kept
        when at least one of its (attribute, label) pairs occurs ``cc`` times
        (as in the other learners; the attributes whose pairs all fall under
        the cut-off are dropped); with ``"all"``, when the attribute occurs
        ``cc`` times.
    feature_space : {"gold", "all"}, default "gold"
        Only selects the attributes through ``cc``: the model always has a
        weight for every label of every kept attribute (a logistic regression
        has no sparse label sets).
    random_state : int, default 0
        Seed of the ``sag``/``saga`` solvers (``lbfgs`` is deterministic).

    Attributes
    ----------
    weights_ : float64 array
        Flat weights in the ``all`` space (see the module notes): intercept
        in the bias attribute, previous-label weights as transitions
        ``[prev, cur]``, sentence-start weights as ``start``, ``end = 0``.
    history_ : list of one dict
        ``seconds``, ``cpu_seconds``, ``n_iter`` (solver iterations),
        ``converged``, ``train_log_loss`` (mean negative log-likelihood of the
        gold labels with gold histories), ``weight_complexity`` (mean ``|w|``),
        and ``dev_accuracy``, ``dev_f1``, ``dev_score`` when ``dev`` is given.
    best_epoch_ : int
        Always 1 (one fit; there are no epochs).

    Notes
    -----
    Deviations from Ratnaparkhi (1996): the history has the previous label
    only (first order, no ``t_{i-2}``), so exact Viterbi replaces his beam
    search; the model is fitted by SAGA (or L-BFGS, SAG) with an L2 penalty
    instead of generalized iterative scaling with a feature cut-off alone;
    there is no tag dictionary. ``dev`` data is only scored, there is no
    epoch to choose. :meth:`predict_marginals` gives the exact marginals of
    the local model (a forward pass); :meth:`predict_nbest` and
    :meth:`predict_confidence` are not available (the A* search assumes a
    globally scored chain).

    References
    ----------
    A. Ratnaparkhi. A maximum entropy model for part-of-speech tagging.
    EMNLP 1996.
    M. Collins. Discriminative training methods for hidden Markov models:
    theory and experiments with perceptron algorithms. EMNLP 2002, s. 4.

    Examples
    --------
    >>> tagger = MaxEnt(features=["w[0]"], C=10.0)
    >>> _ = tagger.fit([["the", "dog"], ["a", "cat"]], [["D", "N"], ["D", "N"]])
    >>> tagger.predict([["the", "cat"]])
    [['D', 'N']]
    """

    supports_checkpoints = False  # one solver run

    constrained_decoding = False  # local probabilities, its own Viterbi
    #: why (chaintag.learners.constrained names it when refusing constrain= and fixed=)
    constrained_decoding_absent = "it decodes its local probabilities with a Viterbi of its own"

    algorithm = "maxent"
    #: no span confidence: it has no n-best search (:mod:`chaintag.learners.spans`)
    span_confidence = None
    _real_values = True  # feature-dict numbers: the design matrix and the kernels' values (ent_val)

    params = (
        *pick("features", "columns"),
        Param("C", 1.0, float, "inverse L2 strength of the maxent tagger", low=0, low_open=True, option="--maxent-c",
              group="maximum entropy", metavar="C"),
        Param("max_iter", 100, int, "solver iterations", low=1, option=""),
        Param("tol", 1e-3, float, "solver tolerance", low=0, low_open=True, option=""),
        Param("solver", "saga", str, "scikit-learn solver of the maxent tagger", choices=("saga", "lbfgs"),
              option="--maxent-solver", group="maximum entropy"),
        *pick("cc", "feature_space", "random_state", "hash_bits"),
    )

    def _check(self) -> None:
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {', '.join(SOLVERS)}, not {self.solver!r}")
        if not self.C > 0:
            raise ValueError(f"C must be > 0, not {self.C!r}")
        if int(self.max_iter) < 1:
            raise ValueError("max_iter must be at least 1")

    def _classifier(self):
        """The (unfitted) scikit-learn token classifier of these hyper-parameters."""
        from ..lazy import require
        LogisticRegression = require("sklearn.linear_model", "maxent", "the maxent tagger").LogisticRegression

        return LogisticRegression(C=float(self.C), solver=self.solver, max_iter=int(self.max_iter),
                                  tol=float(self.tol), random_state=self.random_state)

    def fit(self, sentences, labels, dev=None, *, checkpoint_dir=None, resume=False) -> "MaxEnt":
        """Train on labelled sentences.

        Parameters
        ----------
        sentences : sequence of sequences of tokens
            A token is a string (one column) or a tuple of column strings.
        labels : sequence of sequences of str
            Gold labels, one per token.
        dev : tuple (sentences, labels), optional
            Held-out data, scored once after training (recorded in ``history_``).
        checkpoint_dir, resume
            Not supported (one call of the solver, no epochs to resume from):
            ``checkpoint_dir`` must be None.

        Returns
        -------
        self

        Raises
        ------
        InputError
            On empty data, length mismatches, or templates reading missing columns.
        InputError
            When ``checkpoint_dir`` is given.
        ValueError
            For an unknown solver, ``C <= 0`` or ``max_iter < 1``.
        """
        if checkpoint_dir or resume:
            from ..errors import InputError
            raise InputError("maxent keeps no checkpoints (one call of the solver, no epochs)")
        self._check()
        return super().fit(sentences, labels, dev=dev)

    def _train(self, data: TrainData, dev_pack, checkpoint_dir=None, resume=False, trainer=None) -> None:
        from ..lazy import require
        ConvergenceWarning = require("sklearn.exceptions", "maxent", "the maxent tagger").ConvergenceWarning

        index = data.index
        n_labels = index.n_labels
        n_attributes = len(index.feat_ptr) - 1
        # the base class keeps only the feature entries; every kept attribute
        # owns at least one feature, so feat_ptr is strictly increasing over
        # attributes and the first feature of an entry gives its attribute back
        attr_ids = np.searchsorted(index.feat_ptr, np.asarray(data.ent_lo, dtype=np.int64),
                                   side="right") - 1
        a = data.attrs
        t0, c0 = time.perf_counter(), time.process_time()
        prev = previous_labels(a.sent_ptr, data.gold, n_labels)
        X = design_matrix(a.tok_ptr, attr_ids, prev, n_attributes, n_labels, data.ent_val)
        del attr_ids, prev
        # the bias template comes first; it is attribute 0 unless the cut-off dropped it
        # (feature-dict tokens have no such attribute: the intercept goes to the previous-label weights)
        templates = getattr(self.extractor_, "templates", None)
        has_bias = bool(templates) and (not templates[0].atoms) and self.extractor_.attr_offset[1] == 1
        n_iter, converged = 0, True
        if n_labels >= 2:
            clf = self._classifier()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                from ..progress import progress_mode, step
                with step(progress_mode(getattr(self, "progress", None)),
                          f"maxent: {self.solver} solver on {X.shape[0]} tokens x {X.shape[1]} columns"):
                    clf.fit(X, data.gold)
            converged = not any(issubclass(c.category, ConvergenceWarning) for c in caught)
            for c in caught:
                if not issubclass(c.category, ConvergenceWarning):
                    warnings.warn_explicit(c.message, c.category, c.filename, c.lineno)
            n_iter = int(np.max(clf.n_iter_))
            weights = fold_coefficients(clf.coef_, clf.intercept_, n_attributes, n_labels,
                                        0 if has_bias else None)
            proba = clf.predict_proba(X)
            gold_p = proba[np.arange(len(data.gold)), data.gold]
            train_log_loss = float(-np.mean(np.log(np.maximum(gold_p, 1e-300))))
            del clf, proba
        else:
            weights = np.zeros(full_feature_index(n_attributes, n_labels).n_weights)
            train_log_loss = 0.0
        seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
        self.feature_index_ = full_feature_index(n_attributes, n_labels)
        self.weights_ = np.ascontiguousarray(weights, dtype=np.float64)
        check_weights(self, self.weights_, data, 1)  # NumericalError on NaN or inf (finite.py)
        self.best_epoch_ = 1
        record = {"epoch": 1, "seconds": seconds, "cpu_seconds": cpu_seconds, "n_iter": n_iter,
                  "converged": converged, "train_log_loss": train_log_loss,
                  "weight_complexity": float(np.abs(self.weights_).mean()) if len(self.weights_) else 0.0}
        if dev_pack is not None:
            result = self._evaluate_attrs(self.weights_, *dev_pack)
            record["dev_accuracy"] = result.accuracy
            record["dev_f1"] = result.f1 if result.is_chunking else None
            record["dev_score"] = result.f1 if result.is_chunking else result.accuracy
        self.history_ = [record]

    # ------------------------------------------------------------- predicting
    def _tag_ids(self, attrs: Attributes, weights: np.ndarray | None = None) -> np.ndarray:
        out = np.zeros(attrs.n_tokens, dtype=np.int32)
        w = self.weights_ if weights is None else weights
        n_labels = len(self.labels_)
        if n_labels == 0 or attrs.n_tokens == 0:
            return out
        ent_lo, ent_n = feature_entries(attrs.attr_ids, self.feature_index_.feat_ptr, n_labels)
        # 0/1 attributes (no values: an empty array) or real-valued attributes alike
        tag_corpus_local(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, entry_values(attrs),
                         self.feature_index_.feat_label, np.ascontiguousarray(w, dtype=np.float64), n_labels, out)
        return out

    def local_log_proba(self, sentences, labels=None) -> list[np.ndarray]:
        """Local log-probabilities ``log P(l | x, i, prev)`` of every token.

        Parameters
        ----------
        sentences : sequence of sequences of tokens
        labels : sequence of sequences of str, optional
            The previous labels to condition on (typically gold); without
            them, the labels predicted by :meth:`predict`.

        Returns
        -------
        list of float64 arrays, shape (n_tokens_of_sentence, n_labels)
            Columns in the order of ``labels_``; each row sums to 1 in
            probability space.
        """
        from .base import as_rows

        self._check_fitted()
        rows = self._rows(sentences)
        attrs = self.extractor_.transform(rows)
        n_labels = len(self.labels_)
        if labels is None:
            ids = self._tag_ids(attrs)
        else:
            label_id = {lab: k for k, lab in enumerate(self.labels_)}
            flat = [str(lab) for ls in labels for lab in ls]
            unknown = sorted(set(flat) - set(label_id))
            if unknown:
                raise ValueError(f"labels not seen in training: {', '.join(unknown[:5])}")
            ids = np.fromiter(map(label_id.__getitem__, flat), dtype=np.int64, count=len(flat))
            if len(ids) != attrs.n_tokens:
                raise ValueError(f"{len(ids)} labels for {attrs.n_tokens} tokens")
        prev = previous_labels(attrs.sent_ptr, ids, n_labels)
        F = self.feature_index_.n_features
        W = self.weights_[:F].reshape(-1, n_labels)
        trans = self.weights_[F:F + n_labels * n_labels].reshape(n_labels, n_labels)
        start = self.weights_[F + n_labels * n_labels:F + n_labels * n_labels + n_labels]
        E = np.zeros((attrs.n_tokens, n_labels))
        tok_of_entry = np.repeat(np.arange(attrs.n_tokens), np.diff(attrs.tok_ptr))
        values = getattr(attrs, "attr_values", None)
        np.add.at(E, tok_of_entry, W[attrs.attr_ids] if values is None else values[:, None] * W[attrs.attr_ids])
        logp = local_log_proba(E, trans, start, prev)
        bounds = attrs.sent_ptr.tolist()
        return [logp[bounds[s]:bounds[s + 1]] for s in range(len(bounds) - 1)]

    def predict_marginals(self, sentences, *, constrain=False, fixed=None) -> list[np.ndarray]:
        """Token marginals ``P(t_i = l | x)`` of the model's distribution over label sequences.

        The distribution is the product of the local probabilities, so the
        marginals come from one forward pass (:func:`local_marginals_kernel`).

        Returns
        -------
        list of float64 arrays, shape (n_tokens, n_labels)
            One per sentence; columns follow ``labels_``; rows sum to 1.

        Raises
        ------
        NotImplementedError
            For ``constrain`` or ``fixed``, as :meth:`predict`.
        """
        if constrain or fixed is not None:
            from .constrained import _check_model
            _check_model(self)
        return self._marginals_with(marginals_corpus_local, sentences)

    def predict_nbest(self, sentences, k: int = 5, *, constrain=False, fixed=None):
        """Not available for a locally normalized model.

        Raises
        ------
        NotImplementedError
            Always: the n-best search (and :meth:`predict_confidence`, built on
            it) scores globally normalized chains; use :meth:`predict`.
        """
        raise NotImplementedError(
            "MaxEnt is locally normalized: n-best search and top-k confidence are not "
            "implemented for it; use predict()")
