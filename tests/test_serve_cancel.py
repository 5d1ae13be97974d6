"""Work stops when the client goes away: checked between batches through a real socket."""

from __future__ import annotations

import json
import socket
import threading
import time

import chaintag
from chaintag.service import make_server
from chaintag.service.cancel import client_gone
from toy_corpus import LABELS, SENTS

SENT = [list(t) for t in SENTS[0]]  # a request's tokens: [word, pos]


def _model():
    return chaintag.StructuredPerceptron(features="w[0]", epochs=2).fit(SENTS, LABELS)


def test_client_gone_sees_an_orderly_close_and_not_a_pending_request():
    a, b = socket.socketpair()
    try:
        assert not client_gone(a)  # nothing pending
        b.sendall(b"GET /health HTTP/1.1\r\n")
        assert not client_gone(a)  # bytes pending: a pipelined request, not a close
        a.recv(100)
        b.close()
        assert client_gone(a)
    finally:
        a.close()


def test_a_request_whose_client_left_is_stopped_and_the_server_answers_on(monkeypatch):
    model = _model()
    srv = make_server(model, "127.0.0.1", 0)
    service = srv.service
    service.batch_sentences = 10
    calls = []
    real = model.predict

    def slow_predict(sentences, **kw):  # 0.2 s per batch: 100 batches would take 20 s
        calls.append(len(sentences))
        time.sleep(0.2)
        return real(sentences, **kw)

    monkeypatch.setattr(model, "predict", slow_predict)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        host, port = srv.server_address[:2]
        body = json.dumps({"sentences": [SENT] * 1000}).encode()
        c = socket.create_connection((host, port), timeout=10)
        c.sendall(b"POST /tag HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        time.sleep(0.5)
        c.close()
        deadline = time.monotonic() + 10
        while service.cancelled == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert service.cancelled == 1
        assert len(calls) < 20  # stopped after a few of the 100 batches
        assert service.requests == 0  # nothing was answered
        # the server goes on answering, and a request of a client that stays gets its whole answer
        service.batch_sentences = 256
        monkeypatch.setattr(model, "predict", real)
        out = service.tag({"sentences": [SENT] * 300})
        assert len(out["labels"]) == 300 and out["labels"] == real([[tuple(t) for t in SENT]] * 300)
    finally:
        srv.shutdown()
        srv.server_close()


def test_batched_answers_equal_one_batch():
    model = _model()
    srv = make_server(model, "127.0.0.1", 0)
    try:
        service = srv.service
        sents = [[list(t) for t in s] for s, _ in zip(SENTS * 5, range(25))]
        for body in ({"sentences": sents}, {"sentences": sents, "nbest": 3},
                     {"sentences": sents, "confidence": 2}, {"sentences": sents, "marginals": True}):
            service.batch_sentences = 1000
            whole = service.tag(dict(body))
            service.batch_sentences = 4
            assert service.tag(dict(body)) == whole
    finally:
        srv.server_close()
