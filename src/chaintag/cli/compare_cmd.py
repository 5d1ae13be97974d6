"""``chaintag compare``: several learners on the same data, with curves and significance tests."""

from __future__ import annotations

import shlex
import sys
import time

from .common import add_common, add_data_options, sep_value


def add_parser(sub) -> None:
    p = sub.add_parser(
        "compare", help="train several learners on the same data and compare them (scores, curves, "
                        "time, weight size, significance)",
        description="Train every learner on the same training data and attributes, score the test data "
                    "after every epoch, and write a report folder: a Markdown table (also printed), "
                    "CSV files and a PNG of the curves. Each learner's epoch is chosen on --dev when "
                    "given (else the last epoch is read); p-values compare each learner with the first "
                    "(approximate randomization on the corpus score, paired t-test on per-sentence "
                    "accuracy). Finished runs are cached under OUT/runs and reused.")
    p.add_argument("--algorithms", "-a", nargs="+", required=True, metavar="SPEC",
                   help="learners, each NAME or NAME:key=value,key=value, e.g. perceptron "
                        "perceptron:averaged=false sapo:n_best=10 crf crf-lbfgs mira nbest-mira maxent:C=3 "
                        "perceptron2 (the second-order perceptron); the first one is the reference of the "
                        "p-values. Keys are the Python API's parameter names (help(chaintag.SAPO), ...)")
    p.add_argument("--features", "-f", default="pos", help="attribute preset or templates (default: pos)")
    p.add_argument("--clusters", nargs="+", action="extend", metavar="FILE",
                   help="word-cluster resources for brownK / kmN templates (see train --clusters)")
    p.add_argument("--train", required=True, metavar="DATA",
                   help="training data: dataset reference or file (column roles: see --columns)")
    p.add_argument("--test", required=True, metavar="DATA", help="test data")
    p.add_argument("--dev", metavar="DATA", help="development data choosing each learner's epoch")
    p.add_argument("--epochs", type=int, default=10, metavar="N", help="epochs of every learner (default: 10)")
    p.add_argument("--out", required=True, metavar="DIR", help="report folder")
    add_data_options(p, with_format=True)
    add_common(p)
    from .interrupt import cached_runs_hint
    p.set_defaults(run=run, resume_hint=cached_runs_hint)


def run(args) -> int:
    from ..errors import InputError
    from .research import require_research
    compare = require_research("compare").compare
    report = require_research("report")
    fmt, fmt_p = report.fmt, report.fmt_p

    if args.epochs < 1:
        raise InputError("--epochs must be at least 1")
    if args.clusters:
        from ..features.spec import uses_resources, with_clusters
        if uses_resources(args.features):
            args.features = with_clusters(args.features, args.clusters)
        else:  # as train says of resources that no template reads
            print(f"warning: --clusters {' '.join(args.clusters)} not used: no template of --features "
                  f"{args.features} reads word clusters or vectors (brownK, kmN, vec)", file=sys.stderr)
    options = {"columns": args.columns, "label_field": args.label_field, "sep": sep_value(args.sep),
               "encoding": None if args.encoding == "utf-8" else args.encoding, "format": args.format}
    parts = ["chaintag", "compare", "-a", *args.algorithms, "--features", args.features, "--train", args.train,
             "--test", args.test] + (["--dev", args.dev] if args.dev else []) + ["--epochs", str(args.epochs)]
    for opt in ("data_dir", "columns", "label_field", "sep", "format"):
        if getattr(args, opt):
            parts += ["--" + opt.replace("_", "-"), getattr(args, opt)]
    if options["encoding"]:
        parts += ["--encoding", args.encoding]
    command = shlex.join(parts + ["--out", args.out])
    t0 = time.perf_counter()
    try:
        path, rows = compare(args.out, args.algorithms, features=args.features, train=args.train, test=args.test,
                             dev=args.dev, epochs=args.epochs, data_dir=args.data_dir, read_options=options,
                             progress=not args.quiet, command=command)
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc)) from None
    width = max(len(r["learner"]) for r in rows)
    print(f"{'learner':<{width}}  epoch    test  AR p vs first  t-test p  CPU s/epoch")
    for r in rows:
        print(f"{r['learner']:<{width}}  {r['epoch']:>5}  {fmt(r['score']):>6}  "
              f"{fmt_p(r['ar_p']) if r['ar_p'] is not None else '-':>13}  "
              f"{fmt_p(r['t_p']) if r['t_p'] is not None else '-':>8}  {fmt(r['cpu_seconds_per_epoch'], 3):>11}")
    if not args.quiet:
        print(f"report: {path} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return 0
