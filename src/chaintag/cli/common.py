"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from ..api.corpus import sep_value  # noqa: F401 - the commands read --sep through it
from ..progress import plural


def add_common(p: argparse.ArgumentParser) -> None:
    """Options every subcommand has."""
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars or log lines")
    p.add_argument("--debug", action="store_true", help="show a traceback on errors")


def add_data_options(p: argparse.ArgumentParser, with_format: bool = False) -> None:
    """Options describing how input files are read (``--format`` too with ``with_format``)."""
    g = p.add_argument_group("input data")
    if with_format:
        g.add_argument("--format", choices=["columns", "conllu"], default=None,
                       help="input format: columns (CoNLL column files) or conllu (CoNLL-U, and CoNLL-U Plus "
                            "with a '# global.columns' header); default: from the dataset or the file name "
                            "(.conllu, .cupt, .conllup), else detected from the content (also on standard input)")
    g.add_argument("--data-dir", metavar="DIR",
                   help="data directory for dataset references such as conll2000:train "
                        "(default: $CHAINTAG_DATA, else ../shared/data if it exists, else "
                        "~/.local/share/chaintag/data)")
    g.add_argument("--columns", metavar="SPEC",
                   help="column roles, e.g. word,pos,label ('label' = the label column, "
                        "'_' = ignored); default: the last column is the label")
    g.add_argument("--label-field", choices=["xpos", "upos"], default=None,
                   help="label column of CoNLL-U files (default: the model's, for a model trained on "
                        "CoNLL-U; else xpos)")
    g.add_argument("--sep", choices=["tab", "space"], default=None,
                   help="column separator: tab, or space (runs of whitespace); default: "
                        "detected from the first line (a tab there means tab-separated)")
    g.add_argument("--encoding", default="utf-8", help="input encoding (default: utf-8)")


def load(source: str, args, labelled: bool = True, columns=None):
    """Load a corpus with the input-data options of ``args`` (warnings on stderr unless --quiet)."""
    from ..api.corpus import load_source
    return load_source(source, args, labelled=labelled, columns=columns, log=lambda m: log(args, m))


class _StderrLines(logging.Handler):
    """The library's log records (logger ``chaintag``, INFO and above) as plain lines on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(record.getMessage(), file=sys.stderr, flush=True)
        except Exception:  # a log line must never stop a command
            self.handleError(record)


_HANDLER = _StderrLines(logging.INFO)


def library_messages(args):
    """Route the library's messages for one command: silent with ``-q``, else on stderr.

    Sets :func:`chaintag.data.autofetch.quiet_fetches` (the fetching and
    downloading lines of a dataset fetched on first use) and shows the
    ``chaintag`` logger's INFO records (e.g. how many words of a vector file
    hold spaces) as plain lines, unless ``--quiet``.

    Returns
    -------
    callable
        Restores the settings found (called when the command ends, so that a
        later library call in the same process is not silenced by it).
    """
    from ..data import autofetch
    quiet = bool(getattr(args, "quiet", False))
    logger = logging.getLogger("chaintag")
    before = (autofetch._QUIET, _HANDLER in logger.handlers, logger.level)
    autofetch.quiet_fetches(quiet)
    if quiet:
        logger.removeHandler(_HANDLER)
    elif _HANDLER not in logger.handlers:
        logger.addHandler(_HANDLER)
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)

    def restore() -> None:
        autofetch.quiet_fetches(before[0])
        if before[1] and _HANDLER not in logger.handlers:
            logger.addHandler(_HANDLER)
        elif not before[1]:
            logger.removeHandler(_HANDLER)
        logger.setLevel(before[2])

    return restore


def log(args, message: str) -> None:
    """A progress line on stderr unless --quiet."""
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def print_json(obj) -> None:
    """One JSON object on stdout."""
    json.dump(obj, sys.stdout, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")


def figures(result, n_sentences: int, seconds: float) -> dict:
    """The JSON figures of an evaluation (f1, precision, recall, accuracy, per_type, ...).

    For labels that are not chunk labels (POS tags, ...) the chunk figures
    mean nothing: ``f1``, ``precision``, ``recall`` and the chunk counts are
    then None and ``per_type`` is empty; ``accuracy`` is the figure to read.
    """
    d = result.to_dict()
    d["n_sentences"] = n_sentences
    d["seconds"] = seconds
    chunking = bool(getattr(result, "is_chunking", True))
    d["is_chunking"] = chunking
    if not chunking:
        d.update(f1=None, precision=None, recall=None, per_type={}, n_gold_chunks=None, n_pred_chunks=None,
                 n_correct_chunks=None)
    return d


def report(result) -> str:
    """conlleval's report for chunk labels; token accuracy alone for other labels.

    A last line names the chunk scheme used (detected or given) and the stray
    labels, which fit no prefix of that scheme and were read as ``O``.
    """
    from ..evaluation import conlleval_report
    if getattr(result, "is_chunking", True):
        text = conlleval_report(result)
    else:
        text = (f"processed {plural(result.n_tokens, 'token')} in {plural(result.n_sentences, 'sentence')} "
                f"(labels are not chunk labels: token accuracy only)\n"
                f"accuracy: {result.accuracy:6.2f}%\n")
    if hasattr(result, "describe_scheme") and result.is_chunking:
        text += result.describe_scheme() + "\n"
    return text


def add_scheme_option(p: argparse.ArgumentParser) -> None:
    """The --scheme option of the commands that score chunks."""
    from ..evaluation.schemes import scheme_names
    p.add_argument("--scheme", default="auto", type=str.lower, choices=["auto"] + scheme_names(),
                   action=_SchemeAction,
                   help="chunk label scheme used for scoring: iob1, iob2, ioe1, ioe2, iobes (bioes), "
                        "bilou (U- single, L- last), bmes (M- middle), none (token accuracy only); "
                        "default auto: detected from the labels, and the report says which")
    p.add_argument("--label-format", default="auto", type=str.lower, action=_SchemeAction,
                   choices=["auto", "prefix", "suffix", "b-x", "b_x", "x-b", "x_b"],
                   help="how the labels write the chunk prefix: prefix (B-PER, B_PER), suffix (PER-B, "
                        "PER_B, as seqeval's suffix=True), or one of B-X, B_X, X-B, X_B; default auto: "
                        "detected from the labels, and the report names the notation when it is not B-PER")


class _SchemeAction(argparse.Action):
    """--scheme and --label-format, in any order, make ``args.scheme`` a spec ``NAME[:FORMAT]``
    (:func:`chaintag.evaluation.schemes.split_scheme_spec`) that every scorer reads."""

    def __call__(self, parser, namespace, value, option_string=None):
        setattr(namespace, "_" + self.dest, value)
        name = getattr(namespace, "_scheme", "auto")
        fmt = getattr(namespace, "_label_format", "auto")
        namespace.scheme = name if fmt == "auto" else f"{name}:{fmt}"
        namespace.label_format = fmt

