"""The layer comparison of ``reproduce sapo`` (one encoder, softmax / CRF / SAPO layers over seeds): pooled
approximate randomization, the t-test over seeds, the verdict rule, and reading back runs trained by
earlier code only when asked."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

import chaintag_research.config as config
from chaintag_research import Runner
from chaintag_research.sapo_neural import (at_least_as_accurate, compare_heads, head_key, head_runs,
                                           pooled_stats)
from chaintag_research.significance import corpus_score

from test_experiments import _toy_run, toy_files  # noqa: F401  (the fixture)


class _FakeRun:
    """What compare_heads reads of a RunResult: the seed, the dev-chosen epoch, the test counts there."""

    def __init__(self, seed, stats, best_epoch=2):
        self.run = SimpleNamespace(params={"random_state": seed})
        self._stats = {best_epoch: np.asarray(stats, dtype=np.int64)}
        self.summary = {"best_epoch": best_epoch, "test_at_best": corpus_score(self._stats[best_epoch], "accuracy"),
                        "test_last": 0.0, "epochs_done": 3}

    def test_stats(self, epoch):
        return self._stats[epoch]


def _acc_stats(correct, total):
    """Per-sentence counts in the layout of sentence_stats: (tokens, correct tokens, gold chunks, predicted
    chunks, correct chunks)."""
    return [[t, c, 0, 0, 0] for c, t in zip(correct, total)]


def test_pooled_stats_concatenate_the_seeds_at_their_dev_chosen_epochs():
    a = _FakeRun(0, _acc_stats([1, 2], [2, 2]), best_epoch=2)
    b = _FakeRun(1, _acc_stats([0], [3]), best_epoch=1)
    got = pooled_stats([a, b])
    assert got.shape == (3, 5)
    assert got[:, 1].tolist() == [1, 2, 0] and got[:, 0].tolist() == [2, 2, 3]


def test_compare_heads_pairs_seeds_and_gives_the_mean_difference():
    # layer A: 3 of 4 tokens right on each seed; layer B: 1 of 4; seed 2 only in A (not paired)
    a = [_FakeRun(s, _acc_stats([1, 1, 1, 0], [1, 1, 1, 1])) for s in (0, 1, 2)]
    b = [_FakeRun(s, _acc_stats([1, 0, 0, 0], [1, 1, 1, 1])) for s in (0, 1)]
    got = compare_heads(a, b, "accuracy")
    assert got["seeds"] == 2
    assert got["diff"] == pytest.approx(75.0 - 25.0)
    assert 0 < got["ar_p"] <= 1
    assert got["t_p"] == 0.0  # the same non-zero difference on every seed
    # no common seed: nothing to compare
    assert compare_heads(a[:1], b[1:], "accuracy") == {"seeds": 0, "diff": None, "ar_p": None, "t_p": None}


def test_identical_layers_are_not_different():
    stats = _acc_stats([1, 0, 1, 1, 0, 1], [1] * 6)
    got = compare_heads([_FakeRun(0, stats), _FakeRun(1, stats)], [_FakeRun(0, stats), _FakeRun(1, stats)],
                        "accuracy")
    assert got["diff"] == 0 and got["ar_p"] == 1.0 and got["t_p"] == 1.0


def test_at_least_as_accurate_rule():
    assert at_least_as_accurate({"diff": 0.3, "ar_p": 0.001}) is True
    assert at_least_as_accurate({"diff": -0.3, "ar_p": 0.2}) is True  # behind, not significantly
    assert at_least_as_accurate({"diff": -0.3, "ar_p": 0.01}) is False
    assert at_least_as_accurate({"diff": None}) is None


def test_head_runs_are_ordered_seed_by_seed_with_seed_zero_as_the_main_row():
    made = []

    def make(key, label, task, learner, params, spec, epochs):
        made.append((key, learner, params))
        return key

    keys = head_runs("ud", {}, 3, (0, 1), True, "/v.txt", make)
    assert keys[:3] == ["neural/ud/bilstm", "neural/ud/bilstm-crf", "neural/ud/bilstm-sapo"]
    assert keys[3:] == ["neural/ud/bilstm@s1", "neural/ud/bilstm-crf@s1", "neural/ud/bilstm-sapo@s1"]
    assert all(p["random_state"] == (1 if "@s1" in k else 0) and p["embeddings"] == "/v.txt"
               for k, _, p in made)
    sapo = dict((k, p) for k, _, p in made)["neural/ud/bilstm-sapo"]
    assert sapo["n_best"] == 5 and sapo["margin"] == 1.0
    # the n sweep and the published loss on chunking only
    made.clear()
    keys = head_runs("chunking", {}, 3, (0,), True, None, make)
    assert {"neural/chunking/bilstm-sapo-n1", "neural/chunking/bilstm-sapo-n10",
            "neural/chunking/bilstm-sapo-m0"} <= set(keys)
    assert all("embeddings" not in p for _, _, p in made)
    assert head_key("ner", "bilstm", 2) == "neural/ner/bilstm@s2"


def test_runs_of_older_code_are_read_back_only_when_asked(toy_files, tmp_path, monkeypatch):  # noqa: F811
    train, test = toy_files
    run = _toy_run(train, test, epochs=2)
    first = Runner(tmp_path, progress=False).run_one(run)
    assert not first.summary.get("older_code")
    monkeypatch.setattr(config, "_CODE_DIGEST", ["other code"])
    # by default a change of code trains the run again
    plain = Runner(tmp_path, progress=False)
    again = plain.run_one(run)
    assert plain.epochs_trained == 2 and again.digest != first.digest
    # asked to, the runner takes the newest finished run of the same settings and data, and says so
    monkeypatch.setattr(config, "_CODE_DIGEST", ["third code"])
    reuse = Runner(tmp_path, progress=False, reuse_older_code=True)
    got = reuse.run_one(run)
    assert reuse.epochs_trained == 0 and got.summary["older_code"] is True
    timing = ("seconds", "cpu_seconds", "fit_seconds", "eval_seconds")

    def untimed(records):
        return [{k: v for k, v in r.items() if k not in timing} for r in records]

    assert got.folder in (first.folder, again.folder) and untimed(got.records) == untimed(again.records)
    # other settings are never matched
    other = _toy_run(train, test, epochs=3)
    reuse.run_one(other)
    assert reuse.epochs_trained == 3
    meta = json.loads((got.folder / "run.json").read_text())
    assert meta["settings_digest"] == reuse.digest(run, code=False)


def test_neural_learners_of_a_comparison_read_the_data_directorys_vectors(tmp_path):
    pytest.importorskip("torch")
    from chaintag_research.compare import compare_runs
    from chaintag_research.sapo import neural_available
    if not neural_available():
        pytest.skip("neural learners not installed")
    glove = tmp_path / "glove6b50d" / "glove.6B.50d.txt"
    glove.parent.mkdir()
    glove.write_text("the 0.1 0.2\n", encoding="utf-8")
    runs = compare_runs(["bilstm-crf", "bilstm-crf:embeddings=none", "bilstm:word_dim=20", "perceptron"],
                        features="chunking", train="t.txt", test="t.txt", data_dir=tmp_path)
    assert [r.params.get("embeddings") for r in runs] == [str(glove), None, None, None]
    assert compare_runs(["bilstm-crf"], features="chunking", train="t.txt", test="t.txt",
                        data_dir=tmp_path / "none")[0].params == {}
