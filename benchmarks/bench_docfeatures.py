"""Document-level attributes on JNLPBA (dev trials only): columns computed from each token's abstract.

The training file carries ``###MEDLINE:<id>`` lines; the readers drop them and
the learners take sentences, so this script reads the file itself, computes
per-token document columns from the text of the token's abstract (no labels),
and trains SAPO on tokens ``(word, abbr, docnext, doccap)``:

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

Templates read them like any column (``abbr[0]``, ``doccap[0]|shape(w[0])``);
with none of them in ``--features`` the run is the plain baseline on the same
split, seed and epochs.

Dev: the seeded 10 % carve of ``bench_neural.carve_dev`` or, with
``--contiguous-dev``, the last 10 % of the sentences (whole abstracts).

Usage::

    python benchmarks/bench_docfeatures.py --features 'ner+gaz;abbr[0];docnext[0]' --set l2=8 --seeds 0 --out t.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaintag  # noqa: E402
from bench_neural import _loadavg, carve_dev  # noqa: E402
from bench_vectors import _value  # noqa: E402
from chaintag.data.datasets import resolve  # noqa: E402
from chaintag.io.columns import iter_sentences  # noqa: E402

NONE = "_"


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


def _definitions(sent):
    """(abbreviation, lowercased last word of its long form) defined in one sentence."""
    out = []
    for i in range(1, len(sent) - 2):
        if sent[i] != "(" or sent[i + 2] != ")":
            continue
        w = sent[i + 1]
        if not (2 <= len(w) <= 10 and any(c.isupper() for c in w)):
            continue
        first = w[0].lower()
        if any(x[:1].lower() == first for x in sent[max(0, i - 10):i]):
            out.append((w, sent[i - 1].lower()))
    return out


def _form(ws, i):
    w = ws[i]
    return (any(c.isupper() for c in w), w == w.lower() and any(c.isalpha() for c in w),
            i > 0 and ws[i - 1] == "(")


COLUMNS = ("word", "abbr", "docnext", "doccap")


def document_columns(words, doc):
    """Per sentence, per token: (word, abbr, docnext, doccap)."""
    by_doc = defaultdict(list)
    for s, d in enumerate(doc):
        by_doc[d].append(s)
    rows = [None] * len(words)
    for d, sents in by_doc.items():
        abbr = {}
        nexts = defaultdict(Counter)  # word -> Counter of next words, per (sentence, position) occurrence
        forms = defaultdict(Counter)  # lowercased word -> Counter of (upper?, lower?, after "("?) per occurrence
        for s in sents:
            for w, head in _definitions(words[s]):
                abbr.setdefault(w, head)
            ws = words[s]
            for i in range(len(ws) - 1):
                nexts[ws[i]][ws[i + 1].lower()] += 1
            for i, w in enumerate(ws):
                forms[w.lower()][_form(ws, i)] += 1
        for s in sents:
            ws = words[s]
            row = []
            for i, w in enumerate(ws):
                c = nexts.get(w)
                nxt = NONE
                if c:
                    c = c.copy()
                    if i + 1 < len(ws):
                        c[ws[i + 1].lower()] -= 1  # its other occurrences only
                    best = [(n, x) for x, n in c.items() if n > 0]
                    if best:
                        nxt = min(best, key=lambda t: (-t[0], t[1]))[1]
                f = forms[w.lower()].copy()
                f[_form(ws, i)] -= 1  # its other occurrences only
                others = [k for k, n in f.items() if n > 0]
                cap = str(min(sum(f.values()), 2)) + "".join(
                    flag for j, flag in enumerate("ULP") if any(k[j] for k in others))
                row.append((w, abbr.get(w, NONE), nxt, cap))
            rows[s] = row
    return rows


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--features", required=True)
    p.add_argument("--set", nargs="*", default=[], metavar="K=V")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--seeds", type=int, default=0)
    p.add_argument("--contiguous-dev", action="store_true")
    p.add_argument("--out", default=None)
    p.add_argument("--predictions", default=None,
                   help="also write the dev labels and the best epoch's dev predictions here (JSON), "
                        "for a paired significance test")
    args = p.parse_args(argv)
    t_start, c_start = time.perf_counter(), time.process_time()
    words, labels, doc = read_documents(resolve("jnlpba:train").path)
    t0 = time.perf_counter()
    rows = document_columns(words, doc)
    doc_seconds = time.perf_counter() - t0
    if args.contiguous_dev:
        where = "last 10% of jnlpba:train (contiguous: whole abstracts)"
        cut = len(rows) - int(round(len(rows) * 0.1))
        (tr, tl), (dr, dl) = (rows[:cut], labels[:cut]), (rows[cut:], labels[cut:])
    else:
        where = "seeded 10% of jnlpba:train (bench_neural.carve_dev, seed 0)"
        (tr, tl), (dr, dl) = carve_dev(rows, labels)
    params = {k: _value(v) for k, v in (s.split("=", 1) for s in args.set)}
    m = chaintag.make_learner("sapo", features=args.features, columns=COLUMNS,
                              epochs=args.epochs, random_state=args.seeds, **params)
    m.fit(tr, tl, dev=(dr, dl))
    hist = m.history_
    out = {"features": args.features, "set": args.set, "seed": args.seeds, "epochs": args.epochs,
           "dev": "contiguous" if args.contiguous_dev else "seeded carve", "scored_on": where,
           "n_train": len(tr), "n_dev": len(dr),
           "score": round(hist[m.best_epoch_ - 1]["dev_score"], 2), "best_epoch": m.best_epoch_,
           "curve": [round(h["dev_score"], 2) for h in hist],
           "n_attributes": m.extractor_.n_attributes, "n_features": m.feature_index_.n_features,
           "document_columns_seconds": round(doc_seconds, 2),
           "extraction_seconds": round(float(m.extraction_seconds_), 2),
           "seconds_per_epoch": round(sum(h["seconds"] for h in hist) / len(hist), 3),
           "cpu_seconds_per_epoch": round(sum(h["cpu_seconds"] for h in hist) / len(hist), 3),
           "total_seconds": round(time.perf_counter() - t_start, 1),
           "total_cpu": round(time.process_time() - c_start, 1),
           "loadavg": _loadavg()}
    if args.predictions:
        with open(args.predictions, "w") as fh:
            json.dump({"gold": dl, "pred": [list(y) for y in m.predict(dr)]}, fh)
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        with open(args.out + ".tmp", "w") as fh:
            fh.write(text + "\n")
        os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
