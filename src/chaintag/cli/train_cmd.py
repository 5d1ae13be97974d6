"""``chaintag train``: its options, and the printing of what :func:`chaintag.api.training.run_training` does.

The exit codes beyond 0 (success) and 2 (error, nothing written) are those of
:mod:`chaintag.api.training` (3: the history was not written; 4: the model was
not saved, the trained state was kept).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from ..io.atomic import check_writable
from .common import add_common, add_data_options, add_scheme_option, figures, log, print_json, report


def add_parser(sub, learner_options: bool = True) -> None:
    p = sub.add_parser("train", help="train a model on a labelled corpus",
                       description="Train a tagger and save it. Sources are files or dataset "
                                   "references such as conll2000:train.")
    p.add_argument("--algorithm", "-a", default=None, metavar="NAME",
                   choices=_algorithms() if learner_options else None,
                   help="learner: sapo (search-based probabilistic online learning, the default: ahead on the "
                        "summed dev scores of the POS, chunking and NER tasks), perceptron (Collins's averaged "
                        "structured perceptron), crf (CRF by SGD), crf-lbfgs (CRF by L-BFGS; --epochs = max "
                        "iterations), mira, "
                        "nbest-mira (MIRA with the top --n-best candidates), maxent (Ratnaparkhi's "
                        "locally normalized tagger, scikit-learn; --maxent-c), bilstm, bilstm-crf "
                        "and bilstm-sapo (neural taggers, PyTorch: pip install 'chaintag[neural]'); "
                        "--list-params lists a learner's parameters")
    p.add_argument("--train", required=True, metavar="SOURCE", help="training data")
    p.add_argument("--dev", metavar="SOURCE",
                   help="held-out data scored after each epoch; the best epoch's weights are kept")
    p.add_argument("--dev-fraction", type=float, default=0.0, metavar="F",
                   help="carve the last F of the training sentences off as dev data (0 < F < 1; 0, the "
                        "default: none)")
    p.add_argument("--test", metavar="SOURCE", help="score the final model on this data")
    p.add_argument("--model", "-m", required=True, metavar="PATH", help="where to save the model (.npz)")
    p.add_argument("--features", "-f", default=None,
                   help="preset (chunking, pos, ner+gaz, ...), template file, or specs separated by ';' "
                        "(default: the preset of the kind of task found in the data: chunking for a pos column "
                        "and phrase chunk labels, ner+gaz for entity labels, pos otherwise; pos+km, ner+gaz+km and "
                        "chunking+text with the resources that helped them on dev; with it, SAPO takes its "
                        "settings for the kind; the choice is logged)")
    from .recipes import RECIPES
    p.add_argument("--recipe", choices=sorted(RECIPES), default=None, metavar="NAME",
                   help="settings chosen on dev data for a task; they fill the options you leave at their "
                        "defaults: " + "; ".join(f"{k}: {v['about']}" for k, v in sorted(RECIPES.items())
                                                 if not v.get("superseded_by"))
                        + ". Retired recipes (" + ", ".join(sorted(k for k, v in RECIPES.items()
                                                                   if v.get("superseded_by")))
                        + ") say what replaced them")
    p.add_argument("--resources", nargs="+", action="extend", metavar="PATH",
                   help="word resources for the brownK / kmN / vec template functions (e.g. --features "
                        "chunking+kmvec): word vectors in text format (GloVe, word2vec, fastText), a Brown "
                        "paths file, or a table from `chaintag clusters`; the model keeps the maps it needs. "
                        "Parsed vectors and their k-means ids are cached by content in "
                        "$CHAINTAG_CACHE/resources (else ~/.cache/chaintag/resources). A folder of unlabeled "
                        "text (*.txt, one tokenized sentence a line; or a data-directory name such as "
                        "unlabeled_en) gets word2vec vectors, k-means ids and paths, induced once and cached. "
                        "Without --resources, the default attributes take the data directory's GloVe file "
                        "(POS, NER) or folder of unlabeled text (chunking) when it holds at least 80%% of the "
                        "training word types seen twice, and templates that need a resource take the data "
                        "directory's GloVe file; both named on stderr. 'none': no resource at all")
    p.add_argument("--clusters", nargs="+", action="extend", metavar="FILE",
                   help="the same as --resources (its older name)")
    p.add_argument("--autotags", nargs="+", action="extend", metavar="PATH",
                   help="unlabeled text (files, or folders of *.txt files; one tokenized sentence a line; a name "
                        "that is no path here, such as unlabeled_en, is read from the data directory) for "
                        "the atag / atag2 template columns (e.g. --features pos+autotags): models of the "
                        "training data tag it (jackknifed on the training sentences) and each word gets the "
                        "labels it took there; the model keeps that profile")
    p.add_argument("--epochs", "-e", type=int, default=None,
                   help="training passes (default: 20 for sapo, the default learner, chosen on dev; 10 for the others; crf-lbfgs: at most 100 iterations; bilstm, "
                        "bilstm-crf, bilstm-sapo: 30)")
    p.add_argument("--order", type=int, choices=[1, 2], default=1,
                   help="model order of the perceptron and SAPO: 2 adds label-trigram weights (Collins's "
                        "POS tagger; search over label pairs; SAPO searches the label pairs seen in training)")
    p.add_argument("--cc", type=int, default=0, help="count cut-off on (attribute, label) pairs")
    p.add_argument("--hash-bits", type=int, default=None, metavar="B",
                   help="feature hashing: 2^B attribute buckets (bounded memory for huge "
                        "vocabularies); default: exact attributes")
    p.add_argument("--feature-space", choices=["gold", "all"], default=None,
                   help="features: pairs seen in gold training data or all pairs (default: gold, or the "
                        "learner's setting for the kind of task with the default attributes)")
    p.add_argument("--shuffle", action=argparse.BooleanOptionalAction, default=None,
                   help="visit sentences in a new random order each epoch (default: off for the "
                        "perceptron, as Collins; on for SAPO, which samples at random)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    groups = {}
    if learner_options:  # from the learners' declarations (all learner classes are imported for them)
        from .learner_opts import add_learner_options
        groups = add_learner_options(p)
    g = groups.get("MIRA") or p.add_argument_group("MIRA")
    g.add_argument("--no-clip", action="store_true", default=None, help="MIRA without the C clip (variant)")
    p.add_argument("--history", metavar="PATH", help="write the per-epoch history as JSON lines")
    p.add_argument("--checkpoint-dir", metavar="DIR",
                   help="save the training state after every epoch in DIR/checkpoint.npz")
    p.add_argument("--resume", action="store_true",
                   help="continue from the checkpoint in --checkpoint-dir (same data and settings; "
                        "the result equals an uninterrupted run)")
    p.add_argument("--json", action="store_true", help="print one JSON object of figures")
    add_scheme_option(p)
    from .distributed_opts import add_train_options
    add_train_options(p)
    from .stream_opts import add_stream_options
    add_stream_options(p)
    add_data_options(p, with_format=True)
    add_common(p)
    from .interrupt import train_hint
    p.set_defaults(run=run, resume_hint=train_hint,
                   train_parser=p)


def _algorithms() -> list[str]:
    """The learners ``--algorithm`` names (a second-order one is its first-order kin with ``--order 2``)."""
    from ..learners import LEARNERS
    return list(LEARNERS)


def _same_learner_names(args) -> None:
    """``--algorithm perceptron2`` is ``--algorithm perceptron --order 2``."""
    from ..learners import LEARNERS
    if args.algorithm is None:  # chosen after the data is read (the kind of task)
        return
    cls = LEARNERS[args.algorithm]
    if cls.order == 2:
        args.algorithm, args.order = cls.first_order, 2


def _check_learner_options(args) -> None:
    """The learner options and ``-p`` pairs checked against the learner's declarations, so that a mistake
    is reported before the data is read (training checks them again with the data's settings)."""
    from ..api.training import second_order_name
    from ..learners import LEARNERS
    from .learner_opts import learner_settings
    from ..api.training import check_misplaced_options
    if args.algorithm is None:
        return  # the learner is chosen from the data (the kind of task): its options are checked then
    name = second_order_name(args.algorithm) if args.order == 2 else args.algorithm
    check_misplaced_options(args, LEARNERS[name])
    learner_settings(args, LEARNERS[name], f"{args.algorithm} --order 2" if args.order == 2 else name)


def _validate(args) -> None:
    from ..errors import InputError
    if args.epochs is not None and args.epochs < 1:
        raise InputError(f"--epochs must be at least 1 (got {args.epochs})")
    if args.cc < 0:
        raise InputError(f"--cc must be 0 or more (got {args.cc})")
    if args.dev_fraction and not 0 < args.dev_fraction < 1:
        raise InputError(f"--dev-fraction must be between 0 and 1 (got {args.dev_fraction})")
    if args.dev and args.dev_fraction:
        raise InputError("give --dev or --dev-fraction, not both")
    from ..api.train_checks import check_dev_is_not_test, check_model_path
    warning = check_dev_is_not_test(args.dev, args.test, args.data_dir, "train")
    if warning:  # shown even with -q: the --test figures are then not held out
        print(warning, file=sys.stderr, flush=True)
    if args.model is not None:
        check_model_path(args.model)
    if args.hash_bits is not None and not 1 <= args.hash_bits <= 30:
        raise InputError(f"--hash-bits must be between 1 and 30 (got {args.hash_bits})")
    if args.resume and not args.checkpoint_dir:
        raise InputError("--resume needs --checkpoint-dir")
    if args.history == "-":
        raise InputError("--history -: the history is a file of JSON lines, written when training ends "
                         "(standard output carries the report); give a path")
    if args.checkpoint_dir:
        from ..learners.checkpoint import FILE_NAME, LOCK_NAME
        kept = {os.path.realpath(os.path.join(args.checkpoint_dir, name)) for name in (FILE_NAME, LOCK_NAME)}
        for opt in ("model", "history"):
            path = getattr(args, opt)
            if path and os.path.realpath(path) in kept:
                raise InputError(f"--{opt} {path} would overwrite the checkpoint of --checkpoint-dir "
                                 f"{args.checkpoint_dir} (or its lock); write it outside that folder")
    for opt in ("model", "history"):
        path = getattr(args, opt)
        if path:
            check_writable(path, f"--{opt}")
    if args.history and os.path.abspath(args.history) == os.path.abspath(args.model):
        raise InputError("--history and --model name the same file", args.history)
    if args.checkpoint_dir:
        if os.path.exists(args.checkpoint_dir) and not os.path.isdir(args.checkpoint_dir):
            raise InputError("--checkpoint-dir is a file, not a folder", args.checkpoint_dir)
        check_writable(os.path.join(args.checkpoint_dir, "checkpoint.npz")) \
            if os.path.isdir(args.checkpoint_dir) else check_writable(args.checkpoint_dir)
    from ..io.atomic import refuse_inputs_as_output
    for out in ("model", "history"):
        if getattr(args, out):
            refuse_inputs_as_output(getattr(args, out), [src for src in (args.train, args.dev, args.test)
                                                         if src and src != "-" and os.path.exists(src)], f"--{out}")


def run(args) -> int:
    if getattr(args, "recipe", None):
        from .recipes import apply_recipe
        applied = apply_recipe(args, args.train_parser)
        log(args, f"recipe {args.recipe}: {' '.join(applied) or 'every option given explicitly'}")
    _same_learner_names(args)
    _validate(args)
    _check_learner_options(args)  # before the data is read
    if not args.checkpoint_dir:
        return _run(args)
    from ..api.training import second_order_name
    from ..errors import InputError
    from ..learners import LEARNERS
    from ..api.training import DEFAULT_ALGORITHM
    algorithm = args.algorithm or DEFAULT_ALGORITHM  # what training takes with --checkpoint-dir and no -a
    name = second_order_name(algorithm) if args.order == 2 else algorithm
    if not LEARNERS[name].supports_checkpoints:
        shown = f"{args.algorithm} --order 2" if args.order == 2 else args.algorithm
        raise InputError(f"--checkpoint-dir is not offered for {shown}")
    if args.stream:  # refused before the folder and its lock file are made
        from ..api.train_stream import wants_stream
        wants_stream(args, name)
    from ..learners.checkpoint import folder_lock
    # one run per checkpoint folder, from before the data is read until the model is saved
    with folder_lock(args.checkpoint_dir):
        return _run(args)


def _run(args) -> int:
    from ..api.training import EXIT_HISTORY_NOT_WRITTEN, run_training
    from .learner_opts import learner_settings
    result = run_training(args, log=lambda message: log(args, message),
                          settings=lambda cls, shown: learner_settings(args, cls, shown))
    out = result.report
    if result.test is not None:
        fig = figures(result.test, result.test_sentences, result.test_seconds)
        out["test"] = fig
        # the top-level figures are the test figures (and their counts)
        for k in ("f1", "precision", "recall", "accuracy", "per_type", "n_sentences", "n_tokens"):
            out[k] = fig[k]
        if not args.json:
            print(f"test ({args.test}):")
            print(report(result.test), end="")
            key = "F1" if result.test.is_chunking else "accuracy"
            val = result.test.f1 if result.test.is_chunking else result.test.accuracy
            print(f"test {key}: {val:.2f}")
    if args.json:
        out = {k: (float(v) if isinstance(v, np.floating) else v) for k, v in out.items()}
        print_json(out)
    if result.history_error is not None:
        print(f"chaintag train: error: {result.history_error}; the model was saved to {args.model}, "
              "the history was not written", file=sys.stderr)
        return EXIT_HISTORY_NOT_WRITTEN
    return 0
