"""``chaintag train``'s learner options, made from the learners' own parameter declarations.

Every :class:`~chaintag.learners.params.Param` with a flag becomes one option
(shared by the learners that declare the same flag), grouped in ``--help`` by
the declaration's ``group``; ``-p NAME=VALUE`` sets any declared parameter by
name, as CRFsuite's ``learn -p`` does. Nothing here names a learner: what a
learner takes is what it declares.
"""

from __future__ import annotations

import argparse

from ..errors import InputError

__all__ = ["add_learner_options", "learner_settings", "declared_flags"]


def _declarations() -> dict[str, list[tuple[str, object]]]:
    """flag -> [(algorithm, Param)] over every registered learner, in registration order."""
    from ..learners import LEARNERS
    out: dict[str, list] = {}
    for name in LEARNERS:
        for p in LEARNERS[name].params:
            if p.flag:
                out.setdefault(p.flag, []).append((name, p))
    return out


#: The shared parameters that train sets with options of its own (``-p`` refuses them, naming the option).
OWN_OPTIONS = {"features": "--features", "columns": "--columns", "epochs": "--epochs", "cc": "--cc",
               "feature_space": "--feature-space", "shuffle": "--shuffle/--no-shuffle", "random_state": "--seed",
               "hash_bits": "--hash-bits", "progress": "-q (quiet) or the terminal"}


def dest_of(flag: str) -> str:
    """The argparse destination of a learner option (``--maxent-c`` -> ``maxent_c``)."""
    return flag.lstrip("-").replace("-", "_")


def declared_flags() -> list[str]:
    """Every learner option's flag."""
    return list(_declarations())


def _default_text(decls) -> str:
    seen: dict = {}
    for name, p in decls:
        seen.setdefault(repr(p.default) if p.default is not None else "none", []).append(name)
    if len(seen) == 1:
        return f"default: {next(iter(seen))}"
    return "default: " + "; ".join(f"{v} for {', '.join(names)}" for v, names in seen.items())


def add_learner_options(p: argparse.ArgumentParser) -> dict:
    """Add one option per declared learner parameter with a flag, and ``-p NAME=VALUE``; returns the
    option groups by title."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    for flag, decls in _declarations().items():
        first = decls[0][1]
        title = first.group or "learner options"
        g = groups.get(title)
        if g is None:
            g = groups[title] = p.add_argument_group(title)
        names = ", ".join(dict.fromkeys(n for n, _ in decls))
        default = "" if "default" in first.help else f"; {_default_text(decls)}"
        help_ = f"{first.help} ({names}{default})"
        kw = dict(dest=dest_of(flag), default=None, help=help_)
        if first.kind is bool:
            if first.negatable:
                g.add_argument(flag, action=argparse.BooleanOptionalAction, **kw)
            else:
                g.add_argument(flag, action="store_true", **kw)
            continue
        choices = None
        if all(d.choices for _, d in decls):
            choices = list(dict.fromkeys(c for _, d in decls for c in d.choices))
        kind = {int: int, float: float}.get(first.kind, str)
        g.add_argument(flag, type=kind, choices=choices, metavar=first.metavar, **kw)
    p.add_argument("-p", "--param", dest="learner_params", action="append", default=None, metavar="NAME=VALUE",
                   help="set any parameter the learner declares, by name (e.g. -p l2=2 -p n_best=10; "
                        "`chaintag train --list-params NAME` lists them)")
    p.add_argument("--list-params", action=_ListParams, metavar="NAME",
                   help="list the parameters of the learner NAME (name, flag, constraint, default) and exit")
    return groups


class _ListParams(argparse.Action):
    """``--list-params NAME``: print the learner's parameters and exit, as ``--help`` does."""

    def __call__(self, parser, namespace, value, option_string=None):
        from ..learners import LEARNERS
        if value not in LEARNERS:
            parser.error(f"--list-params: unknown learner {value!r}; choose from {', '.join(LEARNERS)}")
        print(list_params(LEARNERS[value]))
        parser.exit()


def list_params(cls) -> str:
    """The declared parameters of a learner class, one line each."""
    rows = []
    for p in cls.params:
        flag = p.flag or OWN_OPTIONS.get(p.name, "")
        flag = f" ({flag})" if flag else ""
        rows.append(f"{p.name}{flag}: {p.constraint()}, default {p.default!r}: {p.help}")
    return "\n".join(rows)


def learner_settings(args, cls, shown: str) -> dict:
    """The parameters the command line sets for ``cls``: its options and ``-p`` pairs, checked.

    Parameters
    ----------
    args : argparse.Namespace
    cls : type
        The learner class.
    shown : str
        The learner as the command line names it (``sapo --order 2``), for messages.

    Returns
    -------
    dict
        Parameter name -> value.

    Raises
    ------
    InputError
        For an option the learner does not declare, an unknown ``-p`` name, or a value out of bounds.
    """
    mine = {p.flag: p for p in cls.params if p.flag}
    out = {}
    for flag in _declarations():
        value = getattr(args, dest_of(flag), None)
        if value is None:
            continue
        p = mine.get(flag)
        if p is None:
            raise InputError(f"{flag} does not apply to {shown}")
        try:
            p.check(value)
        except InputError as exc:
            raise InputError(f"{flag}: {exc.message}") from None
        out[p.name] = value
    by_name = {p.name: p for p in cls.params}
    from ..learners.params import parse_value
    for pair in args.learner_params or ():
        name, eq, text = pair.partition("=")
        name = name.strip()
        if not eq or not name:
            raise InputError(f"-p takes NAME=VALUE, not {pair!r}")
        if name in OWN_OPTIONS and name in by_name:
            raise InputError(f"-p {name}: set it with {OWN_OPTIONS[name]}")
        p = by_name.get(name)
        if p is None:
            raise InputError(f"-p {name}: {shown} has no parameter {name!r}; it takes "
                             f"{', '.join(sorted(by_name))}")
        value = parse_value(p, text.strip())
        try:
            p.check(value)
        except InputError as exc:
            raise InputError(f"-p {name}: {exc.message}") from None
        out[p.name] = value
    return out
