"""Peak RSS of training against corpus size, in bytes per training token.

Not a unit test. Builds training files of growing size by repeating a corpus
(default: JNLPBA's training file, 0.49 M tokens, 1, 2, 4 and 8 times) and, for
each, trains the averaged perceptron (``ner`` preset, one epoch) in a child
process of its own, so that each peak is one run's. Each child records

- ``baseline``: peak RSS after the imports and a warm-up fit on 20 sentences
  (which loads the compiled kernels);
- ``peak``: peak RSS at the end of reading the file and training;
- ``model``: the bytes of the arrays whose size follows the model, not the
  corpus: the weight vectors the learner holds at its peak (the weights, the
  averaging sums and the returned averaged copy: 3 x 8 bytes per weight), the
  feature labels (4 bytes per feature) and the attribute table (16 bytes per
  attribute: key and feature offset);

With ``--streamed N`` the child trains with
:func:`chaintag.streaming.fit_streamed` instead: the file is read in chunks of
N sentences and each chunk's arrays go to ``.npy`` files beside it.

With ``--cli stream`` or ``--cli memory`` the child runs the command line
instead, ``chaintag train --train FILE --features F --epochs 1 --stream`` (or
``--no-stream``), in its own process after the same warm-up.

With ``--cli dist-stream`` or ``--cli dist-memory`` the child opens a Dask
``LocalCluster`` of ``--workers`` processes (default 2), warms it up with a
distributed fit of the first sentences, and runs ``chaintag train ... --scheduler
ADDRESS --workers N --stream`` (the driver reads the file in chunks and writes
the shard files, which the workers map) or ``--no-stream`` (the corpus in the
driver's memory). It reports the driver's peak (``VmHWM``: the scheduler runs in
the driver's process, as with ``chaintag train --workers N``) and each worker's
peak and baseline. The driver's model arrays are then the mixed weights, two
per shard (each shard's weights and averaging sums, as returned by the epoch)
and the averaged copies: (3 + 2 N) x 8 bytes per weight, plus the feature labels
and the attribute table; a worker's bytes per token are counted per token of
its shard (the corpus's tokens / N).

The script prints ``(peak - baseline - model) / tokens``: the bytes per
training token beyond the model.

Usage
-----
    python benchmarks/bench_memory.py                         # 1 2 4 8 x JNLPBA train
    python benchmarks/bench_memory.py --repeats 1 2 --json memory.json
    python benchmarks/bench_memory.py --train conll2000:train --features chunking
    python benchmarks/bench_memory.py --streamed 20000            # chunked reading, arrays on disk
    python benchmarks/bench_memory.py --cli memory                # chaintag train --no-stream
    python benchmarks/bench_memory.py --cli stream                # chaintag train --stream
    python benchmarks/bench_memory.py --cli dist-stream           # chaintag train --workers 2 (--stream)
    python benchmarks/bench_memory.py --cli dist-memory           # chaintag train --workers 2 --no-stream
    python benchmarks/bench_memory.py --cli dist-stream --send-shards   # shards sent, not mapped
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile


def peak_mib() -> float:
    """Peak resident set size of this process so far, MiB (``ru_maxrss`` is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def hwm_mib() -> float:
    """Peak RSS of the calling process, MiB: ``VmHWM``, which starts afresh at ``exec`` (``ru_maxrss`` keeps
    the peak of the process that exec'd)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return peak_mib()


def child_dist(path: str, features: str, algorithm: str, cli: str, workers: int, sent: bool = False) -> dict:
    """``chaintag train --scheduler ... --workers N`` (streamed or not) on a LocalCluster this process opens;
    with ``sent``, the shard files are sent to the workers block by block as to workers of another machine."""
    import contextlib
    import io

    from chaintag.cli.main import main
    from chaintag.distributed import open_client
    if sent:
        import chaintag.training.shard_files as sf
        sf.workers_seeing = lambda client, folder, workers: dict.fromkeys(workers, False)
    tmp = tempfile.mkdtemp()
    small = os.path.join(tmp, "head.txt")
    with open(path, encoding="utf-8") as fh, open(small, "w", encoding="utf-8") as out:
        n = 0
        for line in fh:
            out.write(line)
            n += 1
            if n > 500 and not line.strip():
                break
    with open_client(workers=workers) as client:
        for mode in ("--stream", "--no-stream"):  # loads the kernels in the driver and in every worker
            with contextlib.redirect_stdout(io.StringIO()):
                main(["train", "--train", small, "--features", features, "--algorithm", algorithm, "--epochs", "1",
                      "--quiet", "--model", os.path.join(tmp, "w.npz"), "--scheduler", client.scheduler.address,
                      "--workers", str(workers), mode])
        baseline = hwm_mib()
        worker_base = client.run(hwm_mib)
        out = io.StringIO()
        model_path = os.path.join(tmp, "m.npz")
        with contextlib.redirect_stdout(out):
            rc = main(["train", "--train", path, "--features", features, "--algorithm", algorithm, "--epochs", "1",
                       "--quiet", "--json", "--model", model_path, "--scheduler", client.scheduler.address,
                       "--workers", str(workers), "--stream" if cli == "dist-stream" else "--no-stream"])
        if rc != 0:
            raise SystemExit(f"chaintag train exited with {rc}")
        peak = hwm_mib()
        worker_peak = client.run(hwm_mib)
    n_tokens = json.loads(out.getvalue())["train"]["n_tokens"]
    from chaintag.learners.base import load
    model = load(model_path)
    n_w = model.feature_index_.n_weights
    model_bytes = ((3 + 2 * workers) * 8 * n_w + 4 * model.feature_index_.n_features
                   + 16 * model.extractor_.n_attributes)
    shard_tokens = n_tokens / workers
    per_worker = [{"baseline_mib": worker_base[w], "peak_mib": worker_peak[w],
                   "bytes_per_shard_token": (worker_peak[w] - worker_base[w]) * 2**20 / shard_tokens}
                  for w in sorted(worker_peak)]
    return {"tokens": n_tokens, "baseline_mib": baseline, "peak_mib": peak, "model_mib": model_bytes / 2**20,
            "n_weights": n_w, "n_attributes": model.extractor_.n_attributes, "workers": per_worker,
            "bytes_per_token": (peak - baseline) * 2**20 / n_tokens,
            "bytes_per_token_beyond_model": ((peak - baseline) * 2**20 - model_bytes) / n_tokens}


def child(path: str, features: str, algorithm: str, streamed: int = 0, cli: str = "") -> dict:
    """Train on ``path`` in this process and return its figures."""
    import chaintag
    from chaintag.data.datasets import load_corpus
    head = []
    with open(path, encoding="utf-8") as fh:  # the first sentences only: the baseline holds no corpus
        for line in fh:
            head.append(line)
            if len(head) > 500 and not line.strip():
                break
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as fh:
        fh.write("".join(head))
    small = load_corpus(fh.name)
    os.unlink(fh.name)
    warm = chaintag.make_learner(algorithm, features=features, columns=small.columns, epochs=1, progress=False)
    warm.fit(small.tokens, small.labels)
    del small, warm, head
    baseline = peak_mib()
    if cli:
        import contextlib
        import io
        from chaintag.cli.main import main
        out = io.StringIO()
        model_path = os.path.join(tempfile.mkdtemp(), "m.npz")
        with contextlib.redirect_stdout(out):
            rc = main(["train", "--train", path, "--features", features, "--algorithm", algorithm, "--epochs", "1",
                       "--quiet", "--json", "--model", model_path, "--stream" if cli == "stream" else "--no-stream"])
        if rc != 0:
            raise SystemExit(f"chaintag train exited with {rc}")
        peak = peak_mib()
        n_tokens = json.loads(out.getvalue())["train"]["n_tokens"]
        from chaintag.learners.base import load
        model = load(model_path)
        streamed = -1
    elif streamed:
        from chaintag.streaming import fit_streamed
        model = chaintag.make_learner(algorithm, features=features, epochs=1, progress=False)
        fit_streamed(model, path, chunk_sentences=streamed, folder=os.path.dirname(path))
        n_tokens = model.training_summary_["n_tokens"]
    else:
        corpus = load_corpus(path)
        n_tokens = sum(map(len, corpus.tokens))
        model = chaintag.make_learner(algorithm, features=features, columns=corpus.columns, epochs=1,
                                      progress=False)
        model.fit(corpus.tokens, corpus.labels)
    if streamed != -1:
        peak = peak_mib()
    n_w = model.feature_index_.n_weights
    model_bytes = 3 * 8 * n_w + 4 * model.feature_index_.n_features + 16 * model.extractor_.n_attributes
    return {"tokens": n_tokens, "baseline_mib": baseline, "peak_mib": peak, "model_mib": model_bytes / 2**20,
            "n_weights": n_w, "n_attributes": model.extractor_.n_attributes,
            "bytes_per_token": (peak - baseline) * 2**20 / n_tokens,
            "bytes_per_token_beyond_model": ((peak - baseline) * 2**20 - model_bytes) / n_tokens}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--train", default="jnlpba:train", help="corpus to repeat (file or dataset reference)")
    p.add_argument("--features", default="ner")
    p.add_argument("--algorithm", default="perceptron")
    p.add_argument("--repeats", type=int, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--data-dir")
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--streamed", type=int, default=0, metavar="N",
                   help="train with chaintag.streaming.fit_streamed, N sentences per chunk (default: "
                        "0, fit on the corpus read into memory)")
    p.add_argument("--cli", choices=["stream", "memory", "dist-stream", "dist-memory"], default="",
                   help="measure the command line: chaintag train --stream or --no-stream, or distributed "
                        "(--workers N, driver and workers) with or without --stream")
    p.add_argument("--workers", type=int, default=2, help="Dask workers of the dist-* runs (default 2)")
    p.add_argument("--send-shards", action="store_true",
                   help="dist-stream: send the shard files' arrays to the workers block by block, as to "
                        "workers that do not see the driver's disk (default: the workers map the files)")
    p.add_argument("--only", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.only:
        if args.cli.startswith("dist"):
            print(json.dumps(child_dist(args.only, args.features, args.algorithm, args.cli, args.workers,
                                        args.send_shards)))
        else:
            print(json.dumps(child(args.only, args.features, args.algorithm, args.streamed, args.cli)))
        return 0
    from chaintag.data.datasets import resolve
    source = resolve(args.train, args.data_dir).path
    text = open(source, encoding="utf-8").read()
    if not text.endswith("\n\n"):
        text = text.rstrip("\n") + "\n\n"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in args.repeats:
            path = os.path.join(tmp, f"train_x{r}.txt")
            with open(path, "w", encoding="utf-8") as fh:
                for _ in range(r):
                    fh.write(text)
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--only", path, "--features",
                                  args.features, "--algorithm", args.algorithm, "--streamed", str(args.streamed),
                                  "--cli", args.cli, "--workers", str(args.workers)]
                                 + (["--send-shards"] if args.send_shards else []),
                                 check=True, capture_output=True, text=True).stdout
            row = json.loads(out.strip().splitlines()[-1])
            row["repeats"] = r
            rows.append(row)
            os.unlink(path)
            print(f"x{r}: {row['tokens'] / 1e6:.2f} M tokens, peak {row['peak_mib']:.0f} MiB "
                  f"(baseline {row['baseline_mib']:.0f}, model arrays {row['model_mib']:.0f}), "
                  f"{row['bytes_per_token']:.0f} B/token, {row['bytes_per_token_beyond_model']:.0f} B/token "
                  f"beyond the model (load {open('/proc/loadavg').read().split()[0]})", flush=True)
            for i, w in enumerate(row.get("workers", [])):
                print(f"    worker {i}: peak {w['peak_mib']:.0f} MiB (baseline {w['baseline_mib']:.0f}), "
                      f"{w['bytes_per_shard_token']:.0f} B per token of its shard", flush=True)
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
