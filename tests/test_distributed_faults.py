"""Dask workers killed with SIGKILL during training and tagging: the same model and output, or one clear error.

Every run is made under an overall deadline (a thread joined with a timeout),
so that a hang fails the test instead of stopping the suite.
"""

import os
import signal
import threading

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from chaintag.cli.main import main  # noqa: E402
from chaintag.distributed import fit_distributed, open_client  # noqa: E402
from chaintag.distributed import identity, pool as pool_module, trainer as trainer_module  # noqa: E402
from chaintag.distributed.deadline import ClusterError, WorkerLost, bounded  # noqa: E402
from chaintag.errors import InputError, TrainingError  # noqa: E402
from chaintag.learners import make_learner  # noqa: E402

COLS = ("word", "pos")
HANG = 120  # seconds: a run past it is a hang


def corpus(n_sent, seed):
    """Tiny tagged sentences: label-specific words, some shared ones, POS tags that mostly agree."""
    rng = np.random.default_rng(seed)
    sents, labs = [], []
    for _ in range(n_sent):
        ys = [str(rng.choice(list("ABC"))) for _ in range(rng.integers(3, 9))]
        sents.append([(f"{y}{rng.integers(8)}" if rng.random() < .8 else "s", f"p{y}") for y in ys])
        labs.append(ys)
    return sents, labs


def learner():
    return make_learner("perceptron", features="chunking", columns=COLS, epochs=3)


def within(seconds, fn, *args, **kw):
    """``fn(*args, **kw)`` in a thread; its result or its exception; fails the test past ``seconds``."""
    box = {}

    def target():
        try:
            box["value"] = fn(*args, **kw)
        except BaseException as exc:  # noqa: BLE001
            box["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"hung for more than {seconds} s"
    return box


def kill_one(client, which=-1):
    """SIGKILL one worker process (the last by address); returns its address."""
    pids = client.run(os.getpid)
    w = sorted(pids)[which]
    os.kill(pids[w], signal.SIGKILL)
    return w


@pytest.fixture(scope="module")
def client():
    with open_client(workers=2) as c:  # nannies: a killed worker comes back
        yield c


@pytest.fixture(scope="module")
def data():
    return corpus(60, 3)


@pytest.fixture(scope="module")
def calm(client, data):
    return fit_distributed(learner(), *data, client=client, shards=2).weights_.tobytes()


def _allowed(box, calm_bytes, ck):
    """The outcome is the undisturbed model, or one TrainingError naming the epoch and --resume."""
    if "error" in box:
        exc = box["error"]
        assert isinstance(exc, TrainingError), repr(exc)
        assert "epoch" in str(exc) and "--resume" in str(exc) and str(ck) in str(exc), str(exc)
        return "error"
    assert box["value"].weights_.tobytes() == calm_bytes
    return "same"


def _arm(monkeypatch, client, target, name, at):
    """Kill a worker on the ``at``-th call of ``target.name`` (a driver-side step), once."""
    real, calls = getattr(target, name), []

    def hooked(*args, **kw):
        calls.append(1)
        if len(calls) == at:
            kill_one(client)
        return real(*args, **kw)

    monkeypatch.setattr(target, name, hooked)
    return calls


# moments of the kill: the shards being placed (before epoch 1), the weights being sent (the broadcast),
# the tasks of an epoch running (mid-epoch), and between two epochs
MOMENTS = [("before epoch 1", pool_module.ShardPool, "_place", 1),
           ("broadcast of epoch 1", trainer_module._Broadcast, "get", 1),
           ("broadcast of epoch 2", trainer_module._Broadcast, "get", 3),
           ("mid-epoch 1", pool_module.ShardPool, "_collect", 2),
           ("mid-epoch 3", pool_module.ShardPool, "_collect", 4),
           ("between epochs 1 and 2", trainer_module._MixingSource, "run_epoch", 2)]


@pytest.mark.filterwarnings("ignore:Dask worker")
@pytest.mark.parametrize("moment,target,name,at", MOMENTS, ids=[m[0] for m in MOMENTS])
def test_a_worker_killed_at_any_moment_gives_the_same_model_or_one_clear_error(client, data, calm, tmp_path,
                                                                              monkeypatch, moment, target, name,
                                                                              at):
    client.wait_for_workers(2, timeout=HANG)
    ck = tmp_path / "ck"
    calls = _arm(monkeypatch, client, target, name, at)
    box = within(HANG, fit_distributed, learner(), *data, client=client, shards=2, checkpoint_dir=ck)
    assert len(calls) >= at  # the kill happened
    outcome = _allowed(box, calm, ck)
    print(f"{moment}: {outcome}")
    if outcome == "error":  # the checkpoint resumes to the same bytes
        monkeypatch.undo()
        again = within(HANG, fit_distributed, learner(), *data, client=client, shards=2, checkpoint_dir=ck,
                       resume=True)
        assert again["value"].weights_.tobytes() == calm


@pytest.mark.filterwarnings("ignore:Dask worker")
def test_all_workers_lost_stops_with_the_epoch_and_the_resume_command(data, tmp_path, monkeypatch):
    monkeypatch.setattr(pool_module, "WAIT_WORKERS", 2.0)
    ck = tmp_path / "ck"
    with open_client(workers=2, nanny=False) as c:  # nothing restarts them

        def kill_all(*args, **kw):
            if kill_all.epoch == 2:
                for pid in c.run(os.getpid).values():
                    os.kill(pid, signal.SIGKILL)
            kill_all.epoch += 1
            return real(*args, **kw)

        real, kill_all.epoch = trainer_module._MixingSource.run_epoch, 1
        monkeypatch.setattr(trainer_module._MixingSource, "run_epoch", kill_all)
        box = within(HANG, fit_distributed, learner(), *data, client=c, shards=2, checkpoint_dir=ck)
    exc = box.get("error")
    assert isinstance(exc, TrainingError), repr(exc)
    assert "epoch 2" in str(exc) and "no Dask worker is left" in str(exc)
    assert f"checkpoint of epoch 1 in {ck} is intact" in str(exc) and "--resume" in str(exc)


def test_bounded_turns_a_failure_or_a_hang_into_worker_lost():
    assert bounded(lambda x: x + 1, 1) == 2
    with pytest.raises(WorkerLost, match="KeyError"):
        bounded(lambda: {}["tcp://gone"], worker="tcp://gone")
    with pytest.raises(WorkerLost, match="more than 0 s") as info:
        bounded(threading.Event().wait, timeout=0.2, what="a scatter", worker="w")
    assert info.value.worker == "w"


def _tag_files(tmp_path, n=120):
    sents, labs = corpus(n, 7)
    lines = []
    for toks, ys in zip(sents, labs):
        lines += [f"{w} {p} {y}" for (w, p), y in zip(toks, ys)] + [""]
    text = tmp_path / "data.txt"
    text.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(text), "--features", "chunking", "--epochs", "2", "--model", str(model),
                 "--quiet"]) == 0
    ref = tmp_path / "ref.txt"
    assert main(["tag", "--model", str(model), str(text), "--output", str(ref), "--quiet"]) == 0
    return text, model, ref


def test_distributed_tag_with_a_worker_killed_writes_the_same_bytes(client, tmp_path, monkeypatch):
    from chaintag.api import tag_dask
    client.wait_for_workers(2, timeout=HANG)
    text, model, ref = _tag_files(tmp_path)
    calls = _arm(monkeypatch, client, tag_dask.DaskOrderedWriter, "_result", 3)
    out = tmp_path / "out.txt"
    box = within(HANG, main, ["tag", "--model", str(model), str(text), "--output", str(out), "--quiet",
                              "--batch-size", "4", "--scheduler", client.scheduler.address])
    assert len(calls) >= 3 and box.get("value") == 0, box
    assert out.read_bytes() == ref.read_bytes()


def test_distributed_tag_with_every_worker_lost_is_one_clear_error(tmp_path, monkeypatch, capsys):
    from chaintag.api import tag_dask
    text, model, _ = _tag_files(tmp_path)
    with open_client(workers=2, nanny=False) as c:
        real = tag_dask.DaskOrderedWriter._result

        def kill_all(self, item):
            if not getattr(kill_all, "done", False):
                kill_all.done = True
                for pid in c.run(os.getpid).values():
                    os.kill(pid, signal.SIGKILL)
            return real(self, item)

        monkeypatch.setattr(tag_dask.DaskOrderedWriter, "_result", kill_all)
        monkeypatch.setattr(pool_module, "WAIT_WORKERS", 2.0)
        box = within(HANG, main, ["tag", "--model", str(model), str(text), "--output", str(tmp_path / "o.txt"),
                                  "--batch-size", "4", "--scheduler", c.scheduler.address])
    assert box.get("value") == 2, box
    err = capsys.readouterr().err
    assert "error: no Dask worker is left" in err and "Traceback" not in err
    assert not issubclass(ClusterError, TrainingError)


def test_a_worker_with_other_code_is_left_out_and_none_matching_is_refused(client, data, calm, monkeypatch):
    client.wait_for_workers(2, timeout=HANG)
    first = sorted(client.nthreads())[0]

    def fake(digest):
        identity._DIGEST[:] = [digest] if digest else []

    try:
        client.run(fake, "0" * 64, workers=[first])
        with pytest.warns(RuntimeWarning, match=f"{first} runs chaintag .* 000000000000.*left out"):
            fitted = fit_distributed(learner(), *data, client=client, shards=2)
        assert fitted.weights_.tobytes() == calm  # both shards on the worker that matches
        client.run(fake, "1" * 64)
        with pytest.raises(InputError, match="no Dask worker runs the driver's chaintag"):
            fit_distributed(learner(), *data, client=client, shards=2)
    finally:
        client.run(fake, None)
    assert identity.code_digest() == client.run(identity.code_digest)[first]  # recomputed: the real one


def test_the_resume_command_is_this_run_s_command_line():
    from types import SimpleNamespace
    from chaintag.api.train_distributed import _command_line
    args = SimpleNamespace(argv=["train", "--train", "a b.txt", "--workers", "2", "--checkpoint-dir", "ck",
                                 "--resume", "--checkpoint-dir=old", "--model", "m.npz"])
    assert _command_line(args) == "chaintag train --train 'a b.txt' --workers 2 --model m.npz"
