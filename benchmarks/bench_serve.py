"""Load test of ``chaintag serve`` on loopback: requests/s and tokens/s from concurrent clients.

Starts ``chaintag serve MODEL --port 0`` in a child process on 127.0.0.1,
sends ``--requests`` POST /tag requests (each a batch of ``--batch``
sentences of the input, cycling through it) from ``--clients`` threads, each
with its own keep-alive connection, checks every answer (status 200, one
label per token), and prints the throughput and latency percentiles. Nothing
leaves the machine.

    python benchmarks/bench_serve.py conll2000-chunking.npz --input conll2000:test
    python benchmarks/bench_serve.py MODEL --input FILE --requests 1000 --clients 8 --batch 8
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import subprocess
import sys
import threading
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--input", required=True, help="column file or dataset reference (its feature columns are sent)")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--batch", type=int, default=8, help="sentences per request")
    ap.add_argument("--option", choices=["none", "nbest", "marginals", "constrain"], default="none")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()

    import chaintag
    model = chaintag.load(args.model)
    corpus = chaintag.load_corpus(args.input, data_dir=args.data_dir)
    n_cols = len(model.columns_)
    sents = [[list(tok[:n_cols]) for tok in s] for s in corpus.tokens if s]
    bodies = []
    for r in range(args.requests):
        lo = (r * args.batch) % len(sents)
        batch = (sents + sents)[lo:lo + args.batch]
        body = {"sentences": batch}
        if args.option == "nbest":
            body["nbest"] = 3
        elif args.option == "marginals":
            body["marginals"] = True
        elif args.option == "constrain":
            body["constrain"] = True
        bodies.append((json.dumps(body).encode(), sum(len(s) for s in batch)))

    proc = subprocess.Popen([sys.executable, "-m", "chaintag.cli.main", "serve", args.model, "--port", "0",
                             "--host", "127.0.0.1"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)", line).group(1))
        latencies = np.zeros(args.requests)
        failures = []
        next_index = iter(range(args.requests))
        lock = threading.Lock()

        def client():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            while True:
                with lock:
                    r = next(next_index, None)
                if r is None:
                    break
                data, n_tok = bodies[r]
                t0 = time.perf_counter()
                conn.request("POST", "/tag", body=data, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                out = resp.read()
                latencies[r] = time.perf_counter() - t0
                if resp.status != 200 or sum(len(x) for x in json.loads(out)["labels"]) != n_tok:
                    failures.append((r, resp.status))
            conn.close()

        # one warm-up request (the first call of each kernel in the server process)
        client_conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        client_conn.request("POST", "/tag", body=bodies[0][0], headers={"Content-Type": "application/json"})
        client_conn.getresponse().read()
        client_conn.close()
        threads = [threading.Thread(target=client) for _ in range(args.clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    n_tokens = sum(n for _, n in bodies)
    with open("/proc/loadavg") as f:
        load = f.read().strip()
    figures = {"requests": args.requests, "clients": args.clients, "sentences_per_request": args.batch,
               "option": args.option, "failures": len(failures), "seconds": round(wall, 2),
               "requests_per_s": round(args.requests / wall, 1), "tokens_per_s": round(n_tokens / wall),
               "latency_ms_p50": round(1000 * float(np.percentile(latencies, 50)), 1),
               "latency_ms_p95": round(1000 * float(np.percentile(latencies, 95)), 1), "loadavg": load}
    print(json.dumps(figures))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    if failures:
        sys.exit(f"{len(failures)} requests failed, e.g. {failures[:3]}")


if __name__ == "__main__":
    main()
