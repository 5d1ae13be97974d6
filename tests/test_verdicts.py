"""The reproductions' verdict rules on hand-made tables, and Holm's adjustment."""

import numpy as np
import pytest

from chaintag_research import collins2002, sapo
from chaintag_research.significance import holm, timing_test


# ------------------------------------------------------------------ Holm
def test_holm_matches_the_step_down_formula():
    p = [0.01, 0.04, 0.03, 0.20]
    # sorted 0.01, 0.03, 0.04, 0.20 -> 4*0.01, 3*0.03, max(.., 2*0.04), max(.., 1*0.20)
    assert holm(p).tolist() == pytest.approx([0.04, 0.09, 0.09, 0.20])
    assert holm([0.5, 0.9]).tolist() == pytest.approx([1.0, 1.0])
    assert holm([]).shape == (0,)


def test_holm_rejects_at_least_what_bonferroni_rejects_and_never_less_than_raw():
    rng = np.random.default_rng(0)
    for _ in range(50):
        p = rng.random(6) ** 3
        adj = holm(p)
        assert np.all(adj >= p - 1e-15)
        assert np.all(adj <= np.minimum(1.0, 6 * p) + 1e-15)


def test_timing_test_separates_clearly_different_times():
    fast = [0.10, 0.11, 0.10, 0.12, 0.11, 0.10, 0.11, 0.10]
    slow = [0.25, 0.24, 0.26, 0.25, 0.27, 0.24, 0.25, 0.26]
    assert timing_test(fast, slow) < 0.01
    assert timing_test(fast, fast) == pytest.approx(1.0)
    assert timing_test([0.1], slow) == 1.0


# ------------------------------------------------------------------ SAPO
def test_ahead_verdict():
    v = sapo.ahead_verdict
    assert v({"a": 0.5, "b": 0.2}, {"a": 0.001, "b": 0.004}, 0.01) == "confirmed"
    assert v({"a": 0.5, "b": 0.2}, {"a": 0.001, "b": 0.04}, 0.01).startswith(
        "same direction, not all significant (significantly ahead of 1 of 2)")
    assert v({"a": 0.5, "b": -0.2}, {"a": 0.001, "b": 0.5}, 0.01) == "partly: ahead of 1 of 2, none significantly behind"
    assert v({"a": 0.5, "b": -0.2}, {"a": 0.001, "b": 0.001}, 0.01) == "contradicted: significantly behind b"
    # a tie is not "ahead", and ahead of none is no part of the claim
    assert v({"a": 0.0}, {"a": 1.0}, 0.05) == "not confirmed: ahead of none of 1, none significantly behind"
    assert v({"a": -0.2, "b": 0.0}, {"a": 0.5, "b": 1.0}, 0.05).startswith("not confirmed: ahead of none of 2")


def test_weights_verdict_reads_relative_growth_not_levels():
    growth = {"sapo": 0.1, "perc": 0.8, "mira": 0.6}
    assert sapo.weights_verdict(growth, "sapo", ["perc", "mira"]) == "confirmed"
    # MIRA's weights may be smaller than SAPO's and still grow faster: confirmed all the same
    assert sapo.weights_verdict({"sapo": 0.3, "perc": 0.8, "mira": 0.2}, "sapo", ["perc", "mira"]).startswith(
        "partly: SAPO's weights grow more slowly than those of 1 of 2")
    assert sapo.weights_verdict({"sapo": 1.0, "perc": 0.8}, "sapo", ["perc"]) == "not confirmed"


def test_speed_verdict_uses_the_measured_ratio_without_a_band():
    perc = [0.10, 0.11, 0.10, 0.12, 0.11, 0.10, 0.11, 0.10, 0.11]
    sapo_t = [0.22, 0.23, 0.22, 0.24, 0.22, 0.23, 0.22, 0.23, 0.22]
    crf = [0.30, 0.31, 0.29, 0.30, 0.32, 0.30, 0.31, 0.30, 0.30]
    r = sapo.speed_verdict(sapo_t, perc, crf)
    assert r["ratio"] == pytest.approx(0.22 / 0.11)
    assert r["as_fast"] == "not confirmed"  # 2x slower, significantly: no "within 3x" band any more
    assert r["crf_ratio"] == pytest.approx(0.30 / 0.22)
    # the paper says "several times faster": 1.36x, significantly, is faster but not several times
    assert r["faster_than_crf"] == "not confirmed: faster (1.36x), not several times"
    assert sapo.speed_verdict(sapo_t, perc, [2 * x for x in crf])["faster_than_crf"] == "confirmed"  # 2.73x
    same = sapo.speed_verdict(sapo_t, list(reversed(sapo_t)), perc)  # here the CRF is the faster one
    assert same["as_fast"] == "confirmed" and same["faster_than_crf"] == "contradicted"
    # a noisy difference that is not significant does not refute "about as fast", nor confirm it
    noisy = sapo.speed_verdict([0.10, 0.30, 0.11, 0.12, 0.28], [0.12, 0.10, 0.29, 0.11, 0.10])
    assert noisy["ratio"] > 1 and noisy["p"] >= 0.05
    assert noisy["as_fast"] == "not refuted (slower, not significantly)"
    # with 3 timed passes a side the test cannot reach the level: no verdict from it, either way
    few = sapo.speed_verdict([0.30, 0.31, 0.32], [0.10, 0.11, 0.12], [0.9, 0.9, 0.9])
    assert timing_test([0.30, 0.31, 0.32], [0.10, 0.11, 0.12]) == pytest.approx(0.1)
    assert few["as_fast"].startswith("not testable: 3 timed passes")
    assert few["faster_than_crf"].startswith("not testable")
    assert sapo.speed_verdict([0.10, 0.10], [0.20, 0.30])["as_fast"].startswith("not testable")  # either way
    assert sapo.speed_verdict([0.10] * 4, [0.20] * 4)["as_fast"] == "confirmed"


def test_n_verdict():
    ns = [1, 2, 5, 10, 20, 50]
    scores = [92.7, 93.5, 93.8, 93.8, 93.7, 93.6]
    p = [0.001, 0.001, 0.2, 0.9, 0.8]
    assert sapo.n_verdict(ns, scores, p) == "confirmed (no significant gain beyond n = 5, up to n = 50)"
    assert sapo.n_verdict(ns, [92.7, 93.5, 93.6, 94.0, 94.0, 94.0], [0.001, 0.001, 0.01, 0.9, 0.9]).startswith(
        "confirmed for n = 10")
    v = sapo.n_verdict(ns, [92.7, 93.5, 93.6, 93.7, 94.2, 94.3], [0.001, 0.001, 0.5, 0.001, 0.9])
    assert v == "not confirmed: n = 20 is significantly better than n = 10"
    v = sapo.n_verdict(ns, [92.7, 93.5, 93.8, 93.8, 93.0, 93.0], [0.001, 0.001, 0.5, 0.001, 0.9])
    assert v == "confirmed (no significant gain beyond n = 5, up to n = 50); n = 20 is significantly worse than n = 10"


def test_n_verdict_says_when_no_larger_n_was_run():
    """The quick sweep (n = 1, 5, 10) said "no significant gain beyond" n = 10, which it never ran."""
    v = sapo.n_verdict([1, 5, 10], [92.0, 93.0, 93.6], [0.001, 0.01])
    assert v == ("confirmed for n = 10 (n = 10 is significantly better than n = 5; no n above 10 was run, so a "
                 "gain beyond it is not tested)")
    assert sapo.n_verdict([1, 5], [92.0, 93.0], [0.001]) == ("confirmed (no significant gain beyond n = 5; no n "
                                                             "above 5 was run)")


def test_same_verdict():
    assert sapo.same_verdict({"chunking": -0.05, "ner": 0.1}, {"chunking": 0.8, "ner": 0.4}).startswith("confirmed")
    assert sapo.same_verdict({"chunking": -0.05, "ner": -1.0}, {"chunking": 0.8, "ner": 0.002}) == \
        "not confirmed: ner: A* significantly better"


def test_a_curve_that_swings_or_still_rises_is_not_stable():
    """The Bio-NER report called SAPO and the CRF stable while SAPO's test F1 swung by 5 points between
    passes 20 and 30 (its last pass happened to be its best, and a rising slope passed the old rule)."""
    flat = [93.0] * 20 + [93.60, 93.62, 93.58, 93.61, 93.63, 93.60, 93.59, 93.62, 93.61, 93.63]
    assert sapo.stability(flat)["stable"]
    ner = [60.0] * 20 + [64.10, 66.0, 67.5, 65.2, 69.06, 67.0, 68.4, 66.37, 68.9, 69.63]
    st = sapo.stability(ner)
    assert st["drop"] == 0 and st["spread"] == pytest.approx(5.53) and not st["stable"]
    rising = [90.0 + 0.05 * i for i in range(30)]  # smooth, last is best, still rising 0.05 a pass
    assert sapo.stability(rising)["spread"] < sapo.STABLE_SPREAD and not sapo.stability(rising)["stable"]
    dropping = flat[:-1] + [93.40]
    assert not sapo.stability(dropping)["stable"]  # ends 0.23 below its best


def test_a_neural_rival_still_improving_at_its_last_pass_is_flagged():
    """The POS claim "SAPO more accurate than the BiLSTM taggers: confirmed" rested on rivals of 10 passes
    whose best dev pass was their last."""
    from types import SimpleNamespace as NS
    assert sapo.still_improving(NS(run=NS(epochs=10), summary={"best_epoch": 10}))
    assert not sapo.still_improving(NS(run=NS(epochs=10), summary={"best_epoch": 7}))
    assert not sapo.still_improving(NS(run=NS(epochs=1), summary={"best_epoch": 1}))


def test_stable_verdict():
    assert sapo.stable_verdict({"SAPO": True, "CRF": True, "Perc": False}, ["SAPO", "CRF"], ["Perc"]) == "confirmed"
    assert sapo.stable_verdict({"SAPO": True, "CRF": True, "Perc": True}, ["SAPO", "CRF"], ["Perc"]) == \
        "partly: SAPO and CRF are stable, and so are Perc"
    assert sapo.stable_verdict({"SAPO": False, "CRF": True, "Perc": True}, ["SAPO", "CRF"], ["Perc"]) == \
        "not confirmed: unstable here: SAPO"


# ------------------------------------------------------------------ Collins
def test_pairwise_verdict():
    v = collins2002.pairwise_verdict
    assert v({"cc=0": 0.8, "cc=5": 0.5}, {"cc=0": 0.002, "cc=5": 0.01}) == "confirmed"
    assert v({"cc=0": 0.8, "cc=5": 0.1}, {"cc=0": 0.002, "cc=5": 0.6}) == "same direction, not significant in 1 of 2"
    assert v({"avg": 0.2, "noavg": -0.1}, {"avg": 0.3, "noavg": 0.6}) == \
        "not confirmed: ahead in 1 of 2, none significant the other way"
    assert v({"avg": 0.2, "noavg": -0.4}, {"avg": 0.3, "noavg": 0.01}) == \
        "contradicted: significantly the other way in noavg"


def test_passes_verdict():
    v = collins2002.passes_verdict
    assert v(10, 13, None) == "reproduced"
    assert v(13, 13, 0.001) == "reproduced"
    assert v(36, 13, None) == "not reproduced"
    assert v(36, 13, 0.01) == "not reproduced: the dev score is significantly better after pass 13"
    assert v(21, 13, 0.4).startswith("not reproduced, but the best dev score within 13 passes is not significantly")
    # a run of at most 13 passes: its best pass is within 13 whatever happens, so the claim is not tested
    assert v(3, 13, None, n_passes=3).startswith("not testable: 3 passes run")
    assert v(2, 13, None, n_passes=3).startswith("not testable")
    assert v(13, 13, None, n_passes=13).startswith("not testable")
    assert v(13, 13, None, n_passes=20) == "reproduced"
    assert v(21, 13, None, n_passes=30) == "not reproduced"


def test_me_verdict():
    v = collins2002.me_verdict
    assert v(0.5, 0.3, 0.01) == "confirmed"
    assert v(0.5, -0.3, 0.01) == "confirmed on test (not on dev)"
    assert v(0.5, 0.3, 0.2) == "same direction on test, not significant"
    assert v(-0.5, 0.3, 0.01) == "not confirmed: ME is significantly better here"
    assert v(-0.5, 0.3, 0.2) == "not confirmed (ME ahead, not significant)"


def test_defaults_rule_changes_a_default_only_when_beaten_on_every_task():
    from chaintag_research.defaults import choose
    scores = {"chunking": {"a": 93.8, "b": 93.9, "c": 94.0}, "pos": {"a": 97.0, "b": 97.1, "c": 96.9}}
    assert choose(scores, "a", ["a", "b", "c"])[0] == "b"  # c loses on pos
    scores["pos"]["b"] = 97.0  # a tie is not a win
    assert choose(scores, "a", ["a", "b", "c"])[0] == "a"


def test_defaults_rule_with_significance_keeps_a_default_beaten_only_by_noise():
    from chaintag_research.defaults import choose
    scores = {"chunking": {"a": 93.8, "b": 93.9}, "pos": {"a": 97.0, "b": 97.1}}
    noise = {"chunking": {"a": 1.0, "b": 0.4}, "pos": {"a": 1.0, "b": 0.3}}
    chosen, reason = choose(scores, "a", ["a", "b"], noise)
    assert chosen == "a" and "on none significantly" in reason
    noise["pos"]["b"] = 0.01
    assert choose(scores, "a", ["a", "b"], noise)[0] == "b"
