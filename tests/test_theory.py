"""The papers' theory on synthetic data: Collins's mistake bounds; SAPO approaching the CRF."""

import pytest

from chaintag.experiments.theory import perceptron_bounds


@pytest.mark.parametrize("seed", [0, 1])
def test_collins_mistake_bounds_hold(seed):
    r = perceptron_bounds(n_sentences=150, seed=seed)
    t1, t2 = r["theorem1"], r["theorem2"]
    assert t1["per_pass"][-1] == 0  # separable: the perceptron converges
    assert 0 < t1["mistakes"] <= t1["bound"]
    assert 0 < t2["first_pass_mistakes"] <= t2["bound"]
    assert t2["D"] > 0


def test_sapo_update_approaches_the_crf_gradient():
    from chaintag.data.datasets import resolve_data_dir
    if not (resolve_data_dir() / "conll2000" / "train.txt").exists():
        pytest.skip("CoNLL-2000 data not available")
    from chaintag.experiments.theory import sapo_crf_distance
    r = sapo_crf_distance(n_values=(1, 5, 50), n_train=300, n_eval=30)
    d = r["relative_distance"]
    assert d[0] > d[1] > d[2] > 0
