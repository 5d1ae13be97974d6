"""Faults found by a user of the neural learners, each as a kind."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural learners need the 'neural' extra (PyTorch)")

import chaintag  # noqa: E402
from chaintag.cli.main import main  # noqa: E402
from chaintag.errors import InputError  # noqa: E402

from neural_tiny import TINY, one_thread  # noqa: E402,F401
from toy_corpus import LABELS, SENTS  # noqa: E402


@pytest.fixture(scope="module")
def crf_model():
    return chaintag.make_learner("bilstm-crf", epochs=2, **TINY).fit(SENTS, LABELS)


def test_nbest_probabilities_are_over_the_k_and_confidence_is_read_from_them(crf_model):
    """bilstm-crf's n-best gave the CRF's whole-lattice probability (about 1e-29 on real sentences), so
    predict_confidence and tag --confidence read 0 for every token; every learner's n-best gives the
    probabilities over the k returned."""
    for cands in crf_model.predict_nbest(SENTS, 3):
        scores = np.array([c[1] for c in cands])
        want = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        np.testing.assert_allclose([c[2] for c in cands], want, rtol=1e-12)
    labels, conf = crf_model.predict_confidence(SENTS, 3)
    assert labels == crf_model.predict(SENTS)
    assert all(0 < c <= 1 for cs in conf for c in cs) and min(min(cs) for cs in conf) > 1 / 3 - 1e-9
    # all k of a one-token sentence with one label agree: confidence 1
    assert crf_model.predict_confidence([[("the", "DT")]], 1)[1] == [[1.0]]


@pytest.mark.parametrize("call", ["nbest", "confidence", "marginals", "spans", "text"])
def test_constraints_on_the_neural_taggers_are_refused_by_name(crf_model, call):
    """constrain=True gave a TypeError ('unexpected keyword argument') from predict_nbest, predict_marginals,
    predict_confidence, predict_spans and tag_text; predict refused it as 'not a linear chain of label
    transitions', which the CRF layer is."""
    calls = {"nbest": lambda: crf_model.predict_nbest(SENTS, 2, constrain=True),
             "confidence": lambda: crf_model.predict_confidence(SENTS, 2, constrain=True),
             "marginals": lambda: crf_model.predict_marginals(SENTS, fixed=[[None] * len(s) for s in SENTS]),
             "spans": lambda: crf_model.predict_spans(SENTS, constrain=True),
             "text": lambda: chaintag.make_learner("bilstm-crf", epochs=1, **{**TINY, "columns": ("word",)}).fit(
                 [[w for w, _ in s] for s in SENTS], LABELS).tag_text("the dog barks", constrain=True)}
    with pytest.raises(NotImplementedError, match="not implemented for the neural taggers"):
        calls[call]()
    with pytest.raises(NotImplementedError, match="offers no constrained or partially labelled decoding"):
        crf_model.predict(SENTS, constrain=True)


def test_python_parameters_are_checked_as_the_command_line_checks_them():
    """max_seconds=-1 trained; random_state=-1 gave a bare numpy error; embeddings='none' was read as a
    file name; dropout=1.5 gave a message naming two parameters."""
    for kw, message in ((dict(max_seconds=-1), "max_seconds must be a finite number of at least 0"),
                        (dict(random_state=-1), "random_state must be an integer of at least 0"),
                        (dict(dropout=1.5), "dropout must be a finite number of at least 0 and below 1")):
        with pytest.raises(InputError, match=message):
            chaintag.make_learner("bilstm", epochs=1, **TINY, **kw).fit(SENTS, LABELS)
    m = chaintag.make_learner("bilstm", epochs=1, embeddings="none", **TINY).fit(SENTS, LABELS)
    assert m.predict(SENTS[:1])


def test_inspect_shows_no_empty_sections_for_the_softmax_tagger(tmp_path, capsys):
    path = tmp_path / "b.npz"
    chaintag.make_learner("bilstm", epochs=1, **TINY).fit(SENTS, LABELS).save(path)
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "transitions (rows" not in out and "top attributes per label" not in out
    crf = tmp_path / "c.npz"
    chaintag.make_learner("bilstm-crf", epochs=1, **TINY).fit(SENTS, LABELS).save(crf)
    assert main(["inspect", str(crf)]) == 0
    assert "transitions (rows" in capsys.readouterr().out
