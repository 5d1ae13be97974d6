"""Epochs on several threads (Hogwild): one part is the serial pass bit for bit; more parts still learn."""

import numba
import numpy as np
import pytest

from chaintag import SAPO, StructuredPerceptron
from chaintag.learners.hogwild_kernels import (clock, perceptron_epoch_hogwild, sapo_epoch_hogwild,
                                               sapo_scales)
from chaintag.learners.path_kernels import training_arrays
from chaintag.learners.perceptron_kernels import perceptron_epoch
from chaintag.learners.sapo_kernels import sapo_epoch
from chaintag.learners.threads import resolve_threads

from toy_corpus import LABELS, SENTS  # noqa: E402

FEATURES = ["w[0]", "w[-1]", "pos[0]", "pos[-1]|pos[0]", "suf2(w[0])"]
COLS = ("word", "pos")


def synthetic(n_sent, seed):
    """Sentences whose labels follow from the word and the previous label (learnable, with noise words)."""
    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(30)]
    sents, labels = [], []
    for _ in range(n_sent):
        n = int(rng.integers(1, 9))
        toks = [(words[int(rng.integers(30))], "P") for _ in range(n)]
        labs, prev = [], "A"
        for w, _ in toks:
            k = int(w[1:])
            prev = ("A", "B", "C")[k % 3] if k < 20 else prev
            labs.append(prev)
        sents.append(toks)
        labels.append(labs)
    return sents, labels


def captured(learner, sents, labels):
    """The TrainData and state of a learner's first epoch (and the fitted learner)."""
    cap = {}
    run = type(learner)._run_epoch

    def spy(self, state, data, order):
        cap.setdefault("data", data)
        cap.setdefault("state", {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in state.items()})
        return run(self, state, data, order)
    learner._run_epoch = spy.__get__(learner)
    learner.fit(sents, labels)
    return cap["data"], cap["state"]


@pytest.mark.parametrize("averaged", [True, False])
def test_perceptron_kernel_with_one_part_is_the_serial_pass(averaged):
    sents, labels = synthetic(60, 1)
    data, state = captured(StructuredPerceptron(features=FEATURES, columns=COLS, epochs=1, progress=False),
                           sents, labels)
    a = data.attrs
    order = np.random.default_rng(0).permutation(a.n_sentences).astype(np.int64)
    out = []
    for hog in (False, True):
        w, u, step = np.zeros(data.index.n_weights), np.zeros(data.index.n_weights), 0
        for _ in range(3):
            args = (order, training_arrays(data, state["gold_feat"]), w, u, step, data.index.n_labels, averaged)
            r = perceptron_epoch_hogwild(*args, 1) if hog else perceptron_epoch(*args)
            step = r[2]
        out.append((w, u, r))
    assert out[0][0].tobytes() == out[1][0].tobytes()
    assert out[0][1].tobytes() == out[1][1].tobytes()
    assert tuple(out[0][2]) == tuple(out[1][2])
    assert out[0][2][0] > 0  # the passes did update


@pytest.mark.parametrize("l2_per_sample", [True, False])
def test_sapo_kernel_with_one_part_is_the_serial_pass(l2_per_sample):
    sents, labels = synthetic(60, 2)
    data, state = captured(SAPO(features=FEATURES, columns=COLS, epochs=1, progress=False), sents, labels)
    a = data.attrs
    n_train, L = a.n_sentences, data.index.n_labels
    order = np.random.default_rng(1).permutation(n_train).astype(np.int64)
    lr0, l2 = 0.3, 2.0
    # serial
    v = np.zeros(data.index.n_weights)
    sigma, step, n_upd, n_err, loss, _ = sapo_epoch(
        order, training_arrays(data), v, 1.0, 5, L, 3, False, 50, np.inf, lr0, True, l2, n_train, l2_per_sample, False, np.zeros(1), np.zeros(1), 0.0,
        0.0, 0)
    # one part
    v1 = np.zeros(data.index.n_weights)
    gammas, sigmas = sapo_scales(len(order), 1.0, 5, lr0, True, l2, n_train, l2_per_sample)
    n_upd1, n_err1, loss1 = sapo_epoch_hogwild(order, training_arrays(data), v1, gammas, sigmas, L, 3, False, 50,
                                               np.inf, 1)
    assert v.tobytes() == v1.tobytes()
    assert sigmas[-1] == sigma and step == 5 + len(order)
    assert (n_upd, n_err, loss) == (n_upd1, n_err1, loss1)
    assert n_upd > 0


def test_sapo_scales_follow_the_serial_schedule():
    gammas, sigmas = sapo_scales(4, 0.5, 10, 0.2, True, 3.0, 20, True)
    sigma = 0.5
    for k in range(4):
        g = 0.2 / (1 + (10 + k) / 20)
        assert gammas[k] == g and sigmas[k] == sigma
        sigma *= 1 - g * 3.0 / 20
    assert sigmas[4] == sigma
    _, flat = sapo_scales(3, 1.0, 0, 0.2, False, 1.0, 10, False)  # L2 once a pass: no shrink per sample
    assert (flat == 1.0).all()


def test_clock_sums_the_counts():
    assert clock(np.array([3, 0, 4], dtype=np.int64)) == 7
    assert clock(np.zeros(0, dtype=np.int64)) == 0


@pytest.mark.parametrize("cls", [StructuredPerceptron, SAPO])
def test_one_thread_is_deterministic_and_is_the_default(cls):
    kw = dict(features=FEATURES, columns=COLS, epochs=3, shuffle=True, random_state=4, progress=False)
    a = cls(**kw).fit(SENTS, LABELS)
    b = cls(n_jobs=1, **kw).fit(SENTS, LABELS)
    assert a.n_jobs == 1
    assert a.weights_.tobytes() == b.weights_.tobytes()
    assert [h["updates"] for h in a.history_] == [h["updates"] for h in b.history_]


@pytest.mark.parametrize("cls", [StructuredPerceptron, SAPO])
def test_several_threads_learn_as_well(cls):
    """Two threads (when numba has them): the training data is learned as by the serial pass."""
    sents, labels = synthetic(400, 3)
    test_s, test_l = synthetic(200, 4)
    kw = dict(features=["w[0]", "w[-1]"], columns=COLS, epochs=5, shuffle=True, progress=False)
    serial = cls(**kw).fit(sents, labels)
    par = cls(n_jobs=2, **kw).fit(sents, labels)
    acc_s = serial.evaluate(test_s, test_l).accuracy
    acc_p = par.evaluate(test_s, test_l).accuracy
    assert acc_s > 90
    assert acc_p > acc_s - 3


def test_n_jobs_values():
    assert resolve_threads(1) == 1 and resolve_threads(None) == 1
    assert resolve_threads(-1) == numba.config.NUMBA_NUM_THREADS
    assert resolve_threads(10 ** 6) == numba.config.NUMBA_NUM_THREADS
    for bad in (0, -2, 1.5):
        with pytest.raises(ValueError, match="n_jobs"):
            resolve_threads(bad)
