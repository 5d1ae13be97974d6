"""Input shapes and label kinds shared by the learners."""

from __future__ import annotations

from typing import Sequence

from ..errors import InputError

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
        if len(sent) and type(sent[0]) is tuple and n_columns is None:
            out.append(sent)
            continue
        rows = [(tok,) if isinstance(tok, str) else _columns(tok, s) for tok in sent]
        if n_columns is not None:
            for row in rows:
                if len(row) < n_columns:
                    raise InputError(f"sentence {s}: token {row!r} has {len(row)} columns, expected {n_columns}")
        out.append(rows)
    return out


def _columns(tok, s: int) -> tuple:
    """A non-string token as a tuple of column values; a feature dict is refused (it is not
    a row of columns, and ``tuple`` would silently keep only its keys)."""
    if isinstance(tok, dict):
        raise InputError(f"sentence {s}: a token is a feature dict, but these tokens are read as columns; "
                         "a model reads either feature dicts (in fit and predict alike) or column tokens "
                         "(a string or a tuple of column strings)")
    return tuple(tok)


def default_columns(n: int) -> tuple[str, ...]:
    """Default names of ``n`` feature columns: word, pos, c2, c3, ..."""
    names = ["word", "pos"][:n]
    names += [f"c{k}" for k in range(2, n)]
    return tuple(names)
