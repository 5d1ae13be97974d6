"""``chaintag plot``: training curves of one or more runs as a PNG."""

from __future__ import annotations

import os

from .common import add_common, log


def add_parser(sub) -> None:
    p = sub.add_parser(
        "plot", help="plot training curves (dev score, weight complexity, errors, time per epoch)",
        description="Draw the per-epoch curves of one or more training runs into one PNG, one panel per "
                    "figure, one line per run: from history files (chaintag train --history PATH) or "
                    "from model files, which keep their history.")
    p.add_argument("inputs", nargs="+", metavar="HISTORY",
                   help="history JSON-lines files or model files (model files keep no timings: for the "
                        "seconds panels, use --history files)")
    p.add_argument("--output", "-o", required=True, metavar="FILE",
                   help="the figure: .png (default), .svg or .pdf by the extension (written atomically)")
    p.add_argument("--labels", nargs="+", metavar="NAME",
                   help="a legend name per input (default: the file names without extension)")
    p.add_argument("--metrics", nargs="+", metavar="KEY",
                   help="panels to draw: dev_score, dev_f1, dev_accuracy, weight_complexity, errors, updates, "
                        "loss, seconds, cpu_seconds (default: dev_score weight_complexity errors seconds, "
                        "those present)")
    p.add_argument("--title", help="title over the panels")
    add_common(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import InputError
    from ..io.history import read_history
    from .research import require_research

    plot_histories = require_research("curves").plot_histories

    if args.labels and len(args.labels) != len(args.inputs):
        raise InputError(f"--labels names {len(args.labels)} run(s) for {len(args.inputs)} input(s)")
    if args.output == "-":
        raise InputError("--output: a figure is written to a file (.png, .svg or .pdf), not to standard output")
    if os.path.isdir(args.output):
        raise InputError("--output is a folder; give a file name such as curves.png", args.output)
    from ..io.atomic import check_writable
    check_writable(args.output, "--output")  # no folders made for a mistyped path
    from ..io.atomic import refuse_inputs_as_output
    refuse_inputs_as_output(args.output, args.inputs, "--output")
    ext = os.path.splitext(args.output)[1].lower()
    if ext not in ("", ".png", ".svg", ".pdf"):
        raise InputError(f"--output: a figure is written as .png, .svg or .pdf, not {ext}", args.output)
    real = [os.path.realpath(i) for i in args.inputs]
    if len(set(real)) != len(real):
        raise InputError("the same file is given twice")
    if args.labels:
        if not all(label.strip() for label in args.labels):
            raise InputError("--labels: every run needs a non-empty name")
        if len(set(args.labels)) != len(args.labels):
            raise InputError("--labels: two runs have the same name")
        labels = args.labels
    else:
        labels = [os.path.splitext(os.path.basename(i))[0] for i in args.inputs]
        if len(set(labels)) != len(labels):
            labels = [os.fspath(i) for i in args.inputs]
    metrics = list(dict.fromkeys(args.metrics)) if args.metrics else None
    histories = {label: read_history(path) for label, path in zip(labels, args.inputs)}
    try:
        drawn = plot_histories(histories, args.output, metrics=metrics, title=args.title)
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc)) from None
    log(args, f"wrote {args.output}: {', '.join(drawn)} for {len(histories)} run(s)")
    return 0
