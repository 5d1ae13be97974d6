"""``FeatureSpec``: a feature specification, parsed once into templates and typed resource settings.

A specification is what ``--features`` and a learner's ``features`` take:

- a preset name (``chunking``, ``pos``, ``ner``, ``ner+gaz``, ...);
- a template file: one template spec or ``@directive`` a line, ``#`` comments
  (a relative path in a directive is read from the file's folder);
- a string of parts separated by ``;``: template specs, preset names and
  ``@directives``;
- a list of template specs (and ``@directives``), taken as they are.

The directives are ``@clusters=FILE``, ``@vecscale=SIGMA|raw``, ``@vecdim=D``,
``@gazetteer=train|geonames|countries|FILE[:TYPE]``, ``@gaztype=TYPE``, ``@gazfolds=K``,
``@gazblock=B``, ``@autotags=PATH``,
``@autofolds=K``, ``@autofeatures=PRESET``, ``@autoepochs=E`` and
``@autotarget=COLUMN`` (see :mod:`chaintag.features.spec`). :meth:`FeatureSpec.parse`
is the one reader of that language; everything else reads the typed fields.
A learner keeps the text it was given (``features``), which its model file holds.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, replace
from typing import Sequence

from ..errors import InputError

__all__ = ["FeatureSpec", "TemplatePart", "DIRECTIVES", "gazetteer_source"]

#: directive -> FeatureSpec field
DIRECTIVES = {"@clusters=": "clusters", "@vecscale=": "vec_scale", "@vecdim=": "vec_dim",
              "@gazetteer=": "gazetteer", "@gaztype=": "gaz_type", "@gazfolds=": "gaz_folds", "@gazblock=": "gaz_block",
              "@autotags=": "autotags", "@autofolds=": "auto_folds", "@autofeatures=": "auto_features",
              "@autoepochs=": "auto_epochs", "@autotarget=": "auto_target"}
#: Standard deviation of the vector components after scaling (Turian et al. 2010, s. 7.2).
DEFAULT_VEC_SCALE = 0.1
_UNKNOWN = ("unknown feature directive {part!r} (expected @clusters=FILE, @vecscale=SIGMA, "
            "@vecdim=D, @gazetteer=train|geonames|countries|FILE[:TYPE], @gaztype=TYPE, @gazfolds=K, @gazblock=B, @autotags=PATH, "
            "@autofolds=K, @autofeatures=PRESET, @autoepochs=E or @autotarget=COLUMN)")
_EMPTY = {"@gazetteer=": "name the gazetteer: 'train', 'geonames', 'countries' or a list file",
          "@gaztype=": "name the one type of every gazetteer entry (for example DICT)",
          "@autotags=": "name the unlabeled text, a file or a folder of *.txt files",
          "@autotarget=": "name a data column (for example pos)",
          "@autofeatures=": "name a feature preset (for example pos)"}
_INTS = {"@vecdim=": (1, "the vector dimension is a positive integer"),
         "@gazfolds=": (2, "the number of jackknife folds is an integer of at least 2"),
         "@gazblock=": (1, "the jackknife block is a positive number of sentences"),
         "@autofolds=": (2, "the number of jackknife blocks is an integer of at least 2"),
         "@autoepochs=": (1, "the passes of the text's taggers are a positive integer")}
#: A type written after a gazetteer source: ``@gazetteer=countries:DICT``.
_GAZ_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def gazetteer_source(text: str) -> tuple[str, str | None]:
    """Split an ``@gazetteer=`` value into its source and the type it gives every entry.

    Parameters
    ----------
    text : str
        ``train``, ``geonames``, ``countries`` or a list file, optionally followed by
        ``:TYPE`` (a letter, then letters, digits, ``_`` or ``-``):
        ``countries:DICT``, ``genes.tsv:DICT``.

    Returns
    -------
    source : str
        The value without the type.
    type : str or None
        The type (None: the source's own types; ``LOC`` for the package sources).

    Notes
    -----
    A list file whose name itself ends in ``:NAME`` (``lists:LOC``) would be read as
    a file with a type; name it with a type after it (``lists:LOC:DICT``).
    """
    head, colon, tail = text.rpartition(":")
    if colon and head and _GAZ_TYPE.fullmatch(tail):
        return head, tail
    return text, None


@dataclass(frozen=True)
class TemplatePart:
    """One template spec of a specification.

    Attributes
    ----------
    spec : str
        The template as written (``suf3(w[0])``).
    path : str or None
        The template file it came from, and its ``line`` there (for messages).
    line : int or None
    optional : bool
        A preset's optional part, used only when the data has its columns (the POS attributes of ``ner``).
    """

    spec: str
    path: str | None = None
    line: int | None = None
    optional: bool = False


@dataclass(frozen=True)
class FeatureSpec:
    """A parsed feature specification (immutable; build new ones with the ``with_*`` methods).

    Attributes
    ----------
    templates : tuple of TemplatePart
        Presets expanded, in order.
    clusters : tuple of str
        Resource files (``@clusters=``), relative paths of a template file made absolute.
    vec_scale : float or None
        Standard deviation of the scaled vector components; None: the file's values (``raw``).
    vec_dim : int or None
        Principal components kept of the vectors (None: every dimension).
    gazetteer : tuple of str
        ``"train"``, package sources (``geonames``, ``countries``) and list files, each optionally
        with ``:TYPE`` (see :func:`gazetteer_source`).
    gaz_type : str or None
        ``@gaztype=TYPE``: the one type of every gazetteer entry (None: the sources' own types).
    gaz_folds, gaz_block : int or None
        Jackknife folds and block of the gazetteer (None: the defaults of :mod:`chaintag.features.gazetteer`).
    autotags : tuple of str
        Unlabeled text (files or folders).
    auto_folds, auto_epochs : int or None
        Jackknife blocks and passes of the text's taggers (None: the defaults).
    auto_features, auto_target : str or None
        The text's taggers' attributes (a preset or template file) and what they learn (a data column).
    text : str
        The specification as one string (:meth:`to_text`): a preset name or a ``;``-separated string
        as given, a template file inlined (its relative paths made absolute).
    parts : tuple of str
        The non-empty parts as written, in order.
    source : str or None
        The template file the specification was read from.
    preset : str or None
        The preset name, when the whole specification is one.
    is_list : bool
        Given as a list of template specs (no preset names expanded).
    unknown : tuple of (str, str or None)
        Unknown directives, raised by :meth:`check` (the part and the file).
    """

    templates: tuple[TemplatePart, ...] = ()
    clusters: tuple[str, ...] = ()
    vec_scale: float | None = DEFAULT_VEC_SCALE
    vec_dim: int | None = None
    gazetteer: tuple[str, ...] = ()
    gaz_type: str | None = None
    gaz_folds: int | None = None
    gaz_block: int | None = None
    autotags: tuple[str, ...] = ()
    auto_folds: int | None = None
    auto_features: str | None = None
    auto_epochs: int | None = None
    auto_target: str | None = None
    text: str = ""
    parts: tuple[str, ...] = ()
    source: str | None = None
    preset: str | None = None
    is_list: bool = False
    unknown: tuple[tuple[str, str | None], ...] = field(default=(), compare=False)

    # ----------------------------------------------------------------- parsing
    @classmethod
    def parse(cls, features: "str | Sequence[str] | FeatureSpec") -> "FeatureSpec":
        """Read a specification (see the module notes); a ``FeatureSpec`` is returned as it is.

        Parameters
        ----------
        features : str, sequence of str or FeatureSpec

        Returns
        -------
        FeatureSpec

        Raises
        ------
        chaintag.errors.InputError
            For a malformed directive value (naming the part, and the template file), or an unreadable
            template file. An unknown preset name or directive is raised when the templates or the
            resources are read (:meth:`template_parts`, :meth:`resource_files`), as before.
        """
        if isinstance(features, FeatureSpec):
            return features
        if not isinstance(features, str):
            return _parse_parts(list(features), "", None, is_list=True)
        key = features
        if os.path.isfile(features):
            st = os.stat(features)
            key = (os.path.abspath(features), os.getcwd(), st.st_size, st.st_mtime_ns)
        hit = _CACHE.get(key)
        if hit is None:
            hit = _parse_text(features)
            if len(_CACHE) > 64:
                _CACHE.clear()
            _CACHE[key] = hit
        return hit

    # ---------------------------------------------------------------- writing
    def to_text(self) -> str:
        """The specification as one ``;``-separated string that parses back to the same settings
        (a template file inlined, its relative paths made absolute; a preset name as it is)."""
        return self.text

    def _with(self, prefix: str, values) -> "FeatureSpec":
        if not values:
            return self
        return FeatureSpec.parse(";".join([self.to_text()] + [prefix + str(v) for v in values]))

    def with_clusters(self, paths: Sequence[str] | None) -> "FeatureSpec":
        """This specification with an ``@clusters=`` part for each of ``paths`` (made absolute)."""
        return self._with("@clusters=", [os.path.abspath(p) for p in paths or ()])

    def with_gazetteers(self, sources: Sequence[str] | None) -> "FeatureSpec":
        """This specification with an ``@gazetteer=`` part for each of ``sources``.

        Parameters
        ----------
        sources : sequence of str or None
            ``train``, package names (``geonames``) and list files (made absolute).

        Returns
        -------
        FeatureSpec
        """
        return self._with("@gazetteer=", [s if s == "train" or not os.path.exists(s) else os.path.abspath(s)
                                          for s in sources or ()])

    def with_autotags(self, paths: Sequence[str] | None) -> "FeatureSpec":
        """This specification with an ``@autotags=`` part for each of ``paths`` (made absolute)."""
        return self._with("@autotags=", [os.path.abspath(p) for p in paths or ()])

    def with_autoepochs(self, epochs: int) -> "FeatureSpec":
        """This specification with ``@autoepochs=epochs`` when it names unlabeled text and sets no
        passes for the text's taggers; else itself."""
        if not self.autotags or self.auto_epochs is not None:
            return self
        return self._with("@autoepochs=", [int(epochs)])

    def with_templates(self, specs: Sequence[str]) -> "FeatureSpec":
        """This specification with more template specs (or preset names) appended."""
        return self._with("", list(specs))

    def without_files(self) -> str:
        """The text without its ``@clusters=`` and ``@autotags=`` parts (machine-specific paths), for display."""
        return ";".join(p for p in self.parts if not p.startswith(("@clusters=", "@autotags=")))

    # ---------------------------------------------------------------- reading
    def check(self) -> "FeatureSpec":
        """Raise the first unknown directive (:class:`~chaintag.errors.InputError`); returns self."""
        if self.unknown:
            part, where = self.unknown[0]
            raise InputError(_UNKNOWN.format(part=part), where)
        return self

    def template_parts(self) -> list[TemplatePart]:
        """The template parts, optional ones included (flagged: used only when the data has their columns).

        Raises
        ------
        chaintag.errors.InputError
            For a part that is neither a preset, a template file nor a template spec.
        """
        out = []
        for t in self.templates:
            if t.spec.startswith("\0"):
                raise InputError(f"unknown feature preset or template file {t.spec[1:]!r}: choose a preset "
                                 f"({', '.join(_presets())}), a template file that exists, or template "
                                 "specs such as 'w[0];suf3(w[0])'")
            out.append(t)
        return out

    def template_specs(self) -> list[str]:
        """Every template spec (optional ones included), presets expanded."""
        return [t.spec for t in self.templates if not t.spec.startswith("\0")]

    def function_names(self) -> set[str]:
        """The template functions the templates call (``suf3``, ``km256``, ``vec``, ...)."""
        return {m for spec in self.template_specs() for m in re.findall(r"([A-Za-z0-9_]+)\(", spec)}

    def reads_columns(self, names) -> bool:
        """Whether a template reads one of the columns ``names`` by name."""
        return any(re.search(rf"\b{c}\[", t) for t in self.template_specs() for c in names)

    def resource_files(self) -> list[str]:
        """The ``@clusters=`` files, after :meth:`check`."""
        self.check()
        return list(self.clusters)

    def text_taggers_features(self) -> str | None:
        """The features of the models that tag the unlabeled text: the ``@autofeatures=`` preset (or
        template file) with this specification's cluster files and vector settings; None: this
        specification's own templates."""
        if self.auto_features is None:
            return None
        keep = [p for p in self.parts if p.startswith(("@vecscale=", "@vecdim="))]
        return ";".join([FeatureSpec.parse(self.auto_features).to_text()]
                        + ["@clusters=" + os.path.abspath(p) for p in self.resource_files()] + keep)


_CACHE: dict = {}


def _package_sources():
    from .gazetteer_packages import PACKAGE_SOURCES
    return PACKAGE_SOURCES


def _presets():
    from .presets import PRESETS
    return PRESETS


def _parse_text(features: str) -> FeatureSpec:
    from .presets import OPTIONAL, PRESETS
    if features in PRESETS:
        parts = [TemplatePart(t) for t in PRESETS[features]] + [TemplatePart(t, optional=True)
                                                                  for t in OPTIONAL.get(features, [])]
        return FeatureSpec(templates=tuple(parts), text=features, parts=(features,), preset=features)
    if os.path.isfile(features):
        from ..io.text_lines import numbered_lines
        lines = [(n, ln.split("#", 1)[0].strip()) for n, ln in numbered_lines(features, what="template file")]
        return _parse_parts([text for _, text in lines], os.path.dirname(features), features,
                            lines=[n for n, _ in lines])
    return replace(_parse_parts([p.strip() for p in features.split(";")], "", None), text=features)


def _parse_parts(parts, base: str, where, lines=None, is_list: bool = False) -> FeatureSpec:
    from .presets import OPTIONAL, PRESETS
    values: dict = {"clusters": [], "gazetteer": [], "autotags": []}
    templates: list[TemplatePart] = []
    written: list[str] = []
    unknown: list = []
    from_file = where is not None
    for k, part in enumerate(parts):
        if not part:
            continue
        line = lines[k] if lines else None
        if not part.startswith("@"):
            written.append(part)
            if where is not None or is_list:
                templates.append(TemplatePart(part, where, line))
            elif part in PRESETS:
                templates += [TemplatePart(t) for t in PRESETS[part]]
                templates += [TemplatePart(t, optional=True) for t in OPTIONAL.get(part, [])]
            elif "[" not in part and part != "bias":
                templates.append(TemplatePart("\0" + part))
            else:
                templates.append(TemplatePart(part))
            continue
        prefix = next((d for d in DIRECTIVES if part.startswith(d)), None)
        if prefix is None:
            unknown.append((part, where))
            written.append(part)
            continue
        text = part[len(prefix):].strip()
        name = DIRECTIVES[prefix]
        gaz_typed = ""
        if prefix == "@gazetteer=":
            text, typ = gazetteer_source(text)
            gaz_typed = f":{typ}" if typ else ""
        named = text == "train" or (prefix == "@gazetteer=" and text in _package_sources())
        if prefix in ("@clusters=", "@gazetteer=", "@autotags=") and text and not named \
                and base and not os.path.isabs(text):
            text = os.path.join(base, text)
        if prefix == "@autofeatures=" and text and text not in PRESETS and base and not os.path.isabs(text) \
                and os.path.isfile(os.path.join(base, text)):
            text = os.path.abspath(os.path.join(base, text))
        if from_file and prefix in ("@clusters=", "@gazetteer=", "@autotags=") and text and not named:
            written.append(prefix + os.path.abspath(text if os.path.isabs(text) else os.path.join(base, text))
                           + gaz_typed)
        elif from_file and prefix == "@autofeatures=":
            written.append(prefix + text)
        else:
            written.append(part)
        if prefix == "@clusters=":
            if not text:
                unknown.append((part, where))
                continue
            values["clusters"].append(text)
        elif prefix in _EMPTY:
            if not text:
                raise InputError(f"{part!r}: {_EMPTY[prefix]}", where)
            if name in ("gazetteer", "autotags"):
                values[name].append(text + gaz_typed)
            elif name == "gaz_type" and not _GAZ_TYPE.fullmatch(text):
                raise InputError(f"{part!r}: a gazetteer type is a letter, then letters, digits, '_' or '-'",
                                 where)
            else:
                values[name] = text
        elif prefix in _INTS:
            minimum, what = _INTS[prefix]
            if not (text.isascii() and text.isdigit()) or int(text) < minimum:
                raise InputError(f"{part!r}: {what}", where)
            values[name] = int(text)
        elif prefix == "@vecscale=":
            if text == "raw":
                values[name] = None
                continue
            try:
                scale = float(text)
            except ValueError:
                scale = -1.0
            if not (scale > 0 and math.isfinite(scale)):
                raise InputError(f"{part!r}: the vector scale is a positive number (the standard deviation "
                                 "of the scaled components) or 'raw'", where)
            values[name] = scale
    for name in ("clusters", "gazetteer", "autotags"):
        values[name] = tuple(values[name])
    return FeatureSpec(templates=tuple(templates), text=";".join(written), parts=tuple(written), source=where,
                       is_list=is_list, unknown=tuple(unknown), **values)

