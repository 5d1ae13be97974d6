"""The second-order model's cost is estimated before training: refused with the figures when it
cannot fit, warned about (with one progress line per epoch) when it is long."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from chaintag.cli.main import main
from chaintag.errors import TrainingError
from chaintag.learners import second_order_cost as cost_mod
from chaintag.learners.second_order_cost import check_cost, estimate_cost


def test_estimate_is_the_hand_worked_count():
    # L = 3; sentences of 3 and 1 tokens, every label allowed:
    # 1*1*3 + 1*3*3 + 3*3*3 = 39, then 3 -> 42 label-triple steps
    c = estimate_cost(3, [3, 1], averaged=True)
    assert (c.label_pairs, c.trigram_weights, c.steps_per_epoch) == (9, 27, 42)
    assert c.weight_bytes == 2 * 8 * (27 + 9 + 6) and c.lattice_bytes == 12 * 3 * 9
    # a tag dictionary allowing 1, 2, 3 and 2 labels: 1 + 1*2 + 1*2*3 = 9, then 2 -> 11
    assert estimate_cost(3, [3, 1], allowed=[1, 2, 3, 2]).steps_per_epoch == 11
    assert estimate_cost(3, [3, 1], averaged=False).weight_bytes == 8 * 42
    assert estimate_cost(3, [], averaged=False).steps_per_epoch == 0


def test_refused_with_the_figures():
    c = estimate_cost(1500, [10] * 300)
    with pytest.raises(TrainingError) as info:
        check_cost(c, 10, limit=2**40)  # memory would do; the search would not
    msg = str(info.value)
    assert "1,500 labels" in msg and "2,250,000 label pairs" in msg and "3,375,000,000 trigram weights" in msg
    assert "GiB" in msg and "steps per epoch" in msg and "--order 2" in msg
    with pytest.raises(TrainingError, match="more than the 1.0 GiB allowed"):
        check_cost(estimate_cost(600, [5]), 1, limit=2**30)


def test_long_search_warns_and_shows_one_line_per_epoch(monkeypatch, capsys):
    from chaintag.learners.second_order import SecondOrderPerceptron
    monkeypatch.setattr(cost_mod, "WARN_STEPS", 10)
    sents = [["a", "b", "c"], ["b", "c"]] * 3
    labels = [["X", "Y", "Z"], ["Y", "Z"]] * 3
    model = SecondOrderPerceptron(features="w[0]", epochs=2).fit(sents, labels)
    err = capsys.readouterr().err
    assert "warning: the second-order model over 3 labels" in err
    assert "epoch 1/2" in err and "epoch 2/2" in err
    assert model.predict([["a", "b", "c"]]) == [["X", "Y", "Z"]]
    # quiet (progress=False): nothing
    SecondOrderPerceptron(features="w[0]", epochs=1, progress=False).fit(sents, labels)
    assert capsys.readouterr().err == ""


def test_cli_refuses_many_labels_at_once(tmp_path, capsys, monkeypatch):
    rows = [f"w{i} T{i:04d}" for i in range(700)]
    data = tmp_path / "many.txt"
    data.write_text("\n".join(rows[k] if k % 10 else rows[k] + "\n" for k in range(700)) + "\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    monkeypatch.setenv("CHAINTAG_MEMORY_LIMIT_GB", "2")
    assert main(["train", "--train", str(data), "--order", "2", "--model", str(model), "-f", "w[0]"]) == 2
    err = capsys.readouterr().err
    assert "700 labels" in err and "490,000 label pairs" in err and "GiB" in err and not model.exists()
