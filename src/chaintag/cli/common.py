"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import json
import sys


def add_common(p: argparse.ArgumentParser) -> None:
    """Options every subcommand has."""
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars or log lines")
    p.add_argument("--debug", action="store_true", help="show a traceback on errors")


def add_data_options(p: argparse.ArgumentParser) -> None:
    """Options describing how input files are read."""
    g = p.add_argument_group("input data")
    g.add_argument("--data-dir", metavar="DIR",
                   help="data directory for dataset references such as conll2000:train "
                        "(default: $CHAINTAG_DATA, else ../shared/data if it exists)")
    g.add_argument("--columns", metavar="SPEC",
                   help="column roles, e.g. word,pos,label ('label' = the label column, "
                        "'_' = ignored); default: the last column is the label")
    g.add_argument("--label-field", choices=["xpos", "upos"], default="xpos",
                   help="label column of CoNLL-U files (default: xpos)")
    g.add_argument("--sep", metavar="SEP", default=None,
                   help="column separator: 'tab' or 'space' (default: detected per file)")
    g.add_argument("--encoding", default="utf-8", help="input encoding (default: utf-8)")


def sep_value(sep: str | None) -> str | None:
    """Map the --sep option to the reader's separator."""
    if sep is None:
        return None
    return {"tab": "\t", "\\t": "\t", "space": " "}.get(sep, sep)


def load(source: str, args, labelled: bool = True, columns=None):
    """Load a corpus with the input-data options of ``args``."""
    from ..data.datasets import load_corpus
    return load_corpus(source, columns=columns if columns is not None else args.columns,
                       data_dir=args.data_dir, label_field=args.label_field,
                       sep=sep_value(args.sep), encoding=args.encoding, labelled=labelled)


def log(args, message: str) -> None:
    """A progress line on stderr unless --quiet."""
    if not args.quiet:
        print(message, file=sys.stderr, flush=True)


def print_json(obj) -> None:
    """One JSON object on stdout."""
    json.dump(obj, sys.stdout, ensure_ascii=False, sort_keys=True)
    sys.stdout.write("\n")


def figures(result, n_sentences: int, seconds: float) -> dict:
    """The JSON figures of an evaluation (f1, precision, recall, accuracy, per_type, ...)."""
    d = result.to_dict()
    d["n_sentences"] = n_sentences
    d["seconds"] = seconds
    d["is_chunking"] = bool(getattr(result, "is_chunking", True))
    return d
