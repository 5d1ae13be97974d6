"""Constrained decoding: label-scheme transition rules and labels fixed by the user.

Both constraints are masks of ``-inf`` added to the scores, so the ordinary
decoders (Viterbi, exact A* top-n, forward-backward) run unchanged and only
ever see a sequence that breaks a rule with score ``-inf``:

- the *scheme* rules (which label may follow which, and which may start or
  end a sentence) are ``-inf`` entries of a copy of the transition, start and
  end weights (:func:`scheme_masks`, :func:`constrained_weights`);
- a label fixed by the user at a token makes the emission scores of every
  other label ``-inf`` at that token (the compiled corpus kernels below).

The second-order models (:mod:`chaintag.decoding.viterbi2`,
:mod:`chaintag.decoding.nbest2`) take the same masked weights: their
label-bigram weights ``U[prev, cur]`` enter the score of every label pair
``(y_{i-1}, y_i)`` of a second-order state ``(y_{i-2}, y_{i-1})``/``(y_{i-1},
y_i)``, so a forbidden transition makes every state and every trigram that
holds it ``-inf`` (:mod:`chaintag.learners.constrained2`).

The decoders take ``-inf`` in their stride: Viterbi's maxima and A*'s
priorities compare ``-inf`` like any number (an invalid prefix gets priority
``-inf``, so every valid path comes first); the scaled forward-backward
shifts each block by its (finite) maximum before exponentiating, so a
forbidden entry contributes ``exp(-inf) = 0``. No ``inf - inf`` is ever
formed while one valid sequence exists; when none exists (fixed labels that
break the scheme rules) the best score is ``-inf`` and the callers report it.

Schemes (Ramshaw & Marcus 1995; Tjong Kim Sang & Veenstra 1999; Ratinov &
Roth 2009 for BILOU), labels read as by :mod:`chaintag.evaluation.schemes`
(``L`` as ``E``, ``U`` as ``S``, ``M`` as ``I``; labels that fit no prefix
as ``O``); with ``X``, ``Y`` chunk types:

- ``iob2``: ``I-X`` only after ``B-X`` or ``I-X``; no sentence starts with ``I-X``;
- ``iob1``: ``B-X`` only after ``B-X`` or ``I-X`` (it separates two ``X`` chunks);
  no sentence starts with ``B-X``;
- ``ioe2``: after ``I-X`` only ``I-X`` or ``E-X``; no sentence ends with ``I-X``;
- ``ioe1``: after ``E-X`` only ``I-X`` or ``E-X`` (it separates two ``X`` chunks);
  no sentence ends with ``E-X``;
- ``iobes``, ``bilou``, ``bmes``: after ``B-X`` or ``I-X`` only ``I-X`` or
  ``E-X``; after ``E-X``, ``S-X`` or ``O`` anything but ``I-Y``/``E-Y``; a
  sentence starts with ``B``, ``S`` or ``O`` and ends with ``E``, ``S`` or ``O``.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from .forward_backward import forward_backward_kernel
from .nbest import astar_workspace, nbest_into
from .scoring import emission_scores, max_sentence_length, weight_views
from .viterbi import viterbi_kernel
from ..errors import InputError
from ..evaluation.schemes import transition_allowed as _allowed

#: Schemes whose rules can be enforced (aliases such as ``bio``/``bioes`` are accepted too).
SCHEMES = ("iob1", "iob2", "ioe1", "ioe2", "iobes", "bilou", "bmes")


def detect_scheme(labels) -> str | None:
    """The chunk scheme a label set follows, or None (POS tags and other plain labels).

    From the label set alone IOB1 and IOB2 (and IOE1 and IOE2) look alike:
    ``B``/``I`` labels give ``iob2`` (the scheme of CoNLL-2000 and JNLPBA),
    ``I``/``E`` labels ``ioe2``; ``I`` labels alone ``iob1`` (which then
    forbids nothing). Models record the scheme of their training sequences
    (``training_summary_["label_scheme"]``), which decoding prefers.

    Parameters
    ----------
    labels : iterable of str

    Returns
    -------
    str or None
        One of :data:`SCHEMES`.
    """
    from collections import Counter

    from ..evaluation.schemes import _parse, detect_notation

    labels = list(labels)
    notation = detect_notation(Counter(labels))  # B-PER, B_PER, PER-B or PER_B
    parts = [_parse(lab, notation) for lab in labels]
    kinds = {k for k, _, _ in parts} - {"O"}
    if not kinds or "other" in kinds or kinds == {"typed", "bare"}:
        return None
    prefixes = {p for k, p, _ in parts if k != "O"}
    if prefixes & {"L", "U"}:
        return "bilou" if prefixes <= set("BILU") else None
    if "M" in prefixes:
        return "bmes" if prefixes <= set("BMES") else None
    if "S" in prefixes or {"B", "E"} <= prefixes:
        return "iobes" if prefixes <= set("BIES") else None
    if "E" in prefixes:
        return "ioe2"
    return "iob2" if "B" in prefixes else "iob1"


def scheme_masks(labels, scheme: str | None = None, counts: dict | None = None):
    """Allowed transitions, first labels and last labels of a label scheme.

    Parameters
    ----------
    labels : list of str
        The model's labels (``labels_``), in id order.
    scheme : str, optional
        One of :data:`SCHEMES` (or an alias: ``bio``, ``bioes``, ...);
        detected from the labels when None (:func:`detect_scheme`).
    counts : dict of str to int, optional
        Training tokens of each label (``training_summary_["label_counts"]``): labels of another
        scheme on at most 1 % of the chunk tokens are typos, strays of ``scheme`` (an ``S-PER`` in
        IOB2 data). Without counts, such labels may be at most a third of the chunk labels.

    Returns
    -------
    scheme : str
    trans_ok : bool array, shape (n_labels, n_labels)
        ``trans_ok[prev, cur]``.
    start_ok, end_ok : bool arrays, shape (n_labels,)

    Raises
    ------
    ValueError
        (:class:`chaintag.errors.InputError`) When the labels follow no chunk scheme, or not the one named
        (``E-X`` under IOB2). Labels that fit no chunk prefix at all (a POS
        tag among chunk labels) are read as ``O``, as the chunk scorer does.

    Notes
    -----
    Labels are read by :func:`chaintag.evaluation.schemes.detect_scheme`
    with the scheme given, so decoding and scoring agree on every label.
    """
    from ..evaluation.schemes import detect_scheme as read_labels
    from ..evaluation.schemes import resolve_scheme

    labels = list(labels)
    found = detect_scheme(labels)
    if scheme is None:
        scheme = found
        if scheme is None:
            shown = ", ".join(labels[:8]) + (", ..." if len(labels) > 8 else "")
            raise InputError(f"the labels ({shown}) follow no chunk scheme ({', '.join(SCHEMES)}): "
                             "there is no transition rule to enforce")
    scheme = resolve_scheme(scheme)
    if scheme not in SCHEMES:
        raise InputError(f"unknown label scheme {scheme!r}; expected one of {', '.join(SCHEMES)}")
    families = ({"iob1", "iob2"}, {"ioe1", "ioe2"})
    read = read_labels([[lab] for lab in labels], scheme=scheme)
    if found is not None and scheme != found and not any({scheme, found} <= f for f in families):
        chunk = [lab for lab in labels if lab != "O"]
        if counts:
            typos = 100 * sum(counts.get(lab, 0) for lab in read.stray) <= sum(counts.get(lab, 0) for lab in chunk)
        else:
            typos = 3 * len(read.stray) <= len(chunk)
        if not (read.stray and typos):  # the labels of another scheme, not a few typos read as strays
            raise ValueError(f"the labels follow the {found.upper()} scheme, not {scheme.upper()}")
    if read.stray and len(read.stray) == len([lab for lab in labels if lab != "O"]):
        raise ValueError(f"no label belongs to the {scheme.upper()} scheme")
    parts = [read.read[lab] for lab in labels]
    L = len(labels)
    trans_ok = np.ones((L, L), dtype=bool)
    start_ok = np.ones(L, dtype=bool)
    end_ok = np.ones(L, dtype=bool)
    for j, cur in enumerate(parts):
        start_ok[j] = _allowed(scheme, None, cur)
        end_ok[j] = _allowed(scheme, cur, None)
        for i, prev in enumerate(parts):
            trans_ok[i, j] = _allowed(scheme, prev, cur)
    return scheme, trans_ok, start_ok, end_ok


def constrained_weights(weights, n_features: int, n_labels: int, trans_ok, start_ok, end_ok) -> np.ndarray:
    """A copy of the flat weights with ``-inf`` on the forbidden transitions, starts and ends.

    Parameters
    ----------
    weights : float64 array, shape (n_weights,)
        Layout of :mod:`chaintag.features.space` (features, ``L*L``
        transitions ``[prev, cur]``, ``L`` start, ``L`` end, then anything).
    n_features, n_labels : int
    trans_ok, start_ok, end_ok : bool arrays
        From :func:`scheme_masks`.

    Returns
    -------
    float64 array, shape (n_weights,)
    """
    w = np.array(weights, dtype=np.float64, copy=True)
    F, L = n_features, n_labels
    w[F:F + L * L][~np.asarray(trans_ok, dtype=bool).ravel()] = -np.inf
    w[F + L * L:F + L * L + L][~np.asarray(start_ok, dtype=bool)] = -np.inf
    w[F + L * L + L:F + L * L + 2 * L][~np.asarray(end_ok, dtype=bool)] = -np.inf
    return w


def is_valid_path(path, trans_ok, start_ok, end_ok) -> bool:
    """Whether a label-id sequence breaks none of the scheme rules (for tests and checks)."""
    path = list(path)
    if not path:
        return True
    if not start_ok[path[0]] or not end_ok[path[-1]]:
        return False
    return all(trans_ok[a, b] for a, b in zip(path, path[1:]))


# ------------------------------------------------------------ compiled corpus kernels


@njit(cache=True)
def fix_emissions(E, fixed, t0, n_tokens):
    """``E[i, l] = -inf`` for every label but ``fixed[t0 + i]`` where that is >= 0 (in place).

    Parameters
    ----------
    E : float64 array, shape (>= n_tokens, n_labels)
        Emission scores of the sentence's tokens.
    fixed : int32 array, shape (n_tokens of the corpus,)
        Label id each token must take, or -1 (free).
    t0 : int
        Corpus index of the sentence's first token.
    n_tokens : int
        Length of the sentence.
    """
    n_labels = E.shape[1]
    for i in range(n_tokens):
        f = fixed[t0 + i]
        if f >= 0:
            for j in range(n_labels):
                if j != f:
                    E[i, j] = -np.inf


@njit(cache=True)
def tag_corpus_fixed(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels, fixed, out, best):
    """Viterbi over every sentence with some labels fixed.

    Parameters
    ----------
    sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels
        As :func:`chaintag.decoding.scoring.tag_corpus` (``w`` may hold ``-inf``).
    fixed : int32 array, shape (n_tokens,)
        Label id the token must take, or -1 (free).
    out : int32 array, shape (n_tokens,)
        Receives the label ids.
    best : float64 array, shape (n_sentences,)
        Receives each sentence's best score (``-inf``: no sequence satisfies the constraints).
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    delta = np.zeros((m, n_labels))
    back = np.zeros((m, n_labels), dtype=np.int32)
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        best[s] = 0.0
        if t1 == t0:
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, np.zeros(0), t0, t1, feat_label, w, E)  # 0/1 attributes
        fix_emissions(E, fixed, t0, t1 - t0)
        best[s] = viterbi_kernel(E[:t1 - t0], trans, start, end, out[t0:t1], delta, back)


@njit(cache=True)
def nbest_corpus_fixed(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels, k, fixed, out_paths,
                       out_scores, out_found):
    """Exact top-k (A*) of every sentence with some labels fixed.

    Same contract as :func:`chaintag.decoding.nbest.nbest_corpus`, plus
    ``fixed`` (int32, shape (n_tokens,), -1 = free). Sequences of score
    ``-inf`` (breaking a constraint) may be among the ``out_found``; the
    caller drops them.
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    paths = np.zeros((k, m), dtype=np.int32)
    scores = np.zeros(k)
    ws = astar_workspace(m, n_labels, k, 0)
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            out_found[s] = 0
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, np.zeros(0), t0, t1, feat_label, w, E)  # 0/1 attributes
        fix_emissions(E, fixed, t0, t1 - t0)
        ws = nbest_into(E[:t1 - t0], trans, start, end, k, s, t0, paths, scores, ws, out_paths, out_scores, out_found)


@njit(cache=True)
def marginals_corpus_fixed(sent_ptr, tok_ptr, ent_lo, ent_n, feat_label, w, n_labels, fixed, out):
    """Forward-backward token marginals of every sentence with some labels fixed.

    Same contract as :func:`chaintag.learners.crf_kernels.marginals_corpus`,
    plus ``fixed`` (int32, shape (n_tokens,), -1 = free): the marginals of
    the distribution restricted to the sequences that satisfy the
    constraints (a row of NaN when none does).
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = max(max_sentence_length(sent_ptr), 1)
    E = np.zeros((m, n_labels))
    pe = np.zeros((m, n_labels))
    alpha = np.zeros((m, n_labels))
    beta = np.zeros((m, n_labels))
    marg = np.zeros((m, n_labels))
    pt = np.zeros((n_labels, n_labels))
    pair = np.zeros((n_labels, n_labels))
    scale = np.zeros(m)
    for s in range(sent_ptr.shape[0] - 1):
        t0 = sent_ptr[s]
        t1 = sent_ptr[s + 1]
        if t1 == t0:
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, np.zeros(0), t0, t1, feat_label, w, E)  # 0/1 attributes
        fix_emissions(E, fixed, t0, t1 - t0)
        forward_backward_kernel(E[:t1 - t0], trans, start, end, pe, pt, alpha, beta, scale, marg, pair)
        for i in range(t1 - t0):
            for j in range(n_labels):
                out[t0 + i, j] = marg[i, j]
