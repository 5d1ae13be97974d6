"""Faults found by a Python integrator (scikit-learn conventions, threads, refits), each as a kind."""

import threading

import pytest

import chaintag
from chaintag import InputError, NotFittedError, StructuredPerceptron
from chaintag.errors import TrainingError

from toy_corpus import LABELS, SENTS

POS = [[p for _, p in s] for s in SENTS]  # a second task on the same words: their POS tags
WORDS = [[w for w, _ in s] for s in SENTS]


def _chunker():
    return StructuredPerceptron(epochs=2, columns=("word",), features="w[0];w[-1];w[1]").fit(WORDS, LABELS)


@pytest.mark.parametrize("learner", ["perceptron", "sapo", "crf", "mira", "maxent", "perceptron2"])
def test_a_failed_refit_leaves_the_model_as_it_was(learner):
    """A refit that raises half-way (bad dev data after the labels and attributes were set; no feature
    left after the cut-off) once left the new labels with the old weights: wrong labels, or a compiled
    kernel reading past the weights. The model now tags as before, bit for bit."""
    m = chaintag.make_learner(learner, strict=False, epochs=2, columns=("word",), features="w[0];w[-1];w[1]")
    m.fit(WORDS, LABELS)
    before = dict(vars(m))
    pred = m.predict(WORDS)
    bad_dev = (WORDS[:2], [POS[0], POS[1][:-1]])  # a dev sentence with one label short
    with pytest.raises(InputError, match="dev data"):
        m.fit(WORDS, POS, dev=bad_dev)
    assert vars(m).keys() == before.keys() and all(vars(m)[k] is before[k] for k in before)
    assert m.predict(WORDS) == pred
    if "cc" in m.get_params():
        m.set_params(cc=10**6)
        with pytest.raises(TrainingError, match="no features left"):
            m.fit(WORDS, POS)
        assert m.predict(WORDS) == pred and m.labels_ == before["labels_"]


def test_a_failed_first_fit_leaves_no_fitted_attribute_and_a_refit_keeps_none_of_the_old():
    m = StructuredPerceptron(epochs=1, cc=10**6)
    with pytest.raises(TrainingError):
        m.fit(WORDS, LABELS)
    assert not [k for k in vars(m) if k.endswith("_")]  # scikit-learn's check_is_fitted finds nothing
    with pytest.raises(NotFittedError):
        m.predict(WORDS)
    m = _chunker()
    m.label_field_ = "xpos"  # as a model trained on a CoNLL-U column records it
    m.fit(WORDS, LABELS)
    assert not hasattr(m, "label_field_")  # a refit on Python data keeps nothing of the earlier fit


def test_not_fitted_is_an_attribute_error_a_value_error_and_a_runtime_error():
    """Before fit, properties raised RuntimeError, so hasattr() raised too, and predict_spans an
    AttributeError on labels_; now one NotFittedError (scikit-learn's kinds, and chaintag's earlier one)."""
    t = chaintag.SAPO()
    assert not hasattr(t, "transitions_")
    for call in (lambda: t.predict([["a"]]), lambda: t.predict_spans([["a"]]), lambda: t.transitions_):
        with pytest.raises(NotFittedError, match="not fitted yet") as info:
            call()
        assert isinstance(info.value, (RuntimeError)) and isinstance(info.value, ValueError)
        assert isinstance(info.value, AttributeError) and isinstance(info.value, chaintag.ChaintagError)


def test_evaluate_with_a_scheme_leaves_the_model_alone_in_threads():
    """evaluate(scheme=...) set the model's eval_scheme for the call, so score() in other threads
    read accuracy instead of F1, and the model could keep the scheme afterwards."""
    m = _chunker()
    f1 = m.score(WORDS, LABELS)
    acc = m.evaluate(WORDS, LABELS, scheme="none").accuracy
    assert m.evaluate(WORDS, LABELS).f1 == f1 and m.evaluate(WORDS, LABELS).is_chunking
    out = [None] * 400
    start = threading.Barrier(8)

    def work(k):
        start.wait()
        for i in range(k, len(out), 8):
            out[i] = (m.evaluate(WORDS, LABELS, scheme="none").accuracy if i % 2
                      else m.score(WORDS, LABELS))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out[0::2] == [f1] * 200 and out[1::2] == [acc] * 200
    assert m.eval_scheme == "auto" and m.score(WORDS, LABELS) == f1


def test_the_scorer_scores_a_pipeline_and_refuses_f1_without_chunks():
    pytest.importorskip("sklearn")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer
    lower = FunctionTransformer(lambda X: [[w.lower() for w in s] for s in X])
    pipe = make_pipeline(lower, StructuredPerceptron(epochs=2, columns=("word",), features="w[0];w[-1];w[1]"))
    pipe.fit(WORDS, LABELS)
    chunker = _chunker()
    for metric, key in (("f1", "f1"), ("accuracy", "accuracy")):
        # the Pipeline has no evaluate(): the scorer scores its predictions
        expected = getattr(chaintag.evaluate(LABELS, pipe.predict(WORDS)), key)
        assert chaintag.sequence_scorer(metric)(pipe, WORDS, LABELS) == pytest.approx(expected)
        assert chaintag.sequence_scorer(metric)(chunker, WORDS, LABELS) == pytest.approx(
            getattr(chunker.evaluate(WORDS, LABELS), key))
    tagger = StructuredPerceptron(epochs=2, columns=("word",), features="w[0]").fit(WORDS, POS)
    with pytest.raises(ValueError, match="not chunk labels.*sequence_scorer\\('accuracy'\\)"):
        chaintag.sequence_scorer("f1")(tagger, WORDS, POS)
    ints = [[len(p) for p in s] for s in POS]  # labels given as integers are read as strings, as fit reads them
    model = StructuredPerceptron(epochs=2, columns=("word",), features="w[0]").fit(WORDS, ints)
    assert chaintag.sequence_scorer("accuracy")(model, WORDS, ints) == pytest.approx(
        model.evaluate(WORDS, ints).accuracy)


def test_a_negative_seed_is_named():
    with pytest.raises(InputError, match="random_state must be an integer of at least 0, not -1"):
        StructuredPerceptron(random_state=-1, shuffle=True).fit(WORDS, LABELS)


def test_a_failed_streamed_fit_leaves_the_model_as_it_was(tmp_path):
    from chaintag.streaming import fit_streamed
    m = _chunker()
    before, pred = dict(vars(m)), m.predict(WORDS)
    path = tmp_path / "train.txt"
    path.write_text("\n\n".join("\n".join(f"{w} {p}" for w, p in zip(ws, ps)) for ws, ps in zip(WORDS, POS)) + "\n")
    with pytest.raises(InputError, match="dev data"):  # checked once the labels and attributes are read
        fit_streamed(m, str(path), chunk_sentences=2, dev=(WORDS[:2], [POS[0], POS[1][:-1]]))
    assert vars(m).keys() == before.keys() and all(vars(m)[k] is before[k] for k in before)
    assert m.predict(WORDS) == pred
