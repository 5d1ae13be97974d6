"""The probability of a whole span (a chunk, an entity) under a linear-chain model.

A span ``(X, a, b)`` is in a label sequence ``y`` when the chunk reader of
:mod:`chaintag.evaluation.chunks` (conlleval's rules) finds a chunk of type
``X`` over the tokens ``a .. b-1``. Under a linear-chain distribution
``p(y | x) = exp(s(x, y)) / Z(x)`` its probability is

    P(X, a, b | x) = sum over y containing the span of exp(s(x, y)) / Z(x).

Whether a span is in ``y`` depends on adjacent label pairs only: a chunk of
type ``X`` starts at ``a`` (given the label before it, or the sentence start),
continues at each of ``a+1 .. b-1``, and ends before ``b`` (given the label
at ``b``, or the sentence end). So the sum is a forward pass over the
tokens ``a-1 .. b`` with these pair masks, joined to the unconstrained
forward scores before ``a`` and backward scores after ``b``: exact, in
``O((b - a + 2) L^2)`` per span after one forward-backward pass of the
sentence. This is the constrained forward-backward of Culotta and
McCallum (2004, "Confidence estimation for information extraction",
HLT-NAACL), with the constraint that the span is read as one chunk.

The pair masks are read off the chunk reader itself (:func:`chunk_masks`),
so spans, scoring and confidence agree for every scheme in which each
label is either outside or inside a chunk (IOB1, IOB2, IOE1, IOE2, IOBES,
BILOU, BMES).
"""

from __future__ import annotations

from .._jit import njit
import numpy as np

from ..evaluation.chunks import _scan
from .scoring import emission_scores, weight_views

__all__ = ["chunk_masks", "span_log_probs", "span_log_probs_corpus", "span_probs_topn"]

_NEG = -np.inf


def chunk_masks(labels, read: dict):
    """How adjacent label pairs open, continue and close chunks, as the chunk reader decides.

    Parameters
    ----------
    labels : list of str
        The model's labels, in id order.
    read : dict of str to (str, str)
        ``label -> (prefix, type)`` as the chunk reader reads them (``Scheme.read`` of
        :func:`chaintag.evaluation.schemes.detect_scheme`).

    Returns
    -------
    type_id : int32 array, shape (L,)
        The chunk type of each label as an index into ``types``; -1 for labels outside chunks.
    starts : bool array, shape (L + 1, L)
        ``starts[p, c]``: a chunk starts at a token labelled ``c`` after a token labelled ``p``;
        row ``L`` is the sentence start.
    ends : bool array, shape (L, L + 1)
        ``ends[p, c]``: the chunk holding a token labelled ``p`` ends before a token labelled
        ``c``; column ``L`` is the sentence end.
    types : list of str
        The chunk types.
    """
    L = len(labels)
    cache = {lab: read.get(lab, ("O", "")) for lab in labels}
    boundary = "\x00O"
    cache[boundary] = ("O", "")
    types: list[str] = []
    type_id = np.full(L, -1, dtype=np.int32)
    for j, lab in enumerate(labels):
        found = _scan([lab], cache)
        if found:
            if found[0][0] not in types:
                types.append(found[0][0])
            type_id[j] = types.index(found[0][0])
    names = list(labels) + [boundary]
    starts = np.zeros((L + 1, L), dtype=np.bool_)
    ends = np.zeros((L, L + 1), dtype=np.bool_)
    for p in range(L + 1):
        for c in range(L + 1):
            chunks = _scan([names[p], names[c]], cache)
            if c < L:
                starts[p, c] = any(s == 1 for _, s, _ in chunks)
            if p < L:
                ends[p, c] = any(s == 0 and e == 1 for _, s, e in chunks)
    return type_id, starts, ends, types


@njit(cache=True)
def _lse(x):
    m = _NEG
    for v in x:
        if v > m:
            m = v
    if m == _NEG:
        return _NEG
    s = 0.0
    for v in x:
        s += np.exp(v - m)
    return m + np.log(s)


@njit(cache=True)
def span_log_probs(E, trans, start, end, spans, type_id, starts, ends, out):
    """Log-probabilities of spans of one sentence under ``exp(score) / Z`` (compiled).

    Parameters
    ----------
    E : float64 array, shape (T, L)
        Emission scores.
    trans : float64 array, shape (L, L)
        Transition scores ``[prev, cur]``.
    start, end : float64 arrays, shape (L,)
        Scores of the first and last label.
    spans : int64 array, shape (n, 3)
        ``(type, a, b)`` per span: a type index of :func:`chunk_masks` and the tokens ``a .. b-1``.
    type_id, starts, ends
        From :func:`chunk_masks`.
    out : float64 array, shape (n,)
        Filled with ``log P(span | x)`` (``-inf`` for a span no sequence contains).

    Returns
    -------
    float
        ``log Z(x)``.
    """
    T, L = E.shape
    alpha = np.empty((T, L))
    beta = np.empty((T, L))
    tmp = np.empty(L)
    for j in range(L):
        alpha[0, j] = start[j] + E[0, j]
    for t in range(1, T):
        for j in range(L):
            for i in range(L):
                tmp[i] = alpha[t - 1, i] + trans[i, j]
            alpha[t, j] = _lse(tmp) + E[t, j]
    for j in range(L):
        beta[T - 1, j] = end[j]
    for t in range(T - 2, -1, -1):
        for i in range(L):
            for j in range(L):
                tmp[j] = trans[i, j] + E[t + 1, j] + beta[t + 1, j]
            beta[t, i] = _lse(tmp)
    for j in range(L):
        tmp[j] = alpha[T - 1, j] + end[j]
    log_z = _lse(tmp)
    cur = np.empty(L)
    nxt = np.empty(L)
    pair = np.empty(L * L)
    for s in range(spans.shape[0]):
        x, a, b = spans[s, 0], spans[s, 1], spans[s, 2]
        # the first token: a chunk of type x starts at a
        for j in range(L):
            if type_id[j] != x:
                cur[j] = _NEG
            elif a == 0:
                cur[j] = start[j] + E[0, j] if starts[L, j] else _NEG
            else:
                for i in range(L):
                    tmp[i] = alpha[a - 1, i] + trans[i, j] if starts[i, j] else _NEG
                cur[j] = _lse(tmp) + E[a, j]
        # the tokens inside: the chunk goes on
        for t in range(a + 1, b):
            for j in range(L):
                if type_id[j] != x:
                    nxt[j] = _NEG
                    continue
                for i in range(L):
                    tmp[i] = cur[i] + trans[i, j] if not starts[i, j] and not ends[i, j] else _NEG
                nxt[j] = _lse(tmp) + E[t, j]
            cur[:] = nxt
        # the chunk ends before b
        if b == T:
            for i in range(L):
                tmp[i] = cur[i] + end[i] if ends[i, L] else _NEG
            total = _lse(tmp)
        else:
            for i in range(L):
                for j in range(L):
                    pair[i * L + j] = (cur[i] + trans[i, j] + E[b, j] + beta[b, j]) if ends[i, j] else _NEG
            total = _lse(pair)
        out[s] = total - log_z
    return log_z


@njit(cache=True)
def span_log_probs_corpus(sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels, span_ptr, spans,
                          type_id, starts, ends, out):
    """:func:`span_log_probs` for every sentence of a corpus under a linear model's weights (compiled).

    Parameters
    ----------
    sent_ptr, tok_ptr, ent_lo, ent_n, ent_val, feat_label, w, n_labels
        The corpus and weights, as for :func:`chaintag.decoding.scoring.tag_corpus`.
    span_ptr : int64 array, shape (n_sentences + 1,)
        ``spans[span_ptr[s]:span_ptr[s+1]]`` are the spans of sentence ``s``.
    spans : int64 array, shape (n_spans, 3)
        ``(type, a, b)``, token offsets within the sentence.
    type_id, starts, ends
        From :func:`chunk_masks`.
    out : float64 array, shape (n_spans,)
        Filled with the spans' log-probabilities.
    """
    trans, start, end = weight_views(w, feat_label.shape[0], n_labels)
    m = 1
    for s in range(sent_ptr.shape[0] - 1):
        m = max(m, sent_ptr[s + 1] - sent_ptr[s])
    E = np.empty((m, n_labels))
    for s in range(sent_ptr.shape[0] - 1):
        t0, t1 = sent_ptr[s], sent_ptr[s + 1]
        k0, k1 = span_ptr[s], span_ptr[s + 1]
        if k1 == k0 or t1 == t0:
            continue
        emission_scores(tok_ptr, ent_lo, ent_n, ent_val, t0, t1, feat_label, w, E)
        span_log_probs(E[:t1 - t0], trans, start, end, spans[k0:k1], type_id, starts, ends, out[k0:k1])


def span_probs_topn(candidates, spans) -> list[float]:
    """Span probabilities from a top-n list: the summed probability of the sequences holding each span.

    Parameters
    ----------
    candidates : list of (chunks, probability)
        The top-n label sequences of one sentence, each as its set of chunks ``(type, a, b)``,
        with its probability over the top-n (the probabilities sum to 1).
    spans : list of (str, int, int)

    Returns
    -------
    list of float
        One probability in [0, 1] per span. Exact for the distribution over the top-n (SAPO, Sun
        et al., section 2: ``P_k`` = softmax of the top-n scores); equal to the model's own
        span probability when n covers every label sequence.
    """
    out = []
    for span in spans:
        out.append(float(min(1.0, sum(p for chunks, p in candidates if span in chunks))))
    return out
