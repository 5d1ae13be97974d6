"""The word lists of the raw-text tokenizer (:mod:`chaintag.text.tokenize`), one place per language.

English's lists are its own constants; Spanish, German and Dutch have entries of the per-language tables
(English's entries there are empty). All words are lower-cased and written without their period.
"""

from __future__ import annotations

#: Lower-case abbreviations that keep their period inside a sentence.
LOWER_ABBREVIATIONS = frozenset({"etc", "vs", "cf", "al", "approx", "ca", "viz", "resp", "incl", "esp", "fig",
                                 "figs", "vol", "pp", "eq", "eqs", "ref", "refs", "dept", "spp", "sp", "mr", "mrs",
                                 "ms", "dr", "jr", "sr", "inc", "ltd", "corp", "min", "temp", "conc", "wt", "hr",
                                 "hrs", "sec", "avg", "est", "yr", "yrs", "wk", "wks", "mo", "ft", "lb", "lbs", "oz",
                                 "tsp", "tbsp", "govt", "misc", "ave", "blvd", "pt", "pts", "no", "nos", "ch",
                                 "sect", "sects", "suppl", "chap", "app", "thm", "def", "prop", "lem", "cor"})
#: Titles before a name, whose period the segmenter may take for a sentence's end.
TITLES = frozenset({"mr", "mrs", "ms", "dr", "prof", "rev", "st", "gen", "sen", "rep", "gov", "lt", "col", "capt",
                    "sgt", "hon", "pres", "fr", "sr", "jr", "mt"})
#: Abbreviations before a number (``No. 3``, ``pp. 5``).
NUMBERED = frozenset({"no", "nos", "p", "pp", "vol", "fig", "figs", "eq", "eqs", "ch", "sec", "art", "ref", "tab",
                      "sect", "sects", "refs", "tabs", "chap", "app", "suppl", "para", "thm", "def", "prop",
                      "lem", "cor"})
#: Lower-case abbreviations every language shares (Latin, scholarly and company ones).
SHARED_ABBREVIATIONS = frozenset({"etc", "vs", "cf", "approx", "ca", "viz", "resp", "incl", "fig", "figs", "vol",
                                  "pp", "eq", "eqs", "ref", "refs", "inc", "ltd", "corp", "spp", "sp"})
#: Each language's own abbreviations that keep their period inside a sentence (lower-cased, no period).
LANG_ABBREVIATIONS = {
    "en": frozenset(),
    "es": frozenset({"dra", "sra", "srta", "sr", "dr", "ud", "uds", "vd", "vds", "ee", "uu", "pág", "págs", "núm",
                     "aprox", "avda", "av", "dpto", "tel", "ej", "cap", "art", "cía", "gral", "admón", "lic", "ing",
                     "arq", "prof", "pdte", "dña", "sta", "sto", "mín", "máx"}),
    "de": frozenset({"bzw", "usw", "vgl", "ggf", "evtl", "inkl", "zzgl", "ca", "nr", "abs", "bspw", "sog", "jh",
                     "jhd", "mio", "mrd", "tel", "hrsg", "hr", "hrn", "fr", "prof", "bzgl", "dt", "engl", "geb",
                     "gest", "allg", "ehem", "eigtl", "einschl", "entspr", "etw", "mind", "mtl", "od", "orig", "rd",
                     "tsd", "urspr", "usf", "verh", "vorm", "zt", "zz", "zzt", "kap", "anm", "str", "ggü", "insb",
                     "bd", "bde", "med", "rer", "nat", "phil", "jur", "habil", "dipl"}),
    "nl": frozenset({"bijv", "enz", "jl", "vnl", "dhr", "mevr", "mw", "drs", "ir", "ing", "nr", "blz", "incl",
                     "resp", "evt", "ong", "prof", "mrt", "sept", "okt", "dwz", "ivm", "mbt", "tav", "tov", "ovv",
                     "zgn"}),
}
#: Abbreviations that join a number or a lower-case word but may be a word before a capital (``Jan.``,
#: Dutch months, ``max.``): kept out of the rule that joins before a capital.
LANG_NUMBER_ABBREVIATIONS = {
    "en": frozenset(),
    "es": frozenset({"ene", "feb", "mar", "abr", "jun", "jul", "ago", "sept", "oct", "nov", "dic"}),
    "de": frozenset({"max", "min", "jan", "feb", "apr", "jun", "jul", "aug", "sept", "okt", "nov", "dez"}),
    "nl": frozenset({"jan", "feb", "apr", "jun", "jul", "aug", "sep", "nov", "dec", "max", "min", "gem"}),
}
#: Abbreviations that often end a sentence (``usw.``, ``etc.``): a capital after them opens the next one.
MAY_END = frozenset({"usw", "usf", "etc", "enz", "ua"})
#: Each language's titles before a name (``Dra. Pérez``, ``Hr. Müller``, ``dhr. Jansen``) and the parts
#: of abbreviations written apart (Spanish ``EE. UU.``).
LANG_TITLES = {"en": frozenset(), "es": frozenset({"dra", "sra", "srta", "sr", "dr", "dña", "ee", "prof",
                                                   "lic", "ing", "gral", "pdte", "sto", "sta"}),
               "de": frozenset({"hr", "hrn", "fr", "dr", "prof", "med", "rer", "nat", "phil", "jur", "habil",
                                "dipl"}),
               "nl": frozenset({"dhr", "mevr", "mw", "mr", "dr", "prof", "drs", "ir", "ing"})}
#: German months (an ordinal comes before one: ``3. Oktober``).
GERMAN_MONTHS = frozenset({"januar", "jänner", "februar", "märz", "april", "mai", "juni", "juli", "august",
                           "september", "oktober", "november", "dezember", "jan", "feb", "mär", "apr", "jun",
                           "jul", "aug", "sep", "sept", "okt", "nov", "dez"})
#: The articles, possessives and prepositions that come before a German ordinal (``am 3.``, ``der 1.``).
BEFORE_ORDINAL = frozenset({"am", "im", "vom", "zum", "zur", "beim", "der", "die", "das", "den", "dem", "des",
                            "ein", "eine", "einer", "eines", "einem", "einen", "seit", "ab", "bis", "und", "oder",
                            "fürs", "ins", "ans", "übers", "jede", "jedem", "jeden", "jeder", "jedes"}
                           | {p + e for p in ("mein", "dein", "sein", "ihr", "unser", "euer", "eur")
                              for e in ("", "e", "em", "en", "er", "es")})
