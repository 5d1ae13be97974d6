"""HTTP JSON service that tags posted sentences with a model loaded once.

Built on the standard library's :class:`http.server.ThreadingHTTPServer`
(one thread per connection, HTTP/1.1 keep-alive). Endpoints:

``GET /``
    A page (HTML, CSS and JavaScript shipped with the package, under
    ``/static/``) to paste text, tag it and see the spans highlighted.
``GET /health``
    ``{"status": "ok", "algorithm", "labels", "columns", "model",
    "requests_served", "accepts_text", "span_scheme", "confidence"}``:
    ``accepts_text`` tells whether the model can tag raw text (it reads the
    words only), ``span_scheme`` the chunk scheme of its labels (null for
    labels that make no chunks, such as POS tags), ``confidence`` what a
    span's confidence is: ``"probability"``, ``"relative"`` (the perceptron's
    and MIRA's scores, not probabilities: the page shows no badge value) or
    null.
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
- 403: a Host header that is not the server's own name while it listens on the loopback
  interface (a page of another site whose name was rebound to 127.0.0.1);
- 404: an unknown path; 405: a method other than GET (or HEAD) on ``/health``
  or POST on ``/tag`` (with an ``Allow`` header); 411: a POST without
  Content-Length (400: several Content-Length values, or one beside a
  Transfer-Encoding); 413: a body over
  ``max_bytes``, more than ``max_sentences`` sentences, ``max_tokens``
  tokens or ``max_work`` units of work (a text counts its sentences and
  tokens once split); 415: a POST whose Content-Type is not JSON, or
  missing (what a page of another site can send without a CORS preflight);
  408: a body that stops arriving (no byte
  for ``read_timeout`` seconds); a body shorter than its Content-Length is
  a 400;
- 501: an option the model does not offer (n-best for max-ent, constraints
  for the second-order perceptron, ...).

At most ``max_active`` requests are tagged at once; the others wait for a
slot (their connection held), so that memory follows the limits of a few
requests, not of every open connection. A 500 (a bug) is answered with
its one-line reason and its traceback goes to the server's stderr.
:meth:`~chaintag.service.connections.LimitedServer.drain` lets the requests in progress finish when the
server stops (``chaintag serve`` on Ctrl-C or SIGTERM).
"""

from __future__ import annotations

import errno
import importlib.resources
import json
import os
import socket
import sys
import time
import traceback
from http.server import BaseHTTPRequestHandler

from .connections import DeadlineReader, LimitedServer, default_max_active
from .tagging_service import MAX_K, OPTIONS, TEXT_OPTIONS, RequestError, TaggingService  # noqa: F401 (public names)


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


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "chaintag"
    sys_version = ""  # the Server header names chaintag only, not the Python release

    def version_string(self) -> str:
        return self.server_version  # without the space the standard library puts before sys_version

    def handle_one_request(self):
        # the deadline of a request runs from its first byte; a kept-alive connection waits idle
        # for the next request up to read_timeout (the socket's timeout), as before
        reader = self.rfile
        if isinstance(reader, DeadlineReader):
            reader.deadline = None
            self.connection.settimeout(self.timeout)
            first = reader.raw.peek(1) if hasattr(reader.raw, "peek") else b"x"
            if not first:
                self.close_connection = True
                return
            reader.start()
        self._t0 = time.perf_counter()
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
            self.rfile = DeadlineReader(self.rfile, self.connection, float(seconds), self.timeout)

    def send_error(self, code, message=None, explain=None):
        """Every error as JSON, also those http.server raises itself (an unknown method: 501)."""
        self._error(code, message or self.responses.get(code, ("error",))[0])

    def log_message(self, fmt, *args):  # quiet unless the server was made verbose
        if getattr(self.server, "verbose", False):
            super().log_message(fmt, *args)

    def log_request(self, code="-", size="-"):
        """No line here: :meth:`_sent` writes one line per answer, with its size and time."""

    def _sent(self, status: int, size: int, reason: str = "") -> None:
        """The access line of an answer (``--log-requests``): request, status, bytes, milliseconds, and
        an error's reason."""
        if getattr(self.server, "verbose", False):
            ms = (time.perf_counter() - getattr(self, "_t0", time.perf_counter())) * 1000
            self.log_message('"%s" %d %d %.1f ms%s', self.requestline, status, size, ms,
                             f" ({reason})" if reason else "")

    def _send(self, status: int, obj, headers: dict | None = None) -> None:
        try:
            data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (echoed from a request): escaped, still valid JSON
            data = json.dumps(obj, ensure_ascii=True).encode("ascii")
        if self.request_version == "HTTP/0.9":
            # a request line that could not be read (http.server answers it with no status line nor
            # headers, and buffers none): answered as HTTP/1.0
            self.request_version = "HTTP/1.0"
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")  # an echoed path is never read as a page
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if status >= 400 or getattr(self.server, "stopping", False):
            # the rest of a rejected body may still be unread (or the server is stopping): do not reuse
            # the connection
            self.send_header("Connection", "close")
            self.close_connection = True
        self._write(data)
        self._sent(status, len(data), obj.get("error", "") if isinstance(obj, dict) and status >= 400 else "")

    def _write(self, data: bytes) -> None:
        """The headers and (but for HEAD) the body, in one write."""
        try:
            self._headers_buffer.append(b"\r\n")
            self.wfile.write(b"".join(self._headers_buffer) + (b"" if self.command == "HEAD" else data))
            self._headers_buffer = []
        except OSError:  # the client went away: nobody to answer
            self.close_connection = True

    def _error(self, status: int, message: str, allow: str | None = None) -> None:
        self._send(status, {"error": message}, {"Allow": allow} if allow else None)

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
        self._write(data)
        self._sent(200, len(data))

    def _host_refused(self) -> bool:
        """Answer 403 (and return True) for a request to a server on the loopback interface whose Host
        header names another host: a page of another site that rebinds its name to 127.0.0.1 (DNS
        rebinding) must not read the answers. A server on other interfaces takes any Host."""
        if not getattr(self.server, "loopback", False):
            return False
        host = (self.headers.get("Host") or "").strip().lower()
        if not host:
            return False  # HTTP/1.0 without a Host header: no name to check
        name = host[1:host.index("]")] if host.startswith("[") and "]" in host else host.rsplit(":", 1)[0]
        name = name.rstrip(".")  # "localhost." is localhost
        if name in ("localhost", self.server.bound_host.rstrip(".")):
            return False
        import ipaddress
        try:  # an address, not a name that merely begins with 127. (127.0.0.1.attacker.example)
            if ipaddress.ip_address(name).is_loopback:
                return False
        except ValueError:
            pass
        self._error(403, f"Host {host!r} is not this server's name (it listens on the loopback interface: "
                         "use 127.0.0.1 or localhost)")
        return True

    def do_GET(self):  # noqa: N802 (http.server's naming)
        if self._host_refused():
            return
        page = self.path.split("?", 1)[0]  # a query string names nothing
        if page in ("/health", "/healthz"):
            return self._send(200, self.server.service.health())
        if page == "/tag":
            return self._error(405, "use POST on /tag", "POST")
        if page in ("/", "/index.html"):
            return self._static("index.html")
        if page.startswith("/static/") and page[len("/static/"):] in STATIC:
            return self._static(page[len("/static/"):])
        return self._error(404, f"no such endpoint {self.path!r}; use POST /tag, GET /health or GET / (the page)")

    do_HEAD = do_GET  # the same status and headers, no body (a load balancer's probe)

    def do_POST(self):  # noqa: N802
        if self._host_refused():
            return
        page = self.path.split("?", 1)[0]
        if page != "/tag":
            if page in ("/health", "/healthz"):
                return self._error(405, "use GET on /health", "GET, HEAD")
            return self._error(404, f"no such endpoint {self.path!r}; use POST /tag or GET /health")
        with self.server.working():  # counted: the server's drain waits for it
            self._post()

    def _post(self) -> None:
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype not in ("application/json", "text/json"):
            # a JSON type is what a web page of another origin cannot send without asking first (a CORS
            # preflight, which this server does not answer): no page can drive a local server
            return self._error(415, f"Content-Type {ctype or '(none)'!r}: send application/json")
        lengths = self.headers.get_all("Content-Length") or []
        if len(set(v.strip() for v in lengths)) > 1 or (lengths and self.headers.get("Transfer-Encoding")):
            # two framings of one body: which one a proxy before us read is unknown (request smuggling)
            return self._error(400, "the request gives its body's length twice (several Content-Length "
                                    "values, or one beside a Transfer-Encoding)")
        length = lengths[0] if lengths else None
        if length is None:
            return self._error(411, "a POST needs a Content-Length header")
        try:
            n = int(length)
            if n < 0:
                raise ValueError
        except ValueError:
            return self._error(400, f"bad Content-Length {length!r}")
        if n > self.server.max_bytes:
            self._error(413, f"the body has {n} bytes; the limit is {self.server.max_bytes}")
            return self._discard(n)
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
        # a slot of max_active once the body is read (a slow upload holds no slot), until it is answered
        with self.server.slot():
            self._answer(body)

    def _answer(self, body) -> None:
        """Tag a parsed request body and answer it (4xx for a bad request, 500 for a bug)."""
        from .cancel import ClientGone, client_gone
        try:
            out = self.server.service.tag(body, cancelled=lambda: client_gone(self.connection))
        except ClientGone as exc:  # nobody to answer: stop, write nothing, close
            self.close_connection = True
            return self.log_message("%s", str(exc))
        except RequestError as exc:
            return self._error(exc.status, exc.message)
        except Exception as exc:  # a bug must not stop the server: report it as a 500, its traceback logged
            sys.stderr.write(f"chaintag serve: internal error answering {self.requestline!r}:\n"
                             + traceback.format_exc())
            reason = (str(exc).strip().splitlines() or [""])[0][:200]  # one line; the log has the rest
            return self._send(500, {"error": f"internal error: {type(exc).__name__}: {reason}"})
        self._send(200, out)

    def _discard(self, n: int, seconds: float = 2.0) -> None:
        """Read and drop up to ``n`` bytes of a refused body (at most 4 times ``max_bytes``, for at most
        ``seconds``) before the connection closes: a client that writes its whole body before it reads
        the answer (Python's urllib) then reads the 413 instead of a broken pipe."""
        left = min(n, 4 * self.server.max_bytes)
        deadline = time.monotonic() + seconds
        try:
            self.connection.settimeout(seconds)  # a client that stops sending holds the thread no longer
            while left > 0 and time.monotonic() < deadline:
                chunk = self.rfile.read1(min(left, 1 << 16)) if hasattr(self.rfile, "read1") else \
                    self.rfile.read(min(left, 1 << 16))
                if not chunk:
                    break
                left -= len(chunk)
        except (OSError, ValueError):
            pass

    def do_PUT(self):  # noqa: N802
        page = self.path.split("?", 1)[0]
        self._error(405, "use POST /tag or GET /health", "POST" if page == "/tag" else "GET, HEAD")

    do_DELETE = do_PATCH = do_OPTIONS = do_PUT


def make_server(model, host: str = "127.0.0.1", port: int = 8080, *, name: str | None = None,
                max_bytes: int = 16 * 2 ** 20, max_sentences: int = 10000, verbose: bool = False,
                read_timeout: float = 30.0, request_deadline: float = 60.0, max_connections: int = 256,
                max_tokens: int = 200000, max_work: int = 2000000, max_active: int | None = None,
                digest: str | None = None):
    """A threading HTTP server answering tagging requests with ``model``.

    Parameters
    ----------
    model : fitted SequenceTagger, str or os.PathLike
        A model, its file, or a known model's name (as :func:`chaintag.load` takes); a file's sha256
        is then shown by ``/health``.
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
    max_active : int, optional
        Requests tagged at once (default :func:`~chaintag.service.connections.default_max_active`); the others wait for a slot.
    digest : str, optional
        The sha256 of the model's file, shown by ``/health`` (``model_sha256``), for a model given
        loaded; for a file or a name it is computed from the bytes loaded (this argument is not read).

    Returns
    -------
    http.server.ThreadingHTTPServer
        Call ``serve_forever()`` (and ``shutdown()`` from another thread). Its listen backlog is
        1024, and answers go out without Nagle's delay (``TCP_NODELAY``), headers and body in one
        write.

    Raises
    ------
    OSError
        When the address cannot be bound (the message names it).
    chaintag.errors.InputError
        For an empty ``host`` (it would listen on every interface).
    """
    if not str(host).strip():  # an empty host would listen on every interface
        from ..errors import InputError
        raise InputError("--host: an empty name; give an address (127.0.0.1: this machine only; 0.0.0.0: every "
                         "interface)")
    if isinstance(model, (str, bytes, os.PathLike)):
        from ..errors import InputError
        from ..io.file_digest import file_sha256
        from ..learners import load
        from ..models.resolve import resolve_model
        name = name or os.fsdecode(model)
        path = resolve_model(model)
        digest = file_sha256(path)
        model = load(model)
        if file_sha256(path) != digest:  # the digest /health shows is that of the bytes loaded
            raise InputError("the model file changed while it was loaded; start again", os.fsdecode(path))
    else:
        from ..learners import as_model
        model = as_model(model)
    try:
        server = LimitedServer((host, port), _Handler,
                         max_active=default_max_active() if max_active is None else max_active)
    except OSError as exc:  # the address, which the system's message leaves out
        raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror or exc}"
                      + (" (another server holds the port: choose another with --port)"
                         if exc.errno == errno.EADDRINUSE else "")) from None
    server.daemon_threads = True
    import ipaddress
    try:  # a server on the loopback interface answers requests to its own names only (_host_refused)
        server.loopback = ipaddress.ip_address(server.server_address[0]).is_loopback
    except ValueError:
        server.loopback = False
    server.bound_host = str(host).strip().lower()
    server.service = TaggingService(model, name=name, max_sentences=max_sentences, max_tokens=max_tokens,
                                    max_work=max_work, digest=digest)
    server.max_bytes = int(max_bytes)
    server.verbose = verbose
    server.read_timeout = float(read_timeout)
    server.request_deadline = float(request_deadline)
    server.max_connections = int(max_connections)
    server.started = time.time()
    return server
