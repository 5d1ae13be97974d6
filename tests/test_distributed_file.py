"""Distributed training from a file read in chunks (shard files on disk) against the corpus in memory."""

import os

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import chaintag  # noqa: E402
from chaintag.cli.main import main  # noqa: E402
from chaintag.distributed import fit_distributed, fit_distributed_file, open_client  # noqa: E402
from chaintag.training.shard_files import NAMES, write_shard_files  # noqa: E402
from chaintag.training.shards import make_shard, shard_bounds, shard_digest  # noqa: E402
from chaintag.errors import InputError, TrainingError  # noqa: E402
from chaintag.learners import make_learner  # noqa: E402
from chaintag.learners.base import TrainData  # noqa: E402
from chaintag.learners.tokens import as_rows  # noqa: E402

from test_distributed import _fragile, synthetic  # noqa: E402

COLS = ("word", "pos")
FEATS = "chunking"


@pytest.fixture(scope="module")
def client():
    with open_client(workers=2) as c:
        yield c


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """90 sentences of a toy HMM as a column file; words first seen late make the vocabularies grow."""
    sents, labs = synthetic(90, 11)
    path = tmp_path_factory.mktemp("data") / "train.txt"
    with open(path, "w") as f:
        for toks, ys in zip(sents, labs):
            f.writelines(f"{w} {p} {y}\n" for (w, p), y in zip(toks, ys))
            f.write("\n")
    return str(path), sents, labs


def learner(name, **kw):
    return make_learner(name, features=FEATS, columns=COLS, epochs=kw.pop("epochs", 3), **kw)


def same_file(a, b, tmp_path):
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    return (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


@pytest.mark.parametrize("chunk", [1, 7, 1000])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_shard_files_hold_the_arrays_of_the_shards_in_memory(corpus, tmp_path, chunk, k):
    from chaintag.streaming.extract import extract_to_disk
    from chaintag.features.extract import AttributeExtractor
    from chaintag.features.templates import resolve_templates
    from chaintag.streaming.reader import iter_chunks
    path, sents, labs = corpus
    fitted = learner("perceptron", epochs=1).fit(sents, labs)
    ex = AttributeExtractor(resolve_templates(FEATS, COLS), COLS)
    _, index, chunked = extract_to_disk(ex, lambda: iter_chunks(path, chunk), str(tmp_path), cc=0)
    files = write_shard_files(chunked, k, index.feat_label, index.n_labels)
    assert not any(n.startswith("chunk") for n in os.listdir(tmp_path))  # chunk files used up and removed
    lab = {y: i for i, y in enumerate(fitted.labels_)}
    gold = np.array([lab[y] for ls in labs for y in ls], dtype=np.int32)
    data = TrainData(fitted.extractor_.transform(as_rows(sents)), gold, fitted.feature_index_)
    bounds = shard_bounds(data.attrs.sent_ptr, data.attrs.tok_ptr, k)
    assert files.bounds.tolist() == bounds.tolist()
    for i in range(k):
        want = make_shard(data, int(bounds[i]), int(bounds[i + 1]))
        got = {n: np.load(p) for n, p in files.paths(i).items()}
        assert sorted(got) == sorted(NAMES)
        for n in NAMES:
            assert got[n].dtype == want[n].dtype and got[n].tobytes() == want[n].tobytes(), (i, n)
        assert files.digests[i] == shard_digest(want)
    assert b"".join(g.tobytes() for g in files.gold_parts()) == gold.tobytes()


@pytest.mark.parametrize("name,kw", [("perceptron", {}), ("perceptron", {"averaged": False, "shuffle": True}),
                                     ("sapo", {"averaged": True}), ("mira", {}), ("crf-lbfgs", {"epochs": 6})])
def test_streamed_two_shards_give_the_in_memory_model_byte_for_byte(client, corpus, tmp_path, name, kw):
    path, sents, labs = corpus
    dev = (sents[:10], labs[:10])
    work = tmp_path / "work"
    work.mkdir()
    mem = fit_distributed(learner(name, **kw), sents, labs, dev=dev, client=client, shards=2)
    st = fit_distributed_file(learner(name, **kw), path, dev, client=client, shards=2, chunk_sentences=7,
                              folder=str(work))
    assert st.distributed_["shard_files"] == "mapped by the workers"
    assert st.weights_.tobytes() == mem.weights_.tobytes()
    assert st.best_epoch_ == mem.best_epoch_
    if name != "crf-lbfgs":  # its history counts evaluations, which differ with the driver's polling
        assert same_file(st, mem, tmp_path)
    assert list(work.iterdir()) == []  # the shard files are removed at the end


def test_one_streamed_shard_equals_serial_and_shards_can_be_sent_instead_of_mapped(client, corpus, tmp_path,
                                                                                  monkeypatch):
    path, sents, labs = corpus
    kw = {"shuffle": True, "epochs": 4}
    serial = learner("perceptron", **kw).fit(sents, labs)
    one = fit_distributed_file(learner("perceptron", **kw), path, client=client, shards=1, chunk_sentences=13)
    assert same_file(one, serial, tmp_path)
    assert one.streamed_ == {"n_sentences": 90, "n_tokens": sum(map(len, labs)), "chunks": 7}
    # workers that do not see the driver's folder are sent each shard's arrays
    import chaintag.training.shard_files as sf
    monkeypatch.setattr(sf, "workers_seeing", lambda client, folder, workers: dict.fromkeys(workers, False))
    monkeypatch.setattr(sf, "BLOCK_BYTES", 1000)  # many blocks per array
    mem = fit_distributed(learner("perceptron", **kw), sents, labs, client=client, shards=2)
    sent = fit_distributed_file(learner("perceptron", **kw), path, client=client, shards=2, chunk_sentences=13)
    assert sent.distributed_["shard_files"] == "sent to the workers"
    assert same_file(sent, mem, tmp_path)
    # a chunk source instead of a path
    from chaintag.streaming.reader import iter_chunks
    fed = fit_distributed_file(learner("perceptron", **kw), lambda: iter_chunks(path, 17), client=client, shards=2)
    assert fed.streamed_["chunks"] == 6
    assert same_file(fed, mem, tmp_path)
    # asked worker by worker: one maps its shard, the other receives it
    first = min(client.nthreads())
    monkeypatch.setattr(sf, "workers_seeing", lambda client, folder, workers: {w: w == first for w in workers})
    mixed = fit_distributed_file(learner("perceptron", **kw), path, client=client, shards=2, chunk_sentences=13)
    assert mixed.distributed_["shard_files"] == "mapped by some workers, sent to the others"
    assert same_file(mixed, mem, tmp_path)


def test_a_streamed_run_resumes_the_checkpoint_of_an_in_memory_one(client, corpus, tmp_path):
    path, sents, labs = corpus
    ck = tmp_path / "ck"
    full = fit_distributed(learner("perceptron", epochs=4), sents, labs, client=client, shards=2)
    fit_distributed(learner("perceptron", epochs=2), sents, labs, client=client, shards=2, checkpoint_dir=ck)
    # the same fingerprint (gold labels hashed shard by shard), so the checkpoint is taken, not refused
    resumed = fit_distributed_file(learner("perceptron", epochs=4), path, client=client, shards=2,
                                   chunk_sentences=11, checkpoint_dir=ck, resume=True)
    assert [r["epoch"] for r in resumed.history_] == [1, 2, 3, 4]
    assert resumed.weights_.tobytes() == full.weights_.tobytes()


def test_bad_input_names_file_and_line_and_the_folder_is_removed(client, corpus, tmp_path, capsys):
    path, _, _ = corpus
    lines = open(path).read().splitlines()
    lines[300] = "lonely"  # one column where the file has three, far after the first chunk
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(InputError, match=r"bad\.txt:301: expected 3 columns") as err:
        fit_distributed_file(learner("perceptron"), str(bad), client=client, chunk_sentences=5, folder=str(work))
    assert str(bad) in str(err.value)
    assert list(work.iterdir()) == []
    with pytest.raises(TrainingError, match="no features left"):
        fit_distributed_file(learner("perceptron", cc=10**6), path, client=client, folder=str(work))
    assert list(work.iterdir()) == []
    code = main(["train", "--train", str(bad), "--features", FEATS, "--model", str(tmp_path / "m.npz"), "--quiet",
                 "--scheduler", client.scheduler.address, "--stream-dir", str(work)])
    assert code == 2
    msg = capsys.readouterr().err
    assert f"{bad}:301:" in msg
    assert not (tmp_path / "m.npz").exists() and list(work.iterdir()) == []


def test_cli_workers_stream_by_default_and_give_the_in_memory_model(client, corpus, tmp_path, monkeypatch, capsys):
    path, _, _ = corpus
    import json

    import chaintag.api.train_stream as ts
    calls = []
    real = ts.fit_stream_distributed
    monkeypatch.setattr(ts, "fit_stream_distributed", lambda *a: calls.append(1) or real(*a))
    base = ["train", "--train", path, "--features", FEATS, "--epochs", "2", "--quiet", "--json",
            "--algorithm", "sapo", "--scheduler", client.scheduler.address, "--workers", "2"]
    assert main(base + ["--model", str(tmp_path / "st.npz")]) == 0
    assert calls == [1]
    out = json.loads(capsys.readouterr().out)
    assert out["train"]["n_sentences"] == 90
    assert main(base + ["--model", str(tmp_path / "mem.npz"), "--no-stream"]) == 0
    assert calls == [1]
    assert (tmp_path / "st.npz").read_bytes() == (tmp_path / "mem.npz").read_bytes()
    c = chaintag.load_corpus(path)
    assert out["train"]["n_tokens"] == c.n_tokens


def test_a_killed_worker_s_shard_is_mapped_again_and_the_model_is_the_same(client, corpus, tmp_path):
    client.wait_for_workers(2, timeout=300)
    path, sents, labs = corpus
    marker = tmp_path / "kill"
    calm = fit_distributed(_fragile(marker), sents, labs, client=client, shards=2)
    marker.touch()
    with pytest.warns(RuntimeWarning, match="left"):
        hit = fit_distributed_file(_fragile(marker), path, client=client, shards=2, chunk_sentences=9)
    assert (tmp_path / "kill.claimed").exists()  # a worker did die
    assert len(hit.distributed_["lost_workers"]) == 1
    assert hit.distributed_["shard_files"] == "mapped by the workers"
    assert hit.weights_.tobytes() == calm.weights_.tobytes()
