"""``chaintag train``: fit a learner on a labelled corpus and save the model."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from ..io.atomic import check_writable
from ..progress import plural
from .common import add_common, add_data_options, add_scheme_option, figures, load, log, print_json, report


# exit codes of `chaintag train` beyond 0 (success) and 2 (error, nothing written)
EXIT_HISTORY_NOT_WRITTEN = 3  # the model was saved; the --history file was not written
EXIT_STATE_KEPT = 4  # the model was not saved to --model; the trained state was kept (the message says where)


def add_parser(sub, learner_options: bool = True) -> None:
    p = sub.add_parser("train", help="train a model on a labelled corpus",
                       description="Train a tagger and save it. Sources are files or dataset "
                                   "references such as conll2000:train.")
    p.add_argument("--algorithm", "-a", default="perceptron", metavar="NAME",
                   choices=_algorithms() if learner_options else None,
                   help="learner: perceptron (Collins's averaged structured perceptron, the "
                        "default), sapo (search-based probabilistic online learning), crf "
                        "(CRF by SGD), crf-lbfgs (CRF by L-BFGS; --epochs = max iterations), mira, "
                        "nbest-mira (MIRA with the top --n-best candidates), maxent (Ratnaparkhi's "
                        "locally normalized tagger, scikit-learn; --maxent-c), bilstm and bilstm-crf "
                        "(neural taggers, PyTorch: pip install 'chaintag[neural]'); --list-params lists "
                        "a learner's parameters")
    p.add_argument("--train", required=True, metavar="SOURCE", help="training data")
    p.add_argument("--dev", metavar="SOURCE",
                   help="held-out data scored after each epoch; the best epoch's weights are kept")
    p.add_argument("--dev-fraction", type=float, default=0.0, metavar="F",
                   help="carve the last F of the training sentences off as dev data")
    p.add_argument("--test", metavar="SOURCE", help="score the final model on this data")
    p.add_argument("--model", "-m", required=True, metavar="PATH", help="where to save the model (.npz)")
    p.add_argument("--features", "-f", default=None,
                   help="preset (chunking, pos, ner), template file, or specs separated by ';' (default: "
                        "chosen from the columns: chunking for a pos column and phrase chunk labels, ner "
                        "for a pos column or chunk labels, else pos; the choice is logged)")
    from .recipes import RECIPES
    p.add_argument("--recipe", choices=sorted(RECIPES), default=None,
                   help="settings chosen on dev data for a task; they fill the options you leave at their "
                        "defaults: " + "; ".join(f"{k}: {v['about']}" for k, v in sorted(RECIPES.items())))
    p.add_argument("--clusters", nargs="+", action="extend", metavar="FILE",
                   help="word-cluster resources for the brownK / kmN template functions (e.g. "
                        "--features chunking+clusters): a table from `chaintag clusters`, a Brown paths "
                        "file, or word vectors in text format; the model keeps the maps it needs")
    p.add_argument("--autotags", nargs="+", action="extend", metavar="PATH",
                   help="unlabeled text (files, or folders of *.txt files; one tokenized sentence a line; a name "
                        "that is no path here, such as unlabeled_en, is read from the data directory) for "
                        "the atag / atag2 template columns (e.g. --features pos+autotags): models of the "
                        "training data tag it (jackknifed on the training sentences) and each word gets the "
                        "labels it took there; the model keeps that profile")
    p.add_argument("--epochs", "-e", type=int, default=None,
                   help="training passes (default: 10; crf-lbfgs: at most 100 iterations; bilstm, "
                        "bilstm-crf: 30)")
    p.add_argument("--order", type=int, choices=[1, 2], default=1,
                   help="model order of the perceptron and SAPO: 2 adds label-trigram weights (Collins's "
                        "POS tagger; search over label pairs; SAPO searches the label pairs seen in training)")
    p.add_argument("--cc", type=int, default=0, help="count cut-off on (attribute, label) pairs")
    p.add_argument("--hash-bits", type=int, default=None, metavar="B",
                   help="feature hashing: 2^B attribute buckets (bounded memory for huge "
                        "vocabularies); default: exact attributes")
    p.add_argument("--feature-space", choices=["gold", "all"], default="gold",
                   help="features: pairs seen in gold training data (default) or all pairs")
    p.add_argument("--shuffle", action=argparse.BooleanOptionalAction, default=None,
                   help="visit sentences in a new random order each epoch (default: off for the "
                        "perceptron, as Collins; on for SAPO, which samples at random)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    g = p.add_argument_group("MIRA")
    g.add_argument("--no-clip", action="store_true", default=None, help="MIRA without the C clip (variant)")
    if learner_options:  # from the learners' declarations (all learner classes are imported for them)
        from .learner_opts import add_learner_options
        add_learner_options(p)
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
    from .train_stream import add_stream_options
    add_stream_options(p)
    add_data_options(p, with_format=True)
    add_common(p)
    from .interrupt import train_hint
    p.set_defaults(run=run, resume_hint=train_hint,
                   train_parser=p)


def _algorithms() -> list[str]:
    """The learners ``--algorithm`` names: the first-order ones (``--order 2`` picks their second-order kin)."""
    from ..learners import LEARNERS
    return [name for name in LEARNERS if LEARNERS[name].order == 1]


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
    from .train_checks import check_dev_is_not_test, check_model_path
    warning = check_dev_is_not_test(args.dev, args.test, args.data_dir, "train")
    if warning:  # shown even with -q: the --test figures are then not held out
        print(warning, file=sys.stderr, flush=True)
    if args.model:
        check_model_path(args.model)
    if args.hash_bits is not None and not 1 <= args.hash_bits <= 30:
        raise InputError(f"--hash-bits must be between 1 and 30 (got {args.hash_bits})")
    if args.resume and not args.checkpoint_dir:
        raise InputError("--resume needs --checkpoint-dir")
    for opt in ("model", "history"):
        path = getattr(args, opt)
        if path:
            check_writable(path)
    if args.history and os.path.abspath(args.history) == os.path.abspath(args.model):
        raise InputError("--history and --model name the same file", args.history)
    if args.checkpoint_dir:
        if os.path.exists(args.checkpoint_dir) and not os.path.isdir(args.checkpoint_dir):
            raise InputError("--checkpoint-dir is a file, not a folder", args.checkpoint_dir)
        check_writable(os.path.join(args.checkpoint_dir, "checkpoint.npz")) \
            if os.path.isdir(args.checkpoint_dir) else check_writable(args.checkpoint_dir)
    for opt in ("train", "dev", "test"):
        src = getattr(args, opt)
        for out in ("model", "history"):
            dest = getattr(args, out)
            if src and dest and src != "-" and os.path.exists(src) and os.path.exists(dest) \
                    and os.path.samefile(src, dest):
                raise InputError(f"--{out} would overwrite the --{opt} file", dest)


def run(args) -> int:
    if getattr(args, "list_params", False):
        from ..learners import LEARNERS
        from .learner_opts import list_params
        name = _second_order_name(args.algorithm) if args.order == 2 else args.algorithm
        print(list_params(LEARNERS[name]))
        return 0
    if getattr(args, "recipe", None):
        from .recipes import apply_recipe
        applied = apply_recipe(args, args.train_parser)
        log(args, f"recipe {args.recipe}: {' '.join(applied) or 'every option given explicitly'}")
    _validate(args)
    if not args.checkpoint_dir:
        return _run(args)
    from ..errors import InputError
    from ..learners import LEARNERS
    name = _second_order_name(args.algorithm) if args.order == 2 else args.algorithm
    if not LEARNERS[name].supports_checkpoints:
        shown = f"{args.algorithm} --order 2" if args.order == 2 else args.algorithm
        raise InputError(f"--checkpoint-dir is not offered for {shown}")
    from ..learners.checkpoint import folder_lock
    # one run per checkpoint folder, from before the data is read until the model is saved
    with folder_lock(args.checkpoint_dir):
        return _run(args)


def _second_order_name(algorithm: str) -> str:
    """The learner of ``--algorithm A --order 2``: the one that declares ``first_order = A``."""
    from ..errors import InputError
    from ..learners import LEARNERS
    names = {LEARNERS[n].first_order: n for n in LEARNERS if LEARNERS[n].order == 2}
    if algorithm not in names:
        raise InputError("--order 2 is offered for the perceptron and SAPO (--algorithm perceptron or sapo)")
    return names[algorithm]


def _run(args) -> int:
    from ..errors import InputError
    from ..learners import make_learner

    t0 = time.perf_counter()
    from .train_stream import CHUNK_SENTENCES, head_corpus, wants_stream
    streamed = wants_stream(args, _second_order_name(args.algorithm) if args.order == 2 else args.algorithm)
    train = head_corpus(args) if streamed else load(args.train, args)
    if train.n_sentences == 0:
        raise InputError("no sentences to train on", train.source)
    if streamed:
        log(args, f"streamed training: {args.train} is read in chunks of {CHUNK_SENTENCES} sentences (the checks "
                  f"below read the first one: {plural(train.n_sentences, 'sentence')}, "
                  f"{plural(train.n_tokens, 'token')})")
    else:
        log(args, f"read {plural(train.n_sentences, 'sentence')}, {plural(train.n_tokens, 'token')} from {args.train}")
    if args.label_field and train.label_field is None:
        log(args, f"warning: --label-field applies to CoNLL-U files; {args.train} is a column file, whose "
                  "label is its last column (or the one --columns names)")
    from .train_checks import default_preset, describe_features, describe_labels, label_column_warnings
    for warning in label_column_warnings(train):
        log(args, f"warning: {warning}")
    from ..learners import LEARNERS
    if getattr(LEARNERS.get(args.algorithm), "learns_representation", False):
        # neural learners embed the columns themselves: no attribute templates, presets or clusters
        for option, value in (("--features", args.features), ("--clusters", args.clusters),
                              ("--autotags", args.autotags)):
            if value:
                raise InputError(f"{option} does not apply to {args.algorithm}: it learns its own token "
                                 "representation (word, character and column embeddings)")
        log(args, f"{args.algorithm}: word, character and column embeddings of the columns "
                  f"{', '.join(train.columns)} (no attribute templates); labels: {describe_labels(train)}")
    else:
        why = None
        if args.features is None:
            args.features, why = default_preset(train.columns, train.labels)
        if args.clusters:
            from ..features.spec import with_clusters
            args.features = with_clusters(args.features, args.clusters)
        if args.autotags:
            from ..features.spec import with_autotags
            args.features = with_autotags(args.features, _text_paths(args.autotags, args.data_dir,
                                                                     getattr(args, "autotags_in_data_dir", False)))
        from ..features.document import document_columns_read, with_document_columns
        if document_columns_read(args.features, train.columns):
            # the templates read the document columns: computed from each file's documents (marker lines)
            if streamed:
                raise InputError("the document columns (abbr, docnext, doccap) need whole documents: train "
                                 "without streaming (a file read in chunks has none)")
            with_document_columns(train)
            log(args, f"document columns abbr, docnext, doccap computed on {len(set(train.documents or [0]))} "
                      f"document(s) of {args.train}")
        from ..features.templates import AUTO_COLUMNS, resolve_templates
        templates = resolve_templates(args.features, train.columns, virtual=True)
        log(args, describe_features(args.features, why, templates, train.columns, train))
        if args.autotags and not any(a.column in AUTO_COLUMNS and a.column not in train.columns
                                     for t in templates for a in t.atoms):
            log(args, "warning: the unlabeled text (--autotags, or the recipe's) is not used: no template reads "
                      "its labels (atag, atag2)")
    from ..features.document import DOCUMENT_COLUMNS

    def load_like_train(source):
        """Another file of the run, with the document columns when the training data has them."""
        corpus = load(source, args)
        if all(c in train.columns for c in DOCUMENT_COLUMNS) and not any(c in corpus.columns
                                                                        for c in DOCUMENT_COLUMNS):
            from ..features.document import with_document_columns
            with_document_columns(corpus)
        return corpus

    dev = None
    if args.dev:
        d = load_like_train(args.dev)
        dev = (d.tokens, d.labels)
        log(args, f"dev: {plural(d.n_sentences, 'sentence')} from {args.dev}")
    elif args.dev_fraction > 0:
        cut = train.n_sentences - max(1, int(round(train.n_sentences * args.dev_fraction)))
        if cut < 1:
            raise InputError("--dev-fraction leaves no training sentences")
        dev = (train.tokens[cut:], train.labels[cut:])
        train.tokens, train.labels = train.tokens[:cut], train.labels[:cut]
        log(args, f"dev: the last {plural(len(dev[0]), 'sentence')}; training on the first {cut}")
    # read the test data before training, so that a bad reference fails at once
    test = load_like_train(args.test) if args.test else None
    name = args.algorithm
    if args.order == 2:
        name = _second_order_name(name)
    params = dict(features=args.features, columns=train.columns, cc=args.cc,
                  feature_space=args.feature_space, random_state=args.seed,
                  progress=False if args.quiet else True)  # bars on a terminal, else one line per epoch
    # options left unset keep each learner's own default; a set option must apply (the learner declares it)
    from ..learners import LEARNERS
    from .learner_opts import learner_settings
    cls = LEARNERS[name]
    shown = f"{args.algorithm} --order 2" if args.order == 2 else name
    mine = {p.flag for p in cls.params}
    if getattr(args, "maxent_c", None) is not None or getattr(args, "maxent_solver", None) is not None:
        if "--maxent-c" not in mine:
            raise InputError("--maxent-c and --maxent-solver apply to --algorithm maxent only")
    if (getattr(args, "C", None) is not None or args.no_clip) and "--maxent-c" in mine:
        raise InputError("--C and --no-clip are MIRA options; the maxent tagger takes --maxent-c")
    if args.epochs is not None:
        if "epochs" not in cls._param_names():
            raise InputError(f"--epochs does not apply to {shown}")
        params["epochs"] = args.epochs
    if args.shuffle is not None:
        if "shuffle" not in cls._param_names():
            raise InputError(f"--shuffle/--no-shuffle does not apply to {shown}")
        params["shuffle"] = args.shuffle
    if args.hash_bits is not None:
        if "hash_bits" not in cls._param_names():
            raise InputError(f"--hash-bits does not apply to {shown}")
        params["hash_bits"] = args.hash_bits
    params.update(learner_settings(args, cls, shown))
    accepted = set(cls._param_names())
    if args.no_clip:
        if "C" not in accepted:
            raise InputError(f"--no-clip does not apply to {shown}")
        params["C"] = None
    learner = make_learner(name, strict=False, **params)
    if "progress" not in accepted:  # maxent: its solver step is reported the same way
        learner.progress = params["progress"]
    learner.eval_scheme = args.scheme  # dev scoring (best epoch) and --test
    from .distributed_opts import fit_with_options, wants_distributed
    try:
        if wants_distributed(args):
            from .train_stream import fit_stream_distributed
            fit_with_options(learner, train, dev, args, fit_streamed=fit_stream_distributed if streamed else None)
        elif streamed:
            from .train_stream import fit_stream
            fit_stream(learner, args, dev, train)
        elif args.checkpoint_dir:
            learner.fit(train.tokens, train.labels, dev=dev, checkpoint_dir=args.checkpoint_dir,
                        resume=args.resume)
        else:
            learner.fit(train.tokens, train.labels, dev=dev)
    except ValueError as exc:  # bad hyper-parameter values
        if isinstance(exc, InputError):
            raise
        raise InputError(str(exc)) from None
    learner.label_field_ = train.label_field  # the CoNLL-U label column, for tag and eval
    try:
        learner.save(args.model)
    except OSError as exc:  # a full disk, ...: keep the trained state, say where
        raise _model_not_saved(args, learner, exc) from None
    train_seconds = time.perf_counter() - t0
    message = getattr(learner, "optimizer_message_", None)
    if message and "CONVERGENCE" not in message:
        log(args, f"warning: L-BFGS stopped before converging ({message}); raise --epochs")
    size = (f"{learner.n_parameters_} parameters" if hasattr(learner, "n_parameters_")
            else f"{learner.feature_index_.n_features} features")
    log(args, f"saved {args.model}: {size}, "
              f"{plural(len(learner.labels_), 'label')}, best epoch {learner.best_epoch_}, {train_seconds:.1f} s")
    if dev is not None and learner.history_ and "dev_score" in learner.history_[-1]:
        best = learner.history_[learner.best_epoch_ - 1]
        log(args, f"dev score of the kept epoch ({learner.best_epoch_}): {best['dev_score']:.2f}")
    history_error = None
    if args.history:
        from ..io.atomic import atomic_open
        try:
            with atomic_open(args.history) as f:
                for rec in learner.history_:
                    f.write(json.dumps(rec) + "\n")
        except OSError as exc:  # the model is saved: say so, and exit with its own code
            history_error = exc
    out = {"model": args.model, "algorithm": name, "seconds": train_seconds,
           "best_epoch": learner.best_epoch_, "history": learner.history_,
           "train": (dict(learner.streamed_) if streamed else
                     {"n_sentences": len(train.tokens), "n_tokens": sum(map(len, train.tokens))}),
           "extraction_seconds": learner.extraction_seconds_}
    if hasattr(learner, "n_parameters_"):
        out["n_parameters"] = learner.n_parameters_
    else:
        out.update(n_features=learner.feature_index_.n_features, n_attributes=learner.extractor_.n_attributes)
    if test is not None:
        t1 = time.perf_counter()
        result = learner.evaluate(test.tokens, test.labels)
        fig = figures(result, test.n_sentences, time.perf_counter() - t1)
        out["test"] = fig
        # the top-level figures are the test figures (and their counts)
        for k in ("f1", "precision", "recall", "accuracy", "per_type", "n_sentences", "n_tokens"):
            out[k] = fig[k]
        if not args.json:
            print(f"test ({args.test}):")
            print(report(result), end="")
            key = "F1" if result.is_chunking else "accuracy"
            val = result.f1 if result.is_chunking else result.accuracy
            print(f"test {key}: {val:.2f}")
    if args.json:
        out = {k: (float(v) if isinstance(v, np.floating) else v) for k, v in out.items()}
        print_json(out)
    if history_error is not None:
        print(f"chaintag train: error: {history_error}; the model was saved to {args.model}, "
              "the history was not written", file=sys.stderr)
        return EXIT_HISTORY_NOT_WRITTEN
    return 0


def _model_not_saved(args, learner, exc: OSError):
    """The error for a model that could not be saved: where the trained state is kept, if anywhere.

    With ``--checkpoint-dir`` the checkpoint holds the final state (rerun with
    ``--resume`` to write the model without training again); otherwise the
    model is saved to the temporary folder (``$TMPDIR``, else the system's)
    or the home folder, whichever takes it.
    """
    from ..errors import OutputError
    errno_ = getattr(exc, "errno", None)
    if args.checkpoint_dir:
        ck = os.path.join(args.checkpoint_dir, "checkpoint.npz")
        if os.path.exists(ck):
            return OutputError(f"{exc}; the model was not saved, the trained state is kept in {ck}: free some "
                               "space and run the same command with --resume to write the model without "
                               "training again", args.model, errno_, exit_code=EXIT_STATE_KEPT)
    import tempfile
    base = os.path.basename(args.model) or "model.npz"
    stem = base[:-4] if base.endswith(".npz") else base
    tried = []
    for folder in (tempfile.gettempdir(), os.path.expanduser("~")):
        rescue = os.path.join(folder, f"{stem}.rescued-{os.getpid()}.npz")
        if folder in tried or os.path.abspath(folder) == os.path.dirname(os.path.abspath(args.model)):
            continue
        tried.append(folder)
        try:
            learner.save(rescue)
        except (OSError, ValueError):  # cannot write there either (or no such folder)
            continue
        return OutputError(f"{exc}; the model was not saved there, the trained model was saved to {rescue} "
                           "instead: move it where you want it", args.model, errno_, exit_code=EXIT_STATE_KEPT)
    return OutputError(f"{exc}; the model was not saved, nor a rescue copy in {' or '.join(tried) or 'another folder'}"
                       "; the trained model is lost", args.model, errno_)


def _text_paths(paths, data_dir, in_data_dir: bool = False) -> list[str]:
    """``--autotags`` paths; one that does not exist here but names a folder of the data directory (such
    as ``unlabeled_en``) is read there. A recipe's text (``in_data_dir``) is always the data directory's."""
    import os
    from ..data.datasets import resolve_data_dir
    out = []
    for p in paths:
        there = os.path.join(resolve_data_dir(data_dir), p)
        local = os.path.exists(p) or os.path.isabs(p) or not os.path.exists(there)
        out.append(p if local and not in_data_dir else there)
    return out
