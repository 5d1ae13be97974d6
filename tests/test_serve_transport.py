"""The service's transport: no Nagle delay, one write per answer, a large backlog, JSON for every error."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.service import server as server_module
from serve_helpers import serving
from cases_dir import cases_dir, needs_cases
from toy_corpus import LABELS, SENTS


@pytest.fixture(scope="module")
def model():
    return chaintag.StructuredPerceptron(features="w[0]", epochs=2).fit(SENTS, LABELS)




def _health(srv) -> int:
    c = http.client.HTTPConnection(*srv.server_address[:2], timeout=10)
    c.request("GET", "/health")
    return c.getresponse().status


@pytest.fixture
def running(model):
    with serving(model) as srv:
        yield srv


def test_answers_go_out_without_nagle_and_in_one_write(running, monkeypatch):
    seen = {}
    real_write = server_module._Handler._send

    def spy(self, status, obj):
        seen["nodelay"] = self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        writes = seen["writes"] = []  # filled before the client can read the answer
        original = self.wfile.write

        def count(data):
            writes.append(data)
            return original(data)

        self.wfile.write = count
        try:
            real_write(self, status, obj)
        finally:
            self.wfile.write = original

    monkeypatch.setattr(server_module._Handler, "_send", spy)
    c = http.client.HTTPConnection("127.0.0.1", running.server_address[1], timeout=10)
    c.request("GET", "/health")
    r = c.getresponse()
    assert r.status == 200 and json.loads(r.read())["status"] == "ok"
    assert seen["nodelay"] != 0
    assert len(seen["writes"]) == 1 and seen["writes"][0].startswith(b"HTTP/1.1 200")
    assert seen["writes"][0].endswith(b"}")  # the body follows the headers in the same write


def test_the_listen_backlog_holds_hundreds_of_clients(running):
    assert running.request_queue_size >= 1024


def test_an_unknown_method_gets_a_json_error(running):
    c = http.client.HTTPConnection("127.0.0.1", running.server_address[1], timeout=10)
    c.request("BREW", "/tag")
    r = c.getresponse()
    assert r.status == 501 and r.getheader("Content-Type").startswith("application/json")
    assert "error" in json.loads(r.read())


def test_a_port_out_of_range_is_refused(tmp_path, model, capsys):
    path = tmp_path / "m.npz"
    model.save(path)
    assert main(["serve", str(path), "--port", "70000", "-q"]) == 2
    assert "--port must be between 0 and 65535 (got 70000)" in capsys.readouterr().err


def _post(srv, raw: bytes):
    c = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=30)
    c.request("POST", "/tag", raw, {"Content-Type": "application/json"})
    r = c.getresponse()
    return r.status, json.loads(r.read())


def test_json_nested_too_deep_gets_400_and_the_server_stays_up(running):
    status, out = _post(running, b"[" * 100000 + b"]" * 100000)
    assert status == 400 and "nested too deeply" in out["error"]
    assert _health(running) == 200


def test_a_lone_surrogate_echoed_in_an_error_is_escaped(running):
    status, out = _post(running, b'{"sentences": [], "\\ud800x": 1}')
    assert status == 400 and "\ud800" in out["error"]


@needs_cases()
def test_case_25_deep_nesting(running):
    status, out = _post(running, (cases_dir() / "25_deep_nesting.json").read_bytes())
    assert status == 400 and "error" in out


def test_a_trickling_client_is_cut_at_the_request_deadline(model):
    import time
    with serving(model, read_timeout=0.6, request_deadline=1.0) as srv:
        with socket.create_connection(srv.server_address[:2], timeout=10) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\n")
            t0 = time.monotonic()
            closed = False
            for i in range(40):  # one header line every 0.25 s: each wait is short, the whole is not
                time.sleep(0.25)
                try:
                    sock.sendall(f"X-Slow-{i}: 1\r\n".encode())
                    sock.settimeout(0.01)
                    if sock.recv(1) == b"":
                        closed = True
                        break
                except socket.timeout:
                    pass
                except OSError:
                    closed = True
                    break
                finally:
                    sock.settimeout(10)
            assert closed and time.monotonic() - t0 < 5  # cut near the 1 s deadline, not held for 10 s
        assert _health(srv) == 200


def test_past_the_connection_cap_a_client_gets_503_and_the_server_answers_again_later(model):
    import time
    with serving(model, max_connections=2) as srv:
        held = [socket.create_connection(srv.server_address[:2], timeout=10) for _ in range(2)]
        time.sleep(0.2)  # both accepted and held by their threads
        c = http.client.HTTPConnection(*srv.server_address[:2], timeout=10)
        c.request("GET", "/health")
        r = c.getresponse()
        assert r.status == 503 and "try again later" in json.loads(r.read())["error"]
        for s in held:
            s.close()
        for _ in range(50):  # the held connections' threads end
            if srv._open == 0:
                break
            time.sleep(0.1)
        assert _health(srv) == 200


def test_requests_past_the_token_or_work_limit_get_413(model):
    with serving(model, max_tokens=50, max_work=60) as srv:
        sent = [[["the", "DT"], ["dog", "NN"], ["barks", "VBZ"]]] * 10  # 30 tokens
        status, out = _post(srv, json.dumps({"sentences": [[["w", "NN"]] * 51]}).encode())
        assert status == 413 and "51 tokens in one request; the limit is 50" in out["error"]
        status, out = _post(srv, json.dumps({"sentences": sent, "nbest": 3}).encode())
        assert status == 413 and "30 tokens x 3" in out["error"] and "90 units" in out["error"]
        status, out = _post(srv, json.dumps({"sentences": sent, "nbest": 2}).encode())
        assert status == 200 and len(out["nbest"]) == 10
