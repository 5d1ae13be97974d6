"""Distributed training on a 2-worker Dask LocalCluster (processes): serial equality, mixing, lost workers."""

import os

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from chaintag.cli.main import main  # noqa: E402
from chaintag.distributed import fit_distributed, open_client  # noqa: E402
from chaintag.training.shards import make_shard, shard_bounds, shard_digest, shard_orders  # noqa: E402
from chaintag.training.worker import load_shard  # noqa: E402
from chaintag.errors import InputError, TrainingError  # noqa: E402
from chaintag.learners import make_learner  # noqa: E402
from chaintag.learners.base import TrainData  # noqa: E402
from chaintag.learners.perceptron import StructuredPerceptron  # noqa: E402
from chaintag.learners.path_kernels import training_arrays  # noqa: E402
from chaintag.learners.perceptron_kernels import gold_feature_ids, perceptron_epoch  # noqa: E402
from chaintag.learners.tokens import as_rows  # noqa: E402

from toy_corpus import LABELS, SENTS  # noqa: E402

COLS = ("word", "pos")
FEATS = "chunking"


def synthetic(n_sent, seed):
    """Sentences of an HMM with 4 labels, each emitting from its own words plus shared ambiguous ones."""
    rng = np.random.default_rng(seed)
    labels = ["A", "B", "C", "D"]
    trans = np.array([[.1, .6, .2, .1], [.2, .1, .6, .1], [.3, .1, .1, .5], [.5, .2, .2, .1]])
    sents, labs = [], []
    for _ in range(n_sent):
        y = rng.integers(4)
        toks, ys = [], []
        for _ in range(rng.integers(3, 12)):
            word = f"s{rng.integers(5)}" if rng.random() < 0.25 else f"{labels[y]}{rng.integers(20)}"
            toks.append((word, f"p{y if rng.random() < 0.7 else rng.integers(4)}"))
            ys.append(labels[y])
            y = rng.choice(4, p=trans[y])
        sents.append(toks)
        labs.append(ys)
    return sents, labs


@pytest.fixture(scope="module")
def client():
    with open_client(workers=2) as c:
        yield c


def learner(name="perceptron", **kw):
    return make_learner(name, features=FEATS, columns=COLS, epochs=kw.pop("epochs", 4), **kw)


@pytest.mark.parametrize("name,kw", [("perceptron", {}), ("perceptron", {"averaged": False, "shuffle": True}),
                                     ("mira", {}), ("nbest-mira", {"shuffle": True}),
                                     ("sapo", {"averaged": True}), ("crf", {}), ("crf-lbfgs", {"epochs": 15})])
def test_one_shard_equals_serial_bit_for_bit(client, tmp_path, name, kw):
    dev = (SENTS[:2], LABELS[:2])
    serial = learner(name, **kw).fit(SENTS * 3, LABELS * 3, dev=dev)
    mixed = fit_distributed(learner(name, **kw), SENTS * 3, LABELS * 3, dev=dev, client=client, shards=1)
    assert mixed.weights_.tobytes() == serial.weights_.tobytes()
    assert mixed.best_epoch_ == serial.best_epoch_
    strip = [{k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds", "evaluations")}
             for r in mixed.history_]
    assert strip == [{k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds", "evaluations")}
                     for r in serial.history_]
    if name != "crf-lbfgs":  # its history counts evaluations, which differ with the driver's polling
        serial.save(tmp_path / "a.npz")
        mixed.save(tmp_path / "b.npz")
        assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def _oracle(model, sentences, labels, n_shards, epochs, mixing):
    """Brute-force parameter mixing of the perceptron: every step's weights kept and averaged by hand."""
    rows = as_rows(sentences)
    attrs = model.extractor_.transform(rows)
    lab = {v: k for k, v in enumerate(model.labels_)}
    gold = np.array([lab[y] for ls in labels for y in ls], dtype=np.int32)
    data = TrainData(attrs, gold, model.feature_index_)
    a = data.attrs
    gf = gold_feature_ids(a.tok_ptr, data.ent_lo, data.ent_n, data.gold, data.index.feat_label)
    L = data.index.n_labels
    bounds = shard_bounds(a.sent_ptr, a.tok_ptr, n_shards)
    w = np.zeros(data.index.n_weights)
    total, steps = np.zeros_like(w), 0
    for _ in range(epochs):
        own, updates = [], []
        for i in range(n_shards):
            wi = w.copy()
            n_upd = 0
            for s in range(bounds[i], bounds[i + 1]):
                n_upd += perceptron_epoch(np.array([s], dtype=np.int64), training_arrays(data, gf), wi,
                                          np.zeros(1), 0, L, False)[0]
                total += wi
                steps += 1
            own.append(wi)
            updates.append(n_upd)
        mu = [1 / n_shards] * n_shards if mixing == "uniform" or sum(updates) == 0 \
            else [u / sum(updates) for u in updates]
        w = sum(m * x for m, x in zip(mu, own))
    return w, total / steps


@pytest.mark.parametrize("mixing", ["uniform", "updates"])
def test_two_shards_mix_and_average_as_the_brute_force_oracle(client, mixing):
    sents, labs = synthetic(60, 1)
    avg = fit_distributed(learner(epochs=3), sents, labs, client=client, shards=2, mixing=mixing)
    last = fit_distributed(learner(epochs=3, averaged=False), sents, labs, client=client, shards=2, mixing=mixing)
    w, mean = _oracle(avg, sents, labs, 2, 3, mixing)
    np.testing.assert_allclose(last.weights_, w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(avg.weights_, mean, rtol=1e-9, atol=1e-12)
    serial = learner(epochs=3).fit(sents, labs)
    assert not np.array_equal(avg.weights_, serial.weights_)  # two shards did mix


def test_two_shards_on_one_worker_mix_as_the_brute_force_oracle():
    # both shards live in one worker process: each must still train on its own sentences
    sents, labs = synthetic(60, 1)
    with open_client(workers=1) as one:
        last = fit_distributed(learner(epochs=3, averaged=False), sents, labs, client=one, shards=2)
        avg = fit_distributed(learner(epochs=3), sents, labs, client=one, shards=2)
    w, mean = _oracle(avg, sents, labs, 2, 3, "uniform")
    np.testing.assert_allclose(last.weights_, w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(avg.weights_, mean, rtol=1e-9, atol=1e-12)


def test_a_shard_that_does_not_match_its_checksum_is_refused():
    sents, labs = synthetic(20, 7)
    model = learner(epochs=1).fit(sents, labs)
    data = TrainData(model.extractor_.transform(as_rows(sents)),
                     np.array([model.labels_.index(y) for ls in labs for y in ls], dtype=np.int32),
                     model.feature_index_)
    shard = make_shard(data, 0, 10)
    digest = shard_digest(shard)
    assert digest == shard_digest(make_shard(data, 0, 10))
    assert digest != shard_digest(make_shard(data, 10, 20))
    other = dict(shard, gold=shard["gold"].copy())
    other["gold"][0] = 1 - other["gold"][0]
    assert shard_digest(other) != digest
    args = (StructuredPerceptron, learner(epochs=1).get_params(), other, data.index.feat_label,
            data.index.n_labels, ("w", "u", "step"))
    with pytest.raises(RuntimeError, match="checksum"):
        load_shard(*args, digest)
    assert load_shard(*args, shard_digest(other)).n_sentences == 10


@pytest.mark.parametrize("name", ["perceptron", "sapo", "mira", "crf-lbfgs"])
def test_two_workers_match_serial_accuracy(client, name):
    sents, labs = synthetic(300, 2)
    test_s, test_l = synthetic(150, 3)
    kw = {"epochs": 30} if name == "crf-lbfgs" else {"epochs": 6}
    serial = make_learner(name, features="w[0];w[-1];w[1];pos[0]", columns=COLS, **kw).fit(sents, labs)
    mixed = fit_distributed(make_learner(name, features="w[0];w[-1];w[1];pos[0]", columns=COLS, **kw),
                            sents, labs, client=client, shards=2)
    acc_s, acc_m = serial.score(test_s, test_l), mixed.score(test_s, test_l)
    assert acc_s > 80
    assert abs(acc_m - acc_s) <= 1.5, (acc_s, acc_m)


def test_shards_are_balanced_contiguous_and_cover_the_corpus():
    sent_ptr = np.array([0, 1, 2, 3, 4, 5], dtype=np.int64)
    tok_ptr = np.array([0, 10, 12, 14, 16, 30], dtype=np.int64)
    b = shard_bounds(sent_ptr, tok_ptr, 2)
    assert b.tolist() in ([0, 3, 5], [0, 4, 5])  # 14 | 16 or 16 | 14 entries
    assert shard_bounds(sent_ptr, tok_ptr, 5).tolist() == [0, 1, 2, 3, 4, 5]
    with pytest.raises(ValueError):
        shard_bounds(sent_ptr, tok_ptr, 6)
    order = np.array([4, 0, 3, 1, 2])
    parts = shard_orders(order, np.array([0, 2, 5]))
    assert [p.tolist() for p in parts] == [[0, 1], [2, 1, 0]]


def test_unsupported_learner_is_refused(client):
    with pytest.raises(InputError, match="not maxent"):
        fit_distributed(make_learner("maxent", features=FEATS, columns=COLS), SENTS, LABELS, client=client)
    with pytest.raises(InputError, match="mixing"):
        fit_distributed(learner(), SENTS, LABELS, client=client, mixing="max")


class Fragile(StructuredPerceptron):
    """A perceptron whose worker process dies in its first epoch after epoch 1 while ``marker`` exists."""

    def __init__(self, *, marker=None, **params):
        super().__init__(**params)
        self.marker = marker

    @classmethod
    def _param_names(cls):
        return StructuredPerceptron._param_names() + ["marker"]

    def _run_epoch(self, state, data, order):
        if len(order) and state["step"] > 0 and self.marker and os.path.exists(self.marker):
            try:
                os.close(os.open(self.marker + ".claimed", os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                os._exit(1)  # the worker process dies mid-epoch
        return super()._run_epoch(state, data, order)


def _fragile(marker):
    return Fragile(marker=str(marker), features=FEATS, columns=COLS, epochs=4)


def _both_workers(client):
    """Wait for a worker killed by an earlier test to be back (its nanny restarts it; slow under load),
    so that the kill below leaves one worker holding a shard. The results do not depend on it."""
    client.wait_for_workers(2, timeout=300)


def test_killed_worker_epoch_is_rerun_and_gives_the_same_model(client, tmp_path):
    _both_workers(client)
    marker = tmp_path / "kill"
    sents, labs = synthetic(40, 4)
    calm = fit_distributed(_fragile(marker), sents, labs, client=client, shards=2)
    marker.touch()
    with pytest.warns(RuntimeWarning, match="left"):
        hit = fit_distributed(_fragile(marker), sents, labs, client=client, shards=2)
    assert (tmp_path / "kill.claimed").exists()  # a worker did die
    assert len(hit.distributed_["lost_workers"]) == 1
    assert hit.weights_.tobytes() == calm.weights_.tobytes()


def test_killed_worker_without_retries_stops_with_the_checkpoint_intact(client, tmp_path):
    _both_workers(client)
    marker = tmp_path / "kill"
    ck = tmp_path / "ck"
    sents, labs = synthetic(40, 5)
    calm = fit_distributed(_fragile(marker), sents, labs, client=client, shards=2)
    marker.touch()
    with pytest.raises(TrainingError, match="epoch 2.*checkpoint of epoch 1.*intact"):
        fit_distributed(_fragile(marker), sents, labs, client=client, shards=2, max_retries=0,
                        checkpoint_dir=ck)
    from chaintag.io.model_file import load_model
    meta, _ = load_model(ck / "checkpoint.npz")
    assert meta["epoch"] == 1
    marker.unlink()
    # resumed at once: the killed worker may not be back, and both shards may share the worker left
    resumed = fit_distributed(_fragile(marker), sents, labs, client=client, shards=2, checkpoint_dir=ck,
                              resume=True)
    assert resumed.weights_.tobytes() == calm.weights_.tobytes()


def test_cli_train_on_a_scheduler_equals_serial(client, tmp_path):
    lines = []
    for toks, labs in zip(SENTS * 2, LABELS * 2):
        lines += [f"{w} {p} {y}" for (w, p), y in zip(toks, labs)] + [""]
    tr = tmp_path / "train.txt"
    tr.write_text("\n".join(lines) + "\n")
    base = ["train", "--train", str(tr), "--features", FEATS, "--epochs", "3", "--quiet"]
    assert main(base + ["--model", str(tmp_path / "s.npz")]) == 0
    address = client.scheduler.address
    assert main(base + ["--model", str(tmp_path / "d.npz"), "--scheduler", address, "--workers", "1"]) == 0
    assert (tmp_path / "s.npz").read_bytes() == (tmp_path / "d.npz").read_bytes()
    assert main(base + ["--model", str(tmp_path / "m.npz"), "--scheduler", address, "--mixing", "updates"]) == 0
    assert main(base + ["--model", str(tmp_path / "x.npz"), "--mixing", "updates"]) == 2


def test_cli_tag_on_a_scheduler_writes_the_same_bytes_in_input_order(client, tmp_path):
    sents, labs = synthetic(80, 6)
    lines = []
    for n, (toks, ys) in enumerate(zip(sents, labs)):
        if n % 25 == 0:
            lines += ["-DOCSTART- -X- O", ""]
        lines += [f"{w} {p} {y}" for (w, p), y in zip(toks, ys)] + [""]
    data = tmp_path / "data.txt"
    data.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(data), "--features", FEATS, "--epochs", "2", "--model", str(model),
                 "--quiet"]) == 0
    one, many = tmp_path / "one.txt", tmp_path / "many.txt"
    assert main(["tag", "--model", str(model), str(data), "--output", str(one), "--quiet"]) == 0
    assert main(["tag", "--model", str(model), str(data), "--output", str(many), "--quiet", "--batch-size", "3",
                 "--scheduler", client.scheduler.address]) == 0
    assert many.read_bytes() == one.read_bytes()
    assert one.read_text().count("-DOCSTART-") == 4
    conf = tmp_path / "conf.txt"
    assert main(["tag", "--model", str(model), str(data), "--output", str(conf), "--quiet", "--batch-size", "7",
                 "--confidence", "3", "--scheduler", client.scheduler.address]) == 0
    ref = tmp_path / "ref.txt"
    assert main(["tag", "--model", str(model), str(data), "--output", str(ref), "--quiet", "--confidence", "3"]) == 0
    assert conf.read_bytes() == ref.read_bytes()
    assert main(["tag", "--model", str(model), str(data), "--quiet", "--jobs", "2", "--workers", "2"]) == 2
