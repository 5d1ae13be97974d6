"""The seventh round's research code: the IOBES rewrite of a training file and the differences on equal seeds."""

import pytest

from chaintag_research import sapo_seeds as ss


def test_iobes_rewrite_worked_by_hand(tmp_path):
    src = tmp_path / "t.txt"
    src.write_text("###MEDLINE:1\n\nIL-2\tB-protein\ngene\tI-protein\nbinds\tO\nNF-kB\tB-protein\n.\tO\n\n"
                   "a\tB-DNA\nb\tB-DNA\nc\tI-DNA\n", encoding="utf-8")
    out = ss.write_iobes(src, tmp_path / "o.txt").read_text(encoding="utf-8")
    assert out == ("###MEDLINE:1\n\nIL-2 B-protein\ngene E-protein\nbinds O\nNF-kB S-protein\n. O\n\n"
                   "a S-DNA\nb B-DNA\nc E-DNA\n")


def test_differences_pair_the_seeds():
    def rec(task, cand, seed, score):
        return {"kind": "chunking", "task": task, "candidate": cand, "seed": seed, "dev_score": score}
    trials = [rec("a", "SAPO's default", 0, 90.0), rec("a", "SAPO's default", 1, 91.0),
              rec("a", "iobes", 0, 90.5), rec("a", "iobes", 1, 90.9), rec("a", "iobes", 2, 99.0),
              rec("b", "SAPO's default", 0, 80.0), rec("b", "iobes", 0, 79.0)]
    table = ss.differences(trials)
    row = table[("chunking", "iobes")]
    assert row["a"][0] == pytest.approx(90.7) and row["a"][1] == pytest.approx((0.5 - 0.1) / 2) and row["a"][2] == [0, 1]  # seed 2 has no default to pair with
    assert row["b"][1] == -1.0 and row["sum"] == pytest.approx(0.2 - 1.0)
    assert table[("chunking", "SAPO's default")]["sum"] == 0
