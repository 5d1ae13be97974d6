"""``chaintag serve``: an HTTP JSON tagging service for a saved model."""

from __future__ import annotations

import sys

from .common import add_common


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve", help="serve a model over HTTP (JSON): POST /tag, GET /health, a page at GET /",
        description="Load a model once and answer tagging requests over HTTP. POST /tag with "
                    '{"sentences": [[token, ...], ...]} (a token: a string, a list of column strings, or a '
                    'feature dict) and optionally "nbest": K, "confidence": K, "marginals": true, '
                    '"constrain": true, "fixed": [[label or null, ...], ...]; the answer holds "labels" '
                    'and what was asked. Or raw text: {"text": "...", "lang": "en"} ("tokenized": true for one '
                    "tokenized sentence per line), answered with the tokens (offsets, labels) and the spans with "
                    "their confidence. GET /health tells the model's algorithm and labels; GET / is a page to "
                    "paste text and see it tagged. Bad requests "
                    "get a 4xx status and a JSON error message; the server keeps running. Stop it with Ctrl-C "
                    "or SIGTERM: it stops accepting, lets the requests in progress finish (--grace) and exits "
                    "with 130 or 143.")
    p.add_argument("model", metavar="MODEL", help="model file from chaintag train, or the name of a built-in or built model (chaintag models list)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 for every interface)")
    p.add_argument("--port", type=int, default=8080, help="port (default: 8080; 0 picks a free one)")
    p.add_argument("--max-sentences", type=int, default=10000, metavar="N",
                   help="most sentences in one request (default: 10000; with sentences of usual length, "
                        "--max-tokens is reached first)")
    p.add_argument("--max-bytes", type=int, default=16 * 2 ** 20, metavar="N",
                   help="largest request body in bytes (default: 16 MiB)")
    p.add_argument("--log-requests", action="store_true", help="log every request on stderr")
    p.add_argument("--request-deadline", type=float, default=60.0, metavar="S",
                   help="seconds a whole request may take to arrive, however slowly it trickles in (default: 60)")
    p.add_argument("--max-connections", type=int, default=256, metavar="N",
                   help="open connections at most; past it a new one gets 503 at once (default: 256)")
    p.add_argument("--max-tokens", type=int, default=200000, metavar="N",
                   help="tokens in one request at most (413 past it; default: 200000)")
    p.add_argument("--max-work", type=int, default=2000000, metavar="N",
                   help="tokens x K of nbest / confidence (x labels for marginals) in one request at most "
                        "(413 past it; default: 2000000)")
    p.add_argument("--max-active", type=int, default=None, metavar="N",
                   help="requests tagged at once; the others wait for a slot (default: the cores, at least 2)")
    p.add_argument("--read-timeout", type=float, default=30.0, metavar="S",
                   help="seconds a connection may wait for the client's next bytes, an idle kept-alive "
                        "connection included (default: 30)")
    p.add_argument("--grace", type=float, default=30.0, metavar="S",
                   help="on Ctrl-C or SIGTERM, seconds the requests in progress may take to finish "
                        "(default: 30)")
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import InputError
    from ..service import make_server

    if args.max_sentences < 1 or args.max_bytes < 1:
        raise InputError("--max-sentences and --max-bytes must be at least 1")
    if not args.request_deadline > 0 or min(args.max_connections, args.max_tokens, args.max_work) < 1:
        raise InputError("--request-deadline must be positive, --max-connections, --max-tokens and --max-work "
                         "at least 1")
    if args.max_active is not None and args.max_active < 1:
        raise InputError(f"--max-active must be at least 1 (got {args.max_active})")
    if not args.read_timeout > 0 or not args.grace >= 0:
        raise InputError("--read-timeout must be positive and --grace 0 or more")
    if not 0 <= args.port <= 65535:
        raise InputError(f"--port must be between 0 and 65535 (got {args.port})")
    server = make_server(args.model, args.host, args.port, name=args.model, max_bytes=args.max_bytes,
                         max_sentences=args.max_sentences, verbose=args.log_requests,
                         request_deadline=args.request_deadline, max_connections=args.max_connections,
                         max_tokens=args.max_tokens, max_work=args.max_work, max_active=args.max_active,
                         read_timeout=args.read_timeout)
    model = server.service.model
    server.service.warm_up()  # the kernels loaded (compiled on a first run) before the first request
    host, port = server.server_address[:2]
    if not args.quiet:
        print(f"serving {args.model} ({model.algorithm}, {len(model.labels_)} labels) on http://{host}:{port} "
              "(POST /tag, GET /health, the page at /); Ctrl-C stops", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (chaintag.cli.main.Terminated): 130 or 143
        server.socket.close()  # no new connection; the requests in progress finish
        if server.busy and not args.quiet:
            print(f"stopping: {server.busy} request(s) in progress, given up to {args.grace:g} s (Ctrl-C again "
                  "to stop now)", file=sys.stderr, flush=True)
        left = server.drain(args.grace)
        if left and not args.quiet:
            print(f"{left} request(s) left unfinished", file=sys.stderr)
        raise
    finally:
        server.server_close()
    return 0
