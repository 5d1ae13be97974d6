"""Inference beyond the best path, shared by the linear-chain learners.

:class:`InferenceMixin` gives every fitted model the k best sequences with
their top-k probabilities, per-token confidence from the top-k, and
forward-backward marginals. It relies on the estimator's fitted attributes
(``labels_``, ``columns_``, ``extractor_``, ``feature_index_``, ``weights_``).
"""

from __future__ import annotations

import numpy as np

from ..decoding.scoring import entry_values, feature_entries


def viterbi_first(paths, scores, found, best, sent_ptr) -> None:
    """Put each sentence's Viterbi path first in its top-k, in place (one tie rule for every decoder).

    Parameters
    ----------
    paths : int32 array, shape (k, n_tokens)
        ``paths[r, t0:t1]``: the r-th best labels of the sentence ``t0:t1``
        (exact top-k, best first, as ``nbest_corpus`` fills it).
    scores : float64 array, shape (n_sentences, k)
    found : int32 array, shape (n_sentences,)
    best : int32 array, shape (n_tokens,)
        The Viterbi path of every sentence.
    sent_ptr : int64 array, shape (n_sentences + 1,)

    Notes
    -----
    Viterbi and the exact top-k search find paths of the same, best, score;
    they differ only where several paths tie, because A* extends prefixes
    left to right (lower label first) while Viterbi keeps the lower label
    when it traces back from the end. The Viterbi path is always among the
    best, so when the top-k does not start with it, it ties with the first:
    it is moved to the front (or, when the top-k left it out among equal
    scores, put first in place of the last). The rule of every decoder is
    then Viterbi's: among the best-scoring sequences, the lowest last label,
    then the lowest label before it, and so on (:func:`~chaintag.decoding.
    viterbi.viterbi_kernel`). Cost: ``O(k T)`` per sentence whose first path
    differs, none otherwise.
    """
    bounds = sent_ptr.tolist()
    for s in range(len(bounds) - 1):
        t0, t1, f = bounds[s], bounds[s + 1], int(found[s])
        if f == 0 or t1 == t0:
            continue
        v = best[t0:t1]
        if np.array_equal(paths[0, t0:t1], v):
            continue
        at = next((r for r in range(1, f) if np.array_equal(paths[r, t0:t1], v)), None)
        if at is None:  # left out among equal scores: the last one makes room
            at = f - 1
            paths[at, t0:t1] = v
            scores[s, at] = scores[s, 0]
        moved, moved_score = paths[at, t0:t1].copy(), scores[s, at]
        paths[1:at + 1, t0:t1] = paths[0:at, t0:t1].copy()
        scores[s, 1:at + 1] = scores[s, 0:at].copy()
        paths[0, t0:t1] = moved
        scores[s, 0] = moved_score


class InferenceMixin:
    """n-best, confidence and marginals for models with first-order linear-chain scores."""

    def _nbest_arrays(self, attrs, k: int, constrain=False, fixed=None):
        """``(paths, scores, found)`` of the top-k search: int32 (k, n_tokens), float64 (n_sentences, k),
        int32 (n_sentences,); among equal scores the first path is :meth:`predict`'s."""
        from ..decoding.nbest import nbest_corpus
        paths = np.zeros((k, attrs.n_tokens), dtype=np.int32)
        scores = np.zeros((attrs.n_sentences, k))
        found = np.zeros(attrs.n_sentences, dtype=np.int32)
        if constrain or fixed is not None:
            from . import constrained
            paths, scores, found = constrained.nbest(self, attrs, k, constrain, fixed)
            best = constrained.tag_ids(self, attrs, constrain, fixed) if attrs.n_tokens else None
        elif attrs.n_tokens:  # 0/1 attributes (no values: an empty array) or real-valued attributes alike
            ent_lo, ent_n = feature_entries(attrs.attr_ids, self.feature_index_.feat_ptr, len(self.labels_))
            nbest_corpus(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, entry_values(attrs),
                         self.feature_index_.feat_label, self.weights_, len(self.labels_), k, paths, scores, found)
            best = self._tag_ids(attrs)
        if attrs.n_tokens:
            viterbi_first(paths, scores, found, best, attrs.sent_ptr)
        return paths, scores, found

    def predict_nbest(self, sentences, k: int = 5, *, constrain=False,
                      fixed=None) -> list[list[tuple[list[str], float, float]]]:
        """The ``k`` best label sequences of each sentence, with scores and top-k probabilities.

        Parameters
        ----------
        sentences : sequence of sequences of tokens
            As in ``predict``: for a model that reads document columns, plain
            words get them computed, the sentences being one document.
        k : int, default 5
        constrain, fixed
            Scheme constraints and partial labels, as in ``predict``: only
            sequences that satisfy them are returned (fewer than ``k`` when
            fewer exist).

        Returns
        -------
        list (one per sentence) of lists of ``(labels, score, probability)``
            Best first (exact A* search). Among sequences of equal score the
            first is the one :meth:`predict` gives (Viterbi's tie rule, see
            :func:`viterbi_first`), so the labels of ``predict``,
            ``predict_nbest(...)[s][0]``, ``predict_confidence`` and
            ``chaintag tag --marginals`` always agree. ``probability`` is
            ``exp(score) / sum of exp(score)`` over the returned top-k: a
            distribution over these k sequences only, not a CRF posterior;
            it is meaningful for probabilistically trained models (SAPO) and
            only a relative confidence for the perceptron.

        Raises
        ------
        ValueError
            If ``k`` is not an integer of at least 1.
        """
        self._check_fitted()
        from .params import check_count
        k = check_count(k)
        rows = self._rows(sentences)
        attrs = self.extractor_.transform(rows)
        n_sent = attrs.n_sentences
        paths, scores, found = self._nbest_arrays(attrs, k, constrain, fixed)
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
        Sentences as in ``predict`` (for a model that reads document columns,
        plain words get them computed, the sentences being one document).

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
        (``kernel(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, out)``, ``ent_val``
        empty for 0/1 attributes)."""
        self._check_fitted()
        rows = self._rows(sentences)
        attrs = self.extractor_.transform(rows)
        L = len(self.labels_)
        out = np.zeros((attrs.n_tokens, L))
        if attrs.n_tokens:  # 0/1 attributes or real-valued attributes (first-order chains only) alike
            ent_lo, ent_n = feature_entries(attrs.attr_ids, self.feature_index_.feat_ptr, L)
            kernel(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, entry_values(attrs), self.feature_index_.feat_label,
                   self.weights_, L, out)
        bounds = attrs.sent_ptr.tolist()
        return [out[bounds[s]:bounds[s + 1]] for s in range(len(bounds) - 1)]

    def predict_confidence(self, sentences, k: int = 5, *, constrain=False,
                           fixed=None) -> tuple[list[list[str]], list[list[float]]]:
        """Best labels and, per token, the probability of its label estimated from the top-k.

        The confidence of a token is the summed top-k probability (see
        :meth:`predict_nbest`) of the sequences that give it the same label as
        the best sequence: 1.0 when all k agree. Not a CRF marginal.
        Sentences, ``k``, ``constrain`` and ``fixed`` as in :meth:`predict_nbest`.

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

