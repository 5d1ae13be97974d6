"""The structured perceptron, naive and averaged (Collins 2002)."""

from __future__ import annotations

import numpy as np

from .base import SequenceTagger, TrainData, register
from .params import pick
from .hogwild_kernels import perceptron_epoch_hogwild
from .path_kernels import training_arrays
from .perceptron_kernels import gold_feature_ids, perceptron_epoch
from .threads import numba_threads, parallel_epoch, resolve_threads


@register
class StructuredPerceptron(SequenceTagger):
    """Collins's structured perceptron for linear-chain tagging.

    Each epoch visits the training sentences (in file order, or shuffled
    with ``random_state``), Viterbi-decodes each one and, when the best
    sequence ``z`` differs from the gold ``y*``, adds ``Phi(x, y*) - Phi(x, z)``
    to the weights. The averaged variant returns the mean of the weight
    vectors after every one of the ``n * T`` steps, computed lazily and
    exactly.

    Parameters
    ----------
    features : str or list of str, default "pos"
        Preset name (``chunking``, ``pos``, ``ner``), template file, or specs.
    columns : sequence of str, optional
        Names of the token columns (default ``word``, ``pos``, ...).
    averaged : bool, default True
        Averaged (Collins 2002, s. 2.5) or naive (Fig. 1) perceptron.
    epochs : int, default 10
        Number of passes ``T``.
    cc : int, default 0
        Count cut-off on (attribute, label) pairs (Collins 2002, s. 3).
    feature_space : {"gold", "all"}, default "gold"
        See :mod:`chaintag.features.space`.
    shuffle : bool, default False
        Visit sentences in a new random order each epoch.
    random_state : int, default 0
        Seed for shuffling.
    hash_bits : int or None, default None
        Feature hashing: attributes become ``2^hash_bits`` hash buckets, which
        bounds the attribute vocabulary's memory whatever the corpus
        (:mod:`chaintag.features.hashed`); None keeps exact attributes.
    progress : bool or None, default None
        Show a progress bar (None: only when stderr is a terminal).
    n_jobs : int, default 1
        Threads of an epoch. 1: the serial pass, reproducible bit for bit.
        N > 1 (-1: all cores): the sentences of the epoch are split into N
        blocks decoded and updated in parallel on shared weights without
        locks (Hogwild; :mod:`chaintag.learners.hogwild_kernels`): faster,
        with accuracy within run-to-run noise, but not reproducible bit for
        bit. Real-valued attributes always train on one thread.

    References
    ----------
    M. Collins. Discriminative training methods for hidden Markov models:
    theory and experiments with perceptron algorithms. EMNLP 2002.

    Examples
    --------
    >>> tagger = StructuredPerceptron(features=["w[0]"], epochs=3)
    >>> _ = tagger.fit([["the", "dog"], ["a", "cat"]], [["D", "N"], ["D", "N"]])
    >>> tagger.predict([["the", "cat"]])
    [['D', 'N']]
    """

    #: Span confidence is ``exp(score) / Z`` of scores these updates do not calibrate: a relative score.
    confidence_is_probability = False

    streams_exactly = True  # lazy averaging carries from chunk to chunk exactly

    mixing_family = "lazy"  # weights and lazily averaged sums

    algorithm = "perceptron"
    _empty_epoch_is_noop = True  # an epoch over no sentences changes no weight and no step
    _full_rows = True  # the epoch kernels find features with find_feature only
    _real_values = True  # feature-dict numbers: the kernels read the values (ent_val)

    params = (*pick("features", "columns", "averaged", "epochs", "cc", "feature_space", "shuffle", "random_state",
                    "hash_bits", "progress", "n_jobs"),)

    def _begin(self, data: TrainData) -> dict:
        n = data.index.n_weights
        gold_feat = gold_feature_ids(data.attrs.tok_ptr, data.ent_lo, data.ent_n, data.gold,
                                     data.index.feat_label)
        return {"w": np.zeros(n), "u": np.zeros(n if self.averaged else 1), "step": 0, "gold_feat": gold_feat}

    def _run_epoch(self, state: dict, data: TrainData, order: np.ndarray) -> dict:
        if data.ent_val is not None:  # real-valued attributes
            n_updates, n_errors, step = perceptron_epoch(
                order, training_arrays(data, state["gold_feat"]), state["w"], state["u"], state["step"],
                data.index.n_labels, bool(self.averaged))
            state["step"] = step
            return {"updates": int(n_updates), "errors": int(n_errors)}
        threads = resolve_threads(getattr(self, "n_jobs", 1))
        with parallel_epoch(threads > 1) as parallel:  # the n_jobs=1 epoch after fork (threads.py)
            if parallel:
                with numba_threads(threads):
                    n_updates, n_errors, step = perceptron_epoch_hogwild(
                        order, training_arrays(data, state["gold_feat"]), state["w"], state["u"], state["step"],
                        data.index.n_labels, bool(self.averaged), threads)
                state["step"] = step
                return {"updates": int(n_updates), "errors": int(n_errors)}
        n_updates, n_errors, step = perceptron_epoch(
            order, training_arrays(data, state["gold_feat"]), state["w"], state["u"], state["step"],
            data.index.n_labels, bool(self.averaged))
        state["step"] = step
        return {"updates": int(n_updates), "errors": int(n_errors)}

    def _current_weights(self, state: dict) -> np.ndarray:
        if not self.averaged or state["step"] == 0:
            return state["w"].copy()
        k = float(state["step"])
        return (k * state["w"] - state["u"]) / k
