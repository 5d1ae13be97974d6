"""``chaintag tune``: choose a learner's settings and feature set on dev data (grid search, cached)."""

from __future__ import annotations

import shlex

from .common import add_common, add_data_options, log, sep_value


def add_parser(sub) -> None:
    p = sub.add_parser(
        "tune", help="choose a learner's settings and feature set on dev data (grid search)",
        description="Train one run per combination of --features and --grid values, score the dev data "
                    "after every pass, and report the best combination and pass. Never reads test data. "
                    "Runs are cached under OUT/runs (a grid extended later retrains only the new points); "
                    "OUT/tune.csv lists every trial, OUT/best.json the choice.")
    p.add_argument("--algorithm", "-a", default="sapo", help="learner name (default: sapo)")
    p.add_argument("--train", required=True, metavar="DATA", help="training data")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--dev", metavar="DATA", help="dev data (never a test split)")
    g.add_argument("--dev-fraction", type=float, default=0.1, metavar="F",
                   help="without --dev: hold out the last F of the training file (default 0.1)")
    p.add_argument("--features", "-f", nargs="+", required=True, metavar="SPEC",
                   help="candidate feature sets: presets, template files or specs")
    p.add_argument("--clusters", nargs="+", action="extend", metavar="FILE",
                   help="word-cluster resources added to every feature set (see train --clusters)")
    p.add_argument("--grid", nargs="*", default=[], metavar="KEY=V1,V2",
                   help="hyper-parameter values to try, e.g. n_best=5,10 l2=0.5,1,2 (the Python API's names)")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=V", dest="fixed",
                   help="hyper-parameters set in every run, e.g. feature_space=all")
    p.add_argument("--epochs", type=int, default=None, help="passes of every run (default 10; 1 for the "
                                                            "maxent tagger, which has none); the best pass is "
                                                            "chosen on dev")
    p.add_argument("--metric", choices=["f1", "accuracy"], default=None,
                   help="dev score (default: f1 for chunk labels B-X/I-X, else accuracy)")
    p.add_argument("--out", required=True, metavar="DIR", help="cache and report folder")
    add_data_options(p, with_format=True)
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    import inspect

    from ..errors import InputError
    from ..features.spec import with_clusters
    from .research import require_research

    research_tune = require_research("tune")
    format_table, parse_grid, tune = research_tune.format_table, research_tune.parse_grid, research_tune.tune
    learner_class = require_research("config").learner_class
    try:
        cls = learner_class(args.algorithm)
    except ValueError as exc:  # an unknown learner: a usage error
        raise InputError(str(exc)) from None
    has_epochs = "epochs" in inspect.signature(cls.__init__).parameters
    if args.epochs is None:
        args.epochs = 10 if has_epochs else 1
    elif not has_epochs and args.epochs != 1:
        raise InputError(f"--epochs does not apply to {args.algorithm}: it trains to convergence, not in passes")
    if args.epochs < 1:
        raise InputError("--epochs must be at least 1")
    from ..api.train_checks import check_dev_is_not_test
    check_dev_is_not_test(args.dev, None, args.data_dir, "tune")
    grid = parse_grid(args.grid)
    fixed = parse_grid(args.fixed)
    if any(len(v) != 1 for v in fixed.values()):
        raise InputError("--set takes one value per key")
    fixed = {k: v[0] for k, v in fixed.items()}
    from ..features.spec import uses_resources
    # only the feature sets that read clusters name the file (the others keep their cached trials)
    features = [with_clusters(f, args.clusters) if uses_resources(f) else f for f in args.features]
    options = {"columns": args.columns, "label_field": args.label_field, "sep": sep_value(args.sep),
               "encoding": None if args.encoding == "utf-8" else args.encoding, "format": args.format}
    trials, best = tune(args.out, args.algorithm, train=args.train, features=features, grid=grid,
                        dev=args.dev, dev_fraction=args.dev_fraction, epochs=args.epochs, metric=args.metric,
                        fixed=fixed, data_dir=args.data_dir, read_options=options, progress=not args.quiet)
    print(format_table(trials, best))
    params = ",".join(f"{k}={v}" for k, v in best.params.items())
    from ..learners import LEARNERS
    cls = LEARNERS[args.algorithm]
    shown = f"{cls.first_order} --order 2" if cls.order == 2 else args.algorithm
    log(args, f"best on dev ({best.metric}): {best.dev_score:.2f} at epoch {best.best_epoch}: "
              f"--algorithm {shown} --features {shlex.quote(best.features)}"
              + (f" with {params}" if params else ""))
    return 0
