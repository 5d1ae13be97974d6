"""Chunk label schemes: which prefixes a scheme uses, how each is read, and detection.

A chunk label is a prefix, a hyphen and a type (``B-NP``), the single label
``O`` (outside any chunk), or, in the *bare* form of a scheme, a prefix alone
(``B``, ``I``, ``O``: chunks without a type, as in word segmentation). The
schemes in use differ only in their prefixes:

========  ===================  ==========================================
scheme    prefixes             meaning
========  ===================  ==========================================
IOB1      I, B, O              B only opens a chunk that directly follows
                               one of the same type
IOB2      B, I, O              every chunk opens with B
IOE1      I, E, O              E only closes a chunk directly followed by
                               one of the same type
IOE2      I, E, O              every chunk closes with E
IOBES     B, I, E, S, O        S: single-token chunk (also called BIOES)
BILOU     B, I, L, U, O        L = last (E), U = unit (S)
BMES      B, M, E, S, O        M = middle (I)
========  ===================  ==========================================

Every scheme is scored through the same reading of ``conlleval`` (see
:mod:`chaintag.evaluation.chunks`): its prefixes are first mapped onto
conlleval's (``L`` -> ``E``, ``U`` -> ``S``, ``M`` -> ``I``), so that IOB1,
IOB2, IOE1 and IOE2 are read exactly as ``conlleval`` reads them, IOBES as
its IOBES-aware variants do, and BILOU and BMES as the IOBES they rename.
Malformed sequences (``O I-X``, ``B-X`` without its ``L-X``, a change of
type inside a chunk) are read by the same rules: a chunk opens at ``B``,
``S``, a change of type, or ``I``/``E`` after outside or after a closed
chunk, and closes before outside, before the next chunk, or after ``E``/``S``.

Label notations
---------------
The prefix and the type are written in one of four notations, detected from
the labels (:func:`detect_notation`) or given (``"iob2:suffix"``, ``--label-format``):

===========  =======  ============================================
notation     example  where it is found
===========  =======  ============================================
``B-X``      B-PER    CoNLL, conlleval (the default)
``B_X``      B_PER    MSRA-style Chinese NER files
``X-B``      PER-B    prefix after the type (seqeval's ``suffix=True``)
``X_B``      PER_B    the same with an underscore
===========  =======  ============================================

Detection reads every label in each notation and keeps the one that gives
the most chunk-label tokens (``B-X`` on a tie), so that the usual files are
read as before. Every other step (the scheme's prefixes, strays, chunks)
is the same in all notations.

A *stray* label is one that fits no prefix of the scheme in use (a POS tag
among chunk labels, ``U-PER`` in IOB2 data, a bare ``B`` among typed labels).
It is read as outside any chunk, counted, and reported; it still counts in
token accuracy. ``conlleval`` would instead take a stray ``NN`` as a prefix
with an empty type; reading it as outside keeps every chunk a span of the
scheme's own labels.

References
----------
Lance A. Ramshaw and Mitchell P. Marcus (1995). Text chunking using
transformation-based learning. *Third Workshop on Very Large Corpora* (IOB).
Erik F. Tjong Kim Sang and Jorn Veenstra (1999). Representing text chunks.
*EACL 1999*, section 2 (IOB1, IOB2, IOE1, IOE2). Lev Ratinov and Dan Roth
(2009). Design challenges and misconceptions in named entity recognition.
*CoNLL 2009*, section 3 (BILOU).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

__all__ = ["SCHEMES", "SCHEME_ALIASES", "NOTATIONS", "Scheme", "detect_scheme", "detect_notation",
           "resolve_scheme", "resolve_notation", "scheme_names", "split_scheme_spec", "transition_allowed",
           "TYPO_PREFIXES", "TRAINING_TYPO_PREFIXES", "rule_breaks", "write_label"]

#: Prefixes of each scheme (``O`` is always allowed, alone).
SCHEMES: dict[str, frozenset] = {
    "iob1": frozenset("IB"),
    "iob2": frozenset("BI"),
    "ioe1": frozenset("IE"),
    "ioe2": frozenset("IE"),
    "iobes": frozenset("BIES"),
    "bilou": frozenset("BILU"),
    "bmes": frozenset("BMES"),
}
#: Other spellings accepted for ``--scheme``.
SCHEME_ALIASES = {"bioes": "iobes", "bio": "iob2", "iob": "iob2", "ioe": "ioe2", "biluo": "bilou",
                  "bmeso": "bmes"}
#: Display names.
_DISPLAY = {"iob1": "IOB1", "iob2": "IOB2", "ioe1": "IOE1", "ioe2": "IOE2", "iobes": "IOBES",
            "bilou": "BILOU", "bmes": "BMES", "none": "none"}
#: Each scheme's prefix read as conlleval's prefix.
_CANONICAL = {"L": "E", "U": "S", "M": "I"}
_ALL_PREFIXES = frozenset("BIESLUM")
#: Label notations: name -> (where the prefix is, separator), in order of preference on a tie.
NOTATIONS: dict[str, tuple[str, str]] = {"B-X": ("prefix", "-"), "B_X": ("prefix", "_"),
                                         "X-B": ("suffix", "-"), "X_B": ("suffix", "_")}
#: Spellings accepted for a notation (``--label-format``); ``prefix``/``suffix`` leave the separator
#: to detection.
_NOTATION_CHOICES = {"auto": tuple(NOTATIONS), "prefix": ("B-X", "B_X"), "suffix": ("X-B", "X_B"),
                     **{n.lower(): (n,) for n in NOTATIONS}}
_NOTATION_WORDS = {"B-X": "prefix-type", "B_X": "prefix_type", "X-B": "type-prefix", "X_B": "type_prefix"}


def scheme_names() -> list[str]:
    """Names accepted by :func:`resolve_scheme` (besides ``auto``)."""
    return sorted(SCHEMES) + ["none"] + sorted(SCHEME_ALIASES)


@dataclass
class Scheme:
    """A chunk scheme chosen for a set of labels.

    Attributes
    ----------
    name : str
        ``iob1``, ``iob2``, ``ioe1``, ``ioe2``, ``iobes``, ``bilou``, ``bmes``,
        or ``none`` (the labels are not chunk labels: token accuracy only).
    typed : bool
        False for the bare form (``B``, ``I``, ``O`` without a type).
    detected : bool
        True when chosen from the labels (``auto``), False when given.
    read : dict of str to (str, str)
        Every label seen, mapped to the ``(prefix, type)`` that the chunk
        reader uses (conlleval's prefixes; stray labels and ``O`` map to
        ``("O", "")``).
    stray : set of str
        Labels that fit no prefix of the scheme.
    notation : str
        How prefix and type are written: ``"B-X"`` (default), ``"B_X"``,
        ``"X-B"`` or ``"X_B"`` (see :data:`NOTATIONS`).
    """

    name: str
    typed: bool = True
    detected: bool = True
    read: dict = field(default_factory=dict)
    stray: set = field(default_factory=set)
    notation: str = "B-X"

    @property
    def is_chunking(self) -> bool:
        """Whether chunk figures are meaningful (a scheme other than ``none``)."""
        return self.name != "none"

    def describe(self) -> str:
        """One phrase for reports, e.g. ``"IOB2 (detected from the labels)"``: how the scheme was
        chosen follows its name, then the label notation when it is not ``B-X``."""
        how = " (detected from the labels)" if self.detected else " (given)"
        if self.name == "none":
            return "none" + how + ": the labels are not chunk labels, token accuracy only"
        text = _DISPLAY[self.name] + ("" if self.typed else " without types (bare prefixes)") + how
        if self.typed and self.notation != "B-X":
            text += f", labels written {_NOTATION_WORDS[self.notation]} ({_example(self.notation)})"
        return text


def _example(notation: str) -> str:
    where, sep = NOTATIONS[notation]
    return f"B{sep}PER" if where == "prefix" else f"PER{sep}B"


def _parse(label: str, notation: str = "B-X") -> tuple[str, str, str]:
    """``(kind, prefix, type)`` with kind ``"O"``, ``"typed"``, ``"bare"`` or ``"other"``.

    Parameters
    ----------
    label : str
    notation : str, default "B-X"
        One of :data:`NOTATIONS`: where the one-letter prefix is written, and the separator.
    """
    if label == "O":
        return "O", "O", ""
    where, sep = NOTATIONS[notation]
    if where == "prefix":
        prefix, found, kind = label.partition(sep)
    else:
        kind, found, prefix = label.rpartition(sep)
    if found:
        if len(prefix) == 1 and prefix in _ALL_PREFIXES and kind:
            return "typed", prefix, kind
        return "other", "", ""
    if len(label) == 1 and label in _ALL_PREFIXES:
        return "bare", label, ""
    return "other", "", ""


def write_label(prefix: str, typ: str, notation: str = "B-X") -> str:
    """A chunk label written in a notation (the inverse of :func:`_parse`).

    Examples
    --------
    >>> write_label("B", "PER"), write_label("I", "LOC", "X_B")
    ('B-PER', 'LOC_I')
    """
    where, sep = NOTATIONS[notation]
    return f"{prefix}{sep}{typ}" if where == "prefix" else f"{typ}{sep}{prefix}"


def resolve_notation(name: str | None) -> tuple[str, ...]:
    """The notations a ``--label-format`` value allows (``None``/``"auto"``: all four).

    Parameters
    ----------
    name : str or None
        ``auto``, ``prefix`` (``B-X`` or ``B_X``), ``suffix`` (``X-B`` or ``X_B``), or one of
        :data:`NOTATIONS` (case-insensitive).

    Returns
    -------
    tuple of str
        Candidate notations, in order of preference.

    Raises
    ------
    ValueError
        For another value; the message lists the accepted ones.
    """
    key = "auto" if name is None else str(name).strip().lower()
    if key not in _NOTATION_CHOICES:
        raise ValueError(f"unknown label format {name!r}; choose one of auto, prefix (B-PER, B_PER), "
                         "suffix (PER-B, PER_B), B-X, B_X, X-B, X_B")
    return _NOTATION_CHOICES[key]


def split_scheme_spec(spec: str | None) -> tuple[str | None, str]:
    """``"iob2:suffix"`` -> ``("iob2", "suffix")``: a scheme name and a label format.

    A scheme given without ``:`` has the label format ``"auto"``.
    """
    if spec is None:
        return None, "auto"
    name, colon, fmt = str(spec).partition(":")
    return (name or "auto"), (fmt if colon else "auto")


def detect_notation(counts, candidates: Sequence[str] = tuple(NOTATIONS)) -> str:
    """The notation in which the most label tokens read as chunk labels with a type.

    Parameters
    ----------
    counts : mapping of str to int
        Label -> number of tokens.
    candidates : sequence of str
        Notations to choose from, in order of preference on a tie.

    Returns
    -------
    str
        One of ``candidates``.

    Examples
    --------
    >>> detect_notation({"PER-B": 1, "PER-I": 2, "O": 3})
    'X-B'
    >>> detect_notation({"B-PER": 1, "O": 3})
    'B-X'
    """
    best, best_n = candidates[0], -1
    for notation in candidates:
        n = sum(c for lab, c in counts.items() if _parse(lab, notation)[0] == "typed")
        if n > best_n:
            best, best_n = notation, n
    return best


def resolve_scheme(name: str | None) -> str:
    """Canonical scheme name for ``name`` (``None`` and ``"auto"`` give ``"auto"``).

    Raises
    ------
    ValueError
        For a name that is not a scheme; the message lists the accepted ones.
    """
    if name is None:
        return "auto"
    key = str(name).strip().lower().partition(":")[0] or "auto"
    if key in ("auto", "none"):
        return key
    if key in SCHEMES:
        return key
    if key in SCHEME_ALIASES:
        return SCHEME_ALIASES[key]
    raise ValueError(f"unknown label scheme {name!r}; choose one of auto, {', '.join(scheme_names())}")


def transition_allowed(scheme: str, prev, cur) -> bool:
    """Whether label ``cur`` may follow ``prev`` in ``scheme``.

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES`' names.
    prev, cur : (str, str) or None
        Labels as conlleval's ``(prefix, type)`` pairs, prefixes ``B``, ``I``, ``E``, ``S`` or ``O``
        (BILOU's ``L``/``U`` and BMES's ``M`` renamed, see :attr:`Scheme.read`); ``None`` for ``prev``
        is the sentence start, for ``cur`` the sentence end.

    Returns
    -------
    bool
        The rules of Ramshaw and Marcus (1995, IOB), Tjong Kim Sang and Veenstra (1999, section 2:
        IOB1, IOB2, IOE1, IOE2) and Ratinov and Roth (2009, section 3: BILOU): an ``I-X`` continues an
        ``X`` chunk (IOB2), ``B-X`` separates two ``X`` chunks (IOB1), and so on (the list in
        :mod:`chaintag.decoding.constraints`).

    Raises
    ------
    ValueError
        For an unknown scheme.
    """
    if scheme in ("iobes", "bilou", "bmes"):
        if prev is None:
            return cur[0] not in "IE"
        if cur is None:
            return prev[0] not in "BI"
        if prev[0] in "BI":  # a chunk is open: only its continuation or its end may follow
            return cur[0] in "IE" and cur[1] == prev[1]
        return cur[0] not in "IE"
    if scheme in ("iob2", "iob1"):
        opener = "I" if scheme == "iob2" else "B"  # I continues (IOB2); B separates two X chunks (IOB1)
        if cur is None or cur[0] != opener:
            return True
        return prev is not None and prev[0] in "BI" and prev[1] == cur[1]
    if scheme in ("ioe2", "ioe1"):
        closer = "I" if scheme == "ioe2" else "E"  # I is followed by its chunk (IOE2); E by one of its type (IOE1)
        if prev is None or prev[0] != closer:
            return True
        return cur is not None and cur[0] in "IE" and cur[1] == prev[1]
    raise ValueError(f"unknown label scheme {scheme!r}; expected one of {', '.join(sorted(SCHEMES))}")


#: Prefixes that a rare occurrence does not let name the scheme, by default (:func:`detect_scheme`): not
#: conlleval's E and S, so that the scorer reads them as conlleval does.
TYPO_PREFIXES = "MLU"
#: The same for the scheme a model records and the checks of its training labels: every prefix but I.
TRAINING_TYPO_PREFIXES = "BELMSU"


def _pick(prefixes: set, sequences: Iterable[Sequence[str]], info: dict) -> str:
    """Scheme name from the prefixes in use (and, for IOB/IOE, how chunks open and close)."""
    if prefixes & {"L", "U"}:
        return "bilou"
    if "M" in prefixes:
        return "bmes"
    if "S" in prefixes or {"B", "E"} <= prefixes:
        return "iobes"
    if "E" in prefixes:
        # IOE1 closes a chunk on I-X (E-X only before an adjacent chunk of its type); IOE2 on E-X. One
        # chunk broken by a typo does not decide: the more frequent way of closing does
        i_close = e_close = 0
        for seq in sequences:
            for i, lab in enumerate(seq):
                kind, prefix, typ = info[lab]
                if kind not in ("typed", "bare") or prefix not in "IE":
                    continue
                nxt = info[seq[i + 1]] if i + 1 < len(seq) else ("O", "O", "")
                if nxt[0] not in ("typed", "bare") or nxt[2] != typ:
                    if prefix == "I":
                        i_close += 1
                    else:
                        e_close += 1
        return "ioe1" if i_close > e_close else "ioe2"
    # IOB1 opens a chunk on I-X (B-X only after an adjacent chunk of its type); IOB2 on B-X
    i_open = b_open = 0
    for seq in sequences:
        prev = ("O", "O", "")
        for lab in seq:
            kind, prefix, typ = info[lab]
            if kind in ("typed", "bare") and prefix in "IB" and (prev[0] not in ("typed", "bare") or prev[2] != typ):
                if prefix == "I":
                    i_open += 1
                else:
                    b_open += 1
            prev = (kind, prefix, typ)
    return "iob1" if i_open > b_open else "iob2"


def _pick_robust(counts: Counter, gold: Sequence[Sequence[str]], info: dict, kind: str,
                 typo_prefixes: str = TYPO_PREFIXES) -> str:
    """:func:`_pick` on the prefixes in use, unless a rare prefix of ``typo_prefixes`` (on at most 1 % of
    the chunk label tokens) is what names the scheme and the scheme without it reads the gold labels with
    fewer bad tokens.

    One typo (``M-PER`` or ``U-PER`` in IOB2 data) would otherwise name BMES or BILOU, under which every
    correct ``I-X`` is a stray or every chunk breaks the rules; a scheme's real prefixes are never that rare
    (single-token chunks give ``S``/``U``, and chunks end on ``E``/``L``), and where one is, the scheme
    with it still reads the labels with fewer bad tokens (:func:`_n_bad`) and is kept.
    """
    by_prefix: Counter = Counter()
    for lab, n in counts.items():
        if info[lab][0] == kind:
            by_prefix[info[lab][1]] += n
    name = _pick(set(by_prefix), gold, info)
    total = sum(by_prefix.values())
    rare = {p for p, n in by_prefix.items() if 100 * n <= total and p in typo_prefixes}
    if not rare or rare == set(by_prefix):
        return name
    # the scheme named without each rare prefix alone and without all of them (IOE1's own E is rare too)
    bad = {name: None}
    for drop in [{p} for p in sorted(rare)] + ([rare] if len(rare) > 1 else []):
        without = {lab: (("O", "O", "") if v[0] == kind and v[1] in drop else v) for lab, v in info.items()}
        bad.setdefault(_pick(set(by_prefix) - drop, gold, without), None)
    if len(bad) == 1:
        return name
    for candidate in bad:
        bad[candidate] = _n_bad(candidate, gold, info, kind)
    best = min(bad.values())
    return name if bad[name] == best else next(c for c in bad if bad[c] == best)


def _n_bad(name: str, gold: Sequence[Sequence[str]], info: dict, kind: str) -> int:
    """Tokens of ``gold`` that ``name`` reads badly: strays, and labels that break its transition rules."""
    read, stray = _read_labels(info, SCHEMES[name], kind == "typed")
    # labels of the other kind read as O, as strays of every candidate alike: their transitions count
    return _breaks(gold, read, name, {lab for lab in stray if info[lab][0] == kind})[0]


def _breaks(sequences, read: dict, name: str, stray=frozenset()) -> tuple[int, tuple | None]:
    """The tokens of ``sequences`` that carry a label of ``stray`` or break the transition rules of
    ``name`` (labels read by ``read``, ``O`` where missing), and the first break as :func:`rule_breaks`
    gives it."""
    outside = ("O", "")
    n, first = 0, None
    for s, seq in enumerate(sequences):
        prev, prev_lab = None, None
        for t, lab in enumerate(seq):
            cur = read.get(lab, outside)
            if lab in stray:
                n += 1
            elif not transition_allowed(name, prev, cur):
                n += 1
                first = first or (s, t, prev_lab, lab)
            prev, prev_lab = cur, lab
        if prev is not None and not transition_allowed(name, prev, None):
            n += 1
            first = first or (s, len(seq), prev_lab, None)
    return n, first


def rule_breaks(sequences: Sequence[Sequence[str]], scheme: Scheme) -> tuple[int, tuple | None]:
    """Labels that break the transition rules of a scheme (:func:`transition_allowed`).

    Parameters
    ----------
    sequences : sequence of sequences of str
        Label sequences, one per sentence.
    scheme : Scheme
        As :func:`detect_scheme` returns it (strays read as ``O``).

    Returns
    -------
    n : int
        Tokens whose label may not follow the previous one (or may not start the sentence), and
        sentences whose last label may not end one.
    first : (int, int, str or None, str or None) or None
        The first break: sentence index, token index, previous label (None at the start) and label
        (None at the end of the sentence).

    Examples
    --------
    >>> rule_breaks([["B-PER", "I-PER", "O", "B-LOC"]], detect_scheme([["B-PER", "I-PER"]] * 9))[0]
    0
    >>> s = detect_scheme([["B-PER", "I-PER", "O"]] * 9)
    >>> rule_breaks([["B-PER", "O", "I-LOC"]], s)
    (1, (0, 2, 'O', 'I-LOC'))
    """
    if not scheme.is_chunking:
        return 0, None
    read = dict(scheme.read)
    for lab in {lab for seq in sequences for lab in seq} - read.keys():  # labels the scheme was not chosen on
        read.update(_read_labels({lab: _parse(lab, scheme.notation)}, SCHEMES[scheme.name], scheme.typed)[0])
    return _breaks(sequences, read, scheme.name)


def detect_scheme(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]] = (),
                  scheme: str | None = "auto", notation: str | None = None,
                  typo_prefixes: str = TYPO_PREFIXES) -> Scheme:
    """Choose the chunk scheme of a labelling and map every label to how it is read.

    Parameters
    ----------
    gold : sequence of sequences of str
        Gold labels, one sequence per sentence.
    pred : sequence of sequences of str, optional
        Predicted labels; their labels are mapped (and checked for strays) too.
    scheme : str, optional
        ``"auto"`` (default) or a scheme name (see :func:`resolve_scheme`),
        optionally followed by ``:`` and a label format (``"iob2:suffix"``,
        ``"auto:B_X"``; see :func:`resolve_notation`), which ``notation``
        then defaults to.
    notation : str, optional
        Label format: ``"auto"`` (default: detected, see
        :func:`detect_notation`), ``"prefix"``, ``"suffix"`` or one of
        :data:`NOTATIONS`.
    typo_prefixes : str, default :data:`TYPO_PREFIXES` (``"MLU"``)
        The prefixes that, on at most 1 % of the chunk label tokens, may be
        taken for typos (see the notes). The default leaves out ``E`` and
        ``S``, which conlleval reads in any labelling (a rare ``E-X`` among
        IOB2 labels ends its chunk there, as conlleval counts it); training
        passes :data:`TRAINING_TYPO_PREFIXES`, so that a model of IOB2 labels
        with one ``S-X`` typo records IOB2, whose transition rules
        ``--constrain`` enforces.

    Returns
    -------
    Scheme

    Raises
    ------
    ValueError
        Unknown ``scheme`` or ``notation``.

    Notes
    -----
    Detection (``auto``) counts label tokens in gold and predictions. The
    labels are chunk labels when those with a one-letter chunk prefix and a
    type (``B-X``, ``U-X``, ``M-X``, ...) together with ``O`` make at least
    half of the tokens (the rest are strays); otherwise they are bare chunk
    labels when every label is ``O`` or a bare prefix (``B``, ``I``, ...)
    and one is not ``O``; otherwise they are not chunk labels (``none``:
    POS tags and the like). The scheme is then named by the prefixes in
    use: ``L``/``U`` -> BILOU, ``M`` -> BMES, ``S`` or ``B`` with ``E`` ->
    IOBES, ``E`` -> IOE2 (IOE1 if more gold chunks end on ``I`` than on
    ``E``), else IOB2 (IOB1 if more gold chunks open on ``I`` than on ``B``:
    one chunk broken by a typo does not make IOB2 data IOB1). A prefix of ``typo_prefixes`` on
    at most 1 % of the chunk label tokens does not name the scheme when the scheme named
    without it reads the gold labels with fewer strays and broken
    transitions (one ``M-PER`` typo in IOB2 data is a stray, and does not
    make every ``I-X`` one under BMES). With a given scheme, a label
    whose prefix the scheme lacks is a stray; bare labels are read when
    every chunk label is bare.

    Examples
    --------
    >>> detect_scheme([["U-LOC", "O", "B-PER", "L-PER"]]).name
    'bilou'
    >>> s = detect_scheme([["B-NP", "I-NP", "NN"]])
    >>> s.name, sorted(s.stray)
    ('iob2', ['NN'])
    >>> s = detect_scheme([["PER-B", "PER-I", "O"]])
    >>> s.name, s.notation, s.read["PER-I"]
    ('iob2', 'X-B', ('I', 'PER'))
    """
    scheme, spec_notation = split_scheme_spec(scheme)
    wanted = resolve_scheme(scheme)
    candidates = resolve_notation(notation if notation is not None else spec_notation)
    counts = _count_labels(gold, pred)
    written = detect_notation(counts, candidates)
    info = {lab: _parse(lab, written) for lab in counts}
    has_typed, all_bare, mostly_typed = _label_kinds(counts, info)
    if wanted == "auto":
        if mostly_typed:
            typed = True
        elif all_bare:
            typed = False
        else:
            return Scheme("none", read={lab: ("O", "") for lab in counts}, detected=True, notation=written)
        name = _pick_robust(counts, gold, info, "typed" if typed else "bare", typo_prefixes)
        detected = True
    elif wanted == "none":
        return Scheme("none", read={lab: ("O", "") for lab in counts}, detected=False)
    else:
        name, detected = wanted, False
        typed = not (all_bare and not has_typed)
    read, stray = _read_labels(info, SCHEMES[name], typed)
    return Scheme(name, typed=typed, detected=detected, read=read, stray=stray, notation=written)


def _count_labels(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> Counter:
    """How many tokens carry each label, in gold and predictions together."""
    counts: Counter = Counter()
    for seqs in (gold, pred):
        for seq in seqs:
            counts.update(seq)
    return counts


def _label_kinds(counts: Counter, info: dict) -> tuple[bool, bool, bool]:
    """``(has_typed, all_bare, mostly_typed)`` of the label tokens.

    ``has_typed``: some token has a prefix and a type; ``all_bare``: every
    token is ``O`` or a bare prefix, and one is not ``O``; ``mostly_typed``:
    ``has_typed``, and typed tokens and ``O`` make at least half of them.
    """
    n_by_kind = Counter()
    for lab, n in counts.items():
        n_by_kind[info[lab][0]] += n
    n_tokens = sum(counts.values())
    has_typed = n_by_kind["typed"] > 0
    all_bare = n_by_kind["bare"] > 0 and n_by_kind["bare"] + n_by_kind["O"] == n_tokens
    mostly_typed = has_typed and 2 * (n_by_kind["typed"] + n_by_kind["O"]) >= n_tokens
    return has_typed, all_bare, mostly_typed


def _read_labels(info: dict, allowed, typed: bool) -> tuple[dict, set]:
    """How each label is read in a scheme with prefixes ``allowed``, and the strays.

    ``O`` and labels of the other kind (bare when ``typed``, typed when not)
    or with a prefix outside ``allowed`` are read as outside; the latter two
    are strays. The others are read with their prefix in ``conlleval``'s terms.
    """
    read, stray = {}, set()
    for lab, (kind, prefix, typ) in info.items():
        if kind == "O":
            read[lab] = ("O", "")
        elif kind == ("typed" if typed else "bare") and prefix in allowed:
            read[lab] = (_CANONICAL.get(prefix, prefix), typ)
        else:
            read[lab] = ("O", "")
            stray.add(lab)
    return read, stray
