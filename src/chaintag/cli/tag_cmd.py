"""``chaintag tag``: label new text with a saved model, streaming."""

from __future__ import annotations

import contextlib
import os
import sys

from .common import add_common, sep_value

#: Largest K of --nbest / --confidence (the search keeps K paths per sentence).
MAX_K = 10000


def add_parser(sub) -> None:
    p = sub.add_parser(
        "tag", help="tag a column file (or stdin) with a saved model",
        description="Write each input token's columns plus a predicted label column: one output "
                    "line per input token, the same sentence breaks. Input is read and tagged in "
                    "batches, so memory stays flat on large files. Input columns: the model's "
                    "feature columns come first; extra columns (e.g. a gold label) are copied "
                    "through and not read. Document markers (-DOCSTART-, ###MEDLINE:) are copied "
                    "through, each followed by a blank line.")
    p.add_argument("--model", "-m", required=True, metavar="PATH", help="model file from chaintag train")
    p.add_argument("input", nargs="?", default=None, metavar="INPUT",
                   help="column file, CoNLL-U file, dataset reference, or - for stdin (default)")
    p.add_argument("--output", "-o", default="-", metavar="PATH",
                   help="output file, written atomically (default: stdout)")
    p.add_argument("--columns", metavar="SPEC",
                   help="column roles of the input, e.g. word,pos,_ (names must match the model's)")
    p.add_argument("--sep", choices=["tab", "space"], default=None,
                   help="input separator (default: detected from the first line); the output "
                        "uses the input's separator (tab for CoNLL-U input)")
    p.add_argument("--format", choices=["columns", "conllu", "text"], default=None,
                   help="input format: columns, conllu (CoNLL-U and CoNLL-U Plus), or text (one sentence "
                        "per line, tokens separated by spaces; for models that read one column). Default: "
                        "from the reference or the file name (.conllu, .cupt, .conllup), else detected from "
                        "the content (CoNLL-U or columns), also on stdin")
    p.add_argument("--output-format", choices=["columns", "conllu", "text"], default=None,
                   help="output format. conllu (the default for CoNLL-U input): the input's lines "
                        "(comments, multiword tokens, empty nodes, every column) with the predicted "
                        "label written into the --label-field column. columns: one line per word, "
                        "the input columns plus the label (FORM and the label for CoNLL-U input). "
                        "text (the default for text input): one tagged sentence per line, word/label "
                        "pairs separated by spaces")
    p.add_argument("--label-field", choices=["xpos", "upos"], default=None,
                   help="CoNLL-U column that receives the predicted labels (default: the column the "
                        "model was trained on, else xpos)")
    p.add_argument("--encoding", default="utf-8", help="input encoding (default: utf-8)")
    p.add_argument("--data-dir", metavar="DIR", help="data directory for dataset references")
    p.add_argument("--nbest", type=int, default=None, metavar="K",
                   help="write the K best label sequences of each sentence as JSON lines: "
                        "{tokens, nbest: [{labels, score, probability}]} where probability is "
                        "over the top-K only (not a CRF marginal)")
    p.add_argument("--confidence", nargs="?", const="5", default=None, metavar="K",
                   help="add a column with each token's label probability estimated from the "
                        "top-K sequences (default K: 5; `--confidence FILE` tags FILE with K 5)")
    p.add_argument("--marginals", action="store_true",
                   help="add a column with P(y_i = label | x), the forward-backward marginal of "
                        "the predicted label (the model's posterior for CRF-trained models)")
    p.add_argument("--constrain", action="store_true",
                   help="forbid the label sequences the chunk scheme makes invalid (O -> I-X in IOB2, "
                        "B-X -> I-Y, start and end rules), also in --nbest, --confidence and --marginals")
    p.add_argument("--scheme", choices=["iob1", "iob2", "ioe1", "ioe2", "iobes", "bilou", "bmes"], default=None,
                   help="the chunk scheme of --constrain (default: the scheme of the model's training labels, "
                        "else detected from its label set)")
    p.add_argument("--partial", action="store_true",
                   help="partial labels: the last input column holds the label a token must take, or _ "
                        "to leave it free; the other labels are decoded around the fixed ones")
    p.add_argument("--batch-size", type=int, default=2000, metavar="N",
                   help="sentences tagged per batch (default: 2000)")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                   help="processes tagging batches in parallel, the output in input order and the same as "
                        "with 1 (default: 1; each process loads the model, so this pays off on large inputs)")
    from .tag_dask import add_tag_options
    add_tag_options(p)
    add_common(p)
    p.set_defaults(run=run)


def _sentences(args):
    from ..data.datasets import is_dataset_ref, resolve
    from ..io.columns import iter_sentences
    from ..io.conllu_io import iter_conllu

    if args.input == "-":
        from ..data.datasets import stdin_source
        source, fmt = stdin_source(args.format)
        sep, name = sep_value(args.sep), "<stdin>"
    else:
        found = resolve(args.input, args.data_dir)
        source, fmt, name = found.path, args.format or found.format, os.fspath(found.path)
        sep = sep_value(args.sep) if args.sep else (found.sep if is_dataset_ref(args.input) else None)
    info = {"sep": "\t", "format": fmt} if fmt == "conllu" else {"format": fmt}
    if fmt == "text":
        from ..io.plain_text import iter_text_sentences
        return iter_text_sentences(source, encoding=args.encoding, name=name), {"format": "text", "sep": " "}, name
    if fmt == "conllu":
        if (args.output_format or "conllu") == "conllu":
            from ..io.conllu_io import iter_conllu_blocks
            return iter_conllu_blocks(source, encoding=args.encoding, name=name), info, name
        return iter_conllu(source, label_field=None, encoding=args.encoding, name=name), info, name
    return (iter_sentences(source, sep=sep, encoding=args.encoding, name=name, info=info, markers=True),
            info, name)


def _feature_picker(model, args, n_columns: int, name: str, line: int):
    from ..data.datasets import parse_columns
    from ..errors import InputError

    from ..features.document import input_columns
    want = list(input_columns(model))  # the document columns are computed, not read
    if args.columns:
        names, _ = parse_columns(args.columns, n_columns, labelled=False, path=name, line=line)
        missing = [c for c in want if c not in names]
        if missing:
            raise InputError(f"--columns does not name the model's column(s) {', '.join(missing)}", name, line)
        idx = [names.index(c) for c in want]
    elif n_columns >= len(want):
        idx = list(range(len(want)))
    else:
        raise InputError(f"the model reads {len(want)} column(s) ({', '.join(want)}), "
                         f"but the input has {n_columns}: {_expected_input(model)}", name, line)
    if idx == list(range(n_columns)):
        return None
    return idx


def _expected_input(model) -> str:
    """What input the model can tag, in words."""
    from ..features.document import input_columns, model_document_columns
    cols = list(input_columns(model))
    text = (f"give a column file: one token per line, its {', '.join(cols)} column{'s' if len(cols) > 1 else ''} "
            "first (separated by spaces or tabs; more columns are copied through), a blank line between sentences")
    if len(cols) == 1:
        text += ", or plain text: one sentence per line, tokens separated by spaces, with --format text"
    if model_document_columns(model):
        text += ("; the document columns (abbr, docnext, doccap) are computed from the documents that "
                 "-DOCSTART- / ###MEDLINE: lines start (a file without them is one document)")
    return text


def _explained(sentences, model, name):
    """The sentences, with a column-count error explained by what the input must look like."""
    from ..errors import InputError
    try:
        yield from sentences
    except InputError as exc:
        if not exc.message.startswith("expected ") or "CoNLL-U" in exc.message:
            raise
        raise InputError(f"{exc.message}: this is not a column file (the same columns on every line); "
                         f"{_expected_input(model)}", exc.path, exc.line) from None


def _looks_like_text(model, tokens) -> bool:
    """A one-column model given lines that each hold several words: its second and third columns
    never repeat a value over four lines or more (tag columns do)."""
    from ..features.document import input_columns
    if len(input_columns(model)) != 1 or len(tokens) < 4 or len(tokens[0]) < 3:
        return False
    return all(len({tok[k] for tok in tokens}) == len(tokens) for k in (1, 2))


def _check_text_options(model, args, info, chosen, name):
    """Refuse plain-text input or output that the model or the other options cannot give."""
    from ..errors import InputError
    from ..features.document import input_columns
    cols = input_columns(model)
    if info["format"] == "text" and len(cols) != 1:
        raise InputError(f"plain text gives each token one column (the word), but this model reads "
                         f"{len(cols)} ({', '.join(cols)}): {_expected_input(model)}", name)
    out = args.output_format or ("text" if info["format"] == "text" else None)
    if out == "text" and info["format"] == "conllu":
        raise InputError("--output-format text is for column or text input; CoNLL-U input is written back as "
                         "CoNLL-U or as columns")
    if out == "text" and not args.nbest:
        extra = [opt for opt, v in (("--confidence", args.confidence), ("--marginals", args.marginals or None),
                                    ("--constrain", args.constrain or None), ("--partial", args.partial or None))
                 if v is not None]
        if extra:
            raise InputError(f"{extra[0]} needs column output: add --output-format columns")
    return out


def _confidence_k(args, input_given: bool) -> None:
    """Read ``--confidence``'s optional K. A value that is not an integer is the input it took
    (``tag --model M --confidence FILE``: a file, a dataset reference or ``-``) when the command line
    names no other input; an integer that is also a file's name is K, with a warning.

    Raises
    ------
    InputError
        When the value is not an integer and cannot be the input (another input is named, or there
        is no such file or dataset reference).
    """
    from ..data.datasets import is_dataset_ref
    from ..errors import InputError
    value = args.confidence
    if value is None or isinstance(value, int):
        return
    try:
        args.confidence = int(value)
    except ValueError:
        pass
    else:
        if not input_given and os.path.exists(value) and not args.quiet:
            print(f"chaintag tag: warning: --confidence {value} is read as K = {value}, and standard input is "
                  f"tagged; to tag the file {value!r}, name it as the input (e.g. ./{value})", file=sys.stderr)
        return
    if input_given:
        raise InputError(f"--confidence takes an optional integer K, not {value!r} (the input is {args.input!r})")
    if value == "-" or os.path.exists(value) or is_dataset_ref(value):
        args.input, args.confidence = value, 5
        return
    raise InputError(f"--confidence takes an optional integer K, not {value!r} (and there is no input file "
                     f"or dataset reference {value!r})")


def run(args) -> int:
    from ..learners import load
    from .tag_dask import make_writer

    from ..errors import InputError
    input_given = args.input is not None
    if not input_given:
        args.input = "-"
    _confidence_k(args, input_given)
    chosen = [opt for opt, v in (("--nbest", args.nbest), ("--confidence", args.confidence),
                                 ("--marginals", args.marginals or None)) if v is not None]
    if len(chosen) > 1:
        raise InputError(f"use one of {', '.join(chosen)}, not several")
    for opt, k in (("--nbest", args.nbest), ("--confidence", args.confidence)):
        if k is not None and not 1 <= k <= MAX_K:
            raise InputError(f"{opt} takes K between 1 and {MAX_K} (got {k})")
    for path in (args.model, None if args.input == "-" else args.input):
        if path and args.output != "-" and os.path.exists(path) and os.path.exists(args.output) \
                and os.path.samefile(path, args.output):
            raise InputError("--output would overwrite an input file", args.output)
    if args.batch_size < 1:
        raise InputError("--batch-size must be at least 1")
    if args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    model = load(args.model)
    from ..io.writable import check_output_labels
    check_output_labels(getattr(model, "labels_", []), args.nbest, args.model)  # whitespace, line breaks
    trained_on = getattr(model, "label_field_", None)
    if args.label_field is None:
        args.label_field = trained_on or "xpos"
    elif trained_on and args.label_field != trained_on and not args.quiet:
        print(f"warning: the model was trained on {trained_on.upper()} labels; they are written into the "
              f"{args.label_field.upper()} column", file=sys.stderr)
    sentences, info, name = _sentences(args)
    text_out = _check_text_options(model, args, info, chosen, name) == "text"
    if info["format"] == "columns":
        sentences = _explained(sentences, model, name)
    if args.output_format == "conllu" and info["format"] != "conllu":
        raise InputError("--output-format conllu needs CoNLL-U input (--format conllu or a .conllu file)")
    if args.nbest and args.output_format:
        raise InputError("--nbest writes JSON lines: leave out --output-format")
    if info["format"] == "conllu" and (args.output_format or "conllu") == "conllu":
        if chosen and chosen[0] != "--nbest":
            raise InputError(f"{chosen[0]} adds a column to a column file: add --output-format columns")
        if not args.nbest:
            return _tag_conllu(model, sentences, args, name)
        sentences = (block.sentence for block in sentences if block.sentence.tokens)
    options = {"nbest": args.nbest, "confidence": args.confidence, "marginals": args.marginals,
               "label_field": args.label_field}
    if args.constrain or args.partial or args.scheme:
        from .constrain_opts import check_constraint_options
        options.update(check_constraint_options(model, args, info["format"]))
    bar = _progress(args)
    from ..features.document import model_document_columns
    # a model with document columns is given one whole document per batch (markers end a batch)
    whole_documents = bool(model_document_columns(model))
    with _output(args) as out, make_writer(out, model, args, options) as writer:
        batch = []
        picker = "unset"
        out_sep = None
        kind = "text" if text_out and not args.nbest else "columns"
        for sent in sentences:
            if bar is not None:
                bar.update(1)
            if sent.marker is not None:
                # document markers are copied through, each followed by a blank line
                if batch:
                    writer.batch(kind, batch, None if picker == "unset" else picker, out_sep)
                    batch = []
                if not args.nbest:
                    writer.text(sent.marker + ("\n" if kind == "text" else "\n\n"))
                continue
            if not sent.tokens:  # a blank line of plain text: an empty line of text output
                if kind == "text":
                    batch.append([])
                continue
            if picker == "unset":
                picker = _feature_picker(model, args, len(sent.tokens[0]), name, sent.line)
                if info["format"] == "columns" and not args.quiet and _looks_like_text(model, sent.tokens):
                    print(f"warning: {name}: the first sentence looks like lines of plain text (every line "
                          f"has {len(sent.tokens[0])} different words); this model reads {_expected_input(model)[5:]}",
                          file=sys.stderr)
                # the output keeps the input's separator (tab-separated tokens may hold spaces)
                out_sep = info.get("sep", " ")
            if options.get("partial"):
                from .constrain_opts import check_partial_sentence
                check_partial_sentence(model, sent.tokens, name, sent.line)
            batch.append(sent.tokens)
            if len(batch) >= args.batch_size and not whole_documents:
                writer.batch(kind, batch, picker, out_sep)
                batch = []
        if batch:
            writer.batch(kind, batch, None if picker == "unset" else picker, out_sep)
    if bar is not None:
        bar.close()
    return 0


def _output(args):
    """The output file (atomic) or stdout."""
    from ..io.atomic import atomic_open
    return (contextlib.nullcontext(sys.stdout) if args.output == "-"
            else atomic_open(args.output, "w", encoding="utf-8", newline="\n"))


def _progress(args):
    """A bar of the sentences read on a terminal; off a terminal, plain log lines (:class:`_LogLines`)."""
    if args.quiet:
        return None
    if not sys.stderr.isatty():
        return _LogLines(args.batch_size)
    from tqdm.auto import tqdm
    return tqdm(desc="tagging", unit=" sentences", file=sys.stderr, mininterval=0.5)


class _LogLines:
    """Progress of ``tag`` when stderr is not a terminal: one plain line per batch of sentences
    read (at most one every ``interval`` seconds) and a last line with the totals."""

    def __init__(self, batch_size: int, interval: float = 5.0):
        import time
        self._clock = time.perf_counter
        self.batch_size, self.interval = batch_size, interval
        self.n = 0
        self.t0 = self._last = self._clock()

    def update(self, k: int = 1) -> None:
        self.n += k
        if self.n % self.batch_size == 0 and self._clock() - self._last >= self.interval:
            self._last = self._clock()
            self._line(f"tagging: {self.n:,} sentences read")

    def close(self) -> None:
        self._line(f"tagging: done, {self.n:,} sentences")

    def _line(self, text: str) -> None:
        seconds = self._clock() - self.t0
        rate = self.n / max(seconds, 1e-9)
        print(f"{text} in {seconds:.1f} s ({rate:,.0f} sentences/s)" if rate >= 10 else
              f"{text} in {seconds:.1f} s", file=sys.stderr, flush=True)


def _tag_conllu(model, blocks, args, name: str) -> int:
    """Write CoNLL-U input back with the predicted labels in the --label-field column."""
    from .tag_dask import make_writer

    # the words of CoNLL-U input have one column, FORM: the model must read one column
    _feature_picker(model, args, 1, name, None)
    from ..features.document import model_document_columns
    bar = _progress(args)
    options = {"label_field": args.label_field}
    with _output(args) as out, make_writer(out, model, args, options) as writer:
        batch = []
        for block in blocks:
            if bar is not None:
                bar.update(1)
            batch.append(block)
            if len(batch) >= args.batch_size and not model_document_columns(model):  # else one document
                writer.batch("conllu", batch, None, "\t")
                batch = []
        if batch:
            writer.batch("conllu", batch, None, "\t")
    if bar is not None:
        bar.close()
    return 0
