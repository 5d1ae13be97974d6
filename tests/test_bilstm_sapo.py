"""bilstm-sapo: SAPO's top-n head against brute-force enumeration, hand-computed SAPO updates, finite
differences, the CRF (n = all sequences) and the perceptron (n = 1); model files, seeds, the CLI."""

import json
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural learners need the 'neural' extra (PyTorch)")

import chaintag  # noqa: E402
from chaintag.learners.neural import crf_layer, sapo_head  # noqa: E402

from toy_corpus import LABELS, SENTS  # noqa: E402

from neural_tiny import TINY, brute_force, one_thread, random_scores  # noqa: E402,F401 (one_thread: autouse fixture)


def all_sequences(em, U, s, e, n):
    """Every label sequence of a sentence of n tokens with its score, best first."""
    return sorted(brute_force(em, U, s, e, n), key=lambda x: -x[0])


def phi(y, T, L):
    """Feature counts of a label sequence: emission indicators (T, L), transitions (L, L), start, end."""
    E, U, s, e = np.zeros((T, L)), np.zeros((L, L)), np.zeros(L), np.zeros(L)
    for i, lab in enumerate(y):
        E[i, lab] += 1
        if i:
            U[y[i - 1], lab] += 1
    s[y[0]] += 1
    e[y[-1]] += 1
    return E, U, s, e


def grads(em, mask, tags, U, s, e, n):
    leaves = [t.detach().clone().requires_grad_(True) for t in (em, U, s, e)]
    loss = sapo_head.sapo_loss(leaves[0], mask, tags, *leaves[1:], n)
    loss.sum().backward()
    return loss.detach(), [t.grad.numpy() for t in leaves]


@pytest.mark.parametrize("search", ["topn_paths_astar", "topn_paths_viterbi"])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [1, 3, 7, 100])
def test_topn_equals_enumeration(seed, n, search):
    em, mask, _, U, s, e, lengths = random_scores(seed, B=4, T=4, L=3)
    paths, found = getattr(sapo_head, search)(em, mask, U, s, e, n)
    got = sapo_head.path_scores(em, mask, paths, U, s, e)
    for b, t in enumerate(lengths):
        want = all_sequences(em[b], U, s, e, t)[:n]
        assert int(found[b]) == len(want)
        assert [tuple(p[:t]) for p in paths[b, :len(want)].tolist()] == [y for _, y in want]
        np.testing.assert_allclose(got[b, :len(want)].numpy(), [sc for sc, _ in want], atol=1e-12)
        assert paths[b, :, t:].abs().sum() == 0 and paths[b, len(want):].abs().sum() == 0


@pytest.mark.parametrize("seed", range(3))
def test_gradient_is_the_sapo_update_by_hand(seed):
    """d loss / d scores = sum_k P_k Phi(y_k) - Phi(y*): SAPO's update (ALGORITHMS.md, SAPO, steps 3-5), negated."""
    n = 4
    em, mask, tags, U, s, e, lengths = random_scores(seed, B=3, T=4, L=3)
    loss, (gE, gU, gs, ge) = grads(em, mask, tags, U, s, e, n)
    L = em.shape[2]
    want = [np.zeros(em.shape), np.zeros((L, L)), np.zeros(L), np.zeros(L)]
    for b, t in enumerate(lengths):
        top = all_sequences(em[b], U, s, e, t)[:n]
        sc = np.array([x for x, _ in top])
        p = np.exp(sc - sc.max()) / np.exp(sc - sc.max()).sum()
        gold = tuple(tags[b, :t].tolist())
        # SAPO's update Phi(y*) - sum_k P_k Phi(y_k), per part; the gradient is its negative
        fy = phi(gold, t, L)
        fk = [phi(y, t, L) for _, y in top]
        upd_E = fy[0] - sum(pk * f[0] for pk, f in zip(p, fk))
        want[0][b, :t] -= upd_E
        for j in (1, 2, 3):
            want[j] -= fy[j] - sum(pk * f[j] for pk, f in zip(p, fk))
        gold_score = next(x for x, y in all_sequences(em[b], U, s, e, t) if y == gold)
        assert float(loss[b]) == pytest.approx(np.log(np.exp(sc).sum()) - gold_score, abs=1e-10)
    for got, w in zip((gE, gU, gs, ge), want):
        np.testing.assert_allclose(got, w, atol=1e-10)


def test_gradient_matches_finite_differences():
    em, mask, tags, U, s, e, _ = random_scores(5, B=3, T=4, L=3)
    leaves = [t.detach().clone().requires_grad_(True) for t in (em, U, s, e)]
    assert torch.autograd.gradcheck(lambda a, b, c, d: sapo_head.sapo_loss(a, mask, tags, b, c, d, 5), leaves,
                                    eps=1e-6, atol=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_n_all_sequences_is_the_crf(seed):
    em, mask, tags, U, s, e, _ = random_scores(seed, B=3, T=3, L=3)
    loss, g_sapo = grads(em, mask, tags, U, s, e, 3 ** 3)
    leaves = [t.detach().clone().requires_grad_(True) for t in (em, U, s, e)]
    nll = crf_layer.neg_log_likelihood(leaves[0], mask, tags, *leaves[1:])
    nll.sum().backward()
    np.testing.assert_allclose(loss.numpy(), nll.detach().numpy(), atol=1e-10)
    for a, b in zip(g_sapo, leaves):
        np.testing.assert_allclose(a, b.grad.numpy(), atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_n1_rate1_no_l2_is_the_perceptron_update(seed):
    """One SGD step of rate 1 on the scores moves them by Phi(y*) - Phi(y_hat), y_hat the Viterbi path."""
    em, mask, tags, U, s, e, lengths = random_scores(seed, B=3, T=4, L=3)
    theta = [t.detach().clone().requires_grad_(True) for t in (em, U, s, e)]
    opt = torch.optim.SGD(theta, lr=1.0)
    sapo_head.sapo_loss(theta[0], mask, tags, *theta[1:], 1).sum().backward()
    opt.step()
    best, _ = crf_layer.viterbi(em, mask, U, s, e)
    L = em.shape[2]
    want = [em.numpy().copy(), U.numpy().copy(), s.numpy().copy(), e.numpy().copy()]
    for b, t in enumerate(lengths):
        fy, fz = phi(tuple(tags[b, :t].tolist()), t, L), phi(tuple(best[b, :t].tolist()), t, L)
        want[0][b, :t] += fy[0] - fz[0]
        for j in (1, 2, 3):
            want[j] += fy[j] - fz[j]
    for got, w in zip(theta, want):
        np.testing.assert_allclose(got.detach().numpy(), w, atol=1e-12)


def test_round_trip_nbest_and_confidence(tmp_path):
    m = chaintag.make_learner("bilstm-sapo", epochs=4, learning_rate=0.05, n_best=3, **TINY).fit(SENTS, LABELS)
    path = tmp_path / "m.npz"
    m.save(path)
    back = chaintag.load(path)
    assert type(back).__name__ == "BiLSTMSAPO" and back.n_best == 3
    assert back.predict(SENTS) == m.predict(SENTS)
    assert back.predict_nbest(SENTS, 4) == m.predict_nbest(SENTS, 4)
    best = m.predict(SENTS)
    for labels, cands in zip(best, m.predict_nbest(SENTS, 4)):
        assert cands[0][0] == labels
        assert sum(c[2] for c in cands) == pytest.approx(1.0)
        scores = np.array([c[1] for c in cands])
        np.testing.assert_allclose([c[2] for c in cands], np.exp(scores) / np.exp(scores).sum(), rtol=1e-9)
    labels, conf = m.predict_confidence(SENTS, 4)
    assert labels == best and all(0 < c <= 1 for cs in conf for c in cs)


def test_same_seed_same_state_dict_bytes():
    params = dict(TINY, epochs=3, random_state=7, n_best=3)
    a, b = (chaintag.make_learner("bilstm-sapo", **params).fit(SENTS, LABELS) for _ in range(2))
    for (ka, va), (kb, vb) in zip(a.net_.state_dict().items(), b.net_.state_dict().items()):
        assert ka == kb and va.numpy().tobytes() == vb.numpy().tobytes()
    c = chaintag.make_learner("bilstm-sapo", **dict(params, random_state=8)).fit(SENTS, LABELS)
    assert not np.array_equal(a.weights_, c.weights_)


def test_l2_and_learning_rate_schedule():
    m = chaintag.make_learner("bilstm-sapo", epochs=2, optimizer="sgd", learning_rate=0.5, l2=2.0,
                              lr_schedule="decay", **TINY).fit(SENTS, LABELS)
    opt = torch.optim.SGD([torch.zeros(1)], lr=9.0)
    m._batch_lr(opt, 2, 3, 5)  # t = 5 + 3 sentences seen
    assert opt.param_groups[0]["lr"] == pytest.approx(0.5 / (1 + 8 / 5))
    state = m._begin(type("D", (), {"attrs": type("A", (), {"n_sentences": 4})()})())
    assert state["_torch"]["opt"].param_groups[0]["weight_decay"] == pytest.approx(2.0 / 4)
    fixed = chaintag.make_learner("bilstm-sapo", lr_schedule="fixed", optimizer="sgd", learning_rate=1.0)
    fixed._batch_lr(opt, 7, 3, 5)
    assert opt.param_groups[0]["lr"] == 1.0
    with pytest.raises(chaintag.errors.InputError, match="n_best"):
        chaintag.make_learner("bilstm-sapo", n_best=0, **TINY).fit(SENTS, LABELS)


def test_cli_train_tag_eval_inspect(tmp_path):
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                 for s, ls in zip(SENTS, LABELS)) + "\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    cli = [sys.executable, "-m", "chaintag.cli.main"]
    run = subprocess.run(cli + ["train", "-a", "bilstm-sapo", "--train", str(train), "--model", str(model),
                                "--epochs", "2", "--hidden-size", "4", "--n-best", "3", "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["algorithm"] == "bilstm-sapo"
    assert chaintag.load(model).n_best == 3
    tagged = subprocess.run(cli + ["tag", "--model", str(model), str(train), "--nbest", "2"],
                            capture_output=True, text=True)
    assert tagged.returncode == 0, tagged.stderr
    rows = [json.loads(x) for x in tagged.stdout.splitlines()]
    assert len(rows) == len(SENTS) and all(len(r["nbest"]) == 2 for r in rows)
    ev = subprocess.run(cli + ["eval", "--model", str(model), "--test", str(train), "--json"],
                        capture_output=True, text=True)
    assert ev.returncode == 0, ev.stderr
    info = subprocess.run(cli + ["inspect", str(model)], capture_output=True, text=True)
    assert info.returncode == 0 and "bilstm-sapo" in info.stdout and "transitions" in info.stdout, info.stderr


@pytest.mark.parametrize("seed", range(3))
def test_margin_with_n_all_sequences_is_the_softmax_margin_loss(seed):
    """With a cost C and n = every sequence, the loss is log sum_y exp(s(y) + C hamming(y, y*)) - s(y*)."""
    em, mask, tags, U, s, e, lengths = random_scores(seed, B=3, T=3, L=3)
    leaves = [t.detach().clone().requires_grad_(True) for t in (em, U, s, e)]
    loss = sapo_head.sapo_loss(leaves[0], mask, tags, *leaves[1:], 3 ** 3, margin=0.7)
    for b, t in enumerate(lengths):
        gold = tuple(tags[b, :t].tolist())
        scored = [(sc + 0.7 * sum(a != g for a, g in zip(y, gold)), y)
                  for sc, y in brute_force(em[b].detach().numpy(), U.numpy(), s.numpy(), e.numpy(), t)]
        gold_score = next(sc for sc, y in brute_force(em[b].detach().numpy(), U.numpy(), s.numpy(), e.numpy(), t)
                          if y == gold)
        vals = np.array([v for v, _ in scored])
        want = vals.max() + np.log(np.exp(vals - vals.max()).sum()) - gold_score
        assert float(loss[b].detach()) == pytest.approx(want, abs=1e-9)


def test_margin_gradient_is_the_update_over_the_cost_augmented_top_n():
    """The gradient w.r.t. the emissions is sum_k P_k Phi(y_k) - Phi(y*), y_k and P_k of the augmented scores."""
    em, mask, tags, U, s, e, lengths = random_scores(4, B=2, T=4, L=3)
    x = em.detach().clone().requires_grad_(True)
    sapo_head.sapo_loss(x, mask, tags, U, s, e, 4, margin=1.5).sum().backward()
    for b, t in enumerate(lengths):
        gold = tuple(tags[b, :t].tolist())
        ranked = sorted(((sc + 1.5 * sum(a != g for a, g in zip(y, gold)), y)
                         for sc, y in brute_force(em[b].detach().numpy(), U.numpy(), s.numpy(), e.numpy(), t)),
                        key=lambda p: -p[0])[:4]
        vals = np.array([v for v, _ in ranked])
        p = np.exp(vals - vals.max())
        p /= p.sum()
        want = np.zeros((t, 3))
        for pk, (_, y) in zip(p, ranked):
            for i, lab in enumerate(y):
                want[i, lab] += pk
        for i, lab in enumerate(gold):
            want[i, lab] -= 1.0
        np.testing.assert_allclose(x.grad[b, :t].numpy(), want, atol=1e-9)
