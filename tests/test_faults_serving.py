"""Faults found by an engineer serving models in production, each as a kind."""

import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import chaintag
from chaintag.io.file_digest import file_sha256
from serve_helpers import serving
from toy_corpus import LABELS, SENTS

COLS = [[list(t) for t in s] for s in SENTS]
WORDS = [[w for w, _ in s] for s in SENTS]


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("serve") / "m.npz"
    chaintag.StructuredPerceptron(features="w[0];w[-1]", columns=("word",), epochs=3).fit(WORDS, LABELS).save(path)
    return path


def _ask(srv, method, path, body=None, headers=None):
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.request(method, path, body=None if body is None else json.dumps(body),
                 headers={"Content-Type": "application/json", **(headers or {})})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp, (json.loads(data) if data else None)


def _ask_together(srv, n: int) -> list:
    """``n`` requests of one sentence, sent at once from threads; their (response, answer) pairs."""
    out = []
    threads = [threading.Thread(target=lambda: out.append(_ask(srv, "POST", "/tag", {"sentences": [WORDS[0]]})))
               for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def _answer_of_a_bug(model_file, exc: Exception):
    """The answer to one request of a server whose model's predict raises ``exc``."""
    model = chaintag.load(model_file)

    def broken(*a, **k):
        raise exc
    model.predict = broken
    with serving(model) as srv:
        return _ask(srv, "POST", "/tag", {"sentences": [WORDS[0]]})


def test_make_server_takes_a_file_and_health_names_its_digest(model_file):
    """make_server("m.npz") failed ('str' object has no attribute 'columns_') though serve takes a file; and
    /health named the model by its path only, so a replaced file could not be told from the loaded one."""
    with serving(str(model_file)) as srv:
        resp, out = _ask(srv, "GET", "/health")
        assert resp.status == 200 and out["model"] == str(model_file)
        assert out["model_sha256"] == file_sha256(model_file)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", out["loaded_at"])
        assert "Python" not in resp.getheader("Server")  # the Python release is not advertised


def test_head_options_and_two_framings_of_one_body(model_file):
    """HEAD /health (a load balancer's probe) and OPTIONS got 501; a request giving two Content-Length
    values was read by the first, the rest of its body taken as a second request (smuggling)."""
    with serving(str(model_file), verbose=False) as srv:
        resp, out = _ask(srv, "HEAD", "/health")
        assert resp.status == 200 and out is None and int(resp.getheader("Content-Length")) > 0
        resp, out = _ask(srv, "OPTIONS", "/tag")
        assert resp.status == 405 and resp.getheader("Allow") == "POST"
        resp, out = _ask(srv, "POST", "/health", {})
        assert resp.status == 405 and resp.getheader("Allow") == "GET, HEAD"
        host, port = srv.server_address[:2]
        body = b'{"sentences": [["a"]]}'
        for extra in (b"Content-Length: 22\r\nContent-Length: 53\r\n", b"Content-Length: 22\r\nTransfer-Encoding: chunked\r\n"):
            with socket.create_connection((host, port), timeout=30) as sock:
                sock.sendall(b"POST /tag HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" + extra
                             + b"\r\n" + body + b"GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n")
                reply = b""
                while chunk := sock.recv(65536):
                    reply += chunk
            assert reply.startswith(b"HTTP/1.1 400") and b"its body's length twice" in reply
            assert reply.count(b"HTTP/1.1") == 1  # the connection closed: no second answer


def test_empty_tokens_are_refused(model_file):
    with serving(str(model_file)) as srv:
        resp, out = _ask(srv, "POST", "/tag", {"sentences": [["", "dog"]]})
        assert resp.status == 400 and out["error"].startswith("sentence 0, token 0: an empty token")
        resp, out = _ask(srv, "POST", "/tag", {"sentences": [["the", " \t"]]})
        assert resp.status == 400 and "token 1: an empty token" in out["error"]
        resp, out = _ask(srv, "POST", "/tag", {"sentences": [["the", "dog"]]})
        assert resp.status == 200 and out["n_tokens"] == 2


def test_requests_wait_for_one_of_max_active_slots(model_file):
    """Every open connection could tag at once, so memory grew with the connections; now at most
    max_active requests are tagged at once and the others wait (none refused)."""
    model = chaintag.load(model_file)
    active, peak, lock = [0], [0], threading.Lock()
    predict = model.predict

    def slow_predict(*a, **k):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.2)
        try:
            return predict(*a, **k)
        finally:
            with lock:
                active[0] -= 1
    model.predict = slow_predict
    with serving(model, max_active=2) as srv:
        out = _ask_together(srv, 6)
    assert [r.status for r, _ in out] == [200] * 6 and peak[0] == 2


def test_a_500_logs_its_traceback(model_file, capfd):
    resp, out = _answer_of_a_bug(model_file, ZeroDivisionError("a bug"))
    assert resp.status == 500 and out["error"] == "internal error: ZeroDivisionError: a bug"
    err = capfd.readouterr().err
    assert "internal error answering 'POST /tag HTTP/1.1'" in err and "Traceback" in err and "broken" in err


_SLOW_SERVER = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from chaintag.learners.perceptron import StructuredPerceptron
predict = StructuredPerceptron.predict
def slow(self, *a, **k):  # a request that takes 2 s
    time.sleep(2)
    return predict(self, *a, **k)
StructuredPerceptron.predict = slow
from chaintag.cli.main import main
sys.exit(main(["serve", sys.argv[1], "--port", "0"]))
"""


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_stopping_lets_the_request_in_progress_finish(model_file, sig, code):
    """SIGTERM or Ctrl-C cut the requests in progress (RemoteDisconnected) and the server exited 0; now it
    stops accepting, answers them, and exits 143 or 130 as the other commands do."""
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_SERVER, str(model_file)], stderr=subprocess.PIPE,
                            text=True)
    try:
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)", proc.stderr.readline()).group(1))
        got = {}

        def ask():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            conn.request("POST", "/tag", json.dumps({"sentences": WORDS}), {"Content-Type": "application/json"})
            resp = conn.getresponse()
            got["status"], got["answer"] = resp.status, json.loads(resp.read())
        client = threading.Thread(target=ask)
        client.start()
        time.sleep(0.7)  # the request is being tagged (2 s)
        proc.send_signal(sig)
        client.join(timeout=120)
        assert proc.wait(timeout=120) == code
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert got["status"] == 200 and got["answer"]["labels"] == chaintag.load(model_file).predict(WORDS)
    assert "stopping: 1 request(s) in progress" in err
    assert ("chaintag serve: terminated" if code == 143 else "chaintag serve: interrupted") in err


def test_a_client_that_sends_its_whole_body_first_reads_the_413(model_file):
    """A body over --max-bytes was answered without being read: Python's urllib, which writes the whole
    body before it reads, got a broken pipe instead of the documented 413."""
    import urllib.error
    import urllib.request
    with serving(str(model_file), max_bytes=5_000_000) as srv:  # a body past what the socket buffers hold
        host, port = srv.server_address[:2]
        req = urllib.request.Request(f"http://{host}:{port}/tag", data=b"x" * 18_000_000,
                                     headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=30)
        assert info.value.code == 413 and "the limit is 5000000" in json.loads(info.value.read())["error"]


def test_a_request_waiting_for_a_slot_is_not_timed_out(model_file):
    """The slot was taken before the body was read, so a request that waited for it longer than the
    request deadline got a false 408 (and a slow upload held a slot)."""
    model = chaintag.load(model_file)
    predict = model.predict

    def slow(*a, **k):
        time.sleep(1.5)
        return predict(*a, **k)
    model.predict = slow
    with serving(model, max_active=1, request_deadline=1.0) as srv:
        out = _ask_together(srv, 2)
    assert sorted(r.status for r, _ in out) == [200, 200]


def test_a_local_server_answers_its_own_names_and_json_only(model_file):
    """Found by a security review: a page of any site could drive a server on 127.0.0.1 (a POST without a
    Content-Type needs no CORS preflight) and, by DNS rebinding, read its answers (the Host header was
    not checked); JSON errors echoed the path without nosniff."""
    with serving(str(model_file)) as srv:
        host, port = srv.server_address[:2]
        for name, status in ((f"attacker.example:{port}", 403), (f"127.0.0.1.attacker.example:{port}", 403),
                             (f"127.evil.example:{port}", 403), (f"localhost:{port}", 200),
                             (f"LOCALHOST.:{port}", 200), (f"127.0.0.1:{port}", 200), (f"[::1]:{port}", 200)):
            resp, out = _ask(srv, "GET", "/health", headers={"Host": name})
            assert resp.status == status, name
        resp, out = _ask(srv, "POST", "/tag", {"sentences": [WORDS[0]]}, headers={"Host": "attacker.example"})
        assert resp.status == 403 and "not this server's name" in out["error"]
        with socket.create_connection((host, port), timeout=30) as sock:  # a POST without a Content-Type
            body = b'{"sentences": [["the"]]}'
            sock.sendall(b"POST /tag HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + str(len(body)).encode()
                         + b"\r\n\r\n" + body)
            reply = sock.recv(65536)
        assert reply.startswith(b"HTTP/1.1 415") and b"(none)" in reply
        resp, _ = _ask(srv, "GET", "/<script>")
        assert resp.status == 404 and resp.getheader("X-Content-Type-Options") == "nosniff"


def test_a_500_answers_one_line(model_file):
    resp, out = _answer_of_a_bug(model_file, RuntimeError("first line\nsecond line\nthird"))
    assert resp.status == 500 and out["error"] == "internal error: RuntimeError: first line"


def test_a_client_gone_before_the_split_stops_the_work(model_file, monkeypatch):
    """Splitting a large text ran before the only check that the client was still there."""
    from chaintag.service import tagging_service
    from chaintag.service.cancel import ClientGone
    service = tagging_service.TaggingService(chaintag.load(model_file))
    import chaintag.text as text_module

    def must_not_split(*a, **k):
        raise AssertionError("split after the client left")
    monkeypatch.setattr(text_module, "split_text", must_not_split)
    with pytest.raises(ClientGone, match="before its text was split"):
        service.tag({"text": "the dog barks"}, cancelled=lambda: True)
    assert service.cancelled == 1


def test_the_service_warms_its_kernels_up_before_the_first_request(model_file):
    """Found by a user of the core install: the first request with "nbest" waited 10.8 s for the kernels
    to compile. serve now tags one sentence with predict, the n-best search and the marginals first;
    what a model does not offer is skipped."""
    from chaintag.service.tagging_service import TaggingService
    model = chaintag.load(model_file)
    calls = []
    for name in ("predict", "predict_nbest", "predict_marginals"):
        method = getattr(model, name)
        setattr(model, name, lambda *a, _m=method, _n=name, **k: (calls.append(_n), _m(*a, **k))[1])
    TaggingService(model).warm_up()
    assert calls == ["predict", "predict_nbest", "predict_marginals"]
    maxent = chaintag.make_learner("maxent", features="w[0]", columns=("word",)).fit(WORDS, LABELS)
    TaggingService(maxent).warm_up()  # its n-best refusal is not an error here
