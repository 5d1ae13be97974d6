"""Scoring a tagged column file, as conlleval does: what ``chaintag eval FILE`` does.

The file's last two columns (or those named) hold the gold and the predicted
labels. Before scoring, the columns are checked for the two mistakes that would
print a meaningless figure: a file that was never tagged (the gold column holds
words), and two columns of two kinds of labels (the predicted column missing).
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import InputError

__all__ = ["read_label_columns", "score_label_columns", "WORDLIKE_MIN", "WORDLIKE_RATIO"]


def read_label_columns(source: str, gold_column: int = -2, pred_column: int = -1, *, format: str | None = None,
                       sep: str | None = None, encoding: str = "utf-8", data_dir=None):
    """The gold and predicted label columns of a tagged column file (as conlleval reads one).

    Parameters
    ----------
    source : str
        A path, a dataset reference, or ``-`` for standard input.
    gold_column, pred_column : int
        Column indices, 0-based, negative from the end (default: the last two).
    format : str, optional
        ``columns`` (default: detected); CoNLL-U is refused.
    sep : str, optional
        ``"\\t"`` or ``" "`` (default: detected).
    encoding : str
    data_dir : str, optional
        For dataset references.

    Returns
    -------
    gold, pred : list of list of str
        One label sequence per sentence.
    name : str
        The input's name for messages.

    Raises
    ------
    chaintag.errors.InputError
        For CoNLL-U input, a column that does not exist (naming file and line), or a file that cannot
        be read.
    """
    from ..data.datasets import open_stream, resolve, stdin_source
    from ..io.columns import iter_sentences
    if source == "-":
        stream, fmt = stdin_source(format)
        name = "<stdin>"
    else:
        found = resolve(source, data_dir)
        stream, fmt, name = found.path, format or found.format, str(found.path)
        if fmt is None:  # a named pipe or <(...): opened once, its format sniffed from the same stream
            stream, fmt = open_stream(found.path)
    if fmt == "conllu":
        raise InputError("FILE is a column file with gold and predicted label columns; to score a "
                         "model on CoNLL-U data, use --model MODEL --test FILE", name)
    gold, pred = [], []
    for sent in iter_sentences(stream, sep=sep, encoding=encoding, name=name):
        n = len(sent.tokens[0])
        for k in (gold_column, pred_column):
            if not -n <= k < n:
                raise InputError(f"the file has {n} column{'s' if n != 1 else ''}, so column {k} (of the "
                                 f"{'gold' if k == gold_column else 'predicted'} labels) does not exist: eval FILE "
                                 "scores its last two columns, gold then predicted (tag the file first, or score a "
                                 "model with --model MODEL --test FILE)", name, sent.line)
        gold.append([tok[gold_column] for tok in sent.tokens])
        pred.append([tok[pred_column] for tok in sent.tokens])
    return gold, pred, name


#: A gold column with at least this many distinct values, and this many times those of the predicted
#: column, holds words: the file is a word-and-label file that was never tagged.
WORDLIKE_MIN = 50
WORDLIKE_RATIO = 5


def score_label_columns(gold, pred, gold_column: int = -2, pred_column: int = -1, name: str = "<input>",
                        scheme: str | None = "auto", warn: Callable[[str], None] | None = None):
    """Score predicted labels against gold labels read from two columns, after checking the columns.

    Parameters
    ----------
    gold, pred : list of list of str
        As :func:`read_label_columns` returns them.
    gold_column, pred_column : int
        Their column indices, for the messages.
    name : str
        The input's name, for the messages.
    scheme : str, optional
        As for :func:`chaintag.evaluation.evaluate`.
    warn : callable, optional
        Receives the warning about two columns of two labels or fewer that share none.

    Returns
    -------
    chaintag.evaluation.EvalResult

    Raises
    ------
    chaintag.errors.InputError
        When there is no token, when the gold column holds words (:data:`WORDLIKE_MIN`,
        :data:`WORDLIKE_RATIO`: a file that was never tagged), or the two columns share no label among
        three or more (two kinds of labels: the predicted column is probably missing, and scoring would
        print a meaningless 0).
    """
    from ..evaluation import evaluate
    from .corpus import require_tokens
    require_tokens(gold, "the file", name)
    gold_set = {lab for s in gold for lab in s}
    pred_set = {lab for s in pred for lab in s}
    tail = ("FILE must end with the gold and the predicted labels (tag it with chaintag tag first, or score a "
            "model with --model and --test; other columns: --gold-column, --pred-column)")
    if len(gold_set) >= WORDLIKE_MIN and len(gold_set) >= WORDLIKE_RATIO * len(pred_set):
        raise InputError(f"the gold column ({gold_column}) holds {len(gold_set)} distinct values against "
                         f"{len(pred_set)} in the predicted column ({pred_column}): it looks like words, "
                         f"not labels, so the file is probably not tagged. {tail}", name)
    if gold_set and pred_set and not gold_set & pred_set:
        def show(labels):
            labels = sorted(labels)
            return ", ".join(labels[:6]) + (f", ... ({len(labels)} labels)" if len(labels) > 6 else "")

        message = (f"the gold column ({gold_column}) and the predicted column ({pred_column}) share no "
                   f"label (gold: {show(gold_set)}; predicted: {show(pred_set)}): they look like two different "
                   f"kinds of labels, so the predicted labels are probably missing. {tail}")
        if len(gold_set | pred_set) >= 3:
            raise InputError(message, name)
        if warn is not None:
            warn(f"warning: {name}: {message}")
    return evaluate(gold, pred, scheme=scheme)
