"""The BiLSTM-SAPO tagger: SAPO's top-n probabilistic update (Sun et al.) on the BiLSTM encoder.

The SAPO paper ends by noting that since an LSTM can be combined with a
perceptron or a CRF, SAPO can be combined with it too. This learner is the
BiLSTM-CRF network (:mod:`.network`: word, character and column embeddings,
BiLSTM, emission and transition scores) trained with SAPO's loss
(:mod:`.sapo_head`) instead of the CRF's.
"""

from __future__ import annotations


from ..base import register
from ..params import Param
from .learner import NeuralTagger
from .taggers import BiLSTMCRF

_SAPO = "SAPO, CRF and MIRA"


@register
class BiLSTMSAPO(BiLSTMCRF):
    """BiLSTM tagger trained by SAPO's top-n update (the ``bilstm-sapo`` learner).

    For each sentence of a batch, the exact top-n label sequences under the
    network's emission scores and the transition scores are found by A*
    (on the detached float64 scores), ``P_k`` is the softmax of their
    scores, and the loss ``log sum_k exp s(y_k) - s(y*)`` has as gradient
    with respect to the scores SAPO's update ``Phi(y*) - sum_k P_k
    Phi(y_k)`` (negated), back-propagated into the encoder
    (:func:`~chaintag.learners.neural.sapo_head.sapo_loss`). With ``n = 1``
    the update is the perceptron's; with ``n`` the number of all label
    sequences it is the CRF's gradient. Tagging is Viterbi;
    ``predict_nbest`` gives the top-k with their probabilities renormalized
    over the k (SAPO's ``P_k``), and ``predict_confidence`` sums those.
    ``predict_marginals`` gives forward-backward marginals of the same
    scores (a distribution SAPO does not train to be calibrated).

    Parameters
    ----------
    n_best : int, default 5
        Size ``n`` of the top-n (SAPO's default).
    lr_schedule : {"epoch", "decay", "fixed"}, default "epoch"
        ``epoch``: the schedule of the other neural learners (Adam's rate
        fixed; SGD's decayed per epoch by ``lr_decay``). ``decay``: SAPO's
        ``gamma_t = gamma_0 / (1 + t / |S|)``, ``t`` the sentences seen, set
        before every batch, for either optimizer. ``fixed``: constant.
    l2 : float, default 0.0
        SAPO's ``lambda``: each step adds ``(lambda / |S|) theta`` to the
        batch's mean gradient (the optimizer's weight decay), so that the
        objective is SAPO's ``sum_i log P_n(y*_i | x_i) - lambda ||theta||^2 / 2``.
        Default 0, not SAPO's 1: with Adam, whose steps are scaled per
        coordinate, this term shrinks the rarely updated word embeddings
        by about the learning rate every step.
    margin : float, default 0.0
        Hamming cost ``C``: the top-n and ``P_k`` are those of ``s(x, y) + C * hamming(y, y*)``
        (softmax-margin, Gimpel and Smith 2010, restricted to the top-n). 0 is SAPO as published.
        On real data SAPO's own loss lets the network tie its top-n (the loss rewards confidence
        by at most ``log n`` per sentence), so training stalls at ``log n``; ``C = 1`` keeps the
        margins (docs/results/bilstm_sapo.md).
    The other parameters: see :class:`~chaintag.learners.neural.learner.NeuralTagger`.

    References
    ----------
    X. Sun et al., SAPO, Algorithm 1 and the conclusion; Lample et al.
    (2016) and Ma and Hovy (2016) for the encoder.
    """

    algorithm = "bilstm-sapo"
    #: span confidence from the top-n sequences (:mod:`chaintag.learners.spans`)
    span_confidence = "top-n"

    params = (
        *NeuralTagger.params,
        Param("n_best", 5, int, "size of the top-n", low=1, group=_SAPO, metavar="N"),
        Param("lr_schedule", "epoch", str, "epoch: the neural learners' schedule; decay: gamma_0 / (1 + t/|S|); "
              "fixed", choices=("epoch", "decay", "fixed"), group=_SAPO),
        Param("l2", 0.0, float, "L2 strength lambda, as weight decay lambda/|S|", low=0, group=_SAPO,
              metavar="LAMBDA"),
        Param("margin", 0.0, float, "cost added to every wrong label in the top-n search and scores "
              "(softmax-margin over the top-n; 0: SAPO as published; 1 keeps the top-n from collapsing)",
              low=0, group=_SAPO, metavar="C"),
    )

    def _check_params(self) -> None:
        super()._check_params()
        for p in self.params[-4:]:  # n_best, lr_schedule, l2, margin
            p.check(getattr(self, p.name))

    def _begin(self, data) -> dict:
        state = super()._begin(data)
        self._n_train = int(data.attrs.n_sentences)
        if self.l2 > 0:
            for g in state["_torch"]["opt"].param_groups:
                g["weight_decay"] = float(self.l2) / self._n_train
        return state

    def _batch_lr(self, opt, epoch: int, seen: int, n_train: int) -> None:
        if self.lr_schedule == "epoch":
            return
        lr = self._lr()
        if self.lr_schedule == "decay":
            lr = lr / (1.0 + ((epoch - 1) * n_train + seen) / max(n_train, 1))
        for g in opt.param_groups:
            g["lr"] = lr

    def _loss(self, torch, em, batch):
        from .sapo_head import sapo_loss
        return sapo_loss(em, batch["mask"], batch["tags"], *self._crf_params(), int(self.n_best),
                         float(self.margin)).sum()


__all__ = ["BiLSTMSAPO"]
