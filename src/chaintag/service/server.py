"""HTTP JSON service that tags posted sentences with a model loaded once.

Built on the standard library's :class:`http.server.ThreadingHTTPServer`
(one thread per connection, HTTP/1.1 keep-alive). Endpoints:

``GET /``
    A page (HTML, CSS and JavaScript shipped with the package, under
    ``/static/``) to paste text, tag it and see the spans highlighted.
``GET /health``
    ``{"status": "ok", "algorithm", "labels", "columns", "model",
    "requests_served", "accepts_text", "span_scheme"}``: ``accepts_text``
    tells whether the model can tag raw text (it reads the words only),
    ``span_scheme`` the chunk scheme of its labels (null for labels that
    make no chunks, such as POS tags).
``POST /tag``
    Body: a JSON object ``{"sentences": [[token, ...], ...]}`` where a token
    is a string (one-column models), a list of column strings (the model's
    columns, in order) or a feature dict or list of attribute names (models
    trained on feature dicts).
    Optional members: ``"nbest": K`` (the K best sequences, with scores and
    top-K probabilities), ``"confidence": K`` (per-token probability of the
    label estimated from the top-K), ``"marginals": true`` (per-token
    forward-backward distribution over the labels), ``"constrain": true``
    or a scheme name, ``"fixed": [[label or null, ...], ...]`` (partial
    labels). The answer: ``{"labels": [[...], ...]}`` plus ``"nbest"``,
    ``"confidence"`` or ``"marginals"`` when asked, and ``"n_tokens"``.

    Or raw text: ``{"text": "..."}`` with optional ``"lang"`` (``en``,
    ``es``, ``nl`` or ``de``; default ``en``), ``"tokenized": true`` (one
    tokenized sentence per line) and ``"constrain"``. The text is split into
    sentences and tokens (:func:`chaintag.text.split_text`) and tagged as one
    document; the answer is the document's JSON ``{"text", "tokens": [{"text",
    "start", "end", "label"}], "spans": [{"label", "start", "end", "text",
    "confidence"}], "sentences": [[first, last], ...]}`` (character offsets
    into the text, each span with its probability under the model).

Bad requests never stop the server: each gets a JSON ``{"error": message}``
with a 4xx status:

- 400: the body is not valid JSON (or not UTF-8), not an object, has no
  ``sentences`` list (nor ``text``), has both, a ``text`` that is not a
  string, an unknown ``lang``, a model that reads more than the words (or
  feature dicts) given ``text``, holds a sentence or token of the wrong type or number
  of columns, an unknown member, a bad ``nbest``/``confidence``/``marginals``
  value, ``fixed`` of the wrong shape or with an unknown label, or fixed
  labels that no valid sequence satisfies;
- 404: an unknown path; 405: a method other than GET on ``/health`` or POST
  on ``/tag``; 411: a POST without Content-Length; 413: a body over
  ``max_bytes``, more than ``max_sentences`` sentences, ``max_tokens``
  tokens or ``max_work`` units of work (a text counts its sentences and
  tokens once split); 415: a
  Content-Type other than JSON; 408: a body that stops arriving (no byte
  for ``read_timeout`` seconds); a body shorter than its Content-Length is
  a 400;
- 501: an option the model does not offer (n-best for max-ent, constraints
  for the second-order perceptron, ...).
"""

from __future__ import annotations

import importlib.resources
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..errors import ChaintagError

#: Largest K of "nbest" and "confidence".
MAX_K = 100
OPTIONS = {"sentences", "nbest", "confidence", "marginals", "constrain", "fixed"}
#: The members of a request with raw text (``{"text": ...}``).
TEXT_OPTIONS = {"text", "lang", "tokenized", "constrain"}


class RequestError(Exception):
    """A bad request: HTTP ``status`` and a message for the client."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class TaggingService:
    """Validates tagging requests and answers them with one loaded model (thread-safe: read-only).

    Parameters
    ----------
    model : fitted SequenceTagger
    name : str, optional
        Shown by ``/health`` (e.g. the model's path).
    max_sentences : int, default 10000
        Sentences per request.
    """

    def __init__(self, model, name: str | None = None, max_sentences: int = 10000, max_tokens: int = 200000,
                 max_work: int = 2000000):
        from ..features.dicts import DICT_COLUMNS
        self.model = model
        self.name = name
        self.max_sentences = int(max_sentences)
        self.max_tokens, self.max_work = int(max_tokens), int(max_work)
        from ..features.document import input_columns
        self.dict_tokens = tuple(model.columns_) == DICT_COLUMNS
        # the columns a request sends: a model's document columns are computed (one request, one document)
        self.columns = tuple(model.columns_) if self.dict_tokens else input_columns(model)
        self.n_columns = len(self.columns)
        self.requests = 0
        self.cancelled = 0  # requests stopped because their client went away
        self.batch_sentences = 256
        self._lock = threading.Lock()
        # raw text gives each token one column, the word: a model that reads more refuses it
        self.text_refusal = None
        if self.dict_tokens:
            self.text_refusal = ('this model reads feature dicts, not raw text: send {"sentences": [...]} '
                                 "with each token's features")
        elif self.n_columns != 1:
            self.text_refusal = (f"raw text gives each token one column (the word), but this model reads "
                                 f"{self.n_columns} ({', '.join(self.columns)}): send \"sentences\" with "
                                 "those columns")
        scheme = model.span_scheme().name if hasattr(model, "span_scheme") else "none"
        self.span_scheme = None if scheme == "none" else scheme

    def health(self) -> dict:
        with self._lock:
            served = self.requests
        return {"status": "ok", "algorithm": self.model.algorithm, "labels": list(self.model.labels_),
                "columns": list(self.columns), "model": self.name, "requests_served": served,
                "accepts_text": self.text_refusal is None, "span_scheme": self.span_scheme}

    # ------------------------------------------------------------ validation
    def _tokens(self, sentences) -> list:
        if not isinstance(sentences, list):
            raise RequestError(400, '"sentences" must be a list of sentences (lists of tokens)')
        if len(sentences) > self.max_sentences:
            raise RequestError(413, f"{len(sentences)} sentences in one request; the limit is "
                                    f"{self.max_sentences}: split the batch")
        out = []
        for s, sent in enumerate(sentences):
            if not isinstance(sent, list):
                raise RequestError(400, f"sentence {s} is a {type(sent).__name__}, not a list of tokens")
            toks = []
            for i, tok in enumerate(sent):
                where = f"sentence {s}, token {i}"
                if self.dict_tokens:  # a feature dict, or python-crfsuite's list of attribute names
                    if not isinstance(tok, dict) and not (isinstance(tok, list)
                                                          and all(isinstance(v, str) for v in tok)):
                        raise RequestError(400, f"{where}: this model reads feature dicts (or lists of attribute "
                                                f"names), got {_kind(tok)}")
                    toks.append(tok)
                elif isinstance(tok, str):
                    if self.n_columns != 1:
                        raise RequestError(400, f"{where}: this model reads {self.n_columns} columns "
                                                f"({', '.join(self.columns)}): send a list of strings")
                    toks.append((tok,))
                elif isinstance(tok, list) and all(isinstance(v, str) for v in tok):
                    if len(tok) != self.n_columns:
                        raise RequestError(400, f"{where}: {len(tok)} columns, the model reads "
                                                f"{self.n_columns} ({', '.join(self.columns)})")
                    toks.append(tuple(tok))
                else:
                    raise RequestError(400, f"{where}: a token is a string or a list of column strings, "
                                            f"not {_kind(tok)}")
            out.append(toks)
        return out

    def _check_work(self, sentences, k: int, per_label: int) -> None:
        """Refuse (413) a request past the token limit, or whose work (tokens x K of the top-K search,
        or x labels for the marginals' answer) passes the work limit."""
        self._check_counts(sum(len(s) for s in sentences), k, per_label)

    def _check_counts(self, n: int, k: int, per_label: int = 1) -> None:
        if n > self.max_tokens:
            raise RequestError(413, f"{n} tokens in one request; the limit is {self.max_tokens}: split the batch")
        work = n * max(k, per_label)
        if work > self.max_work:
            raise RequestError(413, f"{n} tokens x {max(k, per_label)} (the top-K, or the labels of the "
                                    f"marginals) is {work} units of work; the limit is {self.max_work}: "
                                    "split the batch or ask for a smaller K")

    @staticmethod
    def _k(body, key):
        k = body.get(key)
        if k is None:
            return None
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise RequestError(400, f'"{key}" must be an integer from 1 to {MAX_K}')
        return k

    def tag(self, body, cancelled=None) -> dict:
        """Answer one parsed request body (a dict); raises :class:`RequestError` for a bad one.

        ``cancelled``, when given, is called between batches of :attr:`batch_sentences` sentences;
        when it returns True the work stops with :class:`~chaintag.service.cancel.ClientGone`.
        """
        if not isinstance(body, dict):
            raise RequestError(400, 'the body must be a JSON object {"sentences": [...]} or {"text": "..."}')
        if "text" in body:
            return self.tag_text(body, cancelled)
        unknown = sorted(set(body) - OPTIONS)
        if unknown:
            raise RequestError(400, f"unknown member(s) {', '.join(unknown)}; expected {', '.join(sorted(OPTIONS))}")
        if "sentences" not in body:
            raise RequestError(400, 'the body has no "sentences" member (nor "text")')
        sentences = self._tokens(body["sentences"])
        if not self.dict_tokens:
            from ..features.document import model_rows
            sentences = model_rows(self.model, sentences)  # the request's sentences are one document
        nbest, confidence = self._k(body, "nbest"), self._k(body, "confidence")
        marginals = body.get("marginals", False)
        if not isinstance(marginals, bool):
            raise RequestError(400, '"marginals" must be true or false')
        self._check_work(sentences, nbest or confidence or 1, len(self.model.labels_) if marginals else 1)
        if sum(x is not None and x is not False for x in (nbest, confidence, marginals or None)) > 1:
            raise RequestError(400, 'ask for one of "nbest", "confidence", "marginals", not several')
        constrain = self._constrain(body)
        fixed = body.get("fixed")
        if fixed is not None and (not isinstance(fixed, list) or not all(
                x is None or (isinstance(x, list) and all(v is None or isinstance(v, str) for v in x))
                for x in fixed)):
            raise RequestError(400, '"fixed" must be a list (one per sentence) of lists of labels or null')
        kw = {"constrain": constrain, "fixed": fixed} if constrain or fixed is not None else {}
        try:
            out = self._answer(sentences, nbest, confidence, marginals, kw, cancelled)
        except NotImplementedError as exc:
            raise RequestError(501, str(exc)) from None
        except (ChaintagError, ValueError) as exc:
            raise RequestError(400, str(exc)) from None
        out["n_tokens"] = sum(len(s) for s in sentences)
        with self._lock:
            self.requests += 1
        return out

    @staticmethod
    def _constrain(body):
        constrain = body.get("constrain", False)
        from ..decoding.constraints import SCHEMES
        if not (isinstance(constrain, bool) or constrain in SCHEMES):
            raise RequestError(400, f'"constrain" must be true, false or a scheme ({", ".join(SCHEMES)})')
        return constrain

    def tag_text(self, body: dict, cancelled=None) -> dict:
        """Answer a request with raw text: ``{"text": ..., "lang", "tokenized", "constrain"}``.

        Parameters
        ----------
        body : dict
            The parsed request; ``text`` is split into sentences and tokens (or read as one
            tokenized sentence per line) and tagged as one document.
        cancelled : callable, optional
            Called before the tagging; when it returns True the work stops with
            :class:`~chaintag.service.cancel.ClientGone`.

        Returns
        -------
        dict
            The tagged document's JSON (:meth:`chaintag.text.Document.to_dict`): text, tokens with
            offsets and labels, spans with their confidence, sentences as token ranges.

        Raises
        ------
        RequestError
            400 for a bad member or a model that cannot read raw text, 413 for a text past the
            sentence, token or work limits, 501 for an option the model does not offer.
        """
        from ..text import LANGUAGES, pretokenized, split_text
        from .cancel import ClientGone
        unknown = sorted(set(body) - TEXT_OPTIONS)
        if "sentences" in unknown:
            raise RequestError(400, 'send "text" or "sentences", not both')
        if unknown:
            raise RequestError(400, f"unknown member(s) {', '.join(unknown)} with \"text\"; expected "
                                    f"{', '.join(sorted(TEXT_OPTIONS))}")
        text = body["text"]
        if not isinstance(text, str):
            raise RequestError(400, f'"text" must be a string, not {_kind(text)}')
        lang = body.get("lang", "en")
        if not isinstance(lang, str) or lang not in LANGUAGES:
            raise RequestError(400, f'unknown language {lang!r}: "lang" is one of {", ".join(LANGUAGES)}')
        tokenized = body.get("tokenized", False)
        if not isinstance(tokenized, bool):
            raise RequestError(400, '"tokenized" must be true or false')
        constrain = self._constrain(body)
        if self.text_refusal:
            raise RequestError(400, self.text_refusal)
        # the top-n of the span confidence (SAPO, second order, max-ent, or any model constrained)
        topn = constrain or getattr(self.model, "span_confidence", "") == "top-n"
        k = int(getattr(self.model, "n_best", 5) or 5) if topn else 1
        # the words are at most the tokens: a text far past the limit is refused before it is split
        self._check_counts(len(text.split()), k)
        doc = pretokenized(text) if tokenized else split_text(text, lang)
        if len(doc.sentences) > self.max_sentences:
            raise RequestError(413, f"the text has {len(doc.sentences)} sentences; the limit is "
                                    f"{self.max_sentences}: split it")
        self._check_counts(len(doc.tokens), k)
        if cancelled is not None and cancelled():
            with self._lock:
                self.cancelled += 1
            raise ClientGone(f"the client left before its {len(doc.tokens)} tokens were tagged")
        try:
            tagged = self.model.tag_documents([doc], confidence=True, constrain=constrain)[0]
        except NotImplementedError as exc:
            raise RequestError(501, str(exc)) from None
        except (ChaintagError, ValueError) as exc:
            raise RequestError(400, str(exc)) from None
        with self._lock:
            self.requests += 1
        return tagged.to_dict()

    def _answer(self, sentences, nbest, confidence, marginals, kw, cancelled) -> dict:
        """The model's answer, computed in batches of sentences (each sentence is tagged on its own)."""
        from .cancel import ClientGone
        m, step = self.model, self.batch_sentences
        out = {"labels": []}
        if nbest:
            out["nbest"] = []
        elif confidence:
            out["confidence"] = []
        elif marginals:
            out["marginals"] = []
        fixed = kw.get("fixed")
        for a in range(0, max(len(sentences), 1), step):
            if cancelled is not None and cancelled():
                with self._lock:
                    self.cancelled += 1
                raise ClientGone(f"the client left after {a} of {len(sentences)} sentences")
            part = sentences[a:a + step]
            opts = dict(kw, fixed=fixed[a:a + step]) if fixed is not None else kw
            if nbest:
                cands = m.predict_nbest(part, nbest, **opts)
                out["labels"] += [c[0][0] for c in cands]
                out["nbest"] += [[{"labels": labs, "score": sc, "probability": p} for labs, sc, p in c]
                                 for c in cands]
            elif confidence:
                labels, conf = m.predict_confidence(part, confidence, **opts)
                out["labels"] += labels
                out["confidence"] += conf
            else:
                out["labels"] += m.predict(part, **opts)
                if marginals:
                    labs = m.labels_
                    out["marginals"] += [[dict(zip(labs, row)) for row in marg.tolist()]
                                         for marg in m.predict_marginals(part, **opts)]
        return out


#: The page's files (package data under ``static/``) and their content types.
STATIC = {"index.html": "text/html; charset=utf-8", "page.css": "text/css; charset=utf-8",
          "page.js": "text/javascript; charset=utf-8"}
#: The page loads its own script and style only, and talks to this server only.
PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
               "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_STATIC_CACHE: dict[str, bytes] = {}


def _static_file(name: str) -> bytes:
    """The bytes of one of the page's files (read once)."""
    data = _STATIC_CACHE.get(name)
    if data is None:
        data = (importlib.resources.files(__package__) / "static" / name).read_bytes()
        _STATIC_CACHE[name] = data
    return data


def _kind(x) -> str:
    return "null" if x is None else type(x).__name__


class _DeadlineReader:
    """The connection's input, with a deadline for the whole request: a client that trickles its
    header lines or body (one byte every few seconds) gets no more than ``seconds`` in all."""

    def __init__(self, raw, sock, seconds: float, idle: float | None):
        self.raw, self.sock, self.seconds, self.idle = raw, sock, seconds, idle
        self.deadline = None

    def start(self) -> None:
        self.deadline = time.monotonic() + self.seconds

    def _arm(self) -> None:
        if self.deadline is None:
            return
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive within its deadline")
        self.sock.settimeout(left if self.idle is None else min(left, self.idle))  # each wait, and in all

    def readline(self, limit=-1):
        self._arm()
        return self.raw.readline(limit)

    def read(self, n=-1):
        self._arm()
        return self.raw.read(n)

    def __getattr__(self, name):
        return getattr(self.raw, name)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "chaintag"

    def handle_one_request(self):
        # the deadline of a request runs from its first byte; a kept-alive connection waits idle
        # for the next request up to read_timeout (the socket's timeout), as before
        reader = self.rfile
        if isinstance(reader, _DeadlineReader):
            reader.deadline = None
            self.connection.settimeout(self.timeout)
            first = reader.raw.peek(1) if hasattr(reader.raw, "peek") else b"x"
            if not first:
                self.close_connection = True
                return
            reader.start()
        try:
            super().handle_one_request()
        except TimeoutError:
            self.close_connection = True

    def setup(self):
        # a client that stops sending mid-request must not hold its thread for ever
        self.timeout = getattr(self.server, "read_timeout", None)
        super().setup()
        try:  # no Nagle delay: an answer goes out at once, not after the client's delayed ACK
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # not a TCP socket (a test's socket pair)
            pass
        seconds = getattr(self.server, "request_deadline", None)
        if seconds:
            self.rfile = _DeadlineReader(self.rfile, self.connection, float(seconds), self.timeout)

    def send_error(self, code, message=None, explain=None):
        """Every error as JSON, also those http.server raises itself (an unknown method: 501)."""
        self._error(code, message or self.responses.get(code, ("error",))[0])

    def log_message(self, fmt, *args):  # quiet unless the server was made verbose
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)

    def _send(self, status: int, obj) -> None:
        try:
            data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (echoed from a request): escaped, still valid JSON
            data = json.dumps(obj, ensure_ascii=True).encode("ascii")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        if status >= 400:
            # the rest of a rejected body may still be unread: do not reuse the connection
            self.send_header("Connection", "close")
            self.close_connection = True
        try:  # the headers and the body in one write
            self._headers_buffer.append(b"\r\n")
            self.wfile.write(b"".join(self._headers_buffer) + data)
            self._headers_buffer = []
        except OSError:  # the client went away: nobody to answer
            self.close_connection = True

    def _error(self, status: int, message: str) -> None:
        self._send(status, {"error": message})

    def _static(self, name: str) -> None:
        """One file of the page, with headers that keep it to this origin's own scripts and styles."""
        data = _static_file(name)
        self.send_response(200)
        self.send_header("Content-Type", STATIC[name])
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", PAGE_POLICY)
        try:
            self._headers_buffer.append(b"\r\n")
            self.wfile.write(b"".join(self._headers_buffer) + data)
            self._headers_buffer = []
        except OSError:
            self.close_connection = True

    def do_GET(self):  # noqa: N802 (http.server's naming)
        if self.path in ("/health", "/healthz"):
            return self._send(200, self.server.service.health())
        if self.path == "/tag":
            return self._error(405, "use POST on /tag")
        page = self.path.split("?", 1)[0]
        if page in ("/", "/index.html"):
            return self._static("index.html")
        if page.startswith("/static/") and page[len("/static/"):] in STATIC:
            return self._static(page[len("/static/"):])
        return self._error(404, f"no such endpoint {self.path!r}; use POST /tag, GET /health or GET / (the page)")

    def do_POST(self):  # noqa: N802
        if self.path != "/tag":
            if self.path in ("/health", "/healthz"):
                return self._error(405, "use GET on /health")
            return self._error(404, f"no such endpoint {self.path!r}; use POST /tag or GET /health")
        ctype = self.headers.get("Content-Type", "application/json").split(";")[0].strip().lower()
        if ctype not in ("application/json", "text/json", ""):
            return self._error(415, f"Content-Type {ctype!r}: send application/json")
        length = self.headers.get("Content-Length")
        if length is None:
            return self._error(411, "a POST needs a Content-Length header")
        try:
            n = int(length)
            if n < 0:
                raise ValueError
        except ValueError:
            return self._error(400, f"bad Content-Length {length!r}")
        if n > self.server.max_bytes:
            return self._error(413, f"the body has {n} bytes; the limit is {self.server.max_bytes}")
        try:
            raw = self.rfile.read(n)
        except OSError:  # timed out (or reset) before the whole body came
            return self._error(408, f"the body did not arrive within {self.server.read_timeout:g} s")
        if len(raw) < n:
            return self._error(400, f"the body ended after {len(raw)} of its {n} bytes (Content-Length)")
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return self._error(400, f"the body is not valid JSON: {exc}")
        except RecursionError:  # brackets nested past the parser's depth
            return self._error(400, "the body's JSON is nested too deeply")
        from .cancel import ClientGone, client_gone
        try:
            out = self.server.service.tag(body, cancelled=lambda: client_gone(self.connection))
        except ClientGone as exc:  # nobody to answer: stop, write nothing, close
            self.close_connection = True
            return self.log_message("%s", str(exc))
        except RequestError as exc:
            return self._error(exc.status, exc.message)
        except Exception as exc:  # a bug must not stop the server: report it as a 500
            return self._send(500, {"error": f"internal error: {type(exc).__name__}: {exc}"})
        self._send(200, out)

    def do_PUT(self):  # noqa: N802
        self._error(405, "use POST /tag or GET /health")

    do_DELETE = do_PATCH = do_PUT


class _Server(ThreadingHTTPServer):
    """The threading server with a listen backlog for hundreds of clients (the standard library's is 5)
    and a cap on open connections: past it, a new connection gets 503 at once and is closed, so that
    the file descriptors never run out and the server keeps answering."""

    request_queue_size = 1024
    max_connections = 256

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._open = 0
        self._open_lock = threading.Lock()

    def process_request(self, request, client_address):
        with self._open_lock:
            full = self._open >= self.max_connections
            if not full:
                self._open += 1
        if full:
            body = json.dumps({"error": f"the server holds {self.max_connections} connections; "
                                        "try again later"}).encode()
            try:
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                                b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
                                + body)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._open_lock:
                self._open -= 1


def make_server(model, host: str = "127.0.0.1", port: int = 8080, *, name: str | None = None,
                max_bytes: int = 16 * 2 ** 20, max_sentences: int = 10000, verbose: bool = False,
                read_timeout: float = 30.0, request_deadline: float = 60.0, max_connections: int = 256,
                max_tokens: int = 200000, max_work: int = 2000000):
    """A threading HTTP server answering tagging requests with ``model``.

    Parameters
    ----------
    model : fitted SequenceTagger
    host : str, default "127.0.0.1"
    port : int, default 8080
        0 picks a free port (read it from ``server.server_address``).
    name : str, optional
        Shown by ``/health``.
    max_bytes : int, default 16 MiB
        Largest request body.
    max_sentences : int, default 10000
        Most sentences per request.
    verbose : bool, default False
        Log every request on stderr.
    read_timeout : float, default 30.0
        Seconds a connection may wait for the client's next bytes; a body that
        stops arriving gets 408, a body shorter than its Content-Length 400.
    request_deadline : float, default 60.0
        Seconds a whole request (request line, headers and body) may take to arrive, however
        slowly its bytes trickle in; past it the connection is closed (a body gets 408).
    max_connections : int, default 256
        Open connections at most; past it a new one gets 503 at once and is closed.
    max_tokens, max_work : int, default 200,000 and 2,000,000
        Most tokens in one request, and most tokens x K (``nbest`` / ``confidence``) or tokens x
        labels (``marginals``); past them the request gets 413.

    Returns
    -------
    http.server.ThreadingHTTPServer
        Call ``serve_forever()`` (and ``shutdown()`` from another thread). Its listen backlog is
        1024, and answers go out without Nagle's delay (``TCP_NODELAY``), headers and body in one
        write.

    Raises
    ------
    OSError
        When the address cannot be bound.
    """
    server = _Server((host, port), _Handler)
    server.daemon_threads = True
    server.service = TaggingService(model, name=name, max_sentences=max_sentences, max_tokens=max_tokens,
                                    max_work=max_work)
    server.max_bytes = int(max_bytes)
    server.verbose = verbose
    server.read_timeout = float(read_timeout)
    server.request_deadline = float(request_deadline)
    server.max_connections = int(max_connections)
    server.started = time.time()
    return server
