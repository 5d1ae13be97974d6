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
        test = _load_like_training(model, args)
        from ..api.scoring import score_model
        result = score_model(model, test, scheme=args.scheme, log=lambda line: log(args, line))
        n_sentences = test.n_sentences
    else:
        if not args.file:
            raise InputError("give --model and --test, or a FILE with gold and predicted label columns")
        import sys

        from ..data.datasets import resolve, stdin_source
        from ..io.columns import iter_sentences
        from .common import sep_value
        if args.file == "-":
            source, fmt = stdin_source(args.format)
            name = "<stdin>"
        else:
            found = resolve(args.file, args.data_dir)
            source, fmt, name = found.path, args.format or found.format, str(found.path)
            if fmt is None:  # a named pipe or <(...): opened once, its format sniffed from the same stream
                from ..data.datasets import open_stream
                source, fmt = open_stream(found.path)
        if fmt == "conllu":
            raise InputError("FILE is a column file with gold and predicted label columns; to score a "
                             "model on CoNLL-U data, use --model MODEL --test FILE", name)
        gold, pred = [], []
        for sent in iter_sentences(source, sep=sep_value(args.sep), encoding=args.encoding, name=name):
            n = len(sent.tokens[0])
            for k in (args.gold_column, args.pred_column):
                if not -n <= k < n:
                    raise InputError(f"column {k} does not exist: the file has {n} columns",
                                     name, sent.line)
            gold.append([tok[args.gold_column] for tok in sent.tokens])
            pred.append([tok[args.pred_column] for tok in sent.tokens])
        _check_columns_share_labels(gold, pred, args, name, sys.stderr)
        result = evaluate(gold, pred, scheme=args.scheme)
        n_sentences = len(gold)
    seconds = time.perf_counter() - t0
    if args.json:
        print_json(figures(result, n_sentences, seconds))
    else:
        print(report(result), end="")
    return 0


def _load_like_training(model, args):
    """The --test data, read with the column roles named at training (``--columns``, recorded with the
    model) when none are given and the file has as many columns; else as given."""
    from ..errors import InputError
    spec = (getattr(model, "training_summary_", None) or {}).get("column_spec")
    if args.columns or not spec:
        return load(args.test, args)
    try:
        test = load(args.test, args, columns=spec)
    except InputError:  # another layout: read as the options say
        return load(args.test, args)
    log(args, f"note: the columns of {test.source} are read as at training: --columns {spec} "
              "(give --columns to choose)")
    return test


#: A gold column with at least this many distinct values, and this many times those of the predicted
#: column, holds words: the file is a word-and-label file that was never tagged.
WORDLIKE_MIN = 50
WORDLIKE_RATIO = 5


def _check_columns_share_labels(gold, pred, args, name: str, err) -> None:
    """Refuse (or, for two or fewer labels, warn about) gold and predicted columns with no label in common,
    and refuse a gold column that holds words (:data:`WORDLIKE_MIN`, :data:`WORDLIKE_RATIO`).

    Two columns that share no label hold two kinds of labels (POS tags and chunk
    labels, say): the predicted column is then most likely missing, and scoring
    them would print a meaningless 0.
    """
    from ..errors import InputError
    gold_set = {lab for s in gold for lab in s}
    pred_set = {lab for s in pred for lab in s}
    if len(gold_set) >= WORDLIKE_MIN and len(gold_set) >= WORDLIKE_RATIO * len(pred_set):
        # an untagged word-and-label file read as gold (the words) and predicted (the labels) columns
        raise InputError(f"the gold column ({args.gold_column}) holds {len(gold_set)} distinct values against "
                         f"{len(pred_set)} in the predicted column ({args.pred_column}): it looks like words, "
                         "not labels, so the file is probably not tagged. FILE must end with the gold and the "
                         "predicted labels (tag it with chaintag tag first, or score a model with --model and "
                         "--test; other columns: --gold-column, --pred-column)", name)
    if not gold_set or not pred_set or gold_set & pred_set:
        return

    def show(labels):
        labels = sorted(labels)
        return ", ".join(labels[:6]) + (f", ... ({len(labels)} labels)" if len(labels) > 6 else "")

    message = (f"the gold column ({args.gold_column}) and the predicted column ({args.pred_column}) share no "
               f"label (gold: {show(gold_set)}; predicted: {show(pred_set)}): they look like two different "
               "kinds of labels, so the predicted labels are probably missing. FILE must end with the gold "
               "and the predicted labels (tag it with chaintag tag first, or score a model with --model "
               "and --test; other columns: --gold-column, --pred-column)")
    if len(gold_set | pred_set) >= 3:
        raise InputError(message, name)
    if not args.quiet:
        print(f"warning: {name}: {message}", file=err)
