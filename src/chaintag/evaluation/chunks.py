"""Chunk extraction and chunk-level scoring with ``conlleval`` semantics.

The CoNLL shared tasks on chunking (2000) and named entities (2002, 2003)
were scored with the ``conlleval`` script by Erik Tjong Kim Sang. This
module reproduces its way of reading chunk tags, of deciding where a chunk
starts and ends, and of counting correct chunks, so that the figures
reported here can be compared with published ones.

How a label is read
-------------------
A label is split at its *first* hyphen into a prefix and a type
(``"B-NP"`` -> ``("B", "NP")``, ``"I-GPE-ORG"`` -> ``("I", "GPE-ORG")``).
A label without a hyphen is, exactly as in ``conlleval``, taken as a prefix
with an *empty* type: ``"O"`` -> ``("O", "")``, ``"NN"`` -> ``("NN", "")``.
``conlleval`` does **not** read a bare tag as ``B-tag`` or ``I-tag`` (that
only happens with its ``-r`` option). A consequence is that a sequence made
only of bare tags, such as part-of-speech tags, contains no chunks at all;
only token accuracy is meaningful for it.

Chunk boundaries
----------------
Prefixes ``O`` and ``.`` are outside any chunk (whatever their type). For
any other prefix, a chunk starts at the current token when

* the prefix is ``B``, ``S``, ``[`` or ``]``;
* the type differs from the type of the previous token;
* the prefix is ``I`` or ``E`` and the previous prefix is ``O``, ``.``,
  ``E``, ``S``, ``[`` or ``]``.

A chunk in progress ends before the current token when the current token is
outside, starts a chunk itself (in particular, on any change of type), or
when the previous prefix is ``E``, ``S``, ``[`` or ``]``. Chunks tagged
``[`` or ``]`` therefore always have length one, as ``conlleval`` assumes.
Each sentence is read as if preceded and followed by ``O``, so chunks never
cross sentence boundaries (``conlleval`` reads the blank line between
sentences as ``O``). These rules read IOB1, IOB2, IOE1, IOE2 and IOBES input
alike.

Differences from the original script
------------------------------------
The 2004 version of ``conlleval`` predates IOBES and has no rule for ``S``;
its rules also let ``E-X B-X`` run on as one chunk. The rules above add
``S`` and make ``B`` always start a chunk, as the IOBES-aware variants of
the script do. Where ``conlleval``'s rules would leave a chunk open without
closing it (a chunk opened by a bare tag such as ``NN`` after a typed chunk
runs on through ``O`` there), a chunk here is closed by ``O`` and by the
start of the next chunk, so that every chunk is a well-defined span. For
IOB1, IOB2, IOE1 and IOE2 input the counts and the report are the same as
``conlleval``'s, and for IOBES input the same as its IOBES-aware variants'.

References
----------
Erik F. Tjong Kim Sang and Sabine Buchholz (2000). Introduction to the
CoNLL-2000 Shared Task: Chunking. In *Proceedings of CoNLL-2000 and
LLL-2000*, pages 127-132. The evaluation script ``conlleval`` (version
2004-01-26) was distributed with the shared task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

__all__ = ["EvalResult", "evaluate", "extract_chunks", "label_spans", "span_labels", "split_label"]

# Prefixes outside any chunk.
_OUTSIDE = frozenset({"O", "."})
# Prefixes that always open a new chunk.
_ALWAYS_START = frozenset({"B", "S", "[", "]"})
# Prefixes after which the chunk in progress is over.
_END_AFTER = frozenset({"E", "S", "[", "]"})
# Prefixes that continue a chunk of the same type unless it is over.
_INSIDE = frozenset({"I", "E"})
# Previous prefixes after which an I or E opens a new chunk.
_RESTART_AFTER = _OUTSIDE | _END_AFTER


def split_label(label: str) -> tuple[str, str]:
    """Split a chunk label into its prefix and type, as ``conlleval`` does.

    Parameters
    ----------
    label : str
        A label such as ``"B-NP"``, ``"I-PER"``, ``"O"`` or ``"NN"``.

    Returns
    -------
    tuple of (str, str)
        ``(prefix, type)``: the text before the first hyphen and the text
        after it. Without a hyphen the whole label is the prefix and the
        type is ``""``.

    Raises
    ------
    TypeError
        If ``label`` is not a string.
    """
    if not isinstance(label, str):
        raise TypeError(f"labels must be strings, got {type(label).__name__}: {label!r}")
    prefix, hyphen, kind = label.partition("-")
    if not hyphen:
        return label, ""
    return prefix, kind


def _scan(labels: Sequence[str], cache: dict) -> list[tuple[str, int, int]]:
    """Chunks of one sentence; ``cache`` maps labels to ``split_label`` results."""
    chunks = []
    open_type = None  # type of the chunk in progress; None when outside
    start = 0
    prev_prefix, prev_type = "O", ""
    i = 0
    for i, label in enumerate(labels):
        parsed = cache.get(label)
        if parsed is None:
            parsed = cache[label] = split_label(label)
        prefix, kind = parsed
        if prefix in _OUTSIDE:
            if open_type is not None:
                chunks.append((open_type, start, i))
                open_type = None
        elif (prefix in _ALWAYS_START or kind != prev_type
              or (prefix in _INSIDE and prev_prefix in _RESTART_AFTER)):
            if open_type is not None:
                chunks.append((open_type, start, i))
            open_type = kind
            start = i
        elif prev_prefix in _END_AFTER and open_type is not None:
            chunks.append((open_type, start, i))
            open_type = None
        prev_prefix, prev_type = prefix, kind
    if open_type is not None:
        chunks.append((open_type, start, i + 1))
    return chunks


def extract_chunks(labels: Sequence[str]) -> list[tuple[str, int, int]]:
    """Chunks of one sentence, read with ``conlleval``'s rules.

    Parameters
    ----------
    labels : sequence of str
        The labels of one sentence, e.g. ``["B-NP", "I-NP", "O", "B-VP"]``.

    Returns
    -------
    list of (str, int, int)
        ``(type, start, end)`` for each chunk in order of position, with
        ``end`` exclusive: the example gives
        ``[("NP", 0, 2), ("VP", 3, 4)]``. Chunks do not overlap.

    Raises
    ------
    TypeError
        If ``labels`` is a single string or contains a non-string.

    Notes
    -----
    See the module documentation for the rules. In short: a chunk starts at
    ``B``, ``S``, ``[``, ``]``, at a change of type, or at ``I``/``E`` after
    ``O``, ``.``, ``E``, ``S``, ``[`` or ``]``; it ends before ``O`` or ``.``,
    before the start of another chunk, and after ``E``, ``S``, ``[`` or
    ``]``. The sentence is read as if surrounded by ``O``. A label without a
    hyphen other than ``O`` has an empty type, as in ``conlleval``.
    """
    if isinstance(labels, str):
        raise TypeError("extract_chunks expects a sequence of labels, not a single string")
    return _scan(labels, {})


@dataclass
class EvalResult:
    """Scores of a predicted labelling against a gold one.

    All percentages are in ``[0, 100]``.

    Attributes
    ----------
    accuracy : float
        Percentage of tokens whose predicted label equals the gold one
        (``conlleval``'s "accuracy"); 0 when there are no tokens.
    precision : float
        ``100 * n_correct_chunks / n_pred_chunks``; 0 when nothing was
        predicted.
    recall : float
        ``100 * n_correct_chunks / n_gold_chunks``; 0 when gold has no chunk.
    f1 : float
        ``2 * precision * recall / (precision + recall)``; 0 when both are 0.
    per_type : dict of str to dict
        For every chunk type found in the gold labels or in the predictions,
        sorted by type name: ``{"precision", "recall", "f1", "n_gold",
        "n_pred", "n_correct"}`` with the same conventions as the overall
        figures. A type only in gold has precision 0; a type only in the
        predictions has recall 0.
    n_sentences, n_tokens : int
        Sizes of the data.
    n_gold_chunks, n_pred_chunks, n_correct_chunks : int
        Chunk counts; a predicted chunk is correct when gold has a chunk of
        the same type with the same start and end.
    n_correct_tokens : int
        Tokens whose label is right.
    scheme : str
        Chunk scheme the labels were read in (``iob1``, ``iob2``, ``ioe1``,
        ``ioe2``, ``iobes``, ``bilou``, ``bmes``), or ``none`` when they are
        not chunk labels (the chunk figures are then 0 and meaningless).
    scheme_detected : bool
        Whether the scheme was detected from the labels (else it was given).
    is_chunking : bool
        ``scheme != "none"``: chunk F1 is the figure to read, else accuracy.
    scheme_typed : bool
        False for bare labels (``B``, ``I``, ``O`` without a type).
    stray_gold, stray_pred : dict of str to int
        Labels that fit no prefix of the scheme, with their number of
        tokens in gold and in the predictions; they were read as ``O``.
    scheme_suggested : str or None
        When the scheme was given and left strays: the scheme detected from
        the labels if it reads every label (e.g. ``bilou`` for ``U-``/``L-``
        labels read with ``iobes``), else None.
    label_format : str
        How the labels write prefix and type: ``"B-X"`` (``B-PER``),
        ``"B_X"`` (``B_PER``), ``"X-B"`` (``PER-B``) or ``"X_B"``
        (:data:`chaintag.evaluation.schemes.NOTATIONS`).
    """

    accuracy: float
    precision: float
    recall: float
    f1: float
    per_type: dict[str, dict] = field(default_factory=dict)
    n_sentences: int = 0
    n_tokens: int = 0
    n_gold_chunks: int = 0
    n_pred_chunks: int = 0
    n_correct_chunks: int = 0
    n_correct_tokens: int = 0
    scheme: str = "iob2"
    scheme_detected: bool = True
    is_chunking: bool = True
    scheme_typed: bool = True
    stray_gold: dict[str, int] = field(default_factory=dict)
    stray_pred: dict[str, int] = field(default_factory=dict)
    scheme_suggested: str | None = None
    label_format: str = "B-X"
    #: Set when the gold labels were written in the model's scheme or notation before scoring (``eval
    #: --model`` with gold labels written otherwise): the scheme line says so.
    gold_rewritten: bool = False

    def describe_scheme(self) -> str:
        """One line naming the scheme used and the stray labels, for reports.

        Returns
        -------
        str
            E.g. ``"scheme: BILOU (detected from the labels)"``, followed by
            ``"; stray labels read as O: gold NN x3; predicted VB x1"`` when
            some label fits no prefix of the scheme.
        """
        from .schemes import Scheme
        text = "scheme: " + Scheme(self.scheme, typed=self.scheme_typed, detected=self.scheme_detected,
                                   notation=self.label_format).describe()
        parts = []
        for side, stray in (("gold", self.stray_gold), ("predicted", self.stray_pred)):
            if stray:
                parts.append(side + " " + ", ".join(f"{lab} x{n}" for lab, n in sorted(stray.items())))
        if parts:
            text += "; stray labels (no prefix of this scheme), read as O: " + "; ".join(parts)
        if self.scheme_suggested:
            text += (f"; the labels look like {self.scheme_suggested.upper()}: "
                     f"--scheme {self.scheme_suggested} (or auto) reads them all")
        if self.gold_rewritten:
            text += "; the file's gold labels, written otherwise, were rewritten in the model's scheme first"
        return text

    def to_dict(self) -> dict:
        """All figures as plain JSON-ready values.

        Returns
        -------
        dict
            Keys ``accuracy``, ``precision``, ``recall``, ``f1``,
            ``per_type`` (type -> ``{precision, recall, f1, n_gold, n_pred,
            n_correct}``), ``n_sentences``, ``n_tokens``, ``n_gold_chunks``,
            ``n_pred_chunks``, ``n_correct_chunks`` and ``n_correct_tokens``.
            Also ``scheme`` (the chunk scheme used, ``"none"`` for labels
            that are not chunk labels), ``label_format`` (``"B-X"``,
            ``"B_X"``, ``"X-B"`` or ``"X_B"``), ``scheme_detected``, ``is_chunking``,
            and ``stray_gold`` / ``stray_pred`` (label -> count of the labels
            that fit no prefix of the scheme). Percentages are floats, counts
            are ints; the dictionary shares no mutable state with the result.
        """
        per_type = {}
        for kind, stats in self.per_type.items():
            per_type[str(kind)] = {
                "precision": float(stats["precision"]),
                "recall": float(stats["recall"]),
                "f1": float(stats["f1"]),
                "n_gold": int(stats["n_gold"]),
                "n_pred": int(stats["n_pred"]),
                "n_correct": int(stats["n_correct"]),
            }
        return {
            "accuracy": float(self.accuracy),
            "precision": float(self.precision),
            "recall": float(self.recall),
            "f1": float(self.f1),
            "per_type": per_type,
            "n_sentences": int(self.n_sentences),
            "n_tokens": int(self.n_tokens),
            "n_gold_chunks": int(self.n_gold_chunks),
            "n_pred_chunks": int(self.n_pred_chunks),
            "n_correct_chunks": int(self.n_correct_chunks),
            "n_correct_tokens": int(self.n_correct_tokens),
            "scheme": str(self.scheme),
            "label_format": str(self.label_format),
            "scheme_detected": bool(self.scheme_detected),
            "is_chunking": bool(self.is_chunking),
            "stray_gold": {str(k): int(v) for k, v in self.stray_gold.items()},
            "stray_pred": {str(k): int(v) for k, v in self.stray_pred.items()},
        }


def label_spans(sequences: Sequence[Sequence[str]], scheme: str | None = "auto",
                label_format: str | None = None) -> list[list[tuple[str, int, int]]]:
    """The chunks of each label sequence, read as :func:`evaluate` reads them.

    Parameters
    ----------
    sequences : sequence of sequences of str
        Labels, one sequence per sentence.
    scheme, label_format : str, optional
        As for :func:`evaluate`: the scheme and the label notation are
        detected from all the sequences together by default (``B-PER``,
        ``B_PER``, ``PER-B``, ``PER_B``; IOB2, BILOU, BMES, ...).

    Returns
    -------
    list of list of (str, int, int)
        For each sequence, ``(type, start, end)`` of its chunks (``end``
        exclusive), in order; empty lists when the labels are not chunk
        labels (scheme ``none``). Stray labels are read as outside.

    Examples
    --------
    >>> label_spans([["PER-B", "PER-I", "O", "LOC-B"]])
    [[('PER', 0, 2), ('LOC', 3, 4)]]
    >>> label_spans([["B_PER", "I_PER", "O"], ["O", "B_LOC"]])[1]
    [('LOC', 1, 2)]
    """
    from .schemes import detect_scheme
    seqs = [list(seq) for seq in sequences]
    for seq in seqs:
        for lab in seq:
            if not isinstance(lab, str):
                split_label(lab)  # raises the TypeError
    chosen = detect_scheme(seqs, (), scheme, label_format)
    if not chosen.is_chunking:
        return [[] for _ in seqs]
    cache: dict = dict(chosen.read)
    return [_scan(seq, cache) for seq in seqs]


def span_labels(n_tokens: int, spans: Sequence[tuple[str, int, int]], scheme: str = "iob2",
                notation: str = "B-X") -> list[str]:
    """The labels of a sentence whose chunks are ``spans``, written in a chunk scheme (the inverse of
    :func:`label_spans`).

    Parameters
    ----------
    n_tokens : int
    spans : sequence of (str, int, int)
        ``(type, start, end)``, ``end`` exclusive, not overlapping, in order.
    scheme : str, default "iob2"
        One of :data:`chaintag.evaluation.schemes.SCHEMES`: ``iob2`` opens every chunk on ``B``;
        ``iob1`` only a chunk right after one of its type; ``ioe2`` closes every chunk on ``E``;
        ``ioe1`` only a chunk right before one of its type; ``iobes`` / ``bilou`` / ``bmes`` mark
        the first, inner, last and single tokens (``B I E S`` / ``B I L U`` / ``B M E S``).
    notation : str, default "B-X"
        How a prefix and a type are written (:data:`chaintag.evaluation.schemes.NOTATIONS`).

    Returns
    -------
    list of str
        ``n_tokens`` labels, ``O`` outside the chunks.

    Examples
    --------
    >>> span_labels(5, [("PER", 0, 2), ("PER", 2, 3), ("LOC", 4, 5)], "bilou")
    ['B-PER', 'L-PER', 'U-PER', 'O', 'U-LOC']
    >>> span_labels(4, [("PER", 0, 2), ("PER", 2, 3)], "iob1", "X_B")
    ['PER_I', 'PER_I', 'PER_B', 'O']
    """
    from .schemes import SCHEMES, write_label
    if scheme not in SCHEMES:
        raise ValueError(f"unknown label scheme {scheme!r}; expected one of {', '.join(sorted(SCHEMES))}")
    inner, last, single = {"bilou": ("I", "L", "U"), "bmes": ("M", "E", "S")}.get(scheme, ("I", "E", "S"))
    out = ["O"] * n_tokens
    for k, (typ, a, b) in enumerate(spans):
        after = k > 0 and spans[k - 1][2] == a and spans[k - 1][0] == typ
        before = k + 1 < len(spans) and spans[k + 1][1] == b and spans[k + 1][0] == typ
        prefixes = ["I"] * (b - a)
        if scheme in ("iobes", "bilou", "bmes"):
            prefixes = [single] if b - a == 1 else ["B"] + [inner] * (b - a - 2) + [last]
        elif scheme == "iob2" or (scheme == "iob1" and after):
            prefixes[0] = "B"
        elif scheme == "ioe2" or (scheme == "ioe1" and before):
            prefixes[-1] = "E"
        for i, p in zip(range(a, b), prefixes):
            out[i] = write_label(p, typ, notation)
    return out


def _prf(n_correct: int, n_gold: int, n_pred: int) -> tuple[float, float, float]:
    """Precision, recall and F1 in percent with ``conlleval``'s zero conventions."""
    precision = 100.0 * n_correct / n_pred if n_pred > 0 else 0.0
    recall = 100.0 * n_correct / n_gold if n_gold > 0 else 0.0
    total = precision + recall
    f1 = 2.0 * precision * recall / total if total > 0 else 0.0
    return precision, recall, f1


def _check_sentence_counts(gold: Sequence, pred: Sequence) -> None:
    for name, value in (("gold", gold), ("pred", pred)):
        if isinstance(value, str):
            raise TypeError(f"{name} must be a sequence of sentences, not a string")
    if len(gold) != len(pred):
        raise ValueError(
            f"gold has {len(gold)} sentence{'' if len(gold) == 1 else 's'} but pred has {len(pred)}")


def _check_sentence(index: int, gold_sentence: Sequence, pred_sentence: Sequence) -> None:
    if isinstance(gold_sentence, str) or isinstance(pred_sentence, str):
        raise TypeError(
            f"sentence {index}: expected a sequence of labels, got a string "
            "(pass a list of sentences, each a list of labels)")
    if len(gold_sentence) != len(pred_sentence):
        raise ValueError(
            f"sentence {index}: gold has {len(gold_sentence)} label{'' if len(gold_sentence) == 1 else 's'} "
            f"but pred has {len(pred_sentence)}")


def _count_agreeing(gold_sentence: Sequence[str], pred_sentence: Sequence[str], cache: dict) -> int:
    """Tokens on which two label sequences of equal length agree.

    Two labels agree when they split into the same prefix and type; for
    well-formed labels that is plain string equality.
    """
    n = 0
    for g, p in zip(gold_sentence, pred_sentence):
        if g == p:
            n += 1
        else:
            gp = cache.get(g)
            if gp is None:
                gp = cache[g] = split_label(g)
            pp = cache.get(p)
            if pp is None:
                pp = cache[p] = split_label(p)
            if gp == pp:
                n += 1
    return n


def _check_inputs(gold: Sequence, pred: Sequence) -> None:
    """Raise for mismatched sentence counts or lengths, strings and non-string labels.

    Sentences are checked in order, each one's lengths before its labels'
    types, so the first faulty sentence is the one reported.
    """
    _check_sentence_counts(gold, pred)
    for index, (gold_sentence, pred_sentence) in enumerate(zip(gold, pred)):
        _check_sentence(index, gold_sentence, pred_sentence)
        for lab in (*gold_sentence, *pred_sentence):
            if not isinstance(lab, str):
                split_label(lab)  # raises the TypeError


@dataclass
class _Tally:
    """Counts gathered over the sentences by :func:`_tally`."""

    gold_counts: dict[str, int] = field(default_factory=dict)
    pred_counts: dict[str, int] = field(default_factory=dict)
    correct_counts: dict[str, int] = field(default_factory=dict)
    stray_gold: dict[str, int] = field(default_factory=dict)
    stray_pred: dict[str, int] = field(default_factory=dict)
    n_tokens: int = 0
    n_correct_tokens: int = 0


def _count_strays(tally: _Tally, stray, gold_sentence: Sequence[str],
                  pred_sentence: Sequence[str]) -> None:
    """Add a sentence's stray labels (those in ``stray``) to the tally, per side."""
    for side, seq in ((tally.stray_gold, gold_sentence), (tally.stray_pred, pred_sentence)):
        for lab in seq:
            if lab in stray:
                side[lab] = side.get(lab, 0) + 1


def _count_chunks(tally: _Tally, gold_chunks: list, pred_chunks: list) -> None:
    """Add a sentence's gold, predicted and correct chunks to the per-type counts."""
    gold_counts, pred_counts, correct_counts = (
        tally.gold_counts, tally.pred_counts, tally.correct_counts)
    for chunk in gold_chunks:
        kind = chunk[0]
        gold_counts[kind] = gold_counts.get(kind, 0) + 1
    for chunk in pred_chunks:
        kind = chunk[0]
        pred_counts[kind] = pred_counts.get(kind, 0) + 1
    if gold_chunks and pred_chunks:
        gold_set = set(gold_chunks)
        for chunk in pred_chunks:
            if chunk in gold_set:
                kind = chunk[0]
                correct_counts[kind] = correct_counts.get(kind, 0) + 1


def _tally(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]], chosen) -> _Tally:
    """Count tokens, agreeing tokens, strays and chunks over all sentence pairs.

    ``chosen`` is the scheme that :func:`~chaintag.evaluation.schemes.
    detect_scheme` picked: its ``read`` maps labels to their reading and
    its ``stray`` holds the labels that fit no prefix of the scheme.
    """
    cache: dict = dict(chosen.read)
    token_cache: dict = {}
    stray = chosen.stray
    tally = _Tally()
    for gold_sentence, pred_sentence in zip(gold, pred):
        if stray:
            _count_strays(tally, stray, gold_sentence, pred_sentence)
        gold_chunks = _scan(gold_sentence, cache)
        pred_chunks = _scan(pred_sentence, cache)
        tally.n_tokens += len(gold_sentence)
        tally.n_correct_tokens += _count_agreeing(gold_sentence, pred_sentence, token_cache)
        _count_chunks(tally, gold_chunks, pred_chunks)
    return tally


def _per_type(tally: _Tally) -> dict[str, dict]:
    """Precision, recall, F1 and counts of every type seen in gold or in the predictions."""
    per_type: dict[str, dict] = {}
    for kind in sorted(set(tally.gold_counts) | set(tally.pred_counts)):
        n_gold = tally.gold_counts.get(kind, 0)
        n_pred = tally.pred_counts.get(kind, 0)
        n_correct = tally.correct_counts.get(kind, 0)
        p, r, f = _prf(n_correct, n_gold, n_pred)
        per_type[kind] = {"precision": p, "recall": r, "f1": f,
                          "n_gold": n_gold, "n_pred": n_pred, "n_correct": n_correct}
    return per_type


def _result(gold: Sequence, pred: Sequence, chosen, tally: _Tally) -> EvalResult:
    """The :class:`EvalResult` of a tally: overall and per-type scores, accuracy, scheme."""
    per_type = _per_type(tally)
    n_gold_chunks = sum(tally.gold_counts.values())
    n_pred_chunks = sum(tally.pred_counts.values())
    n_correct_chunks = sum(tally.correct_counts.values())
    precision, recall, f1 = _prf(n_correct_chunks, n_gold_chunks, n_pred_chunks)
    n_tokens, n_correct_tokens = tally.n_tokens, tally.n_correct_tokens
    accuracy = 100.0 * n_correct_tokens / n_tokens if n_tokens > 0 else 0.0
    return EvalResult(
        accuracy=accuracy,
        precision=precision,
        recall=recall,
        f1=f1,
        per_type=per_type,
        n_sentences=len(gold),
        n_tokens=n_tokens,
        n_gold_chunks=n_gold_chunks,
        n_pred_chunks=n_pred_chunks,
        n_correct_chunks=n_correct_chunks,
        n_correct_tokens=n_correct_tokens,
        scheme=chosen.name,
        scheme_detected=chosen.detected,
        is_chunking=chosen.is_chunking,
        scheme_typed=chosen.typed,
        stray_gold=tally.stray_gold,
        stray_pred=tally.stray_pred,
        scheme_suggested=_suggest(gold, pred, chosen, tally.stray_gold, tally.stray_pred),
        label_format=chosen.notation,
    )


def evaluate(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]],
             scheme: str | None = "auto", label_format: str | None = None) -> EvalResult:
    """Score predicted labels against gold labels as ``conlleval`` does.

    Parameters
    ----------
    gold : sequence of sequences of str
        Gold labels, one sequence per sentence.
    pred : sequence of sequences of str
        Predicted labels, one sequence per sentence, aligned with ``gold``.
    scheme : str, optional
        Chunk scheme: ``"auto"`` (default: detected from the labels),
        ``"iob1"``, ``"iob2"``, ``"ioe1"``, ``"ioe2"``, ``"iobes"``
        (``"bioes"``), ``"bilou"``, ``"bmes"``, or ``"none"`` (token
        accuracy only); see :mod:`chaintag.evaluation.schemes`.
    label_format : str, optional
        How the labels write prefix and type: ``"auto"`` (default: detected
        from the labels: ``B-PER``, ``B_PER``, ``PER-B`` or ``PER_B``),
        ``"prefix"``, ``"suffix"``, or one of ``"B-X"``, ``"B_X"``,
        ``"X-B"``, ``"X_B"``; ``scheme`` may carry it too (``"iob2:suffix"``).

    Returns
    -------
    EvalResult
        Token accuracy, overall and per-type chunk precision, recall and F1
        (in percent) and the underlying counts.

    Raises
    ------
    ValueError
        If the numbers of sentences differ, or if a sentence has a different
        number of labels in ``gold`` and ``pred``; the message gives the
        (0-based) sentence index and both lengths.
        Also for an unknown ``scheme``.
    TypeError
        If a sentence (or the whole input) is a single string, or a label is
        not a string.

    Notes
    -----
    The labels are first read in their scheme (:func:`~chaintag.evaluation.
    schemes.detect_scheme`, from gold and predictions together unless that
    reads the gold into other chunks than the gold's own scheme does: the
    predictions never change how the gold is read): BILOU's ``L``/``U`` as ``E``/``S``, BMES's ``M``
    as ``I``, labels that fit no prefix of the scheme (strays, counted in
    ``stray_gold`` and ``stray_pred``) as ``O``; with scheme ``none`` there
    are no chunks. Chunks are then read from each sentence with
    :func:`extract_chunks`'s rules. A
    predicted chunk is correct when gold has a chunk of the same type
    spanning exactly the same tokens. Token accuracy counts a token as
    right when its predicted label equals the gold one (``conlleval``
    compares the prefix and the type). Every type seen in gold or in the
    predictions is reported, with the conventions of ``conlleval``: a
    precision is 0 when no chunk was predicted, a recall 0 when gold has
    no chunk, and F1 is ``2PR / (P + R)``, or 0 when ``P + R == 0``. With no
    tokens at all, accuracy is 0.

    References
    ----------
    Tjong Kim Sang and Buchholz (2000), Introduction to the CoNLL-2000
    Shared Task: Chunking; the ``conlleval`` script (2004-01-26).

    Examples
    --------
    >>> r = evaluate([["B-PER", "I-PER", "O"]], [["B-PER", "O", "O"]])
    >>> r.n_gold_chunks, r.n_pred_chunks, r.n_correct_chunks
    (1, 1, 0)
    >>> round(r.accuracy, 2)
    66.67
    """
    _check_inputs(gold, pred)
    chosen = _gold_safe_scheme(gold, pred, scheme, label_format)
    tally = _tally(gold, pred, chosen)
    return _result(gold, pred, chosen, tally)


def _gold_safe_scheme(gold, pred, scheme, label_format):
    """The scheme of :func:`~chaintag.evaluation.schemes.detect_scheme`, detected from gold and predictions
    together, unless it reads the gold into other chunks than the scheme of the gold alone does: the
    predictions' labels may name a scheme the gold's prefixes leave open (``E-X`` predicted in data whose
    gold has only ``I-X``), but never change how the gold is read (one ``U-X`` predicted in IOE2 data
    named BILOU, read every gold ``E-X`` as a stray and scored a wrong prediction 100)."""
    from .schemes import detect_scheme, resolve_scheme, split_scheme_spec
    both = detect_scheme(gold, pred, scheme, label_format)
    name, spec_format = split_scheme_spec(scheme)
    if resolve_scheme(name) != "auto" or not pred:
        return both
    alone = detect_scheme(gold, (), scheme, label_format)
    if not alone.is_chunking or (alone.name, alone.typed) == (both.name, both.typed):
        return both

    def gold_chunks(chosen):
        read = dict(chosen.read)
        return [_scan(seq, read) for seq in gold]
    if gold_chunks(both) == gold_chunks(alone):
        return both
    from dataclasses import replace
    return replace(detect_scheme(gold, pred, alone.name, label_format or spec_format), detected=True)

def _suggest(gold, pred, chosen, stray_gold, stray_pred) -> str | None:
    """The detected scheme when a given scheme leaves strays that the detected one reads, else None."""
    if chosen.detected or not (stray_gold or stray_pred):
        return None
    from .schemes import detect_scheme
    auto = detect_scheme(gold, pred, "auto")
    if auto.is_chunking and auto.name != chosen.name and not auto.stray:
        return auto.name
    return None
