"""Hyper-parameters declared once, on the learner: name, type, default, constraint, help, option.

A learner class lists its :class:`Param` declarations in ``params``. From them come
its ``__init__`` (keyword arguments with those defaults, and a real signature),
``get_params`` / ``set_params`` (scikit-learn's conventions), the validation done
when ``fit`` starts (:func:`check_params`), and the command line's options:
``chaintag train`` builds one option per declaration, grouped by ``group``, and
``-p name=value`` sets any of them by name, as CRFsuite's ``learn -p`` does.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InputError

__all__ = ["Param", "make_init", "check_params", "parse_value", "with_defaults", "pick", "COMMON"]

#: What the constraint names mean, for messages.
_KIND_TEXT = {int: "an integer", float: "a number", bool: "True or False", str: "a string"}


@dataclass(frozen=True)
class Param:
    """One hyper-parameter of a learner.

    Attributes
    ----------
    name : str
        The keyword of ``__init__`` (and ``-p name=value``).
    default : object
        Its default.
    kind : type or None
        ``int``, ``float``, ``bool`` or ``str`` (values are checked and, from the
        command line, converted); None: any value (checked by the learner).
    help : str
        One line for ``--help``.
    choices : tuple, optional
        The values allowed.
    low, high : float, optional
        Bounds of a number (inclusive unless ``low_open`` / ``high_open``).
    none : bool
        None is allowed (besides the default).
    option : str or None
        The command-line flag (default ``--name-with-dashes``); ``""``: no flag
        (``-p`` still sets it).
    group : str
        The ``--help`` group of the flag.
    metavar : str, optional
    negatable : bool
        A boolean flag with a ``--no-`` form (``--shuffle/--no-shuffle``); False: a plain switch.
    forbid : tuple
        Values refused within the bounds (``n_jobs``: 0).
    """

    name: str
    default: Any
    kind: type | None
    help: str
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    none: bool = False
    option: str | None = None
    group: str = ""
    metavar: str | None = None
    negatable: bool = True
    forbid: tuple = ()

    @property
    def flag(self) -> str:
        """The command-line flag (``""``: none)."""
        return ("--" + self.name.replace("_", "-")) if self.option is None else self.option

    def constraint(self) -> str:
        """The constraint in words (``an integer of at least 1``)."""
        if self.choices is not None:
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        else:
            text = _KIND_TEXT.get(self.kind, "a value")
            if self.kind in (int, float):
                lo = None if self.low is None else ("above " if self.low_open else "of at least ") + _num(self.low)
                hi = None if self.high is None else ("below " if self.high_open else "of at most ") + _num(self.high)
                text += " " + " and ".join(b for b in (lo, hi) if b) if lo or hi else ""
                if self.forbid:
                    text += " other than " + ", ".join(_num(f) for f in self.forbid)
                if self.kind is float:
                    text = text.replace("a number", "a finite number", 1)
        return text + (" or None" if self.none else "")

    def check(self, value) -> None:
        """Raise :class:`~chaintag.errors.InputError` when ``value`` breaks the constraint."""
        if value is None and (self.none or self.default is None):
            return
        if not self._ok(value):
            raise InputError(f"{self.name} must be {self.constraint()}, not {value!r}")

    def _ok(self, value) -> bool:
        if self.choices is not None:
            return value in self.choices
        if self.kind is bool:
            return isinstance(value, (bool,)) or type(value).__name__ == "bool_"
        if self.kind is int:
            if isinstance(value, bool) or not _is_int(value):
                return False
        elif self.kind is float:
            if isinstance(value, bool) or not _is_number(value) or not math.isfinite(float(value)):
                return False
        elif self.kind is str:
            return isinstance(value, str)
        else:
            return True
        v = float(value)
        if v in self.forbid:
            return False
        if self.low is not None and (v <= self.low if self.low_open else v < self.low):
            return False
        if self.high is not None and (v >= self.high if self.high_open else v > self.high):
            return False
        return True


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _is_int(value) -> bool:
    import numbers
    return isinstance(value, numbers.Integral)


def _is_number(value) -> bool:
    import numbers
    return isinstance(value, numbers.Real)


def with_defaults(params: tuple[Param, ...], **defaults) -> tuple[Param, ...]:
    """``params`` with other defaults (a subclass's declarations: N-best MIRA's ``n_best=5``)."""
    unknown = set(defaults) - {p.name for p in params}
    if unknown:
        raise KeyError(f"no parameter {', '.join(sorted(unknown))}")
    return tuple(replace(p, default=defaults[p.name]) if p.name in defaults else p for p in params)


def make_init(params: tuple[Param, ...]):
    """An ``__init__`` taking the declared parameters as keywords, with a real signature.

    Parameters
    ----------
    params : tuple of Param

    Returns
    -------
    function
        ``__init__(self, **params)``: stores each parameter (its default when not given),
        as scikit-learn estimators do; an unknown keyword raises TypeError.
    """
    names = tuple(p.name for p in params)
    defaults = {p.name: p.default for p in params}

    def __init__(self, **kwargs):
        unknown = [k for k in kwargs if k not in defaults]
        if unknown:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {unknown[0]!r}")
        for name in names:
            setattr(self, name, kwargs.get(name, defaults[name]))

    sig = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    sig += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=defaults[n]) for n in names]
    __init__.__signature__ = inspect.Signature(sig)
    __init__.__doc__ = "Store the hyper-parameters (see the class's Parameters)."
    return __init__


def check_params(learner) -> None:
    """Check every declared parameter of ``learner`` against its constraint.

    Raises
    ------
    chaintag.errors.InputError
        Naming the first parameter out of bounds, its constraint and its value.
    """
    for p in type(learner).params:
        p.check(getattr(learner, p.name))


def parse_value(param: Param, text: str):
    """A command-line value (``-p name=value``) as the parameter's type.

    Raises
    ------
    chaintag.errors.InputError
        For text that is not of the parameter's type.
    """
    if text.lower() == "none" and (param.none or param.default is None):
        return None
    try:
        if param.kind is bool:
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(text)
        if param.kind is int:
            return int(text)
        if param.kind is float:
            return float(text)
    except ValueError:
        raise InputError(f"-p {param.name}={text}: {param.name} must be {param.constraint()}") from None
    return text


#: The parameters shared by the learners, by name (a learner picks them, with its own defaults).
COMMON = {p.name: p for p in (
    Param("features", "pos", None, "preset, template file, or specs separated by ';' (a FeatureSpec in Python)",
          option=""),
    Param("columns", None, None, "names of the token columns (default word, pos, ...)", option=""),
    Param("epochs", 10, int, "training passes", low=1, option=""),
    Param("cc", 0, int, "count cut-off on (attribute, label) pairs", low=0, option=""),
    Param("feature_space", "gold", str, "features: pairs seen in gold training data, or all pairs",
          choices=("gold", "all"), option=""),
    Param("shuffle", False, bool, "a new random sentence order each epoch", option=""),
    Param("random_state", 0, int, "random seed", low=0, option=""),
    Param("hash_bits", None, int, "feature hashing: 2^B attribute buckets", low=1, high=30, none=True, option=""),
    Param("progress", None, None, "progress display: None (on a terminal), True, False, 'bar', 'log'", option=""),
    Param("n_jobs", 1, int, "threads of an epoch, lock-free on shared weights (Hogwild; -1: all cores); "
          "1: serial, the same model bytes every run", low=-1, forbid=(0,), option="--threads", metavar="N"),
    Param("averaged", True, bool, "averaged weights (Collins 2002, s. 2.5); --no-average: the last weights",
          option="--average"),
)}


def pick(*names: str, **defaults) -> tuple[Param, ...]:
    """The shared declarations ``names`` (:data:`COMMON`), in that order, with a learner's own defaults."""
    return with_defaults(tuple(COMMON[n] for n in names), **{k: v for k, v in defaults.items()})


def check_count(value, name: str = "k", least: int = 1) -> int:
    """An argument that counts (``k`` of :meth:`predict_nbest`): an integer of at least ``least``.

    Parameters
    ----------
    value : object
    name : str
        The argument's name in the message.
    least : int

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For a bool, a float, a string or another non-integer, or an integer below ``least``
        (the message names the argument and the value given).
    """
    if isinstance(value, bool) or not _is_int(value):
        raise ValueError(f"{name} must be an integer of at least {least}, not {value!r}")
    if value < least:
        raise ValueError(f"{name} must be at least {least}" if least == 1 else f"{name} must be {least} or more")
    return int(value)
