"""Dev trials: fastText subword vectors (Bojanowski et al. 2017) and Brown clusters (Brown et al. 1992).

``fasttext`` trains gensim's FastText (skip-gram) on the unlabeled text and a
task's training text (``bench_neural.py train-text``), and writes a word2vec
text file with a vector for every word of that text plus the words of the given
dataset references that the text lacks: those vectors come from their character
n-grams alone, as a tagger would compute them for a new word (the references'
words are read, never their labels). ``brown`` runs the ``brown-clustering``
package (PyPI; not a dependency of chaintag: ``pip install brown-clustering``)
and writes a Brown ``paths`` file (bit string, word, count) that ``--clusters``
reads. Words are lowercased with digits mapped to 0, as ``chaintag clusters``
does.

Usage::

    python benchmarks/subword_vectors.py fasttext --text ud-train.txt --refs ud_en_ewt:train ud_en_ewt:dev --out ud-ft100.txt
    python benchmarks/subword_vectors.py brown --text conll2000-train.txt --clusters 256 --min-count 3 --out brown256.txt
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time

_DIGITS = re.compile(r"\d")


def norm(word: str) -> str:
    return _DIGITS.sub("0", word.lower())


def read_text(extra: str, data_dir: str | None) -> list[list[str]]:
    """The unlabeled text (every file of ``unlabeled_en``) and ``extra``, one sentence a line, normalized."""
    from chaintag.data.datasets import resolve_data_dir
    folder = os.path.join(os.fspath(resolve_data_dir(data_dir)), "unlabeled_en")
    files = sorted(glob.glob(os.path.join(folder, "*.txt"))) + [extra]
    sents = []
    for path in files:
        with open(path, encoding="utf-8") as fh:
            sents.extend([norm(w) for w in ln.split()] for ln in fh if ln.strip())
    print(f"{len(sents)} sentences, {sum(map(len, sents))} tokens from {len(files)} files", file=sys.stderr)
    return sents


def fasttext(args) -> None:
    import chaintag
    from gensim.models import FastText
    sents = read_text(args.text, args.data_dir)
    t0 = time.perf_counter()
    model = FastText(sents, vector_size=args.dim, window=5, min_count=2, sg=1, epochs=5, workers=1, seed=0,
                     min_n=3, max_n=6, bucket=args.buckets)
    print(f"fastText: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    words = list(model.wv.index_to_key)
    seen = set(words)
    for ref in args.refs:
        for sent in chaintag.load_corpus(ref, data_dir=args.data_dir).tokens:
            for tok in sent:
                w = norm(tok[0])
                if w not in seen:
                    seen.add(w)
                    words.append(w)
    with open(args.out + ".tmp", "w", encoding="utf-8") as fh:
        fh.write(f"{len(words)} {args.dim}\n")
        for w in words:
            fh.write(w + " " + " ".join(f"{x:.5f}" for x in model.wv[w]) + "\n")
    os.replace(args.out + ".tmp", args.out)


def brown(args) -> None:
    from brown_clustering import BigramCorpus, BrownClustering
    sents = read_text(args.text, args.data_dir)
    t0 = time.perf_counter()
    corpus = BigramCorpus(sents, alpha=args.alpha, min_count=args.min_count)
    clustering = BrownClustering(corpus, args.clusters)
    clustering.train()
    print(f"Brown: {len(corpus.vocabulary)} words, {args.clusters} clusters, {time.perf_counter() - t0:.1f} s",
          file=sys.stderr)
    # the package's codes record every merge a word's cluster took part in (thousands of bits for
    # frequent words); brownK reads at most 64, so the first --max-bits are kept
    with open(args.out + ".tmp", "w", encoding="utf-8") as fh:
        for w, code in sorted(clustering.codes().items()):
            fh.write(f"{code[:args.max_bits]}\t{w}\t{corpus.vocabulary.get(w, 0)}\n")
    os.replace(args.out + ".tmp", args.out)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=["fasttext", "brown"])
    p.add_argument("--text", required=True, help="the task's training text, one sentence a line")
    p.add_argument("--refs", nargs="*", default=[], help="fasttext: dataset references whose words get vectors")
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--buckets", type=int, default=200000)
    p.add_argument("--clusters", type=int, default=256, help="brown: the active clusters (leaves)")
    p.add_argument("--min-count", type=int, default=3)
    p.add_argument("--alpha", type=float, default=0.01, help="brown: the package's additive smoothing")
    p.add_argument("--max-bits", type=int, default=32, help="brown: bits of each path kept")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    (fasttext if args.mode == "fasttext" else brown)(args)


if __name__ == "__main__":
    main()
