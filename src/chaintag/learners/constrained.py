"""Constrained and partially labelled decoding for the first-order chain models.

``predict``, ``predict_nbest``, ``predict_confidence`` and
``predict_marginals`` take ``constrain`` (forbid the transitions the label
scheme makes invalid) and ``fixed`` (labels given by the user for some
tokens); this module turns them into the masks of
:mod:`chaintag.decoding.constraints` and runs the compiled corpus kernels.
The second-order models use the same masks with their own kernels
(:mod:`chaintag.learners.constrained2`).
"""

from __future__ import annotations

import numpy as np

from ..decoding.constraints import (constrained_weights, marginals_corpus_fixed, nbest_corpus_fixed,
                                    scheme_masks, tag_corpus_fixed)
from ..decoding.scoring import feature_entries
from ..errors import InputError


def _check_model(model) -> None:
    """Refuse (NotImplementedError) a model that offers no constrained decoding (``constrained_decoding``)."""
    if not getattr(type(model), "constrained_decoding", False):
        why = getattr(type(model), "constrained_decoding_absent", "")
        raise NotImplementedError(f"{type(model).__name__} offers no constrained or partially labelled decoding"
                                  f"{f' ({why})' if why else ''}; they are offered by the perceptron, SAPO, "
                                  "CRF and MIRA models, first or second order")


def _check_first_order(model) -> None:
    _check_model(model)
    if getattr(model, "order", 1) != 1:  # its states are label pairs: chaintag.learners.constrained2
        raise NotImplementedError(f"{type(model).__name__} is a second-order model: its constrained decoding "
                                  "is chaintag.learners.constrained2's")


def decoding_weights(model, constrain) -> np.ndarray:
    """The model's weights, with ``-inf`` on the transitions forbidden by the scheme when ``constrain``.

    Parameters
    ----------
    model : fitted first-order SequenceTagger
    constrain : bool or str
        False: the weights as they are; True: the scheme of the training
        labels (recorded with the model; else detected from the label set);
        a scheme name (see :data:`chaintag.decoding.constraints.SCHEMES`).

    Raises
    ------
    ValueError
        When the labels follow no scheme (or not the one named).
    """
    if not constrain:
        return model.weights_
    _, trans_ok, start_ok, end_ok = scheme_masks(model.labels_, constraint_scheme(model, constrain),
                                                 label_counts(model))
    return constrained_weights(model.weights_, model.feature_index_.n_features, len(model.labels_),
                               trans_ok, start_ok, end_ok)


def label_counts(model) -> dict | None:
    """Training tokens of each label, as the model recorded them (None for older files)."""
    return (getattr(model, "training_summary_", None) or {}).get("label_counts") or None


def constraint_scheme(model, constrain) -> str | None:
    """The scheme whose rules ``constrain`` enforces on a model's labels.

    Parameters
    ----------
    model : fitted SequenceTagger
    constrain : True or str
        True: the scheme of the training sequences, recorded with the model (it tells IOB1 from IOB2);
        a scheme name: that scheme.

    Returns
    -------
    str or None
        None when the model recorded none (older files, labels that are not chunk labels): the
        scheme is then detected from the label set (:func:`chaintag.decoding.constraints.scheme_masks`).
    """
    if constrain is not True:
        return str(constrain)
    scheme = ((getattr(model, "training_summary_", None) or {}).get("label_scheme")) or None
    return None if scheme == "none" else scheme


def fixed_ids(model, fixed, sent_ptr) -> np.ndarray:
    """Label ids fixed by the user, flat over the corpus (-1: free).

    Parameters
    ----------
    fixed : sequence of sequences of (str or None), or None
        One entry per token of every sentence: the label the token must
        take, or None (or ``""``, ``"_"``) to leave it free.
    sent_ptr : int64 array, shape (n_sentences + 1,)

    Raises
    ------
    InputError
        When the shape differs from the sentences' or a label is unknown to the model.
    """
    n_tokens = int(sent_ptr[-1])
    out = np.full(n_tokens, -1, dtype=np.int32)
    if fixed is None:
        return out
    if isinstance(fixed, (str, bytes)):
        raise InputError("fixed labels: give one sequence per sentence (a list with a label or None for each "
                         f"token), not the string {fixed!r}")
    fixed = list(fixed)
    n_sent = len(sent_ptr) - 1
    if len(fixed) != n_sent:
        raise InputError(f"fixed labels: {len(fixed)} sequences for {n_sent} sentences")
    index = {lab: j for j, lab in enumerate(model.labels_)}
    bounds = sent_ptr.tolist()
    for s, labs in enumerate(fixed):
        if labs is None:
            continue
        if isinstance(labs, (str, bytes)):
            raise InputError(f"fixed labels: sentence {s} is given the string {labs!r}; give a list with a "
                             "label or None for each of its tokens")
        labs = list(labs)
        if len(labs) != bounds[s + 1] - bounds[s]:
            raise InputError(f"fixed labels: sentence {s} has {bounds[s + 1] - bounds[s]} tokens but "
                             f"{len(labs)} entries (None, null in JSON, for a free token)")
        for i, lab in enumerate(labs):
            if lab is None or lab == "" or lab == "_":
                continue
            j = index.get(str(lab))
            if j is None:
                raise InputError(f"fixed labels: sentence {s}, token {i}: the model has no label {lab!r}")
            out[bounds[s] + i] = j
    return out


def _entries(model, attrs):
    if getattr(attrs, "attr_values", None) is not None:
        raise NotImplementedError("constrained and partially labelled decoding read indicator attributes only; "
                                  "these tokens have real-valued attributes")
    return feature_entries(attrs.attr_ids, model.feature_index_.feat_ptr, len(model.labels_))


def _no_path(s: int, constrain) -> InputError:
    rule = " and the label scheme's rules" if constrain else ""
    err = InputError(f"sentence {s}: no label sequence satisfies the fixed labels{rule}")
    err.sentence = s  # a caller that knows the sentence's file and line names them instead
    return err


def tag_ids(model, attrs, constrain=False, fixed=None) -> np.ndarray:
    """Viterbi label ids of every token under the constraints (int32, shape (n_tokens,)).

    Raises
    ------
    InputError
        When no sequence of a sentence satisfies the constraints.
    """
    _check_first_order(model)
    L = len(model.labels_)
    out = np.zeros(attrs.n_tokens, dtype=np.int32)
    if attrs.n_tokens == 0 or L == 0:
        return out
    w = decoding_weights(model, constrain)
    fix = fixed_ids(model, fixed, attrs.sent_ptr)
    best = np.zeros(attrs.n_sentences)
    ent_lo, ent_n = _entries(model, attrs)
    tag_corpus_fixed(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, model.feature_index_.feat_label, w, L, fix,
                     out, best)
    bad = np.flatnonzero(np.isneginf(best))
    if len(bad):
        raise _no_path(int(bad[0]), constrain)
    return out


def nbest(model, attrs, k: int, constrain=False, fixed=None):
    """Top-k paths under the constraints: ``(paths, scores, found)`` as ``nbest_corpus``,
    with the sequences of score ``-inf`` (breaking a constraint) left out of ``found``."""
    _check_first_order(model)
    L = len(model.labels_)
    n_sent = attrs.n_sentences
    paths = np.zeros((k, attrs.n_tokens), dtype=np.int32)
    scores = np.zeros((n_sent, k))
    found = np.zeros(n_sent, dtype=np.int32)
    if attrs.n_tokens:
        w = decoding_weights(model, constrain)
        fix = fixed_ids(model, fixed, attrs.sent_ptr)
        ent_lo, ent_n = _entries(model, attrs)
        nbest_corpus_fixed(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, model.feature_index_.feat_label, w, L,
                           k, fix, paths, scores, found)
        bounds = attrs.sent_ptr
        for s in range(n_sent):
            if bounds[s + 1] == bounds[s]:
                continue
            valid = int(np.isfinite(scores[s, :found[s]]).sum())
            if valid == 0:
                raise _no_path(s, constrain)
            found[s] = valid  # -inf scores come last: A* pops in non-increasing order
    return paths, scores, found


def marginals(model, attrs, constrain=False, fixed=None) -> np.ndarray:
    """Token marginals under the constraints (float64, shape (n_tokens, n_labels)).

    Raises
    ------
    InputError
        When no sequence of a sentence satisfies the constraints.
    """
    _check_first_order(model)
    L = len(model.labels_)
    out = np.zeros((attrs.n_tokens, L))
    if attrs.n_tokens:
        tag_ids(model, attrs, constrain, fixed)  # raises first when a sentence has no valid sequence
        w = decoding_weights(model, constrain)
        fix = fixed_ids(model, fixed, attrs.sent_ptr)
        ent_lo, ent_n = _entries(model, attrs)
        marginals_corpus_fixed(attrs.sent_ptr, attrs.tok_ptr, ent_lo, ent_n, model.feature_index_.feat_label, w,
                               L, fix, out)
        bad = np.flatnonzero(~np.isfinite(out).all(axis=1))
        if len(bad):
            s = int(np.searchsorted(attrs.sent_ptr, bad[0], side="right") - 1)
            raise _no_path(s, constrain)
    return out
