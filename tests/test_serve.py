"""The HTTP tagging service, through a real HTTP client against a server on 127.0.0.1."""

import http.client
import json
import re
import socket
import subprocess
import sys
import threading

import numpy as np
import pytest

import chaintag
from chaintag.service import make_server
from toy_corpus import LABELS, SENTS

COLS = [[list(t) for t in s] for s in SENTS]


@pytest.fixture(scope="module")
def model():
    return chaintag.StructuredPerceptron(features="w[0];pos[0];w[-1]", columns=("word", "pos"),
                                         epochs=3).fit(SENTS, LABELS)


@pytest.fixture(scope="module")
def server(model):
    srv = make_server(model, "127.0.0.1", 0, name="toy", max_bytes=20000, max_sentences=50)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def request(srv, method, path, body=None, headers=None, raw=None):
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=30)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    conn.request(method, path, body=data, headers=hdrs)
    resp = conn.getresponse()
    out = json.loads(resp.read().decode())
    conn.close()
    return resp.status, out


def test_health(server, model):
    status, out = request(server, "GET", "/health")
    assert status == 200 and out["status"] == "ok" and out["labels"] == model.labels_
    assert out["columns"] == ["word", "pos"] and out["model"] == "toy"


def test_tag_and_options(server, model):
    status, out = request(server, "POST", "/tag", {"sentences": COLS})
    assert status == 200 and out["labels"] == model.predict(SENTS)
    assert out["n_tokens"] == sum(len(s) for s in SENTS)
    status, out = request(server, "POST", "/tag", {"sentences": COLS[:2], "nbest": 3})
    want = model.predict_nbest(SENTS[:2], 3)
    assert status == 200 and [[c["labels"] for c in cands] for cands in out["nbest"]] == \
        [[c[0] for c in cands] for cands in want]
    np.testing.assert_allclose([c["probability"] for c in out["nbest"][0]], [c[2] for c in want[0]])
    status, out = request(server, "POST", "/tag", {"sentences": COLS[:2], "confidence": 2})
    assert status == 200 and out["confidence"] == model.predict_confidence(SENTS[:2], 2)[1]
    status, out = request(server, "POST", "/tag", {"sentences": COLS[:1], "marginals": True})
    marg = model.predict_marginals(SENTS[:1])[0]
    assert status == 200 and out["marginals"][0][1] == dict(zip(model.labels_, marg[1].tolist()))
    fixed = [[None, "B-VP", None]]
    status, out = request(server, "POST", "/tag", {"sentences": COLS[:1], "fixed": fixed, "constrain": True})
    assert status == 200 and out["labels"] == model.predict(SENTS[:1], fixed=fixed, constrain=True)
    assert out["labels"][0][1] == "B-VP"


@pytest.mark.parametrize("body, status, message", [
    (b"{not json", 400, "not valid JSON"),
    (b"\xff\xfe", 400, "not valid JSON"),
    ([1, 2], 400, "JSON object"),
    ({}, 400, 'no "sentences"'),
    ({"sentences": "the dog"}, 400, "must be a list"),
    ({"sentences": ["the dog"]}, 400, "sentence 0 is a str"),
    ({"sentences": [["the", "dog"]]}, 400, "reads 2 columns"),
    ({"sentences": [[["the"]]]}, 400, "1 columns, the model reads 2"),
    ({"sentences": [[["the", 3]]]}, 400, "not list"),
    ({"sentences": [[{"w": "the"}]]}, 400, "not dict"),
    ({"sentences": [], "beam": 3}, 400, "unknown member(s) beam"),
    ({"sentences": [], "lang": "en"}, 400, "(or, with raw text, constrain, lang, text, tokenized)"),
    ({"sentences": [], "nbest": 0}, 400, '"nbest" must be an integer'),
    ({"sentences": [], "nbest": True}, 400, '"nbest" must be an integer'),
    ({"sentences": [], "marginals": "yes"}, 400, '"marginals" must be true or false'),
    ({"sentences": [], "nbest": 2, "marginals": True}, 400, "not several"),
    ({"sentences": [], "constrain": "bio"}, 400, '"constrain" must be'),
    ({"sentences": COLS[:1], "fixed": [["B-XX", None, None]]}, 400, "no label 'B-XX'"),
    ({"sentences": COLS[:1], "fixed": [["B-NP"]]}, 400, "1 entries"),
    ({"sentences": COLS[:1], "fixed": "B-NP"}, 400, '"fixed" must be'),
    ({"sentences": COLS[:1], "fixed": [["I-NP", None, None]], "constrain": True}, 400, "no label sequence"),
    ({"sentences": [[]] * 51}, 413, "the limit is 50"),
])
def test_bad_requests_get_4xx_and_the_server_keeps_going(server, body, status, message):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    got, out = request(server, "POST", "/tag", raw=raw)
    assert got == status and message in out["error"]
    assert request(server, "GET", "/health")[0] == 200


def test_http_level_errors(server):
    assert request(server, "GET", "/tag")[0] == 405
    assert request(server, "POST", "/health", {})[0] == 405
    assert request(server, "GET", "/nope")[0] == 404
    assert request(server, "DELETE", "/tag")[0] == 405
    got, out = request(server, "POST", "/tag", {"sentences": []}, headers={"Content-Type": "text/plain"})
    assert got == 415 and "application/json" in out["error"]
    got, out = request(server, "POST", "/tag", raw=b"x" * 20001)
    assert got == 413 and "limit is 20000" in out["error"]
    # no Content-Length: a raw request
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(b"POST /tag HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\r\n")
        reply = sock.recv(65536).decode()
    assert reply.startswith("HTTP/1.1 411")
    # request lines that http.server cannot read get a status line and a JSON error (nothing was sent, and
    # the server printed a traceback, before)
    for line, code in ((b"GET\r\n\r\n", 400), (b"GET / HTTP/2.0\r\n\r\n", 505),
                       (b"GET /health HTTP/1.1 extra\r\n\r\n", 400)):
        with socket.create_connection((host, port), timeout=30) as sock:
            sock.sendall(line)
            reply = sock.recv(65536).decode()
        assert re.match(rf"HTTP/1\.[01] {code} ", reply) and '{"error": ' in reply, (line, reply)
    # a query string names no other endpoint
    assert request(server, "GET", "/health?x=1")[0] == 200
    assert request(server, "POST", "/tag?x=1", {"sentences": COLS[:1]})[0] == 200


def test_not_offered_is_501():
    m = chaintag.MaxEnt(features="w[0]", columns=("word", "pos")).fit(SENTS, LABELS)
    srv = make_server(m, "127.0.0.1", 0)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        got, out = request(srv, "POST", "/tag", {"sentences": COLS[:1], "nbest": 2})
        assert got == 501 and "locally normalized" in out["error"]
        assert request(srv, "POST", "/tag", {"sentences": COLS[:1]})[1]["labels"] == m.predict(SENTS[:1])
    finally:
        srv.shutdown()
        srv.server_close()


def test_concurrent_clients(server, model):
    want = model.predict(SENTS)
    results, errors = [], []

    def client(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(10):
                idx = rng.choice(len(SENTS), size=3).tolist()
                status, out = request(server, "POST", "/tag", {"sentences": [COLS[i] for i in idx]})
                results.append(status == 200 and out["labels"] == [want[i] for i in idx])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 80 and all(results)


def test_serve_command(model, tmp_path):
    path = tmp_path / "m.npz"
    model.save(path)
    proc = subprocess.Popen([sys.executable, "-m", "chaintag.cli.main", "serve", str(path), "--port", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)", line).group(1))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/tag", body=json.dumps({"sentences": COLS[:2]}),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read())["labels"] == model.predict(SENTS[:2])
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _partial_post(srv, body: bytes, length: int, close_write: bool) -> bytes:
    host, port = srv.server_address[:2]
    with socket.create_connection((host, port), timeout=20) as sock:
        sock.sendall(b"POST /tag HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     + f"Content-Length: {length}\r\n\r\n".encode() + body)
        if close_write:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_body_shorter_than_its_length_or_that_stops_arriving(model):
    srv = make_server(model, "127.0.0.1", 0, read_timeout=0.5)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        short = _partial_post(srv, b'{"sent', 100, close_write=True)
        assert short.startswith(b"HTTP/1.1 400 ")
        assert b"the body ended after 6 of its 100 bytes" in short
        stalled = _partial_post(srv, b'{"sent', 100, close_write=False)
        assert stalled.startswith(b"HTTP/1.1 408 ")
        # the server still answers
        assert request(srv, "POST", "/tag", {"sentences": [list(SENTS[0])]})[0] == 200
    finally:
        srv.shutdown()
        srv.server_close()
