"""The one epoch driver: callbacks around a source of epochs."""

from __future__ import annotations

import numpy as np

from chaintag.learners.epochs import Callback, Checkpoints, TimeBudget, run_epochs


class _Learner:
    algorithm = "toy"
    shuffle = True
    random_state = 3

    def __init__(self, epochs):
        self.epochs = epochs

    def _epoch_record(self, epoch, seconds, cpu_seconds, stats, weights, dev_pack):
        rec = {"epoch": epoch, **stats}
        if dev_pack is not None:
            rec["dev_score"] = float(dev_pack[epoch - 1])
        return rec


class _Source:
    """Weights count the epochs; the orders seen are kept."""

    def __init__(self, n=4):
        self.n_sentences, self.w, self.orders = n, np.zeros(2), []

    def run_epoch(self, order, epoch):
        self.orders.append(order.tolist())
        self.w = self.w + 1
        return {"updates": epoch}

    def weights(self):
        return self.w.copy()

    def state(self):
        return {"w": self.w}

    def restore(self, state):
        self.w = np.asarray(state["w"], dtype=np.float64)

    def fingerprint(self):
        return "toy"


def test_the_best_dev_epoch_is_kept_and_orders_follow_the_seed():
    learner, source = _Learner(4), _Source()
    run_epochs(learner, source, dev_pack=[10, 30, 20, 5])
    assert learner.best_epoch_ == 2 and learner.weights_.tolist() == [2.0, 2.0]
    rng = np.random.default_rng(3)
    assert source.orders == [rng.permutation(4).tolist() for _ in range(4)]
    assert [r["updates"] for r in learner.history_] == [1, 2, 3, 4]


def test_without_dev_data_the_last_epoch_is_kept():
    learner, source = _Learner(3), _Source()
    run_epochs(learner, source)
    assert learner.best_epoch_ == 3 and learner.weights_.tolist() == [3.0, 3.0]


def test_a_callback_ends_the_run_and_the_time_budget_keeps_one_epoch():
    class StopAfter2(Callback):
        def keep_going(self, run, epoch):
            return epoch <= 2

    learner = _Learner(5)
    run_epochs(learner, _Source(), callbacks=[StopAfter2()])
    assert len(learner.history_) == 2
    learner = _Learner(5)
    run_epochs(learner, _Source(), callbacks=[TimeBudget(0.0)])
    assert len(learner.history_) == 1


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path):
    whole, s1 = _Learner(4), _Source()
    run_epochs(whole, s1)
    part = _Learner(2)
    run_epochs(part, _Source(), callbacks=[Checkpoints(tmp_path)])
    rest, s2 = _Learner(4), _Source()
    run_epochs(rest, s2, callbacks=[Checkpoints(tmp_path, resume=True)])
    assert rest.weights_.tolist() == whole.weights_.tolist()
    assert s2.orders == s1.orders[2:]  # the sentence orders of epochs 1-2 were replayed, not run
    assert [r["epoch"] for r in rest.history_] == [1, 2, 3, 4]
