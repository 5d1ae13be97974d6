"""Constrained and partially labelled decoding for the second-order (label-trigram) models.

The second-order score (:mod:`chaintag.decoding.viterbi2`) adds the label
bigram ``U[y_{i-1}, y_i]`` at every token from the second on, and the search
runs over label-pair states ``(y_{i-1}, y_i)``. The masks of
:mod:`chaintag.decoding.constraints` therefore apply unchanged, through the
same weights: :func:`~chaintag.decoding.constraints.constrained_weights` puts
``-inf`` on the forbidden ``U[prev, cur]`` (so every pair state, and every
trigram ``V[., prev, cur]`` or ``V[prev, cur, .]``, holding the transition
scores ``-inf``) and on the forbidden start and end weights; the trigram
weights ``V`` follow in the flat vector and are left as they are. Fixed labels
restrict a token to its label: the only candidate of the second-order
perceptron's Viterbi (:func:`~chaintag.learners.second_order_kernels.fix_candidates`,
overriding the tag dictionary), ``-inf`` emissions for the other labels in
the second-order SAPO's A*. Both decoders are the compiled kernels of the
unconstrained models, given the masked weights and the fixed labels.

The searches keep to the tag dictionary (perceptron) or to the label pairs
seen in training (SAPO); a sentence where these leave no sequence that
satisfies the constraints is searched again over every label (pair).
"""

from __future__ import annotations

import numpy as np

from .constrained import _no_path, decoding_weights, fixed_ids


def masks(model, attrs, constrain=False, fixed=None):
    """The masked flat weights and the fixed label ids of a second-order model.

    Parameters
    ----------
    model : fitted SecondOrderPerceptron or SecondOrderSAPO
    attrs : Attributes
    constrain : bool or str
        As :func:`chaintag.learners.constrained.decoding_weights`.
    fixed : sequence of sequences of (str or None), or None
        As :func:`chaintag.learners.constrained.fixed_ids`.

    Returns
    -------
    weights : float64 array, shape (n_weights,)
        ``weights_`` with ``-inf`` on the forbidden transitions, starts and ends
        (the trigram and pair-feature weights after them unchanged).
    fixed : int32 array, shape (n_tokens,)
        Label id each token must take, or -1.

    Raises
    ------
    ValueError
        ``constrain`` on labels that follow no chunk scheme (or not the one named).
    InputError
        Fixed labels of the wrong shape or unknown to the model.
    """
    return decoding_weights(model, constrain), fixed_ids(model, fixed, attrs.sent_ptr)


def tag_ids(model, attrs, constrain=False, fixed=None, word_ids=None) -> np.ndarray:
    """Best second-order label ids of every token under the constraints.

    Parameters
    ----------
    model : fitted SecondOrderPerceptron or SecondOrderSAPO
    attrs : Attributes
    constrain, fixed
        As :func:`masks`.
    word_ids : int32 array, shape (n_tokens,), optional
        The perceptron's tag-dictionary word ids.

    Returns
    -------
    int32 array, shape (n_tokens,)

    Raises
    ------
    InputError
        When no sequence of a sentence satisfies the constraints (and as :func:`masks`).
    """
    w, fix = masks(model, attrs, constrain, fixed)
    best = np.zeros(attrs.n_sentences)
    out = model._tag_ids(attrs, w, word_ids, fixed=fix, best=best)
    bad = np.flatnonzero(np.isneginf(best))
    if len(bad):
        raise _no_path(int(bad[0]), constrain)
    return out


def nbest(model, attrs, k: int, constrain=False, fixed=None):
    """Exact top-k second-order sequences under the constraints (the second-order SAPO's A*).

    Returns
    -------
    paths : int32 array, shape (k, n_tokens)
    scores : float64 array, shape (n_sentences, k)
    found : int32 array, shape (n_sentences,)
        Sequences found per sentence, all satisfying the constraints (fewer
        than ``k`` when fewer exist), best first.

    Raises
    ------
    InputError
        When no sequence of a sentence satisfies the constraints (and as :func:`masks`).
    """
    w, fix = masks(model, attrs, constrain, fixed)
    paths, scores, found = model._search(attrs, k, w, fix)
    bad = np.flatnonzero((found == 0) & (np.diff(attrs.sent_ptr) > 0))
    if len(bad):
        raise _no_path(int(bad[0]), constrain)
    return paths, scores, found
