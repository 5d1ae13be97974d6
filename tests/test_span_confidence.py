"""Span confidence: the probability of a whole span, against enumeration of every label sequence,
and spans equal to the chunks that evaluation counts, for every label scheme."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from chaintag.decoding.spans import chunk_masks, span_log_probs
from chaintag.evaluation.chunks import _scan, label_spans
from chaintag.evaluation.schemes import detect_scheme

from toy_corpus import LABELS, SENTS

#: label sets of every scheme the chunk reader knows, with two types
SCHEME_LABELS = {
    "iob2": ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"],
    "iob1": ["O", "I-PER", "B-PER", "I-LOC"],
    "ioe2": ["O", "I-PER", "E-PER", "E-LOC"],
    "iobes": ["O", "B-PER", "I-PER", "E-PER", "S-PER", "S-LOC"],
    "bilou": ["O", "B-PER", "I-PER", "L-PER", "U-PER", "U-LOC"],
    "bmes": ["O", "B-X", "M-X", "E-X", "S-X"],
}


def _brute(E, U, s, e, read, labels):
    """Every chunk's probability by enumerating all label sequences of the sentence."""
    T, L = E.shape
    weights, found = [], []
    for y in itertools.product(range(L), repeat=T):
        score = s[y[0]] + E[0, y[0]] + e[y[-1]] + sum(U[y[t - 1], y[t]] + E[t, y[t]] for t in range(1, T))
        weights.append(score)
        found.append(set(_scan([labels[j] for j in y], read)))
    w = np.exp(np.array(weights) - max(weights))
    w /= w.sum()
    probs: dict = {}
    for p, chunks in zip(w, found):
        for c in chunks:
            probs[c] = probs.get(c, 0.0) + p
    return probs


@pytest.mark.parametrize("scheme", sorted(SCHEME_LABELS))
@pytest.mark.parametrize("T", [1, 2, 4])
def test_span_probability_equals_enumeration(scheme, T):
    labels = SCHEME_LABELS[scheme]
    read = dict(detect_scheme([labels], (), scheme).read)
    type_id, starts, ends, types = chunk_masks(labels, read)
    rng = np.random.default_rng(T * 31 + len(scheme))
    L = len(labels)
    E, U = rng.normal(size=(T, L)), rng.normal(size=(L, L))
    s, e = rng.normal(size=L), rng.normal(size=L)
    want = _brute(E, U, s, e, read, labels)
    assert want, "the enumeration found no chunk: the test would check nothing"
    spans = np.array([(types.index(x), a, b) for x, a, b in want], dtype=np.int64)
    out = np.zeros(len(spans))
    span_log_probs(E, U, s, e, spans, type_id, starts, ends, out)
    got = np.exp(out)
    np.testing.assert_allclose(got, list(want.values()), rtol=1e-9, atol=1e-12)
    assert np.all((got >= 0) & (got <= 1))


def test_span_no_sequence_holds_is_zero():
    labels = SCHEME_LABELS["iob2"]
    read = dict(detect_scheme([labels], (), "iob2").read)
    type_id, starts, ends, types = chunk_masks(labels, read)
    E = np.zeros((3, len(labels)))
    E[:, labels.index("I-PER")] = -np.inf  # no I-PER anywhere: a PER chunk of two tokens is impossible
    out = np.zeros(1)
    U = np.zeros((len(labels),) * 2)
    z = np.zeros(len(labels))
    span_log_probs(E, U, z, z, np.array([[types.index("PER"), 0, 2]]), type_id, starts, ends, out)
    assert out[0] == -np.inf


def _tiny(algorithm, **params):
    import chaintag
    model = chaintag.make_learner(algorithm, features=["w[0]", "pos[0]", "pos[-1]"], epochs=3, **params)
    return model.fit(SENTS, LABELS)


def _all_sequences_probs(model, sent):
    """Every chunk's probability from the model's top-n with n = every label sequence (exact)."""
    L = len(model.labels_)
    cands = model.predict_nbest([sent], L ** len(sent))[0]
    assert len(cands) == L ** len(sent)
    read = dict(model.span_scheme().read)
    probs: dict = {}
    scores = np.array([c[1] for c in cands])
    w = np.exp(scores - scores.max())
    w /= w.sum()
    for (labs, _, _), p in zip(cands, w):
        for c in _scan(labs, read):
            probs[c] = probs.get(c, 0.0) + p
    return probs


@pytest.mark.parametrize("algorithm", ["perceptron", "crf", "mira"])
def test_model_spans_forward_backward_equal_enumeration(algorithm):
    model = _tiny(algorithm)
    assert model.span_confidence == "forward-backward"
    sents = [SENTS[1], [("here", "RB"), ("a", "DT"), ("cat", "NN")]]
    labels, spans = model.predict_spans(sents)
    assert labels == model.predict(sents)
    for sent, found in zip(sents, spans):
        want = _all_sequences_probs(model, sent)
        assert found
        for x, a, b, p in found:
            assert p == pytest.approx(want[(x, a, b)], rel=1e-9, abs=1e-12)
            assert 0.0 <= p <= 1.0


def test_sapo_spans_from_its_top_n():
    model = _tiny("sapo", n_best=5)
    assert model.span_confidence == "top-n"
    sent = SENTS[1]
    labels, spans = model.predict_spans([sent])
    cands = model.predict_nbest([sent], 5)[0]
    read = dict(model.span_scheme().read)
    for x, a, b, p in spans[0]:
        want = sum(q for labs, _, q in cands if (x, a, b) in _scan(labs, read))
        assert p == pytest.approx(want, rel=1e-12)
    # with n = every label sequence, the top-n probability is the model's own: equal to forward-backward
    L = len(model.labels_)
    model.n_best = L ** len(sent)
    _, top = model.predict_spans([sent])
    model.span_confidence = "forward-backward"
    _, exact = model.predict_spans([sent])
    for (x, a, b, p), (x2, a2, b2, q) in zip(top[0], exact[0]):
        assert (x, a, b) == (x2, a2, b2)
        assert p == pytest.approx(q, rel=1e-9)


@pytest.mark.parametrize("scheme", sorted(SCHEME_LABELS))
def test_spans_equal_the_chunks_evaluation_counts(scheme):
    """predict_spans reads a model's labels as evaluate reads them, for every scheme."""
    import chaintag
    labels = SCHEME_LABELS[scheme]
    rng = np.random.default_rng(7)
    words = ["a", "b", "c", "d", "e", "f"]
    sents = [[words[i] for i in rng.integers(0, 6, size=5)] for _ in range(30)]
    gold = [[labels[i] for i in rng.integers(0, len(labels), size=5)] for _ in range(30)]
    model = chaintag.make_learner("perceptron", features=["w[0]", "w[-1]"], epochs=2).fit(sents, gold)
    pred, spans = model.predict_spans(sents, scheme=scheme)
    counted = label_spans(pred, scheme)
    assert [[(x, a, b) for x, a, b, _ in s] for s in spans] == counted
    assert any(counted)


def test_pos_labels_make_no_spans():
    import chaintag
    model = chaintag.make_learner("perceptron", features=["w[0]"], epochs=2).fit(
        [["the", "dog"]], [["DT", "NN"]])
    labels, spans = model.predict_spans([["the", "dog"]])
    assert labels == [["DT", "NN"]] and spans == [[]]


@pytest.mark.parametrize("algorithm", ["bilstm-crf", "bilstm"])
def test_neural_spans_equal_enumeration(algorithm):
    pytest.importorskip("torch")
    import chaintag
    from neural_tiny import TINY
    model = chaintag.make_learner(algorithm, **{**TINY, "epochs": 2, "random_state": 3})
    model.fit(SENTS, LABELS)
    sent = SENTS[0]
    labels, spans = model.predict_spans([sent])
    read = dict(model.span_scheme().read)
    if algorithm == "bilstm-crf":
        L = len(model.labels_)
        cands = model.predict_nbest([sent], L ** len(sent))[0]
        weighted = [(labs, p) for labs, _, p in cands]  # the CRF's own probability of each sequence
    else:  # independent tokens: a sequence's probability is the product of its tokens' softmax
        marg = model.predict_marginals([sent])[0]
        weighted = [([model.labels_[j] for j in y], float(np.prod([marg[i, j] for i, j in enumerate(y)])))
                    for y in itertools.product(range(len(model.labels_)), repeat=len(sent))]
    assert sum(p for _, p in weighted) == pytest.approx(1.0, rel=1e-6)
    assert spans[0]
    for x, a, b, p in spans[0]:
        want = sum(q for labs, q in weighted if (x, a, b) in _scan(labs, read))
        assert p == pytest.approx(want, rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("algorithm", ["maxent", "perceptron2"])
def test_learners_without_nbest_give_spans_without_confidence(algorithm):
    """maxent and the second-order perceptron have no n-best search: predict_spans and tag_text ended in
    NotImplementedError (tag_text by default), and MaxEnt's predict_nbest and predict_marginals in a
    TypeError on constrain. Their spans now come with confidence None; constrain is refused as predict
    refuses it."""
    import chaintag
    params = {} if algorithm == "maxent" else {"epochs": 3}
    model = chaintag.make_learner(algorithm, features=["w[0]", "pos[0]", "pos[-1]"], **params).fit(SENTS, LABELS)
    assert model.span_confidence is None
    labels, spans = model.predict_spans(SENTS)
    assert labels == model.predict(SENTS)
    assert [[(x, a, b) for x, a, b, _ in s] for s in spans] == label_spans(labels)
    assert all(p is None for s in spans for *_, p in s) and any(spans)
    words = [[w for w, _ in s] for s in SENTS]
    reader = chaintag.make_learner(algorithm, features=["w[0]", "w[-1]"], columns=("word",), **params).fit(
        words, LABELS)
    doc = reader.tag_text("the dog barks here")
    assert [t.text for t in doc.tokens] == ["the", "dog", "barks", "here"] and doc.spans
    assert all(span.confidence is None for span in doc.spans)
    if algorithm == "maxent":
        for call in (lambda: model.predict_spans(SENTS, constrain=True),
                     lambda: model.predict_nbest(SENTS, 2, constrain=True),
                     lambda: model.predict_marginals(SENTS, fixed=[[None] * len(s) for s in SENTS])):
            with pytest.raises(NotImplementedError, match="MaxEnt"):
                call()
    else:
        fixed = [[None] * len(s) for s in SENTS]
        fixed[0][0] = "B-NP"
        assert model.predict_spans(SENTS, constrain=True, fixed=fixed)[0] == model.predict(
            SENTS, constrain=True, fixed=fixed)
