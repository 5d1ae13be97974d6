"""``chaintag clusters``: induce word clusters from raw text (or convert word vectors) into a cluster table."""

from __future__ import annotations

import time

from .common import add_common, log


def add_parser(sub) -> None:
    p = sub.add_parser(
        "clusters", help="induce word clusters from raw text for the brownK / kmN template functions",
        description="Train word2vec vectors on raw text (gensim, one thread, seeded), cluster them by "
                    "k-means at several sizes (kmN) and build a binary hierarchy over the finest "
                    "clusters (brownK paths); or, with --vectors, cluster word vectors you bring. "
                    "Writes a cluster table for train --clusters. Needs: pip install 'chaintag[clusters]'.")
    p.add_argument("texts", nargs="*", metavar="TEXT",
                   help="raw text files (one sentence per line, tokens separated by spaces) or dataset "
                        "references of training splits (e.g. conll2000:train: its words are used); "
                        "never dev or test data")
    p.add_argument("--out", required=True, metavar="FILE", help="the cluster table (written atomically)")
    p.add_argument("--vectors", metavar="FILE",
                   help="cluster these word vectors (word2vec/GloVe/fastText text format) instead of "
                        "training vectors on TEXT; their words are looked up as they are")
    p.add_argument("--k", type=int, nargs="+", default=[64, 256, 1024], metavar="N",
                   help="numbers of k-means clusters (default: 64 256 1024); the hierarchy is built "
                        "over the largest")
    p.add_argument("--dim", type=int, default=100, help="word2vec vector size (default 100)")
    p.add_argument("--window", type=int, default=5, help="word2vec context window (default 5)")
    p.add_argument("--min-count", type=int, default=2, help="ignore rarer words (default 2)")
    p.add_argument("--iter", type=int, default=5, dest="epochs", help="word2vec passes (default 5)")
    p.add_argument("--skip-gram", action="store_true", help="skip-gram instead of CBOW")
    p.add_argument("--keep-case", action="store_true",
                   help="keep case and digits (default: words lowercased and digits mapped to 0, "
                        "before training and before every lookup)")
    p.add_argument("--save-vectors", metavar="FILE",
                   help="also write the word2vec vectors (text format), e.g. to cluster them again with "
                        "other --k values through --vectors")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data-dir", metavar="DIR", help="data directory for dataset references")
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import InputError
    from ..io.atomic import check_writable, refuse_inputs_as_output
    from ..resources.files import read_vectors, write_cluster_table
    from ..resources.induce import _kmeans, check_settings, hierarchy_paths, induce, read_sentences

    check_writable(args.out, "--out")
    refuse_inputs_as_output(args.out, list(args.texts) + [args.vectors, args.save_vectors])
    if args.save_vectors:
        check_writable(args.save_vectors, "--save-vectors")
        refuse_inputs_as_output(args.save_vectors, list(args.texts) + [args.vectors], "--save-vectors")
    check_settings(ks=args.k, dim=args.dim, window=args.window, min_count=args.min_count, epochs=args.epochs,
                   seed=args.seed)
    t0 = time.perf_counter()
    if args.vectors:
        if args.texts:
            raise InputError("give either TEXT files or --vectors, not both")
        maps = read_vectors(args.vectors)
        ks = sorted(set(args.k))
        centers = None
        for k in ks:
            try:
                maps.clusters[k], centers = _kmeans(maps.vectors, k, args.seed)
            except InputError as exc:
                raise InputError(exc.message, args.vectors) from None
        leaf = hierarchy_paths(centers)
        maps.paths = [leaf[c] if c >= 0 else "" for c in maps.clusters[ks[-1]].tolist()]
        settings = {"method": "vectors+kmeans+ward", "vectors": args.vectors, "ks": ks, "seed": args.seed,
                    "words": len(maps.words)}
    else:
        if not args.texts:
            raise InputError("give TEXT files (or dataset references of training splits) or --vectors")
        sentences = list(read_sentences(args.texts, args.data_dir))
        if not sentences:
            raise InputError("the text holds no tokens")
        maps, settings = induce(sentences, ks=args.k, dim=args.dim, window=args.window,
                                min_count=args.min_count, epochs=args.epochs, sg=args.skip_gram,
                                normalize=() if args.keep_case else ("lower", "norm"), seed=args.seed,
                                log=lambda m: log(args, m), source=", ".join(map(str, args.texts)))
        settings["texts"] = list(args.texts)
    if args.save_vectors and not args.vectors:
        from ..resources.files import write_vectors
        write_vectors(args.save_vectors, maps)
    seconds = round(time.perf_counter() - t0, 1)  # logged, not written: the same input gives the same bytes
    write_cluster_table(args.out, maps, settings)
    from ..progress import plural
    log(args, f"wrote {plural(len(maps.words), 'word')} to {args.out} in {seconds} s")
    return 0
