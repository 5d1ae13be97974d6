"""Input shapes and label kinds shared by the learners, and the checks of what ``fit`` accepts.

Whatever ``fit`` accepts, a model file, ``load`` and every output format must
carry: a token value holding a lone surrogate (text decoded with
``errors="surrogateescape"``) cannot be written as UTF-8, and a label holding
whitespace or a line break cannot be written in a column file, so ``fit``
refuses both up front, naming the sentence and the token
(:func:`check_column_rows`, :func:`check_labels`). At prediction such a token
is read as it is (an unseen word: its attributes are unknown to the model).
"""

from __future__ import annotations

from itertools import chain
from typing import Sequence

from ..errors import InputError
from ..io.writable import unwritable_label, unwritable_text

CHUNK_PREFIXES = ("B-", "I-", "E-", "S-", "L-", "U-", "M-")
#: More labels than this is refused: first-order models keep L*L transition weights.
MAX_LABELS = 4096


def looks_like_chunks(labels: Sequence[str]) -> bool:
    """True when the labels are chunk labels of some scheme (IOB, IOE, IOBES, BILOU, BMES, typed or bare).

    See :func:`chaintag.evaluation.schemes.detect_scheme` (this is its ``auto``
    detection on one sentence holding each label once).
    """
    from ..evaluation.schemes import detect_scheme
    return detect_scheme([list(labels)]).is_chunking


def as_rows(sentences, n_columns: int | None = None) -> list[list[tuple[str, ...]]]:
    """Sentences as lists of token tuples (a bare string is a one-column token).

    Sentences whose tokens are already tuples are used as they are (not
    copied, never modified); only the first token of each is inspected for
    speed, except when ``n_columns`` is given, which checks every token.

    A token may have more values than ``n_columns``: a model reads its first ``n_columns`` (its
    columns, in order) and ignores the rest, as it does with the extra columns of a column file.

    Raises
    ------
    InputError
        When a token has fewer than ``n_columns`` values.
    """
    out = []
    if isinstance(sentences, str):
        raise InputError("expected a list of sentences, got a string")
    for s, sent in enumerate(sentences):
        if isinstance(sent, str):
            raise InputError(f"sentence {s} is a string; a sentence is a list of tokens "
                             "(split it into words first)")
        if isinstance(sent, dict):  # a flat list of feature dicts: the sentence level is missing
            raise InputError(f"sentence {s} is a dict; a sentence is a list of tokens (a feature dict is one "
                             "token: give a list of sentences, each a list of dicts)")
        if not hasattr(sent, "__len__"):
            raise InputError(f"sentence {s} is {'None' if sent is None else 'a ' + type(sent).__name__}; a sentence "
                             "is a list of tokens")
        if len(sent) and type(sent[0]) is tuple and n_columns is None:
            out.append(sent)
            continue
        kinds = set(map(type, sent))
        if kinds == {tuple} and min(map(len, sent)) >= (n_columns or 0):  # tuples of enough columns: as they are
            out.append(sent)
            continue
        if kinds == {str}:  # words: one-column tokens
            rows = list(zip(sent))
            if n_columns is not None and n_columns > 1:
                raise InputError(f"sentence {s}, token 0: token {sent[0]!r} is one string (1 column), but the "
                                 f"model reads {n_columns} columns: give each token as a tuple of its column "
                                 "strings, e.g. ('dog', 'NN')")
            out.append(rows)
            continue
        rows = [(tok,) if isinstance(tok, str) else _columns(tok, s, i) for i, tok in enumerate(sent)]
        if n_columns is not None:
            for i, row in enumerate(rows):
                if len(row) < n_columns:
                    raise InputError(f"sentence {s}, token {i}: token {row!r} has {len(row)} columns, "
                                     f"expected {n_columns}")
        out.append(rows)
    return out


def _columns(tok, s: int, i: int) -> tuple:
    """A non-string token as a tuple of column values; a feature dict is refused (it is not
    a row of columns, and ``tuple`` would silently keep only its keys)."""
    if isinstance(tok, dict):
        raise InputError(f"sentence {s}, token {i}: a token is a feature dict, but these tokens are read as "
                         "columns: a model of column tokens, or a learner that reads no feature dicts (the "
                         "second-order learners, the neural taggers), reads a string or a tuple of column "
                         "strings; a model trained on feature dicts reads them in fit and predict alike")
    if isinstance(tok, (bytes, bytearray)):
        raise InputError(f"sentence {s}, token {i}: the token {bytes(tok)!r} is bytes; decode it to a string")
    if not isinstance(tok, (tuple, list)) and not hasattr(tok, "__array__"):
        what = "None" if tok is None else f"{tok!r} (of type {type(tok).__name__})"
        raise InputError(f"sentence {s}, token {i}: the token is {what}; a token is a string (its word) or a "
                         "tuple of column strings")
    return tuple(tok)


def materialise(data, what: str = "training"):
    """``data`` as a sequence read once: a generator or other iterator becomes a list.

    Type detection reads the first sentence before the data are used; on an
    iterator that would consume it. Lists and tuples are returned as they are.

    Raises
    ------
    InputError
        For a string, or an object that is not iterable.
    """
    if isinstance(data, (list, tuple)):
        return data
    if isinstance(data, (str, bytes)):
        raise InputError(f"{what} data: expected a list of sentences, got a string")
    try:
        return list(data)
    except TypeError:
        raise InputError(f"{what} data: expected a list of sentences, got {type(data).__name__}") from None


def check_column_rows(rows, what: str = "training") -> int:
    """Check that every token of column rows is a tuple of the same number of strings, all writable as UTF-8.

    Parameters
    ----------
    rows : list of list of tuple
        As :func:`as_rows` gives them (it inspects only the first token of a
        sentence of tuples: this reads every token, one ``join`` and one
        ``encode`` per sentence).
    what : str
        ``"training"`` or ``"dev"``, for the messages.

    Returns
    -------
    int
        The number of columns (0 when every sentence is empty).

    Raises
    ------
    InputError
        Naming the sentence and token: uneven tuples, a token of another kind
        (a feature dict or a list among tuples), a value that is not a string,
        or a value holding a lone surrogate (it cannot be saved in a model
        file, which is UTF-8 text).
    """
    n = 0
    for s, sent in enumerate(rows):
        if not len(sent):
            continue
        if not n:
            first = sent[0]
            n = len(first) if type(first) is tuple else 0
            if not n:
                _bad_token(sent, s, 0, what)
        if _TUPLE.issuperset(map(type, sent)) and {n}.issuperset(map(len, sent)):
            try:
                "".join(chain.from_iterable(sent)).encode("utf-8")
                continue
            except (TypeError, UnicodeEncodeError):
                pass
        _bad_token(sent, s, n, what)
    return n


_TUPLE = frozenset([tuple])


def _bad_token(sent, s: int, n: int, what: str):
    """Raise the InputError of the first token of sentence ``s`` that :func:`check_column_rows` refuses."""
    for i, tok in enumerate(sent):
        where = f"{what} data: sentence {s}, token {i}"
        if type(tok) is not tuple:
            raise InputError(f"{where} is a {type(tok).__name__} ({tok!r:.60}), but the first token is a tuple of "
                             f"{n} column(s): give every token in one form (all tuples of columns, or all "
                             "feature dicts, or all lists of attribute names)")
        if len(tok) != n:
            raise InputError(f"{where} has {len(tok)} column(s) {tok!r:.80}, but the first token has {n}: "
                             "every token needs the same columns")
        for j, v in enumerate(tok):
            if not isinstance(v, str):
                raise InputError(f"{where}, column {j}: {v!r:.40} is a {type(v).__name__}; column values "
                                 "are strings")
            reason = unwritable_text(v)
            if reason:
                raise InputError(f"{where}, column {j}: {v!r:.60} {reason}")
    raise InputError(f"{what} data: sentence {s}: a token is not a tuple of column strings")


def check_label_values(labels, what: str = "training") -> None:
    """Refuse label sequences that are strings and labels that are not strings nor integers.

    A string would be split into one label per character, and a missing label (None, NaN from a
    data frame) or a tuple would become a label named ``'None'``, ``'nan'`` or ``"('X',)"``.
    Integer labels are read as their strings (``1`` as ``'1'``), which ``predict`` returns.

    Raises
    ------
    InputError
        Naming the sentence (and the token).
    """
    import numbers
    for s, ls in enumerate(labels):
        if isinstance(ls, (str, bytes)):
            raise InputError(f"{what} data: the labels of sentence {s} are a string ({ls[:20]!r}); give a list of "
                             "labels, one per token")
        for i, lab in enumerate(ls):
            if isinstance(lab, str) or (isinstance(lab, numbers.Integral) and not isinstance(lab, bool)):
                continue
            what_ = "missing (None)" if lab is None else f"{lab!r} (of type {type(lab).__name__})"
            raise InputError(f"{what} data: sentence {s}, token {i}: the label is {what_}; labels are strings "
                             "(or integers)")


def check_labels(label_set, labels, what: str = "training") -> None:
    """Refuse labels that a column file or a model file cannot hold, naming the label and where it first occurs.

    Parameters
    ----------
    label_set : set of str
        The distinct labels (only these are checked: one test per label).
    labels : sequence of sequence of str
        The label sequences, searched only when a label is refused.

    Raises
    ------
    InputError
    """
    for label in sorted(label_set, key=repr):
        reason = unwritable_label(label)
        if reason:
            where = next((f"sentence {s}, token {i}" for s, ls in enumerate(labels)
                          for i, lab in enumerate(ls) if str(lab) == label), "")
            raise InputError(f"{what} data: {where}: the label {label!r} {reason}")


def default_columns(n: int) -> tuple[str, ...]:
    """Default names of ``n`` feature columns: word, pos, c2, c3, ..."""
    names = ["word", "pos"][:n]
    names += [f"c{k}" for k in range(2, n)]
    return tuple(names)


def column_names(columns) -> tuple[str, ...] | None:
    """The ``columns`` hyper-parameter as a tuple of names: a sequence of names, or one string of names
    separated by commas (``"word,pos"``, as ``--columns`` takes them); None stays None."""
    if columns is None:
        return None
    if isinstance(columns, str):
        return tuple(c.strip() for c in columns.split(","))
    return tuple(columns)
