"""Document-level attributes on JNLPBA (dev trials only): columns computed from each token's abstract.

The training file carries ``###MEDLINE:<id>`` lines. This script reads the file
itself (or, with ``--library``, through ``load_corpus(..., document_columns=True)``,
the path of ``chaintag train``: the same sentences and columns), computes
per-token document columns from the text of the token's abstract (no labels)
with :mod:`chaintag.features.document`, and trains SAPO on tokens
``(word, abbr, docnext, doccap)``:

``abbr``
    for a word that the abstract defines as an abbreviation somewhere
    (``... long form ( W )``: W one token with an upper-case letter, 2-10
    characters, whose first letter starts one of the 10 words before the
    parenthesis), the lowercased last word of the long form (``cells``,
    ``factor``, ``gene``), on every occurrence of W in the abstract
    (Schwartz and Hearst 2003 find the definitions with a stricter rule);
    ``_`` otherwise;
``docnext``
    the lowercased word that most often follows the same word elsewhere in
    the abstract (its other occurrences only; ``_`` when it has none);
``doccap``
    how often the word (compared lowercased) occurs elsewhere in the abstract,
    ``0``, ``1`` or ``2`` (two or more), followed by ``U`` when one of those
    occurrences has an upper-case letter, ``L`` when one is all lower case and
    ``P`` when one follows an opening parenthesis (``IL-2`` in a text that also
    writes ``il-2`` and ``( IL-2``: ``2ULP``).

Templates read them like any column (``abbr[0]``, ``doccap[0]|shape(w[0])``;
the preset ``ner+doc`` is ``ner+affixes`` with the three); with none of them in
``--features`` the run is the plain baseline on the same split, seed and epochs.

Dev: the seeded 10 % carve of ``bench_neural.carve_dev`` or, with
``--contiguous-dev``, the last 10 % of the sentences (whole abstracts).

Usage::

    python benchmarks/bench_docfeatures.py --features 'ner+gaz;abbr[0];docnext[0]' --set l2=8 --seeds 0 --out t.json
    python benchmarks/bench_docfeatures.py --library --features ner+doc --set l2=5 n_jobs=1 --contiguous-dev
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaintag  # noqa: E402
from bench_neural import _loadavg, carve_dev  # noqa: E402
from bench_vectors import _value, write_json  # noqa: E402
from chaintag.data.datasets import resolve  # noqa: E402
from chaintag.features.document import DOCUMENT_COLUMNS, add_document_columns  # noqa: E402
from chaintag.io.columns import iter_sentences  # noqa: E402


def read_documents(path):
    """Sentences (word lists), labels and the document index of each sentence, in file order."""
    words, labels, doc = [], [], []
    d = -1
    for s in iter_sentences(path, markers=True):
        if s.marker is not None:
            d += 1
            continue
        words.append([t[0] for t in s.tokens])
        labels.append([t[-1] for t in s.tokens])
        doc.append(max(d, 0))
    return words, labels, doc


COLUMNS = ("word",) + DOCUMENT_COLUMNS


def document_columns(words, doc):
    """Per sentence, per token: (word, abbr, docnext, doccap), by :mod:`chaintag.features.document`."""
    return add_document_columns([[(w,) for w in ws] for ws in words], doc)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--features", required=True)
    p.add_argument("--algorithm", "-a", default="sapo", help="learner (default: sapo; sapo2: second order)")
    p.add_argument("--set", nargs="*", default=[], metavar="K=V")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--seeds", type=int, default=0)
    p.add_argument("--contiguous-dev", action="store_true")
    p.add_argument("--library", action="store_true",
                   help="read the training file with load_corpus(..., document_columns=True) (the library's "
                        "path, as chaintag train) instead of this script's reader; the same sentences and columns")
    p.add_argument("--out", default=None)
    p.add_argument("--predictions", default=None,
                   help="also write the dev labels and the best epoch's dev predictions here (JSON), "
                        "for a paired significance test")
    args = p.parse_args(argv)
    t_start, c_start = time.perf_counter(), time.process_time()
    t0 = time.perf_counter()
    if args.library:
        corpus = chaintag.load_corpus("jnlpba:train", document_columns=True)
        rows, labels, columns = corpus.tokens, corpus.labels, corpus.columns
    else:
        words, labels, doc = read_documents(resolve("jnlpba:train").path)
        t0 = time.perf_counter()
        rows, columns = document_columns(words, doc), COLUMNS
    doc_seconds = time.perf_counter() - t0
    if args.contiguous_dev:
        where = "last 10% of jnlpba:train (contiguous: whole abstracts)"
        cut = len(rows) - int(round(len(rows) * 0.1))
        (tr, tl), (dr, dl) = (rows[:cut], labels[:cut]), (rows[cut:], labels[cut:])
    else:
        where = "seeded 10% of jnlpba:train (bench_neural.carve_dev, seed 0)"
        (tr, tl), (dr, dl) = carve_dev(rows, labels)
    params = {k: _value(v) for k, v in (s.split("=", 1) for s in args.set)}
    m = chaintag.make_learner(args.algorithm, features=args.features, columns=columns,
                              epochs=args.epochs, random_state=args.seeds, **params)
    m.fit(tr, tl, dev=(dr, dl))
    hist = m.history_
    out = {"algorithm": args.algorithm, "features": args.features, "set": args.set, "reader": "load_corpus" if args.library else "script", "seed": args.seeds, "epochs": args.epochs,
           "dev": "contiguous" if args.contiguous_dev else "seeded carve", "scored_on": where,
           "n_train": len(tr), "n_dev": len(dr),
           "score": round(hist[m.best_epoch_ - 1]["dev_score"], 2), "best_epoch": m.best_epoch_,
           "curve": [round(h["dev_score"], 2) for h in hist],
           "n_attributes": m.extractor_.n_attributes, "n_features": m.feature_index_.n_features,
           "document_columns_seconds": round(doc_seconds, 2),
           "extraction_seconds": round(float((m.extraction_seconds_ + m.extractor_seconds_)), 2),
           "seconds_per_epoch": round(sum(h["seconds"] for h in hist) / len(hist), 3),
           "cpu_seconds_per_epoch": round(sum(h["cpu_seconds"] for h in hist) / len(hist), 3),
           "total_seconds": round(time.perf_counter() - t_start, 1),
           "total_cpu": round(time.process_time() - c_start, 1),
           "loadavg": _loadavg()}
    if args.predictions:
        with open(args.predictions, "w") as fh:
            json.dump({"gold": dl, "pred": [list(y) for y in m.predict(dr)]}, fh)
    write_json(out, args.out)


if __name__ == "__main__":
    main()
