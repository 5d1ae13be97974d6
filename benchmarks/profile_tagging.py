"""Where ``chaintag tag`` spends its time on a column file (one thread, CPU seconds per part).

Trains the averaged perceptron on CoNLL-2000 (``chunking`` attributes, no
resources, 10 epochs; or loads ``--model``), then runs the parts of tagging a
file, batch by batch as ``chaintag tag`` does (2,000 sentences a batch), on the
CoNLL-2000 test file repeated ``--copies`` times:

- ``read``: the column reader (:func:`chaintag.io.columns.iter_sentences`);
- ``rows``: the tokens checked against the model's columns;
- ``attributes``: attribute extraction (derived columns, keys, lookups);
- ``viterbi``: emission scores and Viterbi (the compiled kernel);
- ``labels``: label ids to label strings;
- ``format``: the output text (:func:`chaintag.io.columns.format_labelled`).

Each part's figure is its median over ``--repeats`` runs of ``time.process_time``
(summed over the batches), with the tokens per CPU second of their sum. The
start of the command (imports, model load, kernels from numba's cache) is not
included: ``bench_speed.py`` times the whole command.

Usage::

    python benchmarks/profile_tagging.py [--copies 10] [--repeats 5] [--model PATH] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

PARTS = ("read", "rows", "attributes", "viterbi", "labels", "format")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--model", default=None)
    ap.add_argument("--data-dir", default=os.environ.get("CHAINTAG_DATA", "../shared/data"))
    args = ap.parse_args(argv)
    import chaintag
    from chaintag.io.columns import format_labelled, iter_sentences
    test = os.path.join(args.data_dir, "conll2000", "test.txt")
    if args.model:
        model = chaintag.load(args.model)
    else:
        model = chaintag.StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=10,
                                              progress=False)
        train = chaintag.load_corpus(os.path.join(args.data_dir, "conll2000", "train.txt"))
        model.fit(train.tokens, train.labels)
        del train  # as in ``chaintag tag``, no training corpus is alive
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "test.txt")
        with open(test, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data * args.copies)
        times = {p: [] for p in PARTS}
        n_tokens = 0
        for _ in range(args.repeats):
            sents = None
            gc.collect()
            acc = dict.fromkeys(PARTS, 0.0)
            t = time.process_time()
            sents = [s.tokens for s in iter_sentences(path) if s.tokens]
            acc["read"] = time.process_time() - t
            n_tokens = sum(map(len, sents))
            for i in range(0, len(sents), 2000):
                batch = sents[i:i + 2000]
                t0 = time.process_time()
                rows = model._rows(batch)
                t1 = time.process_time()
                attrs = model.extractor_.transform(rows)
                t2 = time.process_time()
                ids = model._tag_ids(attrs)
                t3 = time.process_time()
                labels = model._split(ids, attrs.sent_ptr)
                t4 = time.process_time()
                format_labelled(batch, labels, " ")
                t5 = time.process_time()
                for part, a, b in zip(PARTS[1:], (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
                    acc[part] += b - a
            for part in PARTS:
                times[part].append(acc[part])
    total = sum(statistics.median(v) for v in times.values())
    print(f"{n_tokens:,} tokens (CoNLL-2000 test x {args.copies}), one thread, median of {args.repeats} "
          f"[min-max] CPU s; load average {os.getloadavg()[0]:.2f}")
    for part in PARTS:
        v = times[part]
        print(f"{part:<12}{statistics.median(v):8.3f} s  [{min(v):.3f}-{max(v):.3f}]")
    print(f"{'total':<12}{total:8.3f} s  = {n_tokens / total:,.0f} tokens per CPU second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
