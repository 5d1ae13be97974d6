"""BiLSTM and BiLSTM-CRF taggers (Huang et al. 2015; Lample et al. 2016; Ma and Hovy 2016).

Both are :class:`~chaintag.learners.neural.learner.NeuralTagger` networks;
they differ in the output layer: a softmax per token, or a linear-chain CRF
(:mod:`chaintag.learners.neural.crf_layer`).
"""

from __future__ import annotations

import numpy as np

from ..base import register
from ..tokens import as_rows
from .learner import NeuralTagger


@register
class BiLSTM(NeuralTagger):
    """BiLSTM tagger with a softmax output per token (the ``bilstm`` learner).

    The loss is the cross-entropy of each token's label (summed over the
    sentence); tagging takes each token's most probable label. Ma and Hovy
    (2016, table 4) and Lample et al. (2016) report it as the baseline of
    their CRF models. Parameters: see :class:`NeuralTagger`.
    """

    algorithm = "bilstm"

    def _loss(self, torch, em, batch):
        mask = batch["mask"]
        return torch.nn.functional.cross_entropy(em[mask], batch["tags"][mask], reduction="sum")

    @staticmethod
    def _decode(torch, em, batch):
        return em.argmax(dim=2)

    @staticmethod
    def _marginals(torch, em, batch):
        return torch.softmax(em, dim=2)

    def predict_nbest(self, sentences, k: int = 5, *, constrain=False, fixed=None):
        """Not offered: the softmax tagger scores tokens independently (use ``bilstm-crf``).

        Raises
        ------
        NotImplementedError
        """
        raise NotImplementedError("the bilstm tagger has no n-best sequences (its labels are chosen token "
                                  "by token); use bilstm-crf")

    def _span_probs_chain(self, sentences, chunks, read):
        """Exact span probabilities: the tokens are independent, so a chain with the log-softmax as
        emissions and no transitions is the model's own distribution."""
        L = len(self.labels_)
        zero, zeros = np.zeros((L, L)), np.zeros(L)
        chains = [(np.log(np.maximum(m, 1e-300)), zero, zeros, zeros) for m in self.predict_marginals(sentences)]
        return self._span_probs_scores(chains, chunks, read)


@register
class BiLSTMCRF(NeuralTagger):
    """BiLSTM tagger with a linear-chain CRF output layer (the ``bilstm-crf`` learner).

    Huang et al. (2015); Lample et al. (2016, s. 2); Ma and Hovy (2016, s.
    2.3). The loss is the CRF's negative log-likelihood ``log Z(x) - s(x,
    y)`` by the batched forward algorithm, tagging is batched Viterbi
    (:mod:`chaintag.learners.neural.crf_layer`); ``predict_marginals`` gives
    the posterior marginals and ``predict_nbest`` the exact k best sequences
    (A* over the network's scores). Parameters: see :class:`NeuralTagger`.
    """

    algorithm = "bilstm-crf"
    _crf = True

    def _crf_params(self):
        n = self.net_
        return n.transitions, n.start, n.end

    def _loss(self, torch, em, batch):
        from .crf_layer import neg_log_likelihood
        return neg_log_likelihood(em, batch["mask"], batch["tags"], *self._crf_params()).sum()

    def _decode(self, torch, em, batch):
        from .crf_layer import viterbi
        return viterbi(em, batch["mask"], *self._crf_params())[0]

    def _marginals(self, torch, em, batch):
        from .crf_layer import marginals
        return marginals(em, batch["mask"], *self._crf_params())

    def _span_probs_chain(self, sentences, chunks, read):
        """Exact span probabilities under the CRF: the network's emission scores and the CRF's transitions."""
        self._check_fitted()
        enc = self.extractor_.transform(as_rows(sentences, len(self.columns_)))
        L = len(self.labels_)
        U, s, e = (np.ascontiguousarray(p.detach().double().cpu().numpy()) for p in self._crf_params())
        flat = np.zeros((enc.n_tokens, L))
        for batch, em in self._batched_outputs(enc, None, lambda torch, em, batch: em):
            flat[batch["tokens"]] = em.double().cpu().numpy().reshape(-1, L)[batch["flat_pos"]]
        bounds = enc.sent_ptr.tolist()
        chains = [(flat[bounds[i]:bounds[i + 1]], U, s, e) for i in range(len(bounds) - 1)]
        return self._span_probs_scores(chains, chunks, read)

    def predict_nbest(self, sentences, k: int = 5, *, constrain=False,
                      fixed=None) -> list[list[tuple[list[str], float, float]]]:
        """The ``k`` best label sequences of each sentence, by exact A* search over the network's
        emission scores and the CRF's transitions.

        Returns
        -------
        list (one per sentence) of lists of ``(labels, score, probability)``
            Best first. ``probability`` is ``exp(score)`` normalized over the k sequences returned,
            as every learner's n-best gives it (so that :meth:`predict_confidence` reads it; the
            CRF's own probability of a whole sequence is ``exp(score - log Z(x))``, and its token
            marginals are :meth:`predict_marginals`').

        Raises
        ------
        ValueError
            If ``k < 1``.
        NotImplementedError
            For ``constrain`` or ``fixed`` (no constrained search for the neural taggers).
        """
        from ...decoding.nbest import nbest
        self._check_fitted()
        self._refuse_constraints(constrain, fixed)
        from ..params import check_count
        k = check_count(k)
        rows = as_rows(sentences, len(self.columns_))
        enc = self.extractor_.transform(rows)
        U, s, e = (p.detach().double().cpu().numpy() for p in self._crf_params())
        out: list = [[([], 0.0, 1.0)] for _ in range(enc.n_sentences)]
        sent_of = np.repeat(np.arange(enc.n_sentences), enc.sent_ptr[1:] - enc.sent_ptr[:-1])
        labs = self.labels_
        for batch, em in self._batched_outputs(enc, None, lambda torch, em, batch: em):
            em = em.double().cpu().numpy()
            first = batch["tokens"][np.r_[0, np.cumsum(batch["lengths"])[:-1]]]
            for b, n_tok in enumerate(batch["lengths"].tolist()):
                cands = nbest(em[b, :n_tok], U, s, e, n=k)
                sc = np.array([c[0] for c in cands])
                p = np.exp(sc - sc.max())
                p /= p.sum()
                out[sent_of[first[b]]] = [([labs[j] for j in path.tolist()], score, float(q))
                                          for (score, path), q in zip(cands, p)]
        return out
