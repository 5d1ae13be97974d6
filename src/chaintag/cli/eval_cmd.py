"""``chaintag eval``: score a model on labelled data, or compare two label columns."""

from __future__ import annotations

import time

from .common import add_common, add_data_options, add_scheme_option, figures, log, print_json, report


def add_parser(sub) -> None:
    p = sub.add_parser(
        "eval", help="evaluate a model, or a file with gold and predicted label columns",
        description="With --model: tag --test and score it. Without: read FILE whose last two "
                    "columns are the gold and the predicted labels (as conlleval). Prints a "
                    "conlleval-style report (token accuracy; chunk precision, recall, F1 "
                    "overall and per type), or JSON with --json.")
    p.add_argument("--model", "-m", metavar="PATH", help="model file from chaintag train")
    p.add_argument("--test", "-t", metavar="SOURCE", help="labelled data to tag and score (with --model)")
    p.add_argument("file", nargs="?", metavar="FILE",
                   help="without --model: a file with gold and predicted label columns (- for standard input)")
    p.add_argument("--gold-column", type=int, default=-2, metavar="K",
                   help="column of the gold labels, 0-based, negative from the end (default: -2)")
    p.add_argument("--pred-column", type=int, default=-1, metavar="K",
                   help="column of the predicted labels (default: -1)")
    p.add_argument("--json", action="store_true", help="print one JSON object of figures")
    add_scheme_option(p)
    add_data_options(p, with_format=True)
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import InputError
    from ..learners import load as load_model

    t0 = time.perf_counter()
    if args.model:
        if args.file:
            raise InputError("with --model, give the labelled data with --test; FILE is for "
                             "files of gold and predicted label columns, without --model")
        if not args.test:
            raise InputError("give the labelled data to score with --test")
        model = load_model(args.model)
        if args.label_field is None:  # the CoNLL-U column the model was trained on
            args.label_field = getattr(model, "label_field_", None)
        from ..api.scoring import load_test_data, score_model
        test = load_test_data(model, args.test, args, log=lambda line: log(args, line))
        result = score_model(model, test, scheme=args.scheme, log=lambda line: log(args, line))
        n_sentences = test.n_sentences
    else:
        if not args.file:
            raise InputError("give --model and --test, or a FILE with gold and predicted label columns (- for "
                             "standard input)")
        from ..api.column_scoring import read_label_columns, score_label_columns
        from .common import sep_value
        gold, pred, name = read_label_columns(args.file, args.gold_column, args.pred_column, format=args.format,
                                              sep=sep_value(args.sep), encoding=args.encoding,
                                              data_dir=args.data_dir)
        result = score_label_columns(gold, pred, args.gold_column, args.pred_column, name, scheme=args.scheme,
                                     warn=lambda line: log(args, line))
        n_sentences = len(gold)
    seconds = time.perf_counter() - t0
    if args.json:
        print_json(figures(result, n_sentences, seconds))
    else:
        print(report(result), end="")
    return 0
