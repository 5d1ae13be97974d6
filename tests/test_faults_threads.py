"""Parallel kernels after fork() and with concurrent callers (chaintag.parallel): the same labels as the
serial kernels, under every threading layer, never a dead worker or an aborted process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import chaintag
from chaintag import parallel

SRC = str(Path(chaintag.__file__).resolve().parents[1])

#: A model and more sentences than one chunk (the parallel tagging kernel), built the same in each script.
SETUP = textwrap.dedent("""
    import random
    import chaintag
    random.seed(0)
    words = [("He", "PRP", "B-NP"), ("runs", "VBZ", "B-VP"), ("the", "DT", "B-NP"), ("dog", "NN", "I-NP"),
             (".", ".", "O")]
    sents = [[random.choice(words) for _ in range(8)] for _ in range(300)]
    X = [[(w, p) for w, p, _ in s] for s in sents]
    y = [[l for _, _, l in s] for s in sents]
    m = chaintag.StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2).fit(X, y)
""")


def run_script(body: str, env: dict | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    """Run SETUP + body in a fresh interpreter (the package under test first on the path)."""
    full_env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {}))
    return subprocess.run([sys.executable, "-c", SETUP + textwrap.dedent(body)], env=full_env, timeout=timeout,
                          capture_output=True, text=True)


def corpus(n_sent: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    vocab = [("He", "PRP"), ("runs", "VBZ"), ("the", "DT"), ("dog", "NN"), ("fast", "RB"), (".", ".")]
    tags = {"He": "B-NP", "runs": "B-VP", "the": "B-NP", "dog": "I-NP", "fast": "B-ADVP", ".": "O"}
    X = [[vocab[k] for k in rng.integers(0, len(vocab), size=int(rng.integers(1, 12)))] for _ in range(n_sent)]
    y = [[tags[w] for w, _ in s] for s in X]
    return X, y


def serial_labels(model, X):
    """Labels decoded in chunks of at most one kernel chunk: the serial kernel only."""
    out = []
    for i in range(0, len(X), 32):
        out.extend(model.predict(X[i:i + 32]))
    return out


def test_fork_pool_after_tagging_in_the_parent():
    r = run_script("""
        import multiprocessing as mp
        def work(i):
            return m.predict(X)
        ref = m.predict(X)  # the parallel kernel in the parent: the layer starts here
        with mp.get_context("fork").Pool(2) as pool:
            outs = pool.map_async(work, range(4)).get(timeout=120)
        print("same:", all(o == ref for o in outs), len(outs))
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "same: True 4" in r.stdout
    assert "fork() called from a process already using" not in r.stderr


def test_fork_child_runs_serial_kernels_and_trains():
    """In a forked child of a process that started the layer: tagging (large inputs: the attribute lookup too)
    and Hogwild training run serially, with the parent's labels."""
    r = run_script("""
        import os, warnings
        big = X * 20  # 6000 sentences, about 27,000 tokens: the parallel attribute lookup as well
        ref = m.predict(big)
        pid = os.fork()
        if pid == 0:
            from chaintag import parallel
            ok = not parallel.parallel_allowed() and m.predict(big) == ref
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                h = chaintag.StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2,
                                                  n_jobs=2).fit(X, y)
            ok = ok and h.predict(X[:10]) == m.predict(X[:10]) and any("one thread" in str(w.message)
                                                                       for w in caught)
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        print("child exit:", os.waitstatus_to_exitcode(status))
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "child exit: 0" in r.stdout, r.stdout + r.stderr[-2000:]


def test_workqueue_layer_with_concurrent_callers():
    r = run_script("""
        from concurrent.futures import ThreadPoolExecutor
        import numba
        ref = m.predict(X)
        with ThreadPoolExecutor(8) as ex:
            outs = list(ex.map(lambda i: m.predict(X), range(48)))
            fits = list(ex.map(lambda i: chaintag.StructuredPerceptron(
                features="chunking", columns=("word", "pos"), epochs=2, n_jobs=2).fit(X, y).predict(X[:5]),
                range(4)))
        print(numba.threading_layer(), all(o == ref for o in outs), len(fits))
    """, env={"NUMBA_THREADING_LAYER": "workqueue"})
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])  # 134 (abort) before the guard
    assert r.stdout.split() == ["workqueue", "True", "4"]


def test_many_threads_call_one_model_at_once():
    X, y = corpus(400)
    model = chaintag.StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=3).fit(X, y)
    ref = serial_labels(model, X)
    assert model.predict(X) == ref
    with ThreadPoolExecutor(8) as ex:
        outs = list(ex.map(lambda i: model.predict(X), range(32)))
    assert all(o == ref for o in outs)


def test_many_threads_real_valued_model():
    X, y = corpus(300, seed=1)
    D = [[{"w": w, "p": p, "len": float(len(w))} for w, p in s] for s in X]
    model = chaintag.make_learner("perceptron", epochs=3).fit(D, y)
    ref = serial_labels(model, D)
    with ThreadPoolExecutor(6) as ex:
        outs = list(ex.map(lambda i: model.predict(D), range(18)))
    assert all(o == ref for o in outs)


def test_region_is_exclusive_for_layers_that_are_not_thread_safe(monkeypatch):
    monkeypatch.setattr(parallel, "threading_layer", lambda: "workqueue")
    with parallel.parallel_region() as first:
        assert first is True
        seen = []
        with ThreadPoolExecutor(1) as ex:  # another thread, while this one holds the region
            ex.submit(lambda: seen.append(parallel.parallel_region().__enter__())).result()
        assert seen == [False]
    with parallel.parallel_region(wanted=False) as unwanted:
        assert unwanted is False
    monkeypatch.setattr(parallel, "threading_layer", lambda: "tbb")
    with parallel.parallel_region() as a, parallel.parallel_region() as b:
        assert (a, b) == (True, True)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_fork_flag_set_only_after_the_layer_started():
    r = run_script("""
        import os
        from chaintag import parallel
        def child():
            pid = os.fork()
            if pid == 0:
                os._exit(0 if parallel.parallel_allowed() else 5)
            return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        before = child()  # the model was fitted on few tokens and nothing was tagged yet: no layer
        m.predict(X)
        after = child()
        print(before, after)
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["0", "5"]


def test_serve_handler_threads_under_workqueue():
    """``chaintag serve``'s handler threads, many requests of more than one chunk at once, on the workqueue
    layer: every answer is the model's labels and the process stays up."""
    r = run_script("""
        import http.client, json, threading
        from concurrent.futures import ThreadPoolExecutor
        from chaintag.service import make_server
        srv = make_server(m, "127.0.0.1", 0, name="t", max_bytes=10 ** 7, max_sentences=10 ** 4)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        body = json.dumps({"sentences": [[list(t) for t in s] for s in X]}).encode()
        ref = m.predict(X)
        def post(i):
            conn = http.client.HTTPConnection(*srv.server_address[:2], timeout=120)
            conn.request("POST", "/tag", body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            out = json.loads(resp.read().decode())
            conn.close()
            return resp.status == 200 and out["labels"] == ref
        with ThreadPoolExecutor(8) as ex:
            answers = list(ex.map(post, range(32)))
        srv.shutdown()
        import numba
        print(numba.threading_layer(), sum(answers))
    """, env={"NUMBA_THREADING_LAYER": "workqueue"})
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.split() == ["workqueue", "32"]
