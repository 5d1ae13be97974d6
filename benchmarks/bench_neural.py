"""The neural taggers (bilstm, bilstm-crf, bilstm-sapo) on the benchmark data: speed, memory and accuracy.

Not a unit test. Modes:

``speed``
    Seconds per CoNLL-2000 training epoch (all 8,936 sentences, or the first ``--limit``) of the
    neural learner in the reference configuration (word embeddings 100d,
    character CNN 30d x 50 filters, POS embeddings 25d, BiLSTM, Adam, batch
    32), and of SAPO (n = 5, ``chunking`` attributes) beside it, each in its
    own process so that the peak RSS is its own. Prints the load average
    before and after, since the machine may be shared.

``accuracy``
    Trains on a task with the epoch chosen on dev data (the task's dev
    split, or a seeded 10 % of the training sentences where it has none:
    CoNLL-2000, base NP, JNLPBA), then scores the test set once, at the
    chosen epoch. Writes the history and the figures as JSON.

Usage
-----
    python benchmarks/bench_neural.py speed --epochs 2
    python benchmarks/bench_neural.py accuracy --task conll2000 --algorithm bilstm-crf --epochs 30 --out r.json
    python benchmarks/bench_neural.py accuracy --task jnlpba --device cuda --max-seconds 400 --out j.json
    python benchmarks/bench_neural.py train-text --task conll2000 --out conll2000-train.txt
    python benchmarks/bench_neural.py speed --learners bilstm-sapo bilstm-crf bilstm --limit 2000
    python benchmarks/bench_neural.py topn --n-best 5

``train-text`` writes the training sentences that ``accuracy`` trains on
(the carved dev sentences left out), one per line, as raw text for inducing
word vectors with ``chaintag clusters --save-vectors``. ``topn`` times the top-n search of
``bilstm-sapo`` alone over one epoch of batches: compiled A* against the list Viterbi in torch.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

import chaintag

#: Task: (train, dev or None, test, extra load options).
TASKS = {
    "conll2000": ("conll2000:train", None, "conll2000:test", {}),
    "conll2000_np": ("conll2000_np:train", None, "conll2000_np:test", {}),
    "jnlpba": ("jnlpba:train", None, "jnlpba:test", {}),
    "ptb_sample": ("ptb_sample:train", "ptb_sample:dev", "ptb_sample:test", {}),
    "ud_en_ewt": ("ud_en_ewt:train", "ud_en_ewt:dev", "ud_en_ewt:test", {"label_field": "xpos"}),
}
#: The reference configuration.
REFERENCE = dict(word_dim=100, char_encoder="cnn", char_dim=30, char_filters=50, feature_dim=25,
                 optimizer="adam", batch_size=32)
DEV_FRACTION = 0.1


def _load(ref, data_dir, options, limit=None):
    c = chaintag.load_corpus(ref, data_dir=data_dir, **options)
    n = len(c.tokens) if limit is None else min(limit, len(c.tokens))
    return c.tokens[:n], c.labels[:n]


def carve_dev(tokens, labels, fraction=DEV_FRACTION, seed=0):
    """A seeded random ``fraction`` of the training sentences as dev data; returns (train, dev)."""
    n = len(tokens)
    perm = np.random.default_rng(seed).permutation(n)
    n_dev = max(1, int(round(n * fraction)))
    dev_ids, train_ids = sorted(perm[:n_dev].tolist()), sorted(perm[n_dev:].tolist())
    pick = lambda ids: ([tokens[i] for i in ids], [labels[i] for i in ids])  # noqa: E731
    return pick(train_ids), pick(dev_ids)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _loadavg() -> str:
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return "n/a"


def speed_one(args) -> dict:
    """Train one learner on all of CoNLL-2000 for ``args.epochs`` epochs; per-epoch figures."""
    threads = None
    if args.learner != "sapo":
        import torch
        if args.threads:
            torch.set_num_threads(args.threads)
        threads = torch.get_num_threads()
    tokens, labels = _load("conll2000:train", args.data_dir, {}, args.limit)
    if args.learner == "sapo":
        m = chaintag.make_learner("sapo", features="chunking", n_best=5, epochs=args.epochs, progress=False)
    else:
        m = chaintag.make_learner(args.learner, epochs=args.epochs, hidden=args.hidden, device=args.device,
                                  progress=False, **REFERENCE)
    load0 = _loadavg()
    t0 = time.perf_counter()
    m.fit(tokens, labels)
    return {"learner": args.learner, "sentences": len(tokens), "hidden": args.hidden if args.learner != "sapo" else None,
            "epoch_seconds": [r["seconds"] for r in m.history_],
            "epoch_cpu_seconds": [r["cpu_seconds"] for r in m.history_],
            "fit_seconds": time.perf_counter() - t0, "peak_rss_mb": _peak_rss_mb(),
            "torch_threads": threads, "loadavg_before": load0, "loadavg_after": _loadavg()}


def speed(args) -> None:
    rows = []
    for learner in args.learners:
        cmd = [sys.executable, __file__, "speed-one", "--learner", learner, "--epochs", str(args.epochs),
               "--hidden", str(args.hidden), "--device", args.device, "--threads", str(args.threads)]
        if args.limit:
            cmd += ["--limit", str(args.limit)]
        if args.data_dir:
            cmd += ["--data-dir", args.data_dir]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            sys.exit(out.stderr)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{'learner':12} {'s/epoch (each)':30} {'cpu s/epoch':12} {'peak RSS MB':12} load avg before -> after")
    for r in rows:
        each = ", ".join(f"{s:.1f}" for s in r["epoch_seconds"])
        cpu = np.mean(r["epoch_cpu_seconds"])
        print(f"{r['learner']:12} {each:30} {cpu:12.1f} {r['peak_rss_mb']:12.0f} {r['loadavg_before']} -> "
              f"{r['loadavg_after']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


def accuracy(args) -> dict:
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    train_ref, dev_ref, test_ref, options = TASKS[args.task]
    tokens, labels = _load(train_ref, args.data_dir, options, args.limit)
    if dev_ref is None:
        (tokens, labels), dev = carve_dev(tokens, labels)
        dev_desc = f"seeded {DEV_FRACTION:.0%} of {train_ref}"
    else:
        dev = _load(dev_ref, args.data_dir, options, args.limit)
        dev_desc = dev_ref
    test = _load(test_ref, args.data_dir, options, args.limit)
    params = dict(REFERENCE, epochs=args.epochs, hidden=args.hidden, device=args.device,
                  max_seconds=args.max_seconds, random_state=args.seed, progress=None,
                  embeddings=args.embeddings, lowercase=not args.keep_case)
    if args.embeddings:
        params.pop("word_dim")  # the vectors' own dimension (GloVe 6B: 50)
    if args.optimizer:
        params["optimizer"] = args.optimizer
    if args.margin is not None:
        params["margin"] = args.margin  # bilstm-sapo only
    m = chaintag.make_learner(args.algorithm, **params)
    t0 = time.perf_counter()
    m.fit(tokens, labels, dev=dev)
    fit_seconds = time.perf_counter() - t0
    result = m.evaluate(*test)
    out = {"task": args.task, "algorithm": args.algorithm, "device": args.device, "hidden": args.hidden,
           "embeddings": args.embeddings, "lowercase": not args.keep_case, "optimizer": params["optimizer"],
           "dev": dev_desc, "train_sentences": len(tokens), "dev_sentences": len(dev[0]),
           "epochs_run": len(m.history_), "best_epoch": m.best_epoch_,
           "dev_best": m.history_[m.best_epoch_ - 1].get("dev_score"),
           "test_f1": result.f1 if result.is_chunking else None, "test_accuracy": result.accuracy,
           "test_score": result.f1 if result.is_chunking else result.accuracy,
           "fit_seconds": fit_seconds, "median_epoch_seconds": float(np.median([r["seconds"] for r in m.history_])),
           "peak_rss_mb": _peak_rss_mb(), "history": m.history_}
    print(json.dumps({k: v for k, v in out.items() if k != "history"}), flush=True)
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(out, fh, indent=1)
        os.replace(tmp, args.out)
    return out


def topn(args) -> None:
    """Seconds of bilstm-sapo's top-n search over one epoch of batches, A* (numba) against the list
    Viterbi in torch: the sentence lengths of ``conll2000:train`` in batches of 32 of similar length,
    random scores over its 23 labels (the search's cost does not depend on the values)."""
    import torch
    from chaintag.learners.neural.sapo_head import topn_paths_astar, topn_paths_viterbi
    if args.threads:
        torch.set_num_threads(args.threads)
    tokens, labels = _load("conll2000:train", args.data_dir, {}, args.limit)
    L = len({x for ls in labels for x in ls})
    lengths = np.sort([len(s) for s in tokens if s])
    g = torch.Generator().manual_seed(0)
    batches = []
    for lo in range(0, len(lengths), 32):
        lens = torch.from_numpy(lengths[lo:lo + 32].copy())
        T = int(lens.max())
        mask = torch.arange(T).unsqueeze(0) < lens.unsqueeze(1)
        batches.append((torch.randn(len(lens), T, L, generator=g), mask))
    U, s, e = torch.randn(L, L, generator=g), torch.randn(L, generator=g), torch.randn(L, generator=g)
    topn_paths_astar(*batches[0], U, s, e, args.n_best)  # compile
    out = {"sentences": int(len(lengths)), "labels": L, "n_best": args.n_best, "loadavg_before": _loadavg(),
           "torch_threads": torch.get_num_threads()}
    for name, fn in (("astar_numba", topn_paths_astar), ("list_viterbi_torch", topn_paths_viterbi)):
        t0 = time.perf_counter()
        for em, mask in batches:
            fn(em, mask, U, s, e, args.n_best)
        out[name + "_seconds"] = round(time.perf_counter() - t0, 3)
    out["loadavg_after"] = _loadavg()
    print(json.dumps(out))


def train_text(args) -> None:
    """Write the training sentences of a task (without the dev sentences carved from them) as raw
    text, one sentence per line, tokens separated by spaces: the task's own text for inducing word
    vectors (``chaintag clusters ... --save-vectors``), never its dev or test text."""
    train_ref, dev_ref, _, options = TASKS[args.task]
    tokens, labels = _load(train_ref, args.data_dir, options, args.limit)
    if dev_ref is None:
        (tokens, labels), _ = carve_dev(tokens, labels)
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        for sent in tokens:
            words = [tok[0] if isinstance(tok, (tuple, list)) else tok for tok in sent]
            if words:
                fh.write(" ".join(words) + "\n")
    os.replace(tmp, args.out)
    print(f"wrote {len(tokens)} training sentences of {args.task} to {args.out}", file=sys.stderr)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    t = sub.add_parser("train-text")
    t.add_argument("--data-dir", default=None)
    t.add_argument("--task", choices=sorted(TASKS), default="conll2000")
    t.add_argument("--limit", type=int, default=None)
    t.add_argument("--out", required=True)
    q = sub.add_parser("topn")
    q.add_argument("--data-dir", default=None)
    q.add_argument("--limit", type=int, default=None)
    q.add_argument("--n-best", type=int, default=5)
    q.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's)")
    for name in ("speed", "speed-one", "accuracy"):
        q = sub.add_parser(name)
        q.add_argument("--data-dir", default=None)
        q.add_argument("--epochs", type=int, default=2 if name != "accuracy" else 30)
        q.add_argument("--hidden", type=int, default=200, help="LSTM units per direction (default: 200)")
        q.add_argument("--device", default="cpu")
        q.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's)")
        if name == "speed":
            q.add_argument("--learners", nargs="+", default=["bilstm-crf", "bilstm", "sapo"])
            q.add_argument("--json", default=None)
            q.add_argument("--limit", type=int, default=None, help="the first N training sentences")
        elif name == "speed-one":
            q.add_argument("--learner", required=True)
            q.add_argument("--limit", type=int, default=None)
        else:
            q.add_argument("--task", choices=sorted(TASKS), default="conll2000")
            q.add_argument("--algorithm", choices=["bilstm", "bilstm-crf", "bilstm-sapo"],
                           default="bilstm-crf")
            q.add_argument("--max-seconds", type=float, default=None)
            q.add_argument("--limit", type=int, default=None, help="use the first N sentences of each split")
            q.add_argument("--seed", type=int, default=0)
            q.add_argument("--embeddings", default=None, help="pretrained word vectors (text format)")
            q.add_argument("--keep-case", action="store_true", help="look words up as written (not lowercased)")
            q.add_argument("--optimizer", choices=["adam", "sgd"], default=None)
            q.add_argument("--margin", type=float, default=None, help="bilstm-sapo's Hamming cost C")
            q.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if args.mode == "train-text":
        train_text(args)
    elif args.mode == "topn":
        topn(args)
    elif args.mode == "speed":
        speed(args)
    elif args.mode == "speed-one":
        print(json.dumps(speed_one(args)))
    else:
        accuracy(args)


if __name__ == "__main__":
    main()
