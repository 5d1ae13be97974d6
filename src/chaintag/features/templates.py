"""Declarative attribute templates and the named presets.

A *template* is a conjunction of *atoms*; an atom reads one column at a
relative offset and passes its value through a chain of functions:

====================  ==================================================
spec                  meaning
====================  ==================================================
``w[0]``              the word of the current token
``pos[-1]``           the POS of the previous token
``w[-1]|w[0]``        the conjunction (word bigram) of both
``suf3(w[0])``        the last three characters of the current word
``suf2(lower(w[0]))`` functions nest, innermost first
``bias``              a constant attribute on every token
====================  ==================================================

``w`` is a short name for the column ``word``. An attribute is a template
together with the values of its atoms (``w[-1]|w[0]=the|cat``); paired with a
label it becomes a feature (see ``docs/`` and ALGORITHMS notation).
By default a template whose atom falls before the sentence start or after its
end does not fire there; with ``sentinels=True`` in the extractor such atoms
read ``<S-k>`` / ``<E+k>`` (k = distance), as CRF++ templates do.

Functions (all map a string to a string, or to ``None`` when the attribute
should not fire for that token): ``lower``, ``norm`` (every digit mapped to
``0``), ``pre1`` ... ``pre9`` / ``suf1`` ... ``suf9`` (``None`` for words
shorter than k), ``shape`` (``X``/``x``/``d`` classes, ``a`` for a letter
without case, ``m`` for a combining mark; runs capped at 4),
``shortshape`` (runs collapsed), ``hasdigit``, ``hashyphen``, ``hasupper``,
``allupper``, ``initupper`` (``"1"`` when true, ``None`` otherwise).
``cngram1`` ... ``cngram9`` give a token several attributes, the value's
character n-grams (outermost function of a template on its own, e.g.
``cngram3(lower(w[0]))``; see :mod:`chaintag.features.chargrams`).
With a word resource (``--clusters FILE``): ``brownK``, ``kmN`` (cluster
strings) and ``vec`` (the word's vector as real-valued attributes, one per
dimension; outermost function of a template on its own, e.g. ``vec(w[0])``;
see :mod:`chaintag.resources.wordmaps`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Callable, Sequence

from ..errors import InputError
from ..resources.wordmaps import VECTOR_FUNCTION, is_resource_function
from .base_presets import CHUNKING, NER, NER_POS_COLUMN, POS  # noqa: F401 - part of this module's interface
from .chargrams import is_gram_function, is_gram_template
from .presets import OPTIONAL, PRESETS  # noqa: F401 - part of this module's interface

COLUMN_ALIASES = {"w": "word", "p": "pos", "t": "pos"}
#: Virtual columns given by a gazetteer (:mod:`chaintag.features.gazetteer`).
GAZ_COLUMNS = ("gaz", "gazn")
#: Virtual columns given by the labels of unlabeled text (:mod:`chaintag.features.autotags`).
AUTO_COLUMNS = ("atag", "atag2")
MAX_OFFSET = 16


def _shape(value: str, cap: int, caseless: bool = True) -> str:
    """The word's shape: a class per character, runs longer than ``cap`` cut. ``caseless`` False: the
    classes of models saved before letters without case and combining marks had theirs (they were copied)."""
    out: list[str] = []
    last = ""
    run = 0
    for ch in value:
        if ch.isupper():
            cls = "X"
        elif ch.islower():
            cls = "x"
        elif ch.isdigit():
            cls = "d"
        elif caseless and ch.isalpha():  # a letter without case (Chinese, Japanese, Arabic, Indic, Thai scripts)
            cls = "a"
        elif caseless and unicodedata.category(ch).startswith("M"):  # a combining mark (an Indic vowel sign)
            cls = "m"
        else:
            cls = ch
        if cls == last:
            run += 1
            if run > cap:
                continue
        else:
            last = cls
            run = 1
        out.append(cls)
    return "".join(out)


_DIGITS = re.compile(r"\d")


class _Flag:
    """``"1"`` when ``test(value)`` holds, else None (a class, not a closure, so that models pickle)."""

    def __init__(self, test: Callable[[str], bool]):
        self.test = test

    def __call__(self, v: str) -> str | None:
        return "1" if self.test(v) else None


class _Prefix:
    """The first ``k`` characters, or None for a shorter value."""

    def __init__(self, k: int):
        self.k = k

    def __call__(self, v: str) -> str | None:
        return v[:self.k] if len(v) >= self.k else None


class _Suffix:
    """The last ``k`` characters, or None for a shorter value."""

    def __init__(self, k: int):
        self.k = k

    def __call__(self, v: str) -> str | None:
        return v[-self.k:] if len(v) >= self.k else None


def _norm(v: str) -> str:
    return _DIGITS.sub("0", v)


def _long_shape(v: str) -> str:
    return _shape(v, 4)


def _short_shape(v: str) -> str:
    return _shape(v, 1)


def _copied_shape(v: str) -> str:
    return _shape(v, 4, caseless=False)


def _copied_short_shape(v: str) -> str:
    return _shape(v, 1, caseless=False)


#: The shape functions of models saved before letters without case had a class: such a letter is copied.
COPIED_SHAPES = {"shape": _copied_shape, "shortshape": _copied_short_shape}


def copies_caseless_letters(values) -> bool:
    """Whether shape values hold a letter without case or a combining mark, which only the shapes of models
    saved before those had classes of their own hold (:data:`COPIED_SHAPES`).

    Parameters
    ----------
    values : iterable of str
        A shape column's vocabulary, as a model file keeps it.

    Returns
    -------
    bool
    """
    return any((ch.isalpha() and not ch.isupper() and not ch.islower()) or unicodedata.category(ch).startswith("M")
               for v in values for ch in v if not ch.isascii())


def _has_digit(v: str) -> bool:
    return any(c.isdigit() for c in v)


def _has_hyphen(v: str) -> bool:
    return "-" in v


def _has_upper(v: str) -> bool:
    return any(c.isupper() for c in v)


def _all_upper(v: str) -> bool:
    return v.isupper()


def _init_upper(v: str) -> bool:
    return v[:1].isupper()


#: The template functions of a column value (module-level callables: fitted models pickle).
FUNCTIONS: dict[str, Callable[[str], str | None]] = {
    "lower": str.lower,
    "norm": _norm,
    "shape": _long_shape,
    "shortshape": _short_shape,
    "hasdigit": _Flag(_has_digit),
    "hashyphen": _Flag(_has_hyphen),
    "hasupper": _Flag(_has_upper),
    "allupper": _Flag(_all_upper),
    "initupper": _Flag(_init_upper),
}
for _k in range(1, 10):
    FUNCTIONS[f"pre{_k}"] = _Prefix(_k)
    FUNCTIONS[f"suf{_k}"] = _Suffix(_k)


@dataclass(frozen=True)
class Atom:
    """One column read at one offset, through a chain of functions.

    Attributes
    ----------
    column : str
        Column name (``word``, ``pos``, ...).
    offset : int
        Relative position, ``-MAX_OFFSET <= offset <= MAX_OFFSET``.
    functions : tuple of str
        Function names applied innermost first.
    """

    column: str
    offset: int
    functions: tuple[str, ...] = ()

    @property
    def derived_key(self) -> str:
        """Name of the derived column this atom reads (column + functions)."""
        return "".join(f + "(" for f in reversed(self.functions)) + self.column + ")" * len(self.functions)

    def __str__(self) -> str:
        inner = f"{self.column}[{self.offset}]"
        for f in self.functions:
            inner = f"{f}({inner})"
        return inner


@dataclass(frozen=True)
class Template:
    """A conjunction of atoms (empty for the bias template).

    Attributes
    ----------
    atoms : tuple of Atom
    """

    atoms: tuple[Atom, ...]

    @property
    def name(self) -> str:
        """Canonical spec string, e.g. ``w[-1]|w[0]``."""
        return "|".join(str(a) for a in self.atoms) if self.atoms else "bias"

    def __str__(self) -> str:
        return self.name


_ATOM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[\s*([+-]?\d+)\s*\]$")


def _parse_atom(text: str) -> Atom:
    text = text.strip()
    functions: list[str] = []
    while "(" in text:
        m = re.match(r"^([A-Za-z0-9_]+)\((.*)\)$", text)
        if not m:
            raise InputError(f"cannot parse template atom {text!r}")
        fname = m.group(1)
        if fname not in FUNCTIONS and not is_resource_function(fname) and not is_gram_function(fname):
            raise InputError(f"unknown template function {fname!r}; known: {', '.join(sorted(FUNCTIONS))}, "
                             "cngram1 .. cngram9 (character n-grams), and brownK / kmN / vec (word clusters "
                             "and vectors, with a word resource)")
        functions.append(fname)
        text = m.group(2).strip()
    m = _ATOM.match(text)
    if not m:
        raise InputError(f"cannot parse template atom {text!r} (expected e.g. w[0] or suf3(w[0]))")
    column = COLUMN_ALIASES.get(m.group(1), m.group(1))
    offset = int(m.group(2))
    if abs(offset) > MAX_OFFSET:
        raise InputError(f"template offset {offset} is beyond +-{MAX_OFFSET}")
    return Atom(column, offset, tuple(reversed(functions)))


def parse_template(spec: str) -> Template:
    """Parse one template spec such as ``"w[-1]|suf3(w[0])"`` or ``"bias"``.

    Parameters
    ----------
    spec : str

    Returns
    -------
    Template

    Raises
    ------
    InputError
        On a syntax error, an unknown function or an offset beyond 16.
    """
    spec = spec.strip()
    if spec == "bias":
        return Template(())
    t = Template(tuple(_parse_atom(part) for part in spec.split("|")))
    if any(VECTOR_FUNCTION in a.functions for a in t.atoms) and not is_vector_template(t):
        raise InputError(f"template {t.name!r}: vec(...) gives real values, one per vector dimension; it must be "
                         "the outermost function of a template on its own, e.g. vec(w[0]) or vec(lower(w[-1]))")
    if any(is_gram_function(f) for a in t.atoms for f in a.functions) and not is_gram_template(t):
        raise InputError(f"template {t.name!r}: cngramK(...) gives several attributes per token (the value's "
                         "character K-grams); it must be the outermost function of a template on its own, e.g. "
                         "cngram3(w[0]) or cngram4(lower(w[1]))")
    return t


def is_vector_template(t: Template) -> bool:
    """Whether ``t`` reads a word vector (``vec(...)`` of one atom): real-valued attributes, one per dimension."""
    return len(t.atoms) == 1 and bool(t.atoms[0].functions) and t.atoms[0].functions[-1] == VECTOR_FUNCTION \
        and VECTOR_FUNCTION not in t.atoms[0].functions[:-1]




def resolve_templates(features, columns: Sequence[str], virtual: bool = False) -> list[Template]:
    """Turn a preset name, a spec file path or a list of specs into templates.

    Parameters
    ----------
    features : str, sequence of str or FeatureSpec
        A preset name (``chunking``, ``pos``, ``ner``), a path to a text file
        with one template spec per line (``#`` comments allowed), a string of
        specs separated by ``;``, a list of specs, or a parsed
        :class:`~chaintag.features.feature_spec.FeatureSpec`.
    columns : sequence of str
        Feature column names of the data; every atom must read one of them.
        Optional preset parts (the POS attributes of ``ner``) are used only
        when their columns exist.
    virtual : bool, default False
        Whether templates may also read the virtual columns of a gazetteer
        (``gaz``, ``gazn``: :mod:`chaintag.features.gazetteer`) and of the
        labels of unlabeled text (``atag``, ``atag2``:
        :mod:`chaintag.features.autotags`), which the exact extractor offers.

    Returns
    -------
    list of Template
        The bias template first, then the others in order, duplicates removed.

    Raises
    ------
    InputError
        When a template reads a column the data does not have.
    """
    from .feature_spec import FeatureSpec
    # (spec, file, line): the one reader of the specification language is FeatureSpec.parse
    specs = [(t.spec, t.path, t.line) for t in FeatureSpec.parse(features).template_parts()
             if not t.optional or all(a.column in columns for a in parse_template(t.spec).atoms)]
    out = [Template(())]
    seen = {"bias"}
    for spec, path, line in specs:
        try:
            t = parse_template(spec)
        except InputError as exc:
            raise InputError(exc.message, path, line) from None
        for a in t.atoms:
            if a.column in GAZ_COLUMNS + AUTO_COLUMNS and a.column not in columns:
                if virtual:
                    continue
                what = "gazetteer column" if a.column in GAZ_COLUMNS else "column of labels of unlabeled text"
                raise InputError(f"template {t.name!r} reads the {what} {a.column!r}, which only "
                                 "exact template extraction offers (not hashed attributes or streamed "
                                 "training)", path, line)
            if a.column not in columns and a.column in ("abbr", "docnext", "doccap"):
                raise InputError(
                    f"template {t.name!r} reads the document column {a.column!r}, which the data lacks: "
                    "chaintag train, tag and eval compute it from each file's documents; in Python, read "
                    "the data with load_corpus(..., document_columns=True) or add it with "
                    "chaintag.features.document.add_document_columns", path, line)
            if a.column not in columns:
                raise InputError(
                    f"template {t.name!r} reads column {a.column!r}, but the data has columns "
                    f"{', '.join(columns)} (set them with --columns)", path, line)
        if t.name not in seen:
            seen.add(t.name)
            out.append(t)
    return out
