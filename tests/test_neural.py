"""Neural learners (bilstm, bilstm-crf): the CRF layer against brute-force enumeration, the loss
gradient against finite differences, determinism, checkpoints, model files, vectors files, CLI."""

import json
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural learners need the 'neural' extra (PyTorch)")

import chaintag  # noqa: E402
from chaintag.errors import InputError, ModelFormatError  # noqa: E402
from chaintag.learners.neural import crf_layer  # noqa: E402

from toy_corpus import LABELS, SENTS  # noqa: E402

from neural_tiny import TINY, brute_force, one_thread, random_scores  # noqa: E402,F401 (one_thread: autouse fixture)


def random_crf(seed, B=3, T=4, L=3):
    em, mask, _, U, s, e, lengths = random_scores(seed, B, T, L)
    return em, mask, U, s, e, lengths


@pytest.mark.parametrize("seed", range(4))
def test_crf_log_partition_and_marginals_equal_enumeration(seed):
    em, mask, U, s, e, lengths = random_crf(seed)
    logz = crf_layer.log_partition(em, mask, U, s, e)
    marg = crf_layer.marginals(em, mask, U, s, e)
    L = em.shape[2]
    for b, n in enumerate(lengths):
        seqs = brute_force(em[b], U, s, e, n)
        scores = np.array([sc for sc, _ in seqs])
        z = np.log(np.exp(scores - scores.max()).sum()) + scores.max()
        assert float(logz[b]) == pytest.approx(z, abs=1e-10)
        p = np.exp(scores - z)
        want = np.zeros((em.shape[1], L))
        for pk, (_, y) in zip(p, seqs):
            for i, lab in enumerate(y):
                want[i, lab] += pk
        np.testing.assert_allclose(marg[b].numpy(), want, atol=1e-10)
        # the score of a sequence is the enumeration's
        y = torch.zeros(1, em.shape[1], dtype=torch.long)
        y[0, :n] = torch.tensor(seqs[5 % len(seqs)][1])
        sc = crf_layer.sequence_score(em[b:b + 1], mask[b:b + 1], y, U, s, e)
        assert float(sc[0]) == pytest.approx(seqs[5 % len(seqs)][0], abs=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_crf_viterbi_equals_enumeration(seed):
    em, mask, U, s, e, lengths = random_crf(seed, B=4, T=5, L=3)
    paths, scores = crf_layer.viterbi(em, mask, U, s, e)
    for b, n in enumerate(lengths):
        best_score, best = max(brute_force(em[b], U, s, e, n))
        assert paths[b, :n].tolist() == list(best)
        assert paths[b, n:].tolist() == [0] * (em.shape[1] - n)
        assert float(scores[b]) == pytest.approx(best_score, abs=1e-10)


@pytest.mark.parametrize("name", ["bilstm-crf", "bilstm"])
def test_loss_gradient_matches_finite_differences(name):
    """d loss / d theta of a tiny network (float64, no dropout) against central differences."""
    from chaintag.learners.neural.batches import make_batch, to_device
    m = chaintag.make_learner(name, epochs=1, dropout=0.0, char_encoder="cnn", random_state=3, **TINY)
    m.fit(SENTS, LABELS)
    net = m.net_.double()
    net.train()
    enc = m.extractor_.transform(SENTS)
    lab = {x: k for k, x in enumerate(m.labels_)}
    gold = np.array([lab[x] for ls in LABELS for x in ls])
    batch = to_device(make_batch(enc.__dict__, np.arange(len(SENTS)), gold), torch, "cpu")

    def loss():
        return m._loss(torch, net.emissions(batch), batch)

    net.zero_grad()
    loss().backward()
    rng = np.random.default_rng(0)
    checked = 0
    for pname, p in net.named_parameters():
        if p.grad is None:
            continue
        flat, grad = p.data.view(-1), p.grad.view(-1)
        # row 0 of an embedding table is the padding vector, held at 0 by design (no gradient)
        lo = p.shape[1] if "emb" in pname else 0
        for k in lo + rng.choice(flat.numel() - lo, size=min(3, flat.numel() - lo), replace=False):
            old = float(flat[k])
            h = 1e-6
            with torch.no_grad():
                flat[k] = old + h
                up = float(loss())
                flat[k] = old - h
                down = float(loss())
                flat[k] = old
            assert float(grad[k]) == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-7), (pname, k)
            checked += 1
    assert checked > 20


def test_directions_side_by_side_equal_one_after_the_other():
    """The two LSTM directions run on two threads (two CPU threads allowed) give the outputs and
    every gradient of running them one after the other, and training stays seeded."""
    from chaintag.learners.neural.batches import make_batch, to_device
    m = chaintag.make_learner("bilstm-crf", epochs=1, dropout=0.0, random_state=3, **TINY).fit(SENTS, LABELS)
    net = m.net_.double()
    enc = m.extractor_.transform(SENTS)
    lab = {x: k for k, x in enumerate(m.labels_)}
    gold = np.array([lab[x] for ls in LABELS for x in ls])
    batch = to_device(make_batch(enc.__dict__, np.arange(len(SENTS)), gold), torch, "cpu")
    results = []
    torch.set_num_threads(2)
    for parallel in (False, True):
        net.parallel_directions = parallel
        net.zero_grad()
        em = net.emissions(batch)
        m._loss(torch, em, batch).backward()
        with torch.no_grad():
            em_eval = net.emissions(batch)
        results.append((em.detach().clone(), em_eval, {n: p.grad.clone() for n, p in net.named_parameters()}))
    (em0, ev0, g0), (em1, ev1, g1) = results
    torch.testing.assert_close(em1, em0, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(ev1, ev0, rtol=1e-12, atol=1e-12)
    assert set(g1) == set(g0) and any("lstm_bw" in n for n in g1)
    for n in g0:
        torch.testing.assert_close(g1[n], g0[n], rtol=1e-10, atol=1e-12, msg=n)
    assert float(g1["lstm_fw.weight_hh_l0"].abs().sum()) > 0 and float(g1["lstm_bw.weight_hh_l0"].abs().sum()) > 0
    params = dict(TINY, epochs=2, random_state=7)
    a = chaintag.BiLSTMCRF(**params).fit(SENTS, LABELS)
    b = chaintag.BiLSTMCRF(**params).fit(SENTS, LABELS)
    np.testing.assert_array_equal(a.weights_, b.weights_)


@pytest.mark.parametrize("name", ["bilstm-crf", "bilstm"])
def test_same_seed_same_weights_other_seed_differs(name):
    params = dict(TINY, epochs=3, random_state=7, unk_replace=0.5)
    a = chaintag.make_learner(name, **params).fit(SENTS, LABELS)
    b = chaintag.make_learner(name, **params).fit(SENTS, LABELS)
    c = chaintag.make_learner(name, **dict(params, random_state=8)).fit(SENTS, LABELS)
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert not np.array_equal(a.weights_, c.weights_)


def test_dev_keeps_best_epoch_and_history_fields():
    m = chaintag.make_learner("bilstm-crf", epochs=4, learning_rate=0.05, **TINY)
    m.fit(SENTS, LABELS, dev=(SENTS[:2], LABELS[:2]))
    assert [r["epoch"] for r in m.history_] == [1, 2, 3, 4]
    for rec in m.history_:
        assert rec["seconds"] > 0 and rec["loss"] > 0 and "dev_score" in rec
    scores = [r["dev_score"] for r in m.history_]
    assert m.best_epoch_ == int(np.argmax(scores)) + 1
    assert m.score(SENTS[:2], LABELS[:2]) == pytest.approx(max(scores))


def test_max_seconds_stops_after_the_first_epoch_past_the_budget():
    m = chaintag.make_learner("bilstm", epochs=5, max_seconds=0.0, **TINY)
    m.fit(SENTS, LABELS, dev=(SENTS, LABELS))
    assert len(m.history_) == 1 and m.best_epoch_ == 1
    m = chaintag.make_learner("bilstm", epochs=3, max_seconds=0.0, **TINY).fit(SENTS, LABELS)
    assert len(m.history_) == 1 and m.best_epoch_ == 1


def test_round_trip_and_unknown_words(tmp_path):
    m = chaintag.make_learner("bilstm-crf", epochs=5, learning_rate=0.05, **TINY).fit(SENTS, LABELS)
    path = tmp_path / "m.npz"
    m.save(path)
    back = chaintag.load(path)
    unseen = [[("zyzzyva", "NN"), ("quux", "XX"), ("the", "DT")], [("Ωμέγα", "NN")]]
    for sents in (SENTS, unseen):
        assert back.predict(sents) == m.predict(sents)
        for x, y in zip(back.predict_marginals(sents), m.predict_marginals(sents)):
            np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(back.weights_, m.weights_)
    assert back.history_ == [{k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds")}
                             for r in m.history_]
    back.save(tmp_path / "again.npz")
    assert (tmp_path / "again.npz").read_bytes() == path.read_bytes()


def test_marginals_and_nbest_agree_with_viterbi():
    m = chaintag.make_learner("bilstm-crf", epochs=3, **TINY).fit(SENTS, LABELS)
    best = m.predict(SENTS)
    for sent, labels, marg, cands in zip(SENTS, best, m.predict_marginals(SENTS), m.predict_nbest(SENTS, 4)):
        np.testing.assert_allclose(marg.sum(axis=1), 1.0, atol=1e-6)
        assert cands[0][0] == labels
        assert [c[1] for c in cands] == sorted((c[1] for c in cands), reverse=True)
        assert all(0 < c[2] <= 1 for c in cands) and sum(c[2] for c in cands) <= 1 + 1e-6
    with pytest.raises(NotImplementedError):
        m.predict(SENTS, constrain=True)
    table = m.transitions_
    assert table[m.labels_[0], m.labels_[1]] == pytest.approx(float(m.net_.transitions.detach()[0, 1]))
    with pytest.raises(NotImplementedError, match="bilstm-crf"):
        chaintag.make_learner("bilstm", epochs=1, **TINY).fit(SENTS, LABELS).predict_nbest(SENTS, 2)


def test_checkpoint_resume_equals_uninterrupted(tmp_path):
    params = dict(TINY, random_state=2, learning_rate=0.02)
    full = chaintag.make_learner("bilstm-crf", epochs=4, **params).fit(SENTS, LABELS, dev=(SENTS, LABELS))
    chaintag.make_learner("bilstm-crf", epochs=2, **params).fit(SENTS, LABELS, dev=(SENTS, LABELS),
                                                                checkpoint_dir=tmp_path, resume=True)
    rest = chaintag.make_learner("bilstm-crf", epochs=4, **params).fit(SENTS, LABELS, dev=(SENTS, LABELS),
                                                                       checkpoint_dir=tmp_path, resume=True)
    np.testing.assert_array_equal(rest.weights_, full.weights_)
    assert [r["loss"] for r in rest.history_] == [r["loss"] for r in full.history_]


def test_pretrained_vectors_initialize_the_lookup_table(tmp_path):
    vec = tmp_path / "vec.txt"
    vec.write_text("3 2\nthe 0.5 -0.25\nDog 1 2\nunseenword 3 4\n", encoding="utf-8")
    m = chaintag.make_learner("bilstm-crf", epochs=1, embeddings=str(vec), **dict(TINY, word_dim=None))
    m.fit(SENTS, LABELS)
    assert m.net_.word_emb.weight.shape[1] == 2
    words = m.extractor_.words
    assert "unseenword" in words.index and "dog" in words.index
    m2 = chaintag.make_learner("bilstm-crf", epochs=1, embeddings=str(vec), **dict(TINY, word_dim=None))
    m2._check_params()
    m2.columns_, m2.labels_ = ("word", "pos"), ["B-NP"]
    enc, vectors = m2._build_encoder(SENTS, ("word", "pos"))
    m2.extractor_ = enc
    net = m2._build_net(torch, vectors)
    np.testing.assert_allclose(net.word_emb.weight[enc.words.index["unseenword"]].detach().numpy(), [3, 4])
    np.testing.assert_allclose(net.word_emb.weight[enc.words.index["the"]].detach().numpy(), [0.5, -0.25])


@pytest.mark.parametrize("text, line, what", [
    ("the 0.1 0.2\ndog 0.3\n", 2, "1 values on this line, but the vectors have dimension 2"),
    ("the 0.1 0.2\ndog 0.3 abc\n", 2, "'abc'"),
    ("2 3\nthe 0.1 0.2 0.3\ndog 0.1 0.2\n", 3, "dimension 3"),
    ("the 0.1 nan\n", 1, "not finite"),
    ("the\n", 1, "a word followed by"),
])
def test_bad_vectors_file_names_file_and_line(tmp_path, text, line, what):
    vec = tmp_path / "bad.vec"
    vec.write_text(text, encoding="utf-8")
    m = chaintag.make_learner("bilstm-crf", epochs=1, embeddings=str(vec), **dict(TINY, word_dim=None))
    with pytest.raises(InputError) as info:
        m.fit(SENTS, LABELS)
    assert info.value.path == str(vec) and info.value.line == line
    assert what in str(info.value) and f"{vec}:{line}:" in str(info.value)


def test_vectors_dimension_must_match_word_dim(tmp_path):
    vec = tmp_path / "v.txt"
    vec.write_text("the 0.1 0.2\n", encoding="utf-8")
    with pytest.raises(InputError, match="dimension 2 but word_dim is 8"):
        chaintag.make_learner("bilstm", epochs=1, embeddings=str(vec), **TINY).fit(SENTS, LABELS)


def test_foreign_or_damaged_model_files(tmp_path):
    from chaintag.io.model_file import load_model, save_model
    m = chaintag.make_learner("bilstm-crf", epochs=1, **TINY).fit(SENTS, LABELS)
    path = tmp_path / "m.npz"
    m.save(path)
    meta, arrays = load_model(path)
    shrunk = dict(arrays)
    shrunk["param.proj.weight"] = arrays["param.proj.weight"][:1]
    save_model(tmp_path / "shape.npz", meta, shrunk)
    with pytest.raises(ModelFormatError, match="proj.weight"):
        chaintag.load(tmp_path / "shape.npz")
    missing = {k: v for k, v in arrays.items() if k != "param.transitions"}
    save_model(tmp_path / "missing.npz", meta, missing)
    with pytest.raises(ModelFormatError):
        chaintag.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(path.read_bytes()[:200])
    with pytest.raises(ModelFormatError):
        chaintag.load(tmp_path / "junk.npz")


def test_settings_are_checked():
    for bad in (dict(optimizer="rmsprop"), dict(char_encoder="gru"), dict(hidden=0), dict(dropout=1.0)):
        with pytest.raises(InputError):
            chaintag.make_learner("bilstm", epochs=1, **dict(TINY, **bad)).fit(SENTS, LABELS)


@pytest.mark.parametrize("variant", [dict(char_encoder="lstm", optimizer="sgd", learning_rate=0.3, unk_replace=0.0),
                                     dict(char_encoder="none", feature_dim=0)])
def test_variants_learn_the_toy_corpus(variant):
    m = chaintag.make_learner("bilstm-crf", epochs=30, dropout=0.0, **{**TINY, "learning_rate": 0.05, **variant})
    m.fit(SENTS, LABELS)
    assert m.score(SENTS, LABELS) == 100.0


def test_missing_torch_names_the_extra(monkeypatch):
    from chaintag.learners.neural._torch import MissingExtraError
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingExtraError, match=r"chaintag\[neural\]"):
        chaintag.make_learner("bilstm-crf", epochs=1, **TINY).fit(SENTS, LABELS)


def test_importing_chaintag_does_not_import_torch():
    code = "import sys, chaintag; chaintag.make_learner('bilstm-crf'); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_train_tag_eval(tmp_path):
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                 for s, ls in zip(SENTS, LABELS)) + "\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    cli = [sys.executable, "-m", "chaintag.cli.main"]
    run = subprocess.run(cli + ["train", "-a", "bilstm-crf", "--train", str(train), "--model", str(model),
                                "--epochs", "2", "--hidden-size", "4", "--char-encoder", "lstm", "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    # no attribute preset or templates are described for a learner that embeds the columns itself
    assert "preset" not in run.stderr and "templates:" not in run.stderr and "compiled kernels" not in run.stderr
    assert "bilstm-crf: word, character and column embeddings of the columns word, pos" in run.stderr
    out = json.loads(run.stdout)
    assert out["algorithm"] == "bilstm-crf" and len(out["history"]) == 2 and out["n_parameters"] > 0
    back = chaintag.load(model)
    assert back.hidden == 4 and back.char_encoder == "lstm"
    info = subprocess.run(cli + ["inspect", str(model)], capture_output=True, text=True)
    assert info.returncode == 0 and "transitions" in info.stdout, info.stderr
    settings = next(ln for ln in info.stdout.splitlines() if ln.startswith("settings: "))
    assert "features=" not in settings and "hidden=4" in settings and "char_encoder='lstm'" in settings
    for option in (["--features", "chunking"], ["--clusters", str(train)]):
        run = subprocess.run(cli + ["train", "-a", "bilstm", "--train", str(train), "--model",
                                    str(tmp_path / "y.npz"), "-q"] + option, capture_output=True, text=True)
        assert run.returncode == 2 and f"{option[0]} does not apply to bilstm" in run.stderr
    tagged = subprocess.run(cli + ["tag", "--model", str(model), str(train), "--marginals"],
                            capture_output=True, text=True)
    assert tagged.returncode == 0, tagged.stderr
    assert len(tagged.stdout.strip().split("\n\n")) == len(SENTS)
    ev = subprocess.run(cli + ["eval", "--model", str(model), "--test", str(train), "--json"],
                        capture_output=True, text=True)
    assert ev.returncode == 0, ev.stderr
    assert 0 <= json.loads(ev.stdout)["accuracy"] <= 100
    bad = tmp_path / "bad.vec"
    bad.write_text("the 1 2\ndog 1\n", encoding="utf-8")
    run = subprocess.run(cli + ["train", "-a", "bilstm", "--train", str(train), "--model", str(tmp_path / "x.npz"),
                                "--embeddings", str(bad), "-q"], capture_output=True, text=True)
    assert run.returncode == 2 and f"{bad}:2:" in run.stderr


def test_progress_as_log_lines_is_one_plain_line_per_epoch(capsys):
    params = {**TINY, "progress": "log"}
    chaintag.BiLSTMCRF(epochs=2, random_state=0, **params).fit(SENTS[:4], LABELS[:4])
    err = capsys.readouterr().err
    assert "\r" not in err  # no bar redrawn in a log file
    lines = [ln for ln in err.splitlines() if "epoch" in ln]
    assert [ln.split(":")[0] for ln in lines] == ["bilstm-crf epoch 1/2", "bilstm-crf epoch 2/2"]
    assert all("loss" in ln for ln in lines)
