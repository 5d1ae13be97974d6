"""The papers' theory on synthetic data: Collins's mistake bounds; SAPO approaching the CRF."""

import pytest

from chaintag_research.theory import perceptron_bounds


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
    from chaintag_research.theory import sapo_crf_distance
    r = sapo_crf_distance(n_values=(1, 5, 50), n_train=300, n_eval=30)
    d = r["relative_distance"]
    assert d[0] > d[1] > d[2] > 0


def _naive_perceptron_mistakes(diffs_by_label, gold, passes):
    """Reference: a plain perceptron on explicit feature vectors, a tie counted as a mistake."""
    import numpy as np
    w = np.zeros(diffs_by_label[0][0].shape)
    total, per_pass = 0, []
    for _ in range(passes):
        made = 0
        for s, phis in enumerate(diffs_by_label):
            scores = [w @ p for p in phis]
            pred = int(np.argmax(scores))
            if pred != gold[s] or scores[1 - gold[s]] >= scores[gold[s]]:
                w += phis[gold[s]] - phis[1 - gold[s]]
                made += 1
        per_pass.append(made)
        total += made
        if made == 0:
            break
    return total, per_pass


@pytest.mark.parametrize("n_examples,n_attrs", [(40, 20), (24, 50)])
def test_collins_bounds_nearly_bind_and_the_count_is_exact(n_examples, n_attrs):
    from chaintag_research.theory import tight_perceptron_bounds
    r = tight_perceptron_bounds(n_examples=n_examples, n_attrs=n_attrs, n_noisy=4)
    t1, t2 = r["theorem1"], r["theorem2"]
    # closed forms of the construction
    assert t1["R"] ** 2 == pytest.approx(2 * n_attrs + 4)
    assert t1["delta"] ** 2 == pytest.approx(2 * n_attrs / n_examples)
    assert t1["bound"] == pytest.approx(n_examples * (1 + 2 / n_attrs))
    assert t2["D"] == pytest.approx(t2["delta"] * 2.0)  # 4 noisy sentences, margin 0 each
    # the perceptron errs once on every sentence, then never
    assert t1["per_pass"] == [n_examples, 0]
    assert t2["first_pass_mistakes"] == n_examples
    # the bounds hold, with little room: counting more than one extra mistake in ten breaks Theorem 1
    assert t1["mistakes"] <= t1["bound"] <= 1.1 * t1["mistakes"] + 1e-9
    assert t2["first_pass_mistakes"] <= t2["bound"] < 2 * t2["first_pass_mistakes"]


def test_tight_data_count_matches_a_naive_perceptron():
    import numpy as np
    from chaintag_research import theory
    from chaintag.features.extract import Attributes
    from chaintag.features.space import build_feature_index
    n, k = 10, 3
    attrs = Attributes(np.arange(n + 1, dtype=np.int64), np.arange(n + 1, dtype=np.int64) * k,
                       np.arange(n * k, dtype=np.int32))
    gold = np.array([1 - (i % 2) for i in range(n)], dtype=np.int32)
    index, _ = build_feature_index(attrs, gold, 2, n * k, space="all")
    phis = [[theory._phi(attrs, index, s, (y,)) for y in (0, 1)] for s in range(n)]
    expected = _naive_perceptron_mistakes(phis, gold, 100)
    got = theory._mistakes(attrs, index, gold, 100, True)
    assert got == expected
    assert expected[1] == [n, 0]
