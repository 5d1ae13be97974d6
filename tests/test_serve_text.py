"""``POST /tag`` with raw text, and the page's files, through a real HTTP client against a server on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

import chaintag
from chaintag.service.cancel import ClientGone
from serve_helpers import serving

TRAIN = [
    (["John", "Smith", "lives", "in", "Paris", "."], ["B-PER", "I-PER", "O", "O", "B-LOC", "O"]),
    (["Mary", "went", "to", "New", "York", "."], ["B-PER", "O", "O", "B-LOC", "I-LOC", "O"]),
    (["He", "likes", "Paris", "."], ["O", "O", "B-LOC", "O"]),
    (["Anna", "Smith", "is", "here", "."], ["B-PER", "I-PER", "O", "O", "O"]),
]
POS = [(["the", "dog", "barks"], ["DT", "NN", "VBZ"]), (["a", "cat", "sleeps"], ["DT", "NN", "VBZ"])]
TEXT = "John Smith went to New York. Mary likes Paris!\n\nAnna Smith lives in Paris."


def fit(name, data, **kw):
    model = chaintag.make_learner(name, features=["w[0]", "w[-1]", "w[1]", "shape(w[0])"], **kw)
    return model.fit([s for s, _ in data], [y for _, y in data])


@pytest.fixture(scope="module")
def ner():
    return fit("crf", TRAIN, epochs=15)




@pytest.fixture(scope="module")
def server(ner):
    with serving(ner, name="ner", max_bytes=4000, max_sentences=6, max_tokens=60) as srv:
        yield srv


def request(srv, method, path, body=None, raw=None):
    host, port = srv.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=30)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    payload = resp.read()
    conn.close()
    if resp.getheader("Content-Type", "").startswith("application/json"):
        payload = json.loads(payload.decode())
    return resp.status, payload, resp


def test_text_answer_is_the_documents_json(server, ner):
    status, out, _ = request(server, "POST", "/tag", {"text": TEXT})
    assert status == 200
    assert out == ner.tag_text(TEXT).to_dict()  # the same tokens, labels, spans and confidences
    assert set(out) == {"text", "tokens", "spans", "sentences"} and out["text"] == TEXT
    assert len(out["sentences"]) == 3 and out["spans"]
    for s in out["spans"]:
        assert TEXT[s["start"]:s["end"]] == s["text"] and 0.0 <= s["confidence"] <= 1.0
    assert ("PER", "John Smith") in {(s["label"], s["text"]) for s in out["spans"]}
    for t in out["tokens"]:
        assert TEXT[t["start"]:t["end"]] == t["text"] and t["label"] in ner.labels_


def test_text_options_lang_tokenized_constrain(server, ner):
    text = "John  Smith went\tto Paris .\nMary likes Paris ."
    status, out, _ = request(server, "POST", "/tag", {"text": text, "tokenized": True})
    assert status == 200 and out == ner.tag_text(text, tokenized=True).to_dict() and len(out["sentences"]) == 2
    status, out, _ = request(server, "POST", "/tag", {"text": "Mary's car", "lang": "nl"})
    assert status == 200 and [t["text"] for t in out["tokens"]] == ["Mary's", "car"]
    status, out, _ = request(server, "POST", "/tag", {"text": "Mary's car"})
    assert [t["text"] for t in out["tokens"]] == ["Mary", "'s", "car"]  # English splits the clitic
    status, out, _ = request(server, "POST", "/tag", {"text": TEXT, "constrain": True})
    assert status == 200 and out == ner.tag_text(TEXT, constrain=True).to_dict()
    assert request(server, "POST", "/tag", {"text": ""})[:2] == (200, {"text": "", "tokens": [], "spans": [],
                                                                       "sentences": []})


def test_health_tells_the_page_about_text_and_spans(server):
    status, out, _ = request(server, "GET", "/health")
    assert status == 200 and out["accepts_text"] is True and out["span_scheme"] == "iob2"
    assert out["model"] == "ner" and out["algorithm"] == "crf"


@pytest.mark.parametrize("body, status, message", [
    ({"text": 3}, 400, '"text" must be a string, not int'),
    ({"text": ["John"]}, 400, '"text" must be a string, not list'),
    ({"text": None}, 400, '"text" must be a string, not null'),
    ({"text": "a", "lang": "fr"}, 400, "unknown language 'fr'"),
    ({"text": "a", "lang": 1}, 400, "unknown language 1"),
    ({"text": "a", "tokenized": "yes"}, 400, '"tokenized" must be true or false'),
    ({"text": "a", "sentences": [["a"]]}, 400, "not both"),
    ({"text": "a", "nbest": 2}, 400, "unknown member(s) nbest"),
    ({"text": "a", "constrain": "bio"}, 400, '"constrain" must be'),
    ({"text": "It rains. " * 7}, 413, "7 sentences; the limit is 6"),
    ({"text": "w " * 61}, 413, "61 tokens in one request; the limit is 60"),  # refused before the split
    ({"text": "Paris, " * 31}, 413, "62 tokens in one request; the limit is 60"),  # refused after it
    ({"text": "x" * 5000}, 413, "the limit is 4000"),  # the body's size
])
def test_bad_text_requests_get_4xx(server, body, status, message):
    got, out, _ = request(server, "POST", "/tag", body)
    assert got == status and message in out["error"], out
    assert request(server, "POST", "/tag", {"text": "Mary"})[0] == 200  # the server goes on


def test_work_limit_counts_the_top_n_of_span_confidence(ner):
    with serving(ner, max_work=20) as srv:  # 5 tokens x the top-5 of constrained spans: 25 units
        assert request(srv, "POST", "/tag", {"text": "John Smith likes Paris ."})[0] == 200
        got, out, _ = request(srv, "POST", "/tag", {"text": "John Smith likes Paris .", "constrain": True})
        assert got == 413 and "25 units of work; the limit is 20" in out["error"]


def test_models_that_read_more_than_words_refuse_text():
    two = chaintag.make_learner("perceptron", features=["w[0]", "pos[0]"], epochs=1)
    two.fit([[("a", "DT"), ("dog", "NN")]], [["B-NP", "I-NP"]])
    with serving(two) as srv:
        got, out, _ = request(srv, "POST", "/tag", {"text": "a dog"})
        assert got == 400 and "reads 2 (word, pos)" in out["error"]
        assert request(srv, "GET", "/health")[1]["accepts_text"] is False
        got, out, _ = request(srv, "POST", "/tag", {"sentences": [[["a", "DT"], ["dog", "NN"]]]})
        assert got == 200 and out["labels"] == two.predict([[("a", "DT"), ("dog", "NN")]])
    dicts = chaintag.make_learner("crf", epochs=2).fit([[{"w": "a"}, {"w": "dog"}]], [["B-NP", "I-NP"]])
    with serving(dicts) as srv:
        got, out, _ = request(srv, "POST", "/tag", {"text": "a dog"})
        assert got == 400 and "feature dicts" in out["error"]


def test_pos_model_gives_labels_and_no_spans():
    pos = fit("perceptron", POS, epochs=3)
    with serving(pos) as srv:
        got, out, _ = request(srv, "POST", "/tag", {"text": "the cat barks"})
        assert got == 200 and out["spans"] == [] and [t["label"] for t in out["tokens"]] == ["DT", "NN", "VBZ"]
        assert request(srv, "GET", "/health")[1]["span_scheme"] is None


def test_a_text_that_stops_arriving_gets_408(ner):
    with serving(ner, read_timeout=0.5) as srv:
        with socket.create_connection(srv.server_address[:2], timeout=10) as sock:
            sock.sendall(b"POST /tag HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                         b'Content-Length: 100\r\n\r\n{"text": "John')
            reply = sock.recv(65536).decode()
        assert reply.startswith("HTTP/1.1 408") and "did not arrive" in reply


def test_a_client_gone_before_the_tagging_stops_it(ner):
    with serving(ner) as srv:
        service = srv.service
        with pytest.raises(ClientGone):
            service.tag({"text": TEXT}, cancelled=lambda: True)
        assert service.cancelled == 1 and service.requests == 0
        assert service.tag({"text": TEXT}, cancelled=lambda: False) == ner.tag_text(TEXT).to_dict()


def test_the_page_and_its_files(server):
    status, html, resp = request(server, "GET", "/")
    assert status == 200 and resp.getheader("Content-Type") == "text/html; charset=utf-8"
    policy = resp.getheader("Content-Security-Policy")
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert resp.getheader("X-Content-Type-Options") == "nosniff"
    html = html.decode()
    assert '<script src="/static/page.js"' in html and '<link rel="stylesheet" href="/static/page.css">' in html
    assert "http://" not in html and "https://" not in html  # no CDN: every file from this server
    for name, ctype in [("page.js", "text/javascript"), ("page.css", "text/css")]:
        status, data, resp = request(server, "GET", f"/static/{name}")
        assert status == 200 and resp.getheader("Content-Type").startswith(ctype) and data
        assert b"http://" not in data and b"https://" not in data
    status, js, _ = request(server, "GET", "/static/page.js")
    assert b"innerHTML" not in js and b"insertAdjacentHTML" not in js and b"document.write" not in js
    assert request(server, "GET", "/index.html")[0] == 200 and request(server, "GET", "/?q=1")[0] == 200
    for path in ("/static/server.py", "/static/../server.py", "/static/", "/page.js"):
        got, out, _ = request(server, "GET", path)
        assert got == 404 and "no such endpoint" in out["error"]
    assert request(server, "POST", "/", {"text": "a"})[0] == 404


def test_health_says_what_a_span_confidence_is_and_the_server_header_has_no_trailing_space(server):
    status, out, resp = request(server, "GET", "/health")
    assert status == 200 and out["confidence"] == "probability"  # a CRF's
    assert resp.getheader("Server") == "chaintag"
