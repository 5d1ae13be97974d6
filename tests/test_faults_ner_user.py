"""An NER practitioner's inputs: word vectors beside a folder of text, a gazetteer list among the resources
(and one with its columns swapped), entity types without chunk prefixes, and a semicolon before a capital."""

from __future__ import annotations

import numpy as np
import pytest

import chaintag
from chaintag.api.train_checks import KIND_PRESETS_WITH_BOTH, label_column_warnings, resource_kind
from chaintag.errors import InputError
from chaintag.text import split_text

NAMES = ["Ana", "Bruno", "Carla", "David", "Elena", "Frank", "Greta", "Hugo"]
PLACES = ["Paris", "Berlin", "Madrid", "Lisbon", "Vienna", "Prague"]


def _ner_file(tmp_path, prefix=True) -> str:
    rng = np.random.default_rng(0)
    lines = []
    for _ in range(60):
        who, where = NAMES[rng.integers(len(NAMES))], PLACES[rng.integers(len(PLACES))]
        per, loc = ("B-PER", "B-LOC") if prefix else ("PER", "LOC")
        lines += [f"{who} {per}", "lives O", "in O", f"{where} {loc}", ". O", ""]
    path = tmp_path / ("ner.txt" if prefix else "ner_io.txt")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _vectors(tmp_path) -> str:
    rng = np.random.default_rng(1)
    words = [w.lower() for w in NAMES + PLACES] + ["lives", "in", "."] + [f"w{i}" for i in range(1100)]
    path = tmp_path / "vectors.txt"
    path.write_text("".join(w + " " + " ".join(f"{x:.3f}" for x in rng.normal(size=8)) + "\n" for w in words),
                    encoding="utf-8")
    return str(path)


def test_vectors_beside_a_folder_keep_the_vector_default_and_say_what_is_left_out(tmp_path):
    vectors = _vectors(tmp_path)
    folder = tmp_path / "text"
    folder.mkdir()
    (folder / "a.txt").write_text("Ana lives in Paris .\n" * 50, encoding="utf-8")
    assert resource_kind([vectors, str(folder)]) == "both"
    assert KIND_PRESETS_WITH_BOTH == {"pos": "pos+km", "chunking": "chunking+text", "ner": "ner+gaz+km"}
    lines = []
    result = chaintag.train(_ner_file(tmp_path), resources=[vectors, str(folder)], epochs=1, log=lines.append)
    assert any(f"resources: {folder} not used: the default attributes of this kind of task read word vectors"
               in line for line in lines)
    assert "km64(" in " ".join(result.model.extractor_.templates[t].name for t in range(len(
        result.model.extractor_.templates)))
    assert str(folder) not in result.report["features"] and vectors in result.report["features"]
    maps = result.model.summary()["virtual_columns"]["word_maps"]  # what inspect shows: kept in the model
    assert maps["kmeans"] == [64, 256, 1024] and maps["words"] == 1117 and maps["source"].endswith("vectors.txt")


def test_a_gazetteer_list_among_the_resources_is_a_gazetteer(tmp_path):
    gaz = tmp_path / "places.tsv"
    gaz.write_text("# places\nLOC\tOslo\nLOC\tNew York\n", encoding="utf-8")
    lines = []
    result = chaintag.train(_ner_file(tmp_path), resources=[str(gaz)], epochs=1, log=lines.append)
    assert any(f"resources: gazetteer list(s) {gaz}, beside train" in line for line in lines)
    assert f"@gazetteer=train;@gazetteer={gaz}" in result.report["features"]
    doc = result.model.tag_text("Greta lives in New York .", tokenized=True)
    assert [t.text for t in doc.tokens] == ["Greta", "lives", "in", "New", "York", "."]
    from chaintag.resources.files import sniff_kind
    numbered = tmp_path / "numbered.tsv"  # an entry that starts with a number is still a gazetteer line
    numbered.write_text("protein\t5 lipoxygenase\nprotein\tIL-2\n", encoding="utf-8")
    assert sniff_kind(numbered) == "gazetteer"
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text("the\t0.1 0.2 0.3\n", encoding="utf-8")
    assert sniff_kind(tabbed) == "vectors" and sniff_kind(_vectors(tmp_path)) == "vectors"
    swapped = tmp_path / "swapped.tsv"
    swapped.write_text("".join(f"{w}\tLOC\n" for w in PLACES), encoding="utf-8")  # string<TAB>type
    with pytest.raises(InputError, match="the list looks written 'string<TAB>type'"):
        chaintag.train(_ner_file(tmp_path), resources=[str(swapped)], epochs=1)


def test_entity_types_without_prefixes_are_warned_about(tmp_path):
    corpus = chaintag.load_corpus(_ner_file(tmp_path, prefix=False))
    warnings = label_column_warnings(corpus)
    assert any("look like entity types without chunk prefixes (LOC, PER; O on 60 % of the tokens)" in w
               and "no entities (spans)" in w for w in warnings)
    tags = chaintag.load_corpus(_write_pos(tmp_path))
    assert not any("entity types" in w for w in label_column_warnings(tags))
    assert not any("entity types" in w for w in label_column_warnings(corpus, scheme="none"))  # said: token labels


def _write_pos(tmp_path) -> str:
    path = tmp_path / "pos.txt"
    path.write_text("Ana NNP\nlives VBZ\n. .\n\nBruno NNP\nsleeps VBZ\n. .\n", encoding="utf-8")
    return str(path)


def test_a_semicolon_does_not_end_the_sentence_before_a_capital():
    doc = split_text("He went home yesterday; Officials said so. Then he left.")
    assert doc.sentence_tokens() == [["He", "went", "home", "yesterday", ";", "Officials", "said", "so", "."],
                                     ["Then", "he", "left", "."]]
