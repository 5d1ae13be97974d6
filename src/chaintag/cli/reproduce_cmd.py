"""``chaintag reproduce``: rerun a paper's experiments and write a report (Markdown, CSV, PNG)."""

from __future__ import annotations

import shlex
import time

from .common import add_common

PAPERS = ("collins2002", "sapo")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "reproduce", help="reproduce a paper's experiments (collins2002, sapo) into a report folder",
        description="Train every run of a paper's experiments, scoring the test set after every epoch, and "
                    "write a Markdown report with tables (ours next to the published figures), CSV files "
                    "and PNG plots. Finished runs are cached under OUT/runs and reused, so an interrupted "
                    "reproduction continues where it stopped.")
    p.add_argument("paper", choices=PAPERS,
                   help="collins2002: perceptron vs maximum entropy (POS, base NP, UD POS); sapo: SAPO against "
                        "CRF, perceptron, MIRA and BiLSTM taggers (chunking, POS), n sweeps, A* against beam")
    p.add_argument("--out", metavar="DIR", help="report folder (default: results/PAPER)")
    p.add_argument("--quick", action="store_true",
                   help="tiny subsets (300 training sentences, 3 epochs, fewer runs): a smoke test "
                        "(collins2002 about 50 s on 2 cores; sapo about 5 s with --no-neural, about 95 s with "
                        "its BiLSTM rows, the first run reading the GloVe vectors). Its verdicts are smoke "
                        "too: 3 passes are too few to test the claims on passes and speed")
    p.add_argument("--epochs", type=int, metavar="N", help="epochs of every run (default: the paper module's)")
    p.add_argument("--tasks", nargs="+", metavar="TASK",
                   help="tasks to run; collins2002: pos, np, ud (default: all three); sapo: chunking, pos, "
                        "np, ner, ud (default: chunking pos)")
    p.add_argument("--no-sweep", action="store_true", help="sapo only: leave out the sweep of n")
    p.add_argument("--order", choices=("shuffled", "file", "both"), default="shuffled",
                   help="sapo only: sentence order of every learner: seeded random order (default), file order, "
                        "or both (file-order runs as extra rows)")
    p.add_argument("--no-beam", action="store_true", help="sapo only: leave out SAPO with a beam of width 50")
    p.add_argument("--no-neural", action="store_true", help="sapo only: leave out the neural (BiLSTM) rows")
    p.add_argument("--neural-epochs", type=int, metavar="N",
                   help="sapo only: passes of the BiLSTM and BiLSTM-CRF runs (default 10)")
    p.add_argument("--neural-tasks", nargs="+", metavar="TASK",
                   help="sapo only: tasks that get the neural rows (default: every task run)")
    p.add_argument("--neural-seeds", type=int, metavar="K",
                   help="sapo only: seeds 0..K-1 of every neural run, for the comparison of the softmax, CRF and "
                        "SAPO output layers on one encoder (default 3; 1 with --quick)")
    p.add_argument("--embeddings", metavar="FILE",
                   help="sapo only: word vectors of the neural learners (default: the data directory's GloVe "
                        "file when present); 'none' for none")
    p.add_argument("--reuse-older-code", action="store_true",
                   help="read back finished runs of the same settings and data trained by an earlier version of "
                        "the code instead of training them again (the report names them); for long neural runs")
    p.add_argument("--finished-only", action="store_true",
                   help="train nothing: write the report of the runs already finished (it names those left out)")
    from ..recipes import chosen
    p.add_argument("--presets", action="store_true",
                   help="sapo only: add SAPO with each task's recipe chosen on dev data ("
                        + ", ".join(f"{task}: {name}" for task, name in chosen().items())
                        + ") and a table of it against the paper's SAPO, the averaged perceptron, the CRF and "
                          "the neural rows, with p-values")
    p.add_argument("--preset-resources", nargs="+", metavar="TASK=FILES",
                   help="sapo --presets: the cluster / vector files of the recipes that read them, per task, "
                        "comma-separated (e.g. chunking=vt.tsv,w2v.txt np=vt.tsv,w2v.txt pos=clusters.tsv)")
    p.add_argument("--data-dir", metavar="DIR",
                   help="data directory for the datasets (default: $CHAINTAG_DATA, else ../shared/data if it "
                        "exists, else ~/.local/share/chaintag/data)")
    add_common(p)
    from .interrupt import cached_runs_hint
    p.set_defaults(run=run, resume_hint=cached_runs_hint)


def _command_line(args, out: str) -> str:
    parts = ["chaintag", "reproduce", args.paper]
    if args.quick:
        parts.append("--quick")
    if args.epochs:
        parts += ["--epochs", str(args.epochs)]
    if args.tasks:
        parts += ["--tasks", *args.tasks]
    if args.no_sweep:
        parts.append("--no-sweep")
    if args.order != "shuffled":
        parts += ["--order", args.order]
    if args.no_beam:
        parts.append("--no-beam")
    if args.no_neural:
        parts.append("--no-neural")
    if args.neural_epochs:
        parts += ["--neural-epochs", str(args.neural_epochs)]
    if args.neural_tasks:
        parts += ["--neural-tasks", *args.neural_tasks]
    if args.neural_seeds:
        parts += ["--neural-seeds", str(args.neural_seeds)]
    if args.embeddings:
        parts += ["--embeddings", args.embeddings]
    if args.reuse_older_code:
        parts.append("--reuse-older-code")
    if args.finished_only:
        parts.append("--finished-only")
    if args.presets:
        parts.append("--presets")
    if args.preset_resources:
        parts += ["--preset-resources", *args.preset_resources]
    if args.data_dir:
        parts += ["--data-dir", args.data_dir]
    parts += ["--out", out]
    return shlex.join(parts)


def run(args) -> int:
    from ..errors import InputError
    from .research import require_research
    require_research()
    if args.epochs is not None and args.epochs < 1:
        raise InputError("--epochs must be at least 1")
    if args.neural_epochs is not None and args.neural_epochs < 1:
        raise InputError("--neural-epochs must be at least 1")
    if args.neural_seeds is not None and args.neural_seeds < 1:
        raise InputError("--neural-seeds must be at least 1")
    if args.paper != "sapo":
        for flag, given in (("--no-sweep", args.no_sweep), ("--order", args.order != "shuffled"),
                            ("--no-beam", args.no_beam), ("--no-neural", args.no_neural),
                            ("--neural-epochs", args.neural_epochs is not None),
                            ("--neural-tasks", args.neural_tasks is not None), ("--presets", args.presets),
                            ("--neural-seeds", args.neural_seeds is not None),
                            ("--embeddings", args.embeddings is not None),
                            ("--reuse-older-code", args.reuse_older_code),
                            ("--finished-only", args.finished_only),
                            ("--preset-resources", args.preset_resources is not None)):
            if given:
                raise InputError(f"{flag} applies to the sapo reproduction only")
    out = args.out if args.out is not None else f"results/{args.paper}"
    command = _command_line(args, out)
    t0 = time.perf_counter()
    if args.paper == "collins2002":
        collins2002 = require_research("collins2002")
        try:
            path = collins2002.reproduce(out, quick=args.quick, data_dir=args.data_dir, progress=not args.quiet,
                                         epochs=args.epochs, tasks=args.tasks, command=command)
        except ValueError as exc:
            raise InputError(str(exc)) from None
    else:
        sapo = require_research("sapo")
        parse_resources = require_research("sapo_presets").parse_resources
        if args.preset_resources and not args.presets:
            raise InputError("--preset-resources needs --presets")
        try:
            presets = parse_resources(args.preset_resources) if args.presets else None
            path = sapo.reproduce(out, quick=args.quick, data_dir=args.data_dir, progress=not args.quiet,
                                  epochs=args.epochs, tasks=args.tasks, sweep=not args.no_sweep, order=args.order,
                                  beam=not args.no_beam, neural=not args.no_neural, neural_epochs=args.neural_epochs,
                                  neural_tasks=args.neural_tasks, presets=presets, command=command,
                                  neural_seeds=args.neural_seeds, reuse_older_code=args.reuse_older_code,
                                  finished_only=args.finished_only,
                                  embeddings=(False if args.embeddings == "none" else args.embeddings))
        except ValueError as exc:
            raise InputError(str(exc)) from None
    if not args.quiet:
        print(f"report: {path} ({time.perf_counter() - t0:.0f} s)")
    return 0
