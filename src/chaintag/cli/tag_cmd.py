"""``chaintag tag``: label new text with a saved model, streaming."""

from __future__ import annotations

import os
import sys

from ..progress import plural
from .common import add_common, sep_value

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
    p.add_argument("--format", choices=["columns", "conllu", "text", "raw", "pretokenized"], default=None,
                   help="input format: columns, conllu (CoNLL-U and CoNLL-U Plus), raw (raw text, split into "
                        "sentences and tokens with their character offsets; see --lang), pretokenized (one "
                        "tokenized sentence per line, offsets kept), or text (one sentence per line, tokens "
                        "separated by spaces, written back as word/label). raw, pretokenized and text are for "
                        "models that read one column. Default: "
                        "from the reference or the file name (.conllu, .cupt, .conllup), else detected from "
                        "the content (CoNLL-U or columns), also on stdin")
    p.add_argument("--pos-model", metavar="MODEL", default=None,
                   help="with --format raw or pretokenized and a model that reads words and POS tags (a "
                        "chunker): the model that gives the tags, a file or a ready model's name (en-pos)")
    p.add_argument("--lang", choices=["en", "es", "nl", "de"], default=None,
                   help="the tokenizer's conventions for --format raw (default: en; English splits clitics: "
                        "It 's, do n't)")
    p.add_argument("--output-format", choices=["columns", "conllu", "text", "spans", "conll"], default=None,
                   help="output format. conllu (the default for CoNLL-U input): the input's lines "
                        "(comments, multiword tokens, empty nodes, every column) with the predicted "
                        "label written into the --label-field column. columns: one line per word, "
                        "the input columns plus the label (FORM and the label for CoNLL-U input). "
                        "text (the default for text input): one tagged sentence per line, word/label "
                        "pairs separated by spaces. For --format raw / pretokenized: spans (the default), "
                        "one JSON line per document (block of lines between blank lines): {text, tokens: "
                        "[{text, start, end, label}], spans: [{label, start, end, text, confidence}]} with "
                        "offsets into the text and each span's probability under the model; conll: a token and "
                        "its label per line, tab-separated; columns; text")
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
                        "the predicted label (the model's posterior for CRF-trained models; for SAPO, spread "
                        "thin: its own probabilities are --confidence's)")
    p.add_argument("--constrain", action="store_true",
                   help="forbid the label sequences the chunk scheme makes invalid (O -> I-X in IOB2, "
                        "B-X -> I-Y, start and end rules), also in --nbest, --confidence and --marginals where "
                        "the model gives them, and in the spans of --format raw; first- and second-order "
                        "models alike (not maxent, nor models of real-valued attributes)")
    from ..evaluation.schemes import scheme_names
    p.add_argument("--scheme", choices=[n for n in scheme_names() if n != "none"], default=None, type=str.lower,
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
    g = p.add_argument_group("tagging on a Dask cluster (pip install 'chaintag[dist]')")
    g.add_argument("--workers", type=int, default=None, metavar="N",
                   help="tag batches on N Dask worker processes of this machine (a LocalCluster), "
                        "the output in input order and the same as in one process")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="tag batches on the workers of a running Dask scheduler (tcp://host:8786)")
    add_common(p)
    p.set_defaults(run=run)


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
    from ..api.tagging import tag_file

    input_given = args.input is not None
    if not input_given:
        args.input = "-"
    _confidence_k(args, input_given)
    bar = _progress(args)
    warn = None if args.quiet else (lambda text: print(text, file=sys.stderr))
    n = tag_file(args.model, args.input, args.output, format=args.format, output_format=args.output_format,
                 sep=sep_value(args.sep), columns=args.columns, encoding=args.encoding, data_dir=args.data_dir,
                 nbest=args.nbest, confidence=args.confidence, marginals=args.marginals, constrain=args.constrain,
                 scheme=args.scheme, partial=args.partial, label_field=args.label_field,
                 batch_size=args.batch_size, jobs=args.jobs, workers=getattr(args, "workers", None),
                 scheduler=getattr(args, "scheduler", None), progress=None if bar is None else bar.update,
                 warn=warn, lang=args.lang, pos_model=args.pos_model)
    if bar is not None:
        bar.close(n) if isinstance(bar, _LogLines) else bar.close()
    return 0


def _progress(args):
    """A bar of the sentences read on a terminal; off a terminal, plain log lines (:class:`_LogLines`)."""
    if args.quiet:
        return None
    unit = "paragraph" if args.format in ("raw", "pretokenized") else "sentence"  # what the reader counts
    if not sys.stderr.isatty():
        return _LogLines(args.batch_size, unit=unit)
    from tqdm.auto import tqdm
    return tqdm(desc="tagging", unit=f" {unit}s", file=sys.stderr, mininterval=0.5)


class _LogLines:
    """Progress of ``tag`` when stderr is not a terminal: one plain line per batch of sentences (or
    paragraphs of raw text) read, at most one every ``interval`` seconds, and a last line with the
    sentences tagged."""

    def __init__(self, batch_size: int, interval: float = 5.0, unit: str = "sentence"):
        import time
        self._clock = time.perf_counter
        self.batch_size, self.interval, self.unit = batch_size, interval, unit
        self.n = 0
        self.t0 = self._last = self._clock()

    def update(self, k: int = 1) -> None:
        before, self.n = self.n, self.n + k
        if self.n // self.batch_size > before // self.batch_size and self._clock() - self._last >= self.interval:
            self._last = self._clock()
            self._line(f"tagging: {plural(self.n, self.unit, thousands=True)} read", self.unit)

    def close(self, n_sentences: int | None = None) -> None:
        """The last line: the sentences tagged (``n_sentences``; default: the sentences read)."""
        if n_sentences is not None:
            self.n = n_sentences
        self._line(f"tagging: done, {plural(self.n, 'sentence', thousands=True)}")

    def _line(self, text: str, unit: str = "sentence") -> None:
        seconds = self._clock() - self.t0
        rate = self.n / max(seconds, 1e-9)
        print(f"{text} in {seconds:.1f} s ({rate:,.0f} {unit}s/s)" if rate >= 10 else
              f"{text} in {seconds:.1f} s", file=sys.stderr, flush=True)
