"""Tests of chaintag_research: significance tests, run configuration, the runner's
per-epoch scores and cache, and the quick mode of both paper reproductions."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag_research import (DataRef, Run, Runner, approximate_randomization, corpus_score, paired_t_test,
                                  sentence_accuracy, sentence_stats)
from chaintag_research.runner import summarize


# ---------------------------------------------------------------- toy data
def _toy_corpus(n_sentences: int, seed: int) -> tuple[list, list]:
    """Sentences of (word, pos) tokens with base-NP labels that follow from the words, plus noise words."""
    rng = np.random.default_rng(seed)
    dets, adjs, nouns = ["the", "a", "this"], ["big", "red", "old"], ["dog", "cat", "house", "idea", "car"]
    verbs, others = ["runs", "sees", "likes"], ["and", "quickly", "to", "very"]
    sents, labels = [], []
    for _ in range(n_sentences):
        toks, labs = [], []
        for _ in range(rng.integers(1, 4)):
            if rng.random() < 0.8:
                toks.append((str(rng.choice(dets)), "DT"))
                labs.append("B-NP")
                for _ in range(rng.integers(0, 2)):
                    toks.append((str(rng.choice(adjs)), "JJ"))
                    labs.append("I-NP")
                toks.append((str(rng.choice(nouns)), "NN"))
                labs.append("I-NP")
            else:
                toks.append((str(rng.choice(nouns)), "NN"))
                labs.append("B-NP")
            w = str(rng.choice(verbs + others))
            toks.append((w, "VB" if w in verbs else "XX"))
            labs.append("O")
        sents.append(toks)
        labels.append(labs)
    return sents, labels


def _write(path, sents, labels) -> str:
    with open(path, "w", encoding="utf-8") as fh:
        for toks, labs in zip(sents, labels):
            for (w, p), lab in zip(toks, labs):
                fh.write(f"{w} {p} {lab}\n")
            fh.write("\n")
    return str(path)


@pytest.fixture
def toy_files(tmp_path):
    train = _write(tmp_path / "train.txt", *_toy_corpus(80, 1))
    test = _write(tmp_path / "test.txt", *_toy_corpus(40, 2))
    return train, test


def _toy_run(train, test, learner="perceptron", params=None, epochs=4, dev=True, key="toy/run"):
    return Run(key=key, label=key, task="toy", learner=learner, params=params or {},
               features=["w[0]", "w[-1]", "w[1]", "p[0]", "p[-1]", "p[1]"], epochs=epochs,
               train=DataRef(train, 0.0, 0.75), dev=DataRef(train, 0.75, 1.0) if dev else None,
               test=DataRef(test), metric="f1")


# ------------------------------------------------------------ significance
GOLD = [["B-NP", "I-NP", "O", "B-NP"], ["O", "B-NP"], ["B-NP", "O", "O"]]
PRED = [["B-NP", "I-NP", "O", "O"], ["B-NP", "I-NP"], ["B-NP", "O", "O"]]


def test_sentence_stats_sum_to_the_corpus_scores():
    stats = sentence_stats(GOLD, PRED)
    assert stats.shape == (3, 5)
    assert stats.tolist()[0] == [4, 3, 2, 1, 1]
    result = chaintag.evaluate(GOLD, PRED)
    assert corpus_score(stats, "accuracy") == pytest.approx(result.accuracy)
    assert corpus_score(stats, "f1") == pytest.approx(result.f1)
    assert sentence_accuracy(stats).tolist() == pytest.approx([0.75, 0.0, 1.0])


def test_sentence_stats_rejects_mismatched_input():
    with pytest.raises(ValueError):
        sentence_stats(GOLD, PRED[:2])
    with pytest.raises(ValueError):
        sentence_stats([["O", "O"]], [["O"]])
    with pytest.raises(ValueError):
        corpus_score(sentence_stats(GOLD, PRED), "precision")


def _random_system_stats(n_sentences: int, p_correct: float, seed: int) -> np.ndarray:
    """Per-sentence counts of a system whose tokens and chunks are right with probability ``p_correct``."""
    rng = np.random.default_rng(seed)
    n_tok = rng.integers(5, 30, n_sentences)
    n_gold = np.maximum(1, n_tok // 4)
    n_correct_chunks = rng.binomial(n_gold, p_correct)
    return np.stack([n_tok, rng.binomial(n_tok, p_correct), n_gold, n_gold, n_correct_chunks], axis=1)


def test_identical_systems_are_not_significantly_different():
    stats = _random_system_stats(200, 0.9, 0)
    ar = approximate_randomization(stats, stats, metric="f1", n_shuffles=500, random_state=1)
    assert ar.difference == 0.0
    assert ar.p_value == 1.0
    tt = paired_t_test(sentence_accuracy(stats), sentence_accuracy(stats))
    assert tt.p_value == 1.0 and tt.statistic == 0.0


def test_a_clearly_better_system_gets_a_small_p_value():
    better, worse = _random_system_stats(300, 0.95, 0), _random_system_stats(300, 0.75, 0)
    for metric in ("f1", "accuracy"):
        ar = approximate_randomization(better, worse, metric=metric, n_shuffles=1000, random_state=0)
        assert ar.difference > 5
        assert ar.p_value == pytest.approx(1 / 1001)
    tt = paired_t_test(sentence_accuracy(better), sentence_accuracy(worse))
    assert tt.statistic > 0 and tt.p_value < 1e-6


def test_similar_systems_get_a_large_p_value_and_the_test_is_seeded():
    a, b = _random_system_stats(300, 0.9, 0), _random_system_stats(300, 0.9, 1)
    b[:, 2] = a[:, 2]  # same gold chunks, as for two systems on one test set
    b[:, 3] = a[:, 3]
    first = approximate_randomization(a, b, n_shuffles=300, random_state=7)
    again = approximate_randomization(a, b, n_shuffles=300, random_state=7, batch=64)
    assert first.p_value == again.p_value
    assert first.p_value > 0.05
    assert 0 < first.p_value <= 1


def test_randomization_argument_checks():
    a = _random_system_stats(10, 0.9, 0)
    with pytest.raises(ValueError):
        approximate_randomization(a, a[:5])
    with pytest.raises(ValueError):
        approximate_randomization(a, a, n_shuffles=0)
    with pytest.raises(ValueError):
        approximate_randomization(a, a, metric="recall")
    with pytest.raises(ValueError):
        paired_t_test([1.0, 2.0], [1.0])


def test_t_test_drops_empty_sentences():
    res = paired_t_test([1.0, np.nan, 0.5, 0.9], [0.5, 0.2, 0.4, 0.1])
    assert res.n == 3 and res.p_value < 1


# ------------------------------------------------------------------ config
def test_data_ref_bounds_and_description():
    ref = DataRef("conll2000_np:train", 0.9, 1.0)
    assert ref.bounds(8936) == (8042, 8936)
    assert DataRef("x:train", limit=300).bounds(1000) == (0, 300)
    assert DataRef("x:train", 0.5, 1.0, limit=10).bounds(100) == (50, 60)
    assert "90%-100%" in ref.describe()
    with pytest.raises(ValueError):
        DataRef("x", 0.5, 0.5)
    with pytest.raises(ValueError):
        DataRef("x", limit=0)


def test_run_rejects_unknown_parameters(toy_files):
    train, test = toy_files
    with pytest.raises(ValueError, match="not hyper-parameters"):
        _toy_run(train, test, params={"averaged": True, "n_bset": 5})
    with pytest.raises(ValueError):
        _toy_run(train, test, params={"epochs": 3})
    with pytest.raises(ValueError, match="unknown learner"):
        _toy_run(train, test, learner="no-such-learner")


def test_digest_ignores_names_but_not_settings(toy_files):
    train, test = toy_files
    a = _toy_run(train, test, key="a/x")
    b = _toy_run(train, test, key="b/y")
    c = _toy_run(train, test, params={"averaged": False})
    assert a.digest() == b.digest() != c.digest()
    assert a.digest({"f": "1"}) != a.digest({"f": "2"})


# ------------------------------------------------------------------ runner
@pytest.mark.parametrize("learner, params", [("perceptron", {"averaged": True}), ("sapo", {"n_best": 3}),
                                             ("mira", {"averaged": False})])
def test_epoch_by_epoch_scores_equal_one_uninterrupted_fit(toy_files, tmp_path, learner, params):
    train, test = toy_files
    run = _toy_run(train, test, learner=learner, params=params, epochs=4)
    runner = Runner(tmp_path / "out", progress=False)
    result = runner.run_one(run)
    assert runner.strategy(run) == "stepwise"
    assert [r["epoch"] for r in result.records] == [1, 2, 3, 4]
    # one fit of 4 epochs that scores the test set after each one (as the "dev" set)
    tr, te = runner.load(run.train), runner.load(run.test)
    model = chaintag.make_learner(learner, features=run.features, epochs=4, progress=False, **params)
    model.fit(*tr, dev=te)
    assert result.curve("test_score") == pytest.approx([h["dev_score"] for h in model.history_], abs=1e-9)
    assert result.curve("weight_complexity") == pytest.approx([h["weight_complexity"] for h in model.history_])
    # the per-sentence counts of the last epoch give the recorded score
    assert corpus_score(result.test_stats(), "f1") == pytest.approx(result.records[-1]["test_score"])
    # the checkpoint folder is removed once the run is complete
    assert not (result.folder / "checkpoint").exists()


def test_a_learner_without_checkpoints_is_retrained_per_epoch(toy_files, tmp_path):
    train, test = toy_files
    run = _toy_run(train, test, learner="crf-lbfgs", params={}, epochs=3)
    runner = Runner(tmp_path, progress=False)
    result = runner.run_one(run)
    assert result.summary["strategy"] == "retrain"
    tr, te = runner.load(run.train), runner.load(run.test)
    model = chaintag.make_learner("crf-lbfgs", features=run.features, epochs=3, progress=False)
    model.fit(*tr, dev=te)
    assert result.curve("test_score") == pytest.approx([h["dev_score"] for h in model.history_], abs=1e-9)


def test_dev_chooses_the_epoch(toy_files, tmp_path):
    train, test = toy_files
    result = Runner(tmp_path, progress=False).run_one(_toy_run(train, test, epochs=5))
    s = result.summary
    devs = result.curve("dev_score")
    assert s["best_epoch"] == int(np.argmax(devs)) + 1
    assert s["test_at_best"] == result.records[s["best_epoch"] - 1]["test_score"]
    assert s["test_last"] == result.records[-1]["test_score"]
    no_dev = Runner(tmp_path, progress=False).run_one(_toy_run(train, test, epochs=2, dev=False))
    assert no_dev.summary["best_epoch"] is None and "dev_score" not in no_dev.records[0]


def test_second_run_reuses_cached_results(toy_files, tmp_path):
    train, test = toy_files
    runs = [_toy_run(train, test, key="toy/a"), _toy_run(train, test, learner="sapo", key="toy/b", epochs=2)]
    first = Runner(tmp_path, progress=False)
    res1 = first.run_all(runs)
    assert first.epochs_trained == 6
    second = Runner(tmp_path, progress=False)
    res2 = second.run_all(runs)
    assert second.epochs_trained == 0
    for key in res1:
        assert res2[key].records == res1[key].records
        assert res2[key].summary == res1[key].summary
    # a changed setting is a new run
    third = Runner(tmp_path, progress=False)
    third.run_all([_toy_run(train, test, key="toy/a", epochs=5)])
    assert third.epochs_trained == 5


def test_fewer_epochs_reuse_a_longer_runs_first_epochs(toy_files, tmp_path):
    """Epoch k of a run is trained as a k-epoch run, so a shorter run is the longer one's prefix."""
    train, test = toy_files
    long_run = _toy_run(train, test, learner="sapo", key="toy/long", epochs=4)
    longer = Runner(tmp_path, progress=False).run_one(long_run)
    short = Runner(tmp_path, progress=False)
    res = short.run_one(_toy_run(train, test, learner="sapo", key="toy/short", epochs=2))
    assert short.epochs_trained == 0
    assert res.records == longer.records[:2]
    np.testing.assert_array_equal(res.test_stats(2), longer.test_stats(2))
    # and it equals a 2-epoch run trained from nothing
    fresh = Runner(tmp_path / "fresh", progress=False)
    alone = fresh.run_one(_toy_run(train, test, learner="sapo", key="toy/short", epochs=2))
    assert fresh.epochs_trained == 2
    strip = ("seconds", "cpu_seconds", "fit_seconds", "eval_seconds")
    assert [{k: v for k, v in r.items() if k not in strip} for r in alone.records] == \
        [{k: v for k, v in r.items() if k not in strip} for r in res.records]
    # a different setting is not taken for a prefix
    other = Runner(tmp_path, progress=False)
    other.run_one(_toy_run(train, test, learner="sapo", key="toy/x", epochs=2, params={"n_best": 2}))
    assert other.epochs_trained == 2


def test_interrupted_run_resumes_after_its_last_epoch(toy_files, tmp_path):
    train, test = toy_files
    run = _toy_run(train, test, learner="sapo", params={"n_best": 2}, epochs=4)
    full = Runner(tmp_path / "full", progress=False).run_one(run)
    # simulate an interruption after epoch 2: the summary is missing, the log has a torn last line
    part = Runner(tmp_path / "part", progress=False)
    res = part.run_one(Run(**{**run.__dict__, "epochs": 2}))
    folder = tmp_path / "part" / "runs" / part.digest(run)[:16]
    folder.mkdir(parents=True)
    for name in ("epochs.jsonl", "test-001.npy", "test-002.npy"):
        (folder / name).write_bytes((res.folder / name).read_bytes())
    with open(folder / "epochs.jsonl", "a") as fh:
        fh.write('{"epoch": 3, "test_sc')
    resumed = Runner(tmp_path / "part", progress=False)
    out = resumed.run_one(run)
    assert resumed.epochs_trained == 2
    assert out.curve("test_score") == pytest.approx(full.curve("test_score"), abs=1e-9)
    assert len((folder / "epochs.jsonl").read_text().splitlines()) == 4
    assert json.loads((folder / "summary.json").read_text())["epochs_done"] == 4


def test_summarize_picks_the_first_best_dev_epoch(toy_files):
    train, test = toy_files
    run = _toy_run(train, test, epochs=3)
    recs = [{"test_score": 80.0, "dev_score": 90.0, "seconds": 1.0},
            {"test_score": 85.0, "dev_score": 91.0, "seconds": 3.0},
            {"test_score": 84.0, "dev_score": 91.0, "seconds": 2.0}]
    s = summarize(run, recs)
    assert (s["best_epoch"], s["test_at_best"], s["test_last"], s["test_max_epoch"]) == (2, 85.0, 84.0, 2)
    assert s["seconds_per_epoch"] == pytest.approx(2.0)


# ------------------------------------------------- reproductions (quick mode)
def _have_data() -> bool:
    from chaintag.data.datasets import resolve_data_dir
    root = resolve_data_dir()
    return all((root / name).is_dir() for name in ("conll2000", "conll2000_np", "ptb_sample"))


needs_data = pytest.mark.skipif(not _have_data(), reason="benchmark data folder not found")


@needs_data
def test_quick_collins2002_reproduction(tmp_path, capsys):
    out = tmp_path / "collins"
    assert main(["reproduce", "collins2002", "--quick", "--quiet", "--out", str(out)]) == 0
    report = (out / "README.md").read_text(encoding="utf-8")
    assert "Collins dev" in report and "quick mode" in report
    assert "93.53" in report and "2.93" in report  # the published figures are shown
    for name in ("curves_pos.png", "curves_np.png", "curves_pos.csv", "dev_np.csv", "test.csv", "curves_ud.png",
                 "dev_ud.csv"):
        assert (out / name).stat().st_size > 0
    # UD has no published figures: its rows show none, and its table says so
    assert "## POS tagging (UD English EWT, XPOS)" in report
    assert "Collins reports no figures for this data" in report
    ud_rows = list(csv.reader((out / "dev_ud.csv").open(encoding="utf-8")))[1:]
    assert ud_rows and all(row[4] == row[5] == "" for row in ud_rows)
    test_rows = list(csv.reader((out / "test.csv").open(encoding="utf-8")))[1:]
    assert {r[0] for r in test_rows} == {"pos", "np", "ud"}
    assert all(r[4] == "" for r in test_rows if r[0] == "ud") and all(r[4] for r in test_rows if r[0] != "ud")
    header = (out / "curves_np.csv").read_text().splitlines()[0]
    assert header.startswith("run,pass,dev_f1,test_f1")
    # the second invocation reads every run back
    from chaintag_research import collins2002
    runner = Runner(out, progress=False)
    runner.run_all(collins2002.runs(quick=True))
    assert runner.epochs_trained == 0


@needs_data
def test_quick_sapo_reproduction(tmp_path):
    out = tmp_path / "sapo"
    assert main(["reproduce", "sapo", "--quick", "--quiet", "--no-neural", "--out", str(out)]) == 0
    report = (out / "README.md").read_text(encoding="utf-8")
    assert "SAPO (n=5)" in report and "AR p vs SAPO (last)" in report and "AR p vs SAPO (dev-chosen)" in report
    # the paper's own claim is quoted per task, and the verdict says which test and correction it uses
    assert "(The paper: SAPO ahead of all, t-test p < 0.01.)" in report
    assert "Holm-adjusted over the 2 learners, level 0.01" in report
    # every learner in one order regime, and every claim has a verdict or says why it was not run
    assert "every learner visits the training sentences in a seeded random order" in report
    assert report.count("**") >= 2 * 8 and "**8. Exact A* search" in report
    assert "- Not run here: the neural learners were not run" in report
    for name in ("curves_chunking.png", "curves_pos.png", "nsweep_chunking.png", "nsweep_pos.png", "final_chunking.csv",
                 "nsweep_chunking.csv", "nsweep_tests_pos.csv", "significance_pos.csv", "beam.csv"):
        assert (out / name).stat().st_size > 0
    rows = (out / "nsweep_chunking.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "5", "10"]
    tests = (out / "nsweep_tests_pos.csv").read_text().splitlines()
    assert [r.split(",")[:2] for r in tests[1:]] == [["1", "5"], ["5", "10"]]
    # the dev split of CoNLL-2000 is carved from its training file with a seed
    assert "conll2000:train, sentences 90%-100% of a random order (seed 0)" in report
    # 3 passes cannot show a settled curve, and the quick sweep ran no n above 10: neither is a finding
    assert "not testable: 3 passes, fewer than the 10" in report and "unstable here" not in report
    assert "no significant gain beyond)" not in report


def test_reproduce_rejects_bad_options(tmp_path, capsys):
    assert main(["reproduce", "collins2002", "--no-sweep", "--out", str(tmp_path)]) == 2
    assert main(["reproduce", "collins2002", "--quick", "--tasks", "wsj", "--quiet", "--out", str(tmp_path)]) == 2
    assert "unknown task" in capsys.readouterr().err
    assert main(["reproduce", "sapo", "--epochs", "0", "--out", str(tmp_path)]) == 2
    assert main(["reproduce", "sapo", "--quick", "--tasks", "nope", "--quiet", "--out", str(tmp_path)]) == 2
    assert "unknown task" in capsys.readouterr().err
    assert main(["reproduce", "collins2002", "--no-beam", "--out", str(tmp_path)]) == 2
    assert main(["reproduce", "sapo", "--neural-epochs", "0", "--out", str(tmp_path)]) == 2
    assert main(["reproduce", "sapo", "--quick", "--tasks", "pos", "--neural-tasks", "ner", "--quiet",
                 "--out", str(tmp_path)]) == 2
    assert "not among the tasks run" in capsys.readouterr().err


def test_seeded_data_ref_splits_a_file_into_complementary_random_parts():
    train, dev = DataRef("x:train", 0.0, 0.9, seed=0), DataRef("x:train", 0.9, 1.0, seed=0)
    a, b = train.indices(100), dev.indices(100)
    assert len(a) == 90 and len(b) == 10
    assert sorted(set(a) | set(b)) == list(range(100)) and not set(a) & set(b)
    assert list(a) == sorted(a) and list(b) == sorted(b)  # kept in file order
    assert list(b) != list(range(90, 100))  # not the last 10 %
    assert list(DataRef("x:train", 0.9, 1.0, seed=0).indices(100)) == list(b)  # the same seed, the same part
    assert list(DataRef("x:train", 0.9, 1.0, seed=1).indices(100)) != list(b)
    assert list(DataRef("x:train", 0.9, 1.0).indices(100)) == list(range(90, 100))
    assert "seed" not in DataRef("x:train").to_dict() and dev.to_dict()["seed"] == 0
    assert dev.describe() == "x:train, sentences 90%-100% of a random order (seed 0)"


def test_runner_loads_a_seeded_part(toy_files, tmp_path):
    train, _ = toy_files
    runner = Runner(tmp_path, progress=False)
    tokens, labels = runner.load(DataRef(str(train)))
    idx = DataRef(str(train), 0.5, 1.0, seed=3).indices(len(tokens))
    part_tokens, part_labels = runner.load(DataRef(str(train), 0.5, 1.0, seed=3))
    assert part_tokens == [tokens[i] for i in idx] and part_labels == [labels[i] for i in idx]


@needs_data
def test_quick_sapo_reproduction_with_the_neural_rows(tmp_path):
    pytest.importorskip("torch")
    from chaintag_research import sapo
    if not sapo.neural_available():
        pytest.skip("neural learners not installed")
    out = tmp_path / "sapo"
    assert main(["reproduce", "sapo", "--quick", "--quiet", "--tasks", "pos", "--no-sweep", "--no-beam",
                 "--neural-epochs", "2", "--embeddings", "none", "--out", str(out)]) == 0
    report = (out / "README.md").read_text(encoding="utf-8")
    rows = list(csv.DictReader((out / "final_pos.csv").open(encoding="utf-8")))
    neural = {r["learner"]: r for r in rows if r["algorithm"] in ("bilstm", "bilstm-crf")}
    assert set(neural) == {"BiLSTM (softmax)", "BiLSTM-CRF"}
    for r in neural.values():
        assert r["passes"] == "2" and r["best_dev_pass"] in ("1", "2")
        assert 0 < float(r["ar_p_vs_sapo_dev_chosen"]) <= 1 and float(r["cpu_seconds_per_pass"]) > 0
    assert "**3. SAPO is as accurate as the BiLSTM and BiLSTM-CRF taggers" in report
    claim = report.split("**3. SAPO is as accurate")[1].split("**4.")[0]
    assert "as accurate: " in claim and "Holm-adjusted over the 2 neural learners" in claim
    assert "one PyTorch thread" in report and "learned from scratch" in report
    # the layer comparison: one seed in quick mode, the SAPO layer against the CRF layer
    heads = list(csv.DictReader((out / "heads_pos.csv").open(encoding="utf-8")))
    assert [h["layer"] for h in heads] == ["BiLSTM (softmax)", "BiLSTM-CRF", "BiLSTM-SAPO (n=5)"]
    assert all(h["seeds"] == "1" for h in heads) and heads[1]["ar_p"] == ""
    assert 0 < float(heads[2]["ar_p"]) <= 1
    assert "**Verdict, the SAPO layer against the CRF layer on the same encoder**" in report
