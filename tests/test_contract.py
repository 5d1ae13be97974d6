"""Every learner through one contract: fit returns self, seeded runs repeat, a separable
toy corpus is learned, inputs are not modified, the model survives a save/load."""

import copy

import numpy as np
import pytest

import chaintag

from toy_corpus import LABELS, SENTS  # noqa: E402
BASE = dict(features=["w[0]", "w[-1]", "pos[0]", "pos[-1]|pos[0]"], columns=("word", "pos"), progress=False)
SETTINGS = {
    "perceptron": dict(epochs=20),
    "sapo": dict(epochs=30, learning_rate=0.5, l2=0.1),
    "sapo2": dict(epochs=30, learning_rate=0.5, l2=0.1),
    "crf": dict(epochs=40, learning_rate=0.5, l2=0.01),
    "crf-lbfgs": dict(l2=0.01),
    "mira": dict(epochs=20),
    "nbest-mira": dict(epochs=20),
    "bilstm": dict(epochs=25, word_dim=8, char_dim=4, char_filters=4, hidden=8, feature_dim=4,
                   learning_rate=0.05, dropout=0.0, batch_size=2),
    "bilstm-crf": dict(epochs=25, word_dim=8, char_dim=4, char_filters=4, hidden=8, feature_dim=4,
                       learning_rate=0.05, dropout=0.0, batch_size=2),
    "bilstm-sapo": dict(epochs=25, word_dim=8, char_dim=4, char_filters=4, hidden=8, feature_dim=4,
                        learning_rate=0.05, dropout=0.0, batch_size=2),
}
#: The learners that embed the token columns themselves (PyTorch).
NEURAL = {n for n, cls in chaintag.learners.LEARNERS.items() if getattr(cls, "learns_representation", False)}


def _skip_without_torch(name):
    if name in NEURAL:
        torch = pytest.importorskip("torch", reason="the neural learners need the 'neural' extra (PyTorch)")
        torch.set_num_threads(1)  # tiny models: threads only add overhead


@pytest.mark.parametrize("name", sorted(chaintag.learners.LEARNERS))
def test_learner_contract(name, tmp_path):
    _skip_without_torch(name)
    params = {**BASE, **SETTINGS.get(name, {})}
    sents, labels = copy.deepcopy(SENTS), copy.deepcopy(LABELS)
    a = chaintag.make_learner(name, strict=False, random_state=4, **params)
    assert a.fit(sents, labels) is a
    assert sents == SENTS and labels == LABELS
    b = chaintag.make_learner(name, strict=False, random_state=4, **params).fit(SENTS, LABELS)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert a.predict(SENTS) == LABELS
    assert a.score(SENTS, LABELS) == 100.0
    if "errors" in a.history_[-1]:
        assert a.history_[-1]["errors"] == 0
    path = tmp_path / "m.npz"
    a.save(path)
    c = chaintag.load(path)
    assert type(c) is type(a) and c.predict(SENTS) == LABELS
    np.testing.assert_array_equal(c.weights_, a.weights_)


@pytest.mark.parametrize("name", sorted(chaintag.learners.LEARNERS))
@pytest.mark.parametrize("variant", [{}, {"averaged": True, "l2_per_pass": True}])
def test_kernel_warm_up_changes_nothing(name, variant, monkeypatch, tmp_path):
    """The epoch over no sentences that compiles the kernels before the timed epochs (on the state
    itself where the learner declares it a no-op, else on a copy) leaves the weights as without it,
    also when a run resumes from a checkpoint with weights already learned."""
    from chaintag.learners.base import SequenceTagger
    _skip_without_torch(name)
    cls = type(chaintag.make_learner(name, strict=False))
    if "checkpoint_dir" not in __import__("inspect").signature(cls.fit).parameters:
        pytest.skip("no checkpoints")
    extra = {k: v for k, v in variant.items() if k in cls._param_names()}
    if variant and not extra:
        pytest.skip("no such variant for this learner")
    params = {**BASE, **SETTINGS.get(name, {}), **extra}

    def two_then_four(folder):
        for epochs in (2, 4):
            m = chaintag.make_learner(name, strict=False, random_state=1, **dict(params, epochs=epochs))
            try:
                m.fit(SENTS, LABELS, checkpoint_dir=folder, resume=True)
            except chaintag.errors.InputError as exc:
                pytest.skip(str(exc))
        return m

    a = two_then_four(tmp_path / "a")
    monkeypatch.setattr(SequenceTagger, "_warm_up", lambda self, state, data: None)
    b = two_then_four(tmp_path / "b")
    np.testing.assert_array_equal(a.weights_, b.weights_)
