"""``chaintag eval``: score a model on labelled data, or compare two label columns."""

from __future__ import annotations

import time

from .common import add_common, add_data_options, add_scheme_option, figures, load, log, print_json, report


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
                   help="without --model: a file with gold and predicted label columns")
    p.add_argument("--gold-column", type=int, default=-2, metavar="K",
                   help="column of the gold labels, 0-based, negative from the end (default: -2)")
    p.add_argument("--pred-column", type=int, default=-1, metavar="K",
                   help="column of the predicted labels (default: -1)")
    p.add_argument("--json", action="store_true", help="print one JSON object of figures")
    add_scheme_option(p)
    add_data_options(p)
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import InputError
    from ..evaluation import evaluate
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
        test = load(args.test, args)
        gold_labels = {lab for sent in test.labels for lab in sent}
        if gold_labels and not gold_labels & set(model.labels_):
            log(args, f"warning: none of the {len(gold_labels)} gold labels of {test.source} is a label of "
                      "the model (wrong --label-field or --columns?)")
        missing = [c for c in model.columns_ if c not in test.columns]
        if test.n_sentences and missing:
            raise InputError(f"the model reads the column(s) {', '.join(model.columns_)}, but this file "
                             f"has {', '.join(test.columns) or 'none'} besides the labels (set --columns)",
                             test.source)
        if test.n_sentences:
            idx = [test.columns.index(c) for c in model.columns_]
            if idx != list(range(len(test.columns))):
                test.tokens = [[tuple(tok[i] for i in idx) for tok in s] for s in test.tokens]
        result = model.evaluate(test.tokens, test.labels, scheme=args.scheme)
        n_sentences = test.n_sentences
    else:
        if not args.file:
            raise InputError("give --model and --test, or a FILE with gold and predicted label columns")
        from ..data.datasets import resolve
        from ..io.columns import iter_sentences
        from .common import sep_value
        found = resolve(args.file, args.data_dir)
        if found.format == "conllu":
            raise InputError("FILE is a column file with gold and predicted label columns; to score a "
                             "model on CoNLL-U data, use --model MODEL --test FILE", found.path)
        gold, pred = [], []
        for sent in iter_sentences(found.path, sep=sep_value(args.sep), encoding=args.encoding):
            n = len(sent.tokens[0])
            for k in (args.gold_column, args.pred_column):
                if not -n <= k < n:
                    raise InputError(f"column {k} does not exist: the file has {n} columns",
                                     found.path, sent.line)
            gold.append([tok[args.gold_column] for tok in sent.tokens])
            pred.append([tok[args.pred_column] for tok in sent.tokens])
        result = evaluate(gold, pred, scheme=args.scheme)
        n_sentences = len(gold)
    seconds = time.perf_counter() - t0
    if args.json:
        print_json(figures(result, n_sentences, seconds))
    else:
        print(report(result), end="")
    return 0
