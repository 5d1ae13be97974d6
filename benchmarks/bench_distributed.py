"""Distributed training by iterative parameter mixing against serial training, on one machine.

Not a unit test. For each corpus (CoNLL-2000 chunking with the ``chunking``
preset, JNLPBA with ``ner``), with the averaged perceptron:

- a seeded dev split is carved off the training data (10 % of the sentences,
  seed 0); the test file is scored only with settings fixed in advance;
- serial training, and parameter mixing with 1 and 2 shards, each on its own
  embedded ``LocalCluster`` of as many worker processes (one thread each);
- ``--epochs`` epochs without dev scoring: the test F1 after the same number of
  epochs, and the wall-clock seconds per epoch (mean of epochs 2..E; for the
  mixed runs this includes sending the weights, mixing and the averaging sums);
- ``--max-epochs`` epochs with dev scoring: the epoch with the best dev F1 is
  kept (its test F1 is the "after convergence" figure);
- the peak RSS of each worker process (``ru_maxrss``, after both runs) and of
  the driver (``VmHWM``: ``ru_maxrss`` survives ``exec``, so a spawned worker would report
  the driver's peak).

Usage
-----
    python benchmarks/bench_distributed.py                     # both corpora
    python benchmarks/bench_distributed.py --corpora conll2000 --epochs 5 --max-epochs 10
"""

from __future__ import annotations

import argparse
import json
import resource
import sys

import numpy as np

CORPORA = {"conll2000": ("conll2000:train", "conll2000:test", "chunking"),
           "jnlpba": ("jnlpba:train", "jnlpba:test", "ner")}


def worker_peak_mib() -> float:
    """Peak RSS of the calling process, MiB: ``VmHWM`` of /proc/self/status, which starts afresh at
    ``exec`` (``ru_maxrss`` does not: a worker process spawned by the driver would inherit its peak)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def split_dev(corpus, fraction=0.1, seed=0):
    """Seeded dev split of a training corpus: (train tokens, train labels), (dev tokens, dev labels)."""
    n = len(corpus.tokens)
    perm = np.random.default_rng(seed).permutation(n)
    dev_idx = set(perm[:max(1, int(round(n * fraction)))].tolist())
    tr = [i for i in range(n) if i not in dev_idx]
    dv = sorted(dev_idx)
    return ([corpus.tokens[i] for i in tr], [corpus.labels[i] for i in tr]), \
        ([corpus.tokens[i] for i in dv], [corpus.labels[i] for i in dv])


def one_setting(shards, train, dev, test, columns, features, epochs, max_epochs) -> dict:
    import chaintag
    from chaintag.distributed import fit_distributed, open_client

    def make(n):
        return chaintag.make_learner("perceptron", features=features, columns=columns, epochs=n, progress=False)

    out = {"shards": shards}
    if shards == 0:
        fixed = make(epochs).fit(*train)
        conv = make(max_epochs).fit(*train, dev=dev)
        workers = []
    else:
        with open_client(workers=shards) as client:
            fixed = fit_distributed(make(epochs), *train, client=client, shards=shards)
            conv = fit_distributed(make(max_epochs), *train, dev=dev, client=client, shards=shards)
            workers = sorted(client.run(worker_peak_mib).values())
    secs = [h["seconds"] for h in fixed.history_[1:]] or [fixed.history_[0]["seconds"]]
    out.update(seconds_per_epoch=float(np.mean(secs)), test_f1_fixed=fixed.score(*test),
               best_epoch=conv.best_epoch_, dev_f1_best=conv.history_[conv.best_epoch_ - 1]["dev_score"],
               test_f1_converged=conv.score(*test), worker_peak_mib=workers,
               n_weights=int(fixed.feature_index_.n_weights))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=list(CORPORA))
    p.add_argument("--epochs", type=int, default=10, help="epochs of the equal-epochs comparison")
    p.add_argument("--max-epochs", type=int, default=30, help="epochs of the dev-chosen (converged) runs")
    p.add_argument("--shards", type=int, nargs="+", default=[0, 1, 2], help="0 = serial")
    p.add_argument("--data-dir")
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args(argv)
    import chaintag
    rows = []
    for name in args.corpora:
        tr_ref, te_ref, features = CORPORA[name]
        corpus = chaintag.load_corpus(tr_ref, data_dir=args.data_dir)
        test_c = chaintag.load_corpus(te_ref, data_dir=args.data_dir)
        train, dev = split_dev(corpus)
        n_tok = sum(map(len, train[0]))
        for k in args.shards:
            row = one_setting(k, train, dev, (test_c.tokens, test_c.labels), corpus.columns, features,
                              args.epochs, args.max_epochs)
            row.update(corpus=name, train_tokens=n_tok, load=open("/proc/loadavg").read().split()[:3])
            rows.append(row)
            label = "serial" if k == 0 else f"{k} shard(s)"
            print(f"{name:<10} {label:<11} {row['seconds_per_epoch']:.2f} s/epoch  test F1 after "
                  f"{args.epochs}: {row['test_f1_fixed']:.2f}  dev-best epoch {row['best_epoch']} (dev "
                  f"{row['dev_f1_best']:.2f}) test F1 {row['test_f1_converged']:.2f}  worker peak MiB "
                  f"{[round(x) for x in row['worker_peak_mib']]}  load {' '.join(row['load'])}", flush=True)
    print(f"driver peak RSS: {worker_peak_mib():.0f} MiB")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
