"""MIRA and N-best MIRA, naive and averaged (Crammer & Singer 2003; McDonald et al. 2005)."""

from __future__ import annotations

import numpy as np

from ..decoding.scoring import max_sentence_entries
from .base import SequenceTagger, TrainData, register
from .params import Param, pick, with_defaults
from .mira_kernels import mira_epoch
from .path_kernels import training_arrays
from .perceptron_kernels import gold_feature_ids


@register
class MIRA(SequenceTagger):
    """Margin-infused relaxed algorithm for linear-chain tagging, 1-best or N-best.

    For each training sentence: decode the best (``n_best=1``, Viterbi) or the
    ``n_best`` best sequences (exact A*), and make the smallest change to the
    weights that scores the gold sequence above each wrong candidate by its
    loss (Hamming distance), each step size clipped at ``C``.

    Parameters
    ----------
    features, columns, epochs, cc, feature_space, shuffle, random_state, progress
        As for :class:`~chaintag.learners.perceptron.StructuredPerceptron`.
    n_best : int, default 1
        1: MIRA; more: N-best MIRA with the joint constraint problem solved by
        Hildreth's coordinate ascent.
    C : float or None, default 1.0
        Clip of the step sizes (the slack bound); None: no clip (the variant
        in the SAPO authors' code).
    averaged : bool, default True
        Averaged weights (lazy, as the averaged perceptron) or the last ones.
    loss : {"hamming", "sqrt-hamming"}, default "hamming"
        ``sqrt-hamming`` is the SAPO authors' code's variant.
    sequential : bool, default False
        N-best variant of the SAPO authors' code: apply the 1-best step to
        each wrong candidate in turn instead of solving the joint problem.

    References
    ----------
    K. Crammer, Y. Singer. Ultraconservative online algorithms for multiclass
    problems. JMLR 2003. R. McDonald, K. Crammer, F. Pereira. Online
    large-margin training of dependency parsers. ACL 2005.
    """

    #: Span confidence is ``exp(score) / Z`` of scores these updates do not calibrate: a relative score.
    confidence_is_probability = False

    streams_exactly = True  # lazy averaging carries from chunk to chunk exactly

    mixing_family = "lazy"  # weights and lazily averaged sums

    algorithm = "mira"
    _full_rows = True  # the epoch kernels find features with find_feature only (path_kernels)
    _real_values = True  # feature-dict numbers: the kernels read the values (ent_val; N-best MIRA too)
    _empty_epoch_is_noop = True  # an epoch over no sentences changes no weight and no step

    params = (
        *pick("features", "columns"),
        Param("n_best", 1, int, "candidates of each update (N-best MIRA: the top n)", low=1, group="SAPO, CRF and MIRA",
              metavar="N"),
        Param("C", 1.0, float, "clip of MIRA step sizes (None, --no-clip: unclipped, a variant)", low=0, low_open=True,
              none=True, option="--C", group="MIRA"),
        *pick("averaged"),
        Param("loss", "hamming", str, "MIRA loss", choices=("hamming", "sqrt-hamming"), option="--mira-loss",
              group="MIRA"),
        Param("sequential", False, bool, "N-best MIRA: one-constraint steps per candidate in turn (variant)",
              group="MIRA", negatable=False),
        *pick("epochs", "cc", "feature_space", "shuffle", "random_state", "hash_bits", "progress"),
    )

    def _begin(self, data: TrainData) -> dict:
        if self.loss not in ("hamming", "sqrt-hamming"):
            raise ValueError(f"loss must be 'hamming' or 'sqrt-hamming', not {self.loss!r}")
        if int(self.n_best) < 1 or (self.C is not None and self.C <= 0):
            raise ValueError("n_best must be at least 1 and C positive (or None)")
        n = data.index.n_weights
        a = data.attrs
        gold_feat = gold_feature_ids(a.tok_ptr, data.ent_lo, data.ent_n, data.gold, data.index.feat_label)
        return {"w": np.zeros(n), "u": np.zeros(n if self.averaged else 1), "step": 0,
                "gold_feat": gold_feat, "max_entries": int(max_sentence_entries(a.sent_ptr, a.tok_ptr))}

    def _run_epoch(self, state: dict, data: TrainData, order: np.ndarray) -> dict:
        C = np.inf if self.C is None else float(self.C)
        n_updates, n_errors, step, n_clipped = mira_epoch(  # 0/1 attributes or attributes with values alike
            order, training_arrays(data, state["gold_feat"]), state["w"], state["u"], state["step"],
            data.index.n_labels, bool(self.averaged), int(self.n_best), C, self.loss == "sqrt-hamming",
            bool(self.sequential))
        state["step"] = step
        return {"updates": int(n_updates), "errors": int(n_errors), "clipped": int(n_clipped)}

    def _current_weights(self, state: dict) -> np.ndarray:
        if not self.averaged or state["step"] == 0:
            return state["w"].copy()
        k = float(state["step"])
        return (k * state["w"] - state["u"]) / k


@register
class NBestMIRA(MIRA):
    """N-best MIRA: :class:`MIRA` with ``n_best=5`` by default (McDonald et al. 2005)."""

    algorithm = "nbest-mira"

    params = with_defaults(MIRA.params, n_best=5)
