"""Document-level columns: attributes of a token computed from the text of its whole document.

A document is a run of sentences (a MEDLINE abstract, a news story). In column
files, document-marker lines (``-DOCSTART-``, ``###MEDLINE:``; see
:mod:`chaintag.io.columns`) start a new document, in CoNLL-U files ``# newdoc``
comments; a file without them is one document. Three columns are computed from the words of the token's
document (never its labels), in the spirit of the global attributes of
Chieu and Ng (2002):

``abbr``
    for a word that the document defines as an abbreviation somewhere
    (``... long form ( W )``: W one token with an upper-case letter, 2-10
    characters, whose first letter (case-insensitive) starts one of the 10
    words before the parenthesis), the lowercased last word of the long form
    (``receptor``, ``factor``, ``cells``), on every occurrence of W in the
    document; the first definition in the document wins (Schwartz and Hearst
    2003 find the definitions with a stricter rule); ``_`` otherwise;
``docnext``
    the lowercased word that most often follows the same word at its *other*
    occurrences in the document (the token's own next word is not counted;
    ties: the alphabetically first); ``_`` when it has none;
``doccap``
    how often the word (compared lowercased) occurs elsewhere in the document,
    ``0``, ``1`` or ``2`` (two or more), followed by ``U`` when one of those
    occurrences has an upper-case letter, ``L`` when one is all lower case
    (and has a letter) and ``P`` when one follows an opening parenthesis
    (``IL-2`` in a text that also writes ``il-2`` and ``( IL-2``: ``2ULP``).

Templates read them like any column: ``abbr[0]``, ``docnext[0]``,
``doccap[0]|shape(w[0])``; the preset ``ner+doc`` adds the three to
``ner+affixes``. The names are reserved: a model with a column of one of these
names gets it computed by the library from the documents of the text it reads
(``chaintag train``, ``tag``, ``evaluate``;
``load_corpus(..., document_columns=True)`` in Python), so the input files
hold only the other columns. In Python the model's ``predict`` (and
``predict_nbest``, ``predict_confidence``, ``predict_marginals``,
``evaluate``) computes them too when given tokens without them (plain words),
taking the sentences of one call as one document, as ``chaintag tag`` takes a
file without document markers (:func:`complete_rows`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Hashable, Sequence

__all__ = ["DOCUMENT_COLUMNS", "NONE", "document_values", "add_document_columns", "with_document_columns",
           "document_columns_read", "document_ids", "model_document_columns", "input_columns", "model_rows",
           "complete_rows"]

#: Names of the document columns, in the order they are appended to a token's columns.
DOCUMENT_COLUMNS = ("abbr", "docnext", "doccap")
#: Value of ``abbr`` and ``docnext`` where there is none.
NONE = "_"
#: Words before the parenthesis searched for the abbreviation's first letter.
ABBR_WINDOW = 10
#: Shortest and longest abbreviation (characters).
ABBR_MIN, ABBR_MAX = 2, 10


def _definitions(sent: Sequence[str]) -> list[tuple[str, str]]:
    """(abbreviation, lowercased last word of its long form) defined in one sentence, in order."""
    out = []
    for i in range(1, len(sent) - 2):
        if sent[i] != "(" or sent[i + 2] != ")":
            continue
        w = sent[i + 1]
        if not (ABBR_MIN <= len(w) <= ABBR_MAX and any(c.isupper() for c in w)):
            continue
        first = w[0].lower()
        if any(x[:1].lower() == first for x in sent[max(0, i - ABBR_WINDOW):i]):
            out.append((w, sent[i - 1].lower()))
    return out


def _form(ws: Sequence[str], i: int) -> tuple[bool, bool, bool]:
    """(has an upper-case letter, all lower case with a letter, follows ``(``) of occurrence ``i``."""
    w = ws[i]
    return (any(c.isupper() for c in w), w == w.lower() and any(c.isalpha() for c in w),
            i > 0 and ws[i - 1] == "(")


def _document(words: list[Sequence[str]]) -> list[list[tuple[str, str, str]]]:
    """The three values of every token of one document (its sentences' words, in order)."""
    abbr: dict[str, str] = {}
    nexts: dict[str, Counter] = defaultdict(Counter)  # word -> lowercased next words, one per occurrence
    forms: dict[str, Counter] = defaultdict(Counter)  # lowercased word -> forms of its occurrences
    for ws in words:
        for w, head in _definitions(ws):
            abbr.setdefault(w, head)
        for i in range(len(ws) - 1):
            nexts[ws[i]][ws[i + 1].lower()] += 1
        for i, w in enumerate(ws):
            forms[w.lower()][_form(ws, i)] += 1
    out = []
    for ws in words:
        row = []
        for i, w in enumerate(ws):
            c = nexts.get(w)
            nxt = NONE
            if c:
                c = c.copy()
                if i + 1 < len(ws):
                    c[ws[i + 1].lower()] -= 1  # its other occurrences only
                best = [(n, x) for x, n in c.items() if n > 0]
                if best:
                    nxt = min(best, key=lambda t: (-t[0], t[1]))[1]
            f = forms[w.lower()].copy()
            f[_form(ws, i)] -= 1  # its other occurrences only
            others = [k for k, n in f.items() if n > 0]
            cap = str(min(sum(f.values()), 2)) + "".join(
                flag for j, flag in enumerate("ULP") if any(k[j] for k in others))
            row.append((abbr.get(w, NONE), nxt, cap))
        out.append(row)
    return out


def document_values(words: Sequence[Sequence[str]],
                    documents: Sequence[Hashable] | None = None) -> list[list[tuple[str, str, str]]]:
    """The document columns of every token.

    Parameters
    ----------
    words : list of sentences, each a list of str
        The words of every sentence.
    documents : sequence, optional
        Document id of each sentence (any hashable values); sentences with the
        same id form one document, in their order. None: all the sentences are
        one document.

    Returns
    -------
    list of list of tuple of str
        Per sentence, per token: ``(abbr, docnext, doccap)`` (see the module).

    Examples
    --------
    >>> document_values([["tumor", "necrosis", "factor", "(", "TNF", ")"], ["TNF", "binds"]])[1][0]
    ('factor', ')', '1UP')
    """
    if documents is None:
        documents = [0] * len(words)
    if len(documents) != len(words):
        raise ValueError(f"{len(documents)} document ids for {len(words)} sentences")
    by_doc: dict[Hashable, list[int]] = defaultdict(list)
    for s, d in enumerate(documents):
        by_doc[d].append(s)
    out: list = [None] * len(words)
    for sents in by_doc.values():
        for s, row in zip(sents, _document([words[s] for s in sents])):
            out[s] = row
    return out


def add_document_columns(tokens: Sequence[Sequence[Sequence[str]]], documents: Sequence[Hashable] | None = None,
                         word: int = 0) -> list[list[tuple[str, ...]]]:
    """The sentences with the document columns appended to every token's columns.

    Parameters
    ----------
    tokens : list of sentences, each a list of tuples of column strings
        As :attr:`chaintag.data.datasets.Corpus.tokens` (a plain list of
        words per sentence is also accepted: each word becomes a 1-tuple).
    documents : sequence, optional
        Document id of each sentence (:attr:`Corpus.documents`); None: one document.
    word : int, default 0
        The column holding the word.

    Returns
    -------
    list of list of tuple of str
        Each token's columns followed by ``abbr``, ``docnext``, ``doccap``
        (:data:`DOCUMENT_COLUMNS`): pass ``columns=(..., "abbr", "docnext", "doccap")``
        to the learner.
    """
    rows = [[(t,) if isinstance(t, str) else tuple(t) for t in s] for s in tokens]
    values = document_values([[t[word] for t in s] for s in rows], documents)
    return [[t + v for t, v in zip(s, vs)] for s, vs in zip(rows, values)]


def document_ids(markers: Sequence[bool]) -> list[int]:
    """Document index of each sentence from a sequence of items that are markers (True) or sentences (False).

    Sentences before the first marker form document 0 (a file without markers
    is one document); every marker that follows a sentence starts a new one.
    """
    out, doc, seen = [], 0, False
    for is_marker in markers:
        if is_marker:
            if seen:
                doc += 1
                seen = False
        else:
            out.append(doc)
            seen = True
    return out


def with_document_columns(corpus, word: str = "word"):
    """Append the document columns to a corpus read by :func:`chaintag.data.datasets.load_corpus`, in place.

    The documents are :attr:`Corpus.documents` (the file's document markers or ``# newdoc`` comments;
    None: one document); columns the corpus already has are left alone.

    Returns
    -------
    Corpus
        The same object, ``columns`` ending with :data:`DOCUMENT_COLUMNS`.
    """
    if all(c in corpus.columns for c in DOCUMENT_COLUMNS):
        return corpus
    if word not in corpus.columns:
        from ..errors import InputError
        raise InputError(f"document columns are computed from the {word!r} column, which this data lacks "
                         f"(it has {', '.join(corpus.columns) or 'none'})", corpus.source or None)
    if any(c in corpus.columns for c in DOCUMENT_COLUMNS):
        from ..errors import InputError
        raise InputError(f"the data has some of the document columns ({', '.join(DOCUMENT_COLUMNS)}), not all; "
                         "these names are reserved for the columns the library computes", corpus.source or None)
    corpus.tokens = add_document_columns(corpus.tokens, getattr(corpus, "documents", None),
                                         word=corpus.columns.index(word))
    corpus.columns = tuple(corpus.columns) + DOCUMENT_COLUMNS
    return corpus


def document_columns_read(features, columns: Sequence[str]) -> list[str]:
    """The document columns that a feature specification's templates read and ``columns`` lack.

    Parameters
    ----------
    features : str or sequence of str
        As the learners' ``features``.
    columns : sequence of str
        The data's feature columns.

    Returns
    -------
    list of str
        In :data:`DOCUMENT_COLUMNS` order; empty when the templates read none
        (or the data has them).
    """
    from .templates import resolve_templates
    missing = [c for c in DOCUMENT_COLUMNS if c not in columns]
    if not missing:
        return []
    from ..errors import InputError
    try:
        templates = resolve_templates(features, tuple(columns) + tuple(missing), virtual=True)
    except InputError:  # a template reads a column the data lacks: named against the data's own columns
        resolve_templates(features, columns, virtual=True)
        raise
    read = {a.column for t in templates for a in t.atoms}
    return [c for c in missing if c in read]


def model_document_columns(model) -> tuple[str, ...]:
    """The document columns a fitted model reads (its feature columns named in :data:`DOCUMENT_COLUMNS`).

    The model file also records them (``"document_columns"`` in its JSON
    metadata); the tagging and scoring commands compute them from the
    documents of their input.
    """
    return tuple(c for c in getattr(model, "columns_", ()) or () if c in DOCUMENT_COLUMNS)


def input_columns(model) -> tuple[str, ...]:
    """The columns a model needs from its input files: its feature columns less the document columns."""
    return tuple(c for c in model.columns_ if c not in DOCUMENT_COLUMNS)


def model_rows(model, rows, documents: Sequence[Hashable] | None = None):
    """Sentences of a model's input columns, as the model reads them: with its document columns computed.

    Parameters
    ----------
    model : SequenceTagger
        A fitted model; without document columns ``rows`` is returned as it is.
    rows : list of sentences, each a list of tuples of column strings
        The columns :func:`input_columns` names, in that order.
    documents : sequence, optional
        Document id of each sentence; None: the sentences are one document.

    Returns
    -------
    list of list of tuple of str
        Tokens with the columns of ``model.columns_``, in its order.
    """
    if not model_document_columns(model):
        return rows
    have = input_columns(model)
    extended = have + DOCUMENT_COLUMNS
    out = add_document_columns(rows, documents, word=have.index("word") if "word" in have else 0)
    idx = [extended.index(c) for c in model.columns_]
    if idx != list(range(len(extended))):
        out = [[tuple(t[i] for i in idx) for t in s] for s in out]
    return out


def complete_rows(model, rows):
    """A model's input as it reads it: the tokens as given when they hold all its columns, else
    with its document columns computed from them, the sentences being one document.

    This is what ``predict``, ``predict_nbest``, ``predict_confidence``,
    ``predict_marginals`` and ``evaluate`` do with their sentences, so that a
    model trained with document columns (``ner+doc``, the ``bio-ner`` recipe)
    tags plain token lists as ``chaintag tag`` tags a file without document
    markers.

    Parameters
    ----------
    model : SequenceTagger
        A fitted model that reads document columns (:func:`model_document_columns`).
    rows : list of sentences, each a list of tuples of str
        Either every token holds at least the model's ``columns_`` (the
        document columns already there, as :func:`add_document_columns` or
        ``load_corpus(..., document_columns=True)`` give them), or every token
        holds at least its :func:`input_columns` (a plain word is a 1-tuple);
        columns after those are ignored.

    Returns
    -------
    list of list of tuple of str
        ``rows`` itself in the first case, else the tokens with the columns of
        ``model.columns_`` (:func:`model_rows` over the input columns, one document).

    Raises
    ------
    chaintag.errors.InputError
        When some token has fewer than the model's input columns (naming the
        sentence, the token and the columns).
    """
    full = len(model.columns_)
    have = input_columns(model)
    width = min((len(t) for s in rows for t in s), default=full)
    if width >= full:
        return rows
    if width >= len(have):
        k = len(have)
        return model_rows(model, [[t[:k] for t in s] for s in rows])
    s, i, tok = next((s, i, t) for s, sent in enumerate(rows) for i, t in enumerate(sent) if len(t) == width)
    from ..errors import InputError
    raise InputError(f"sentence {s}, token {i}: token {tok!r} has {width} columns, expected {len(have)} "
                     f"(the model reads the columns {', '.join(have)}; its document columns "
                     f"{', '.join(model_document_columns(model))} are computed from the sentences, which are "
                     "taken as one document: for several documents add them with "
                     "chaintag.features.document.add_document_columns, or read the data with "
                     "load_corpus(..., document_columns=True))")
