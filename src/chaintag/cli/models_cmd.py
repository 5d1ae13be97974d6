"""``chaintag models``: list the models known by name, build one into the cache folder."""

from __future__ import annotations

import sys

from .common import add_common


def add_parser(sub) -> None:
    p = sub.add_parser("models", help="list the models known by name (built in or buildable), or build one",
                       description="Models known by name work as --model NAME and chaintag.load(NAME): the "
                                   "built-in ones (shipped with chaintag) at once, the others after "
                                   "`chaintag models build NAME` trained them on the data directory into "
                                   "the cache folder ($CHAINTAG_CACHE, else $XDG_CACHE_HOME/chaintag, else "
                                   "~/.cache/chaintag).")
    msub = p.add_subparsers(dest="models_command", metavar="ACTION")
    msub.required = True
    lp = msub.add_parser("list", help="the known models: what they tag, size, accuracy, licence, and state "
                                      "(built-in, built, buildable from the data directory, not available)")
    lp.add_argument("--data-dir", metavar="DIR", help="the data directory (default: as for dataset references)")
    add_common(lp)
    lp.set_defaults(run=run_list)
    bp = msub.add_parser("build", help="train a known model with its default settings and keep it in the "
                                       "cache folder (or --output)")
    bp.add_argument("name", help="model name (see chaintag models list)")
    bp.add_argument("--data-dir", metavar="DIR", help="the data directory (default: as for dataset references)")
    bp.add_argument("--output", "-o", metavar="PATH",
                    help="save the model here instead of the cache folder (needed to rebuild a built-in "
                         "model; the SHA-256 is compared with the shipped file's)")
    add_common(bp)
    bp.set_defaults(run=run_build)


def _size(n: int | None) -> str:
    return "-" if n is None else f"{n / 1e6:.1f} MB"


def _scores(info) -> str:
    if not info.scores:
        return "not measured"
    return info.metric + " " + ", ".join(f"{split} {value:.2f}" for split, value in info.scores.items())


def run_list(args) -> int:
    from ..api.builtin_models import list_models
    from ..data.location import resolve_data_dir
    from ..models.cache import cache_dir
    rows = list_models(args.data_dir)
    print(f"data directory: {resolve_data_dir(args.data_dir)}; built models are kept in {cache_dir() / 'models'}")
    for st in rows:
        info = st.info
        where = info.train_source() + ("" if st.state != "not available" else
                                       f" (not in the data directory: chaintag data fetch {info.dataset})")
        print(f"  {info.name:<11} {st.state:<13} {_size(st.size):>7}  {info.tags}")
        print(f"  {'':<11} reads {info.reads}; trained on {where}; {_scores(info)}")
        print(f"  {'':<11} licence: {info.licence}")
    return 0


def run_build(args) -> int:
    from ..api.builtin_models import build_model

    def log(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr)

    result = build_model(args.name, data_dir=args.data_dir, output=args.output, log=log)
    print(f"{result.info.name}: {result.path} ({_size(result.size)}, {result.seconds:.1f} s)")
    print(f"sha256 {result.sha256}")
    if result.matches_shipped is not None:
        verdict = "the same bytes as" if result.matches_shipped else "DIFFERENT from"
        print(f"{verdict} the shipped {result.info.file_name} (sha256 {result.info.sha256})")
        return 0 if result.matches_shipped else 1
    return 0
