"""Inference beyond the best path, shared by the linear-chain learners.

:class:`InferenceMixin` gives every fitted model the k best sequences with
their top-k probabilities, per-token confidence from the top-k, and
forward-backward marginals. It relies on the estimator's fitted attributes
(``labels_``, ``columns_``, ``extractor_``, ``feature_index_``, ``weights_``).
"""

from __future__ import annotations

import numpy as np

from ..decoding.scoring import feature_entries


class InferenceMixin:
    """n-best, confidence and marginals for models with first-order linear-chain scores."""

    def predict_nbest(self, sentences, k: int = 5, *, constrain=False,
                      fixed=None) -> list[list[tuple[list[str], float, float]]]:
        """The ``k`` best label sequences of each sentence, with scores and top-k probabilities.

        Parameters
        ----------
        sentences : sequence of sequences of tokens
        k : int, default 5
        constrain, fixed
            Scheme constraints and partial labels, as in ``predict``: only
            sequences that satisfy them are returned (fewer than ``k`` when
            fewer exist).

        Returns
        -------
        list (one per sentence) of lists of ``(labels, score, probability)``
            Best first (exact A* search). ``probability`` is
            ``exp(score) / sum of exp(score)`` over the returned top-k: a
            distribution over these k sequences only, not a CRF posterior;
            it is meaningful for probabilistically trained models (SAPO) and
            only a relative confidence for the perceptron.

        Raises
        ------
        ValueError
            If ``k < 1``.
        """
        from ..decoding.nbest import nbest_corpus

        self._check_fitted()
        if k < 1:
            raise ValueError("k must be at least 1")
        rows = self._rows(sentences)
        attrs = self.extractor_.transform(rows)
        n_sent = attrs.n_sentences
        paths = np.zeros((k, attrs.n_tokens), dtype=np.int32)
        scores = np.zeros((n_sent, k))
        found = np.zeros(n_sent, dtype=np.int32)
        if constrain or fixed is not None:
            from . import constrained
            paths, scores, found = constrained.nbest(self, attrs, k, constrain, fixed)
        elif attrs.n_tokens:
            ent_lo, ent_n = feature_entries(attrs.attr_ids, self.feature_index_.feat_ptr, len(self.labels_))
            nbest_corpus(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, self.feature_index_.feat_label,
                         self.weights_, len(self.labels_), k, paths, scores, found)
        labs = self.labels_
        bounds = attrs.sent_ptr.tolist()
        out = []
        for s in range(n_sent):
            t0, t1 = bounds[s], bounds[s + 1]
            if t1 == t0:
                out.append([([], 0.0, 1.0)])
                continue
            sc = scores[s, :found[s]]
            p = np.exp(sc - sc.max())
            p /= p.sum()
            out.append([([labs[j] for j in paths[r, t0:t1].tolist()], float(sc[r]), float(p[r]))
                        for r in range(found[s])])
        return out

    def predict_marginals(self, sentences, *, constrain=False, fixed=None) -> list[np.ndarray]:
        """Token marginals ``P(y_i = l | x)`` by forward-backward over the model's scores.

        For CRF-trained models (``crf``, ``crf-lbfgs``) these are the model's
        own posterior marginals. For other learners they are the marginals of
        ``exp(score)``, which those learners were not trained to calibrate.
        With ``constrain`` or ``fixed`` (as in ``predict``) they are the
        marginals of that distribution restricted to the valid sequences.

        Returns
        -------
        list of float64 arrays, shape (n_tokens, n_labels)
            One per sentence; columns follow ``labels_``; rows sum to 1.
        """
        from .crf_kernels import marginals_corpus
        if constrain or fixed is not None:
            from . import constrained
            self._check_fitted()
            attrs = self.extractor_.transform(self._rows(sentences))
            out = constrained.marginals(self, attrs, constrain, fixed)
            bounds = attrs.sent_ptr.tolist()
            return [out[bounds[s]:bounds[s + 1]] for s in range(len(bounds) - 1)]
        return self._marginals_with(marginals_corpus, sentences)

    def _marginals_with(self, kernel, sentences) -> list[np.ndarray]:
        """Per-sentence token marginals filled by the compiled corpus ``kernel``
        (``kernel(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels, out)``)."""
        self._check_fitted()
        rows = self._rows(sentences)
        attrs = self.extractor_.transform(rows)
        L = len(self.labels_)
        out = np.zeros((attrs.n_tokens, L))
        if attrs.n_tokens:
            ent_lo, ent_n = feature_entries(attrs.attr_ids, self.feature_index_.feat_ptr, L)
            kernel(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, self.feature_index_.feat_label, self.weights_, L,
                   out)
        bounds = attrs.sent_ptr.tolist()
        return [out[bounds[s]:bounds[s + 1]] for s in range(len(bounds) - 1)]

    def predict_confidence(self, sentences, k: int = 5, *, constrain=False,
                           fixed=None) -> tuple[list[list[str]], list[list[float]]]:
        """Best labels and, per token, the probability of its label estimated from the top-k.

        The confidence of a token is the summed top-k probability (see
        :meth:`predict_nbest`) of the sequences that give it the same label as
        the best sequence: 1.0 when all k agree. Not a CRF marginal.

        Returns
        -------
        labels : list of list of str
        confidence : list of list of float, each in (0, 1]
        """
        labels, conf = [], []
        kw = {"constrain": constrain, "fixed": fixed} if constrain or fixed is not None else {}
        for cands in self.predict_nbest(sentences, k, **kw):
            best = cands[0][0]
            c = [0.0] * len(best)
            for labs, _, p in cands:
                for i, lab in enumerate(labs):
                    if lab == best[i]:
                        c[i] += p
            labels.append(best)
            conf.append([min(1.0, x) for x in c])
        return labels, conf

