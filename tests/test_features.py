"""Templates, attribute extraction and feature spaces."""

import numpy as np
import pytest

from chaintag.errors import InputError
from chaintag.features.extract import AttributeExtractor
from chaintag.features.space import build_feature_index
from chaintag.features.templates import FUNCTIONS, PRESETS, parse_template, resolve_templates

COLS = ("word", "pos")
SENTS = [[("The", "DT"), ("cat", "NN"), ("sat", "VBD")], [("A", "DT"), ("cat", "NN")]]


def names_per_token(ex, sents):
    attrs = ex.transform(sents)
    return [sorted(ex.attribute_name(a) for a in attrs.attr_ids[attrs.tok_ptr[i]:attrs.tok_ptr[i + 1]])
            for i in range(attrs.n_tokens)]


def test_parse_template_round_trips_names():
    for spec in ["word[0]", "pos[-2]|pos[-1]|pos[0]", "suf3(word[0])", "suf2(lower(word[1]))", "bias"]:
        assert parse_template(spec).name == spec
    assert parse_template("w[ +1 ]").name == "word[1]"
    assert parse_template("suf3(w[0])").name == "suf3(word[0])"
    t = parse_template("suf2(lower(w[1]))")
    assert t.atoms[0].functions == ("lower", "suf2") and t.atoms[0].offset == 1


@pytest.mark.parametrize("bad", ["w[", "foo(w[0])", "w[99]", "w[0]|"])
def test_bad_template_specs_raise(bad):
    with pytest.raises(InputError):
        parse_template(bad)


def test_functions():
    assert FUNCTIONS["norm"]("1,234.5ab") == "0,000.0ab"
    assert FUNCTIONS["shape"]("McDonald's-99") == "XxXxxxx'x-dd"
    assert FUNCTIONS["shortshape"]("McDonald") == "XxXx"
    assert FUNCTIONS["suf3"]("ab") is None and FUNCTIONS["suf3"]("abcd") == "bcd"
    assert FUNCTIONS["pre2"]("abcd") == "ab"
    assert FUNCTIONS["hasdigit"]("a1") == "1" and FUNCTIONS["hasdigit"]("ab") is None
    assert FUNCTIONS["hashyphen"]("a-b") == "1" and FUNCTIONS["hasupper"]("aB") == "1"


def test_extracted_attributes_are_exactly_the_template_instances():
    ex = AttributeExtractor(resolve_templates(["w[0]", "w[-1]|w[0]", "pos[1]", "hasupper(w[0])"], COLS), COLS)
    ex.fit_transform(SENTS)
    got = names_per_token(ex, SENTS)
    assert got[0] == sorted(["bias", "word[0]=The", "pos[1]=NN", "hasupper(word[0])=1"])
    assert got[1] == sorted(["bias", "word[0]=cat", "word[-1]|word[0]=The|cat", "pos[1]=VBD"])
    assert got[2] == sorted(["bias", "word[0]=sat", "word[-1]|word[0]=cat|sat"])
    assert got[4] == sorted(["bias", "word[0]=cat", "word[-1]|word[0]=A|cat"])


def test_sentinels_option():
    ex = AttributeExtractor(resolve_templates(["w[-1]", "w[1]"], COLS), COLS, sentinels=True)
    ex.fit_transform(SENTS)
    got = names_per_token(ex, SENTS[1:])
    assert got[0] == sorted(["bias", "word[-1]=<S-1>", "word[1]=cat"])
    assert got[1] == sorted(["bias", "word[-1]=A", "word[1]=<E+1>"])


def test_unseen_values_drop_only_their_attributes():
    ex = AttributeExtractor(resolve_templates(["w[0]", "suf2(w[0])", "pos[0]"], COLS), COLS)
    ex.fit_transform(SENTS)
    got = names_per_token(ex, [[("bat", "NN")]])
    assert got[0] == sorted(["bias", "suf2(word[0])=at", "pos[0]=NN"])


def test_separator_characters_do_not_collide():
    # values containing "|" and "=" must not be confused with conjunctions
    sents = [[("a|b", "X"), ("c", "Y")], [("a", "X"), ("b|c", "Y")]]
    ex = AttributeExtractor(resolve_templates(["w[0]|w[1]", "w[0]"], COLS), COLS)
    ex.fit_transform(sents)
    attrs = ex.transform(sents)
    first = set(attrs.attr_ids[attrs.tok_ptr[0]:attrs.tok_ptr[1]].tolist())
    second = set(attrs.attr_ids[attrs.tok_ptr[2]:attrs.tok_ptr[3]].tolist())
    assert len(first & second) == 1  # only the bias is shared


def test_hashed_keys_give_the_same_attributes(monkeypatch):
    import chaintag.features.extract as extract
    templates = resolve_templates(["w[0]|w[1]", "w[-1]|pos[0]|pos[1]", "w[0]"], COLS)
    exact = AttributeExtractor(templates, COLS)
    a1 = exact.fit_transform(SENTS)
    monkeypatch.setattr(extract, "EXACT_KEY_LIMIT", 0)
    hashed = AttributeExtractor(templates, COLS)
    a2 = hashed.fit_transform(SENTS)
    assert all(hashed.hashed) and not any(exact.hashed)
    assert exact.n_attributes == hashed.n_attributes
    # the same tokens share attributes in both (ids may differ: keys sort differently)
    same1 = [(i, j) for i in range(a1.n_tokens) for j in range(a1.n_tokens)
             if set(a1.attr_ids[a1.tok_ptr[i]:a1.tok_ptr[i + 1]]) & set(a1.attr_ids[a1.tok_ptr[j]:a1.tok_ptr[j + 1]]) - {0}]
    same2 = [(i, j) for i in range(a2.n_tokens) for j in range(a2.n_tokens)
             if set(a2.attr_ids[a2.tok_ptr[i]:a2.tok_ptr[i + 1]]) & set(a2.attr_ids[a2.tok_ptr[j]:a2.tok_ptr[j + 1]]) - {0}]
    assert same1 == same2
    assert np.diff(a1.tok_ptr).tolist() == np.diff(a2.tok_ptr).tolist()


def test_gold_and_all_feature_spaces_and_cutoff():
    ex = AttributeExtractor(resolve_templates(["pos[0]"], COLS), COLS)
    attrs = ex.fit_transform(SENTS)
    labels = np.array([0, 1, 2, 0, 1], dtype=np.int32)  # DT->0, NN->1, VBD->2
    idx, keep = build_feature_index(attrs, labels, 3, ex.n_attributes, space="gold")
    # bias with labels 0,1,2; DT with 0; NN with 1; VBD with 2
    assert idx.n_features == 6 and keep.all()
    idx, keep = build_feature_index(attrs, labels, 3, ex.n_attributes, space="all")
    assert idx.n_features == 3 * ex.n_attributes
    idx, keep = build_feature_index(attrs, labels, 3, ex.n_attributes, space="gold", cc=2)
    # pairs seen twice: bias-0, bias-1, DT-0, NN-1
    assert idx.n_features == 4 and keep.sum() == 3
    with pytest.raises(ValueError):
        build_feature_index(attrs, labels, 3, ex.n_attributes, space="nope")


def test_presets_resolve_and_check_columns():
    assert len(resolve_templates("chunking", COLS)) == 1 + 19
    pos = resolve_templates("pos", ("word",))
    assert pos[0].name == "bias" and all(a.column == "word" for t in pos for a in t.atoms)
    ner_with_pos = resolve_templates("ner", COLS)
    ner_without = resolve_templates("ner", ("word",))
    assert len(ner_with_pos) > len(ner_without)
    with pytest.raises(InputError, match="reads column 'pos'"):
        resolve_templates("chunking", ("word",))
    assert {"chunking", "pos", "ner"} <= set(PRESETS)
    assert {p for p in PRESETS if "+" in p} == {"chunking+clusters", "pos+clusters", "ner+clusters",
                                                "chunking+km", "chunking+kmvec", "pos+km", "chunking+text", "pos+clustersvec",
                                                "ner+affixes", "ner+gaz", "ner+gaz+km", "ner+doc", "pos+autotags",
                                                "chunking+autotags"}
    # ner+affixes adds to ner (and its optional POS attributes); chunking+km adds k-means ids of w[-1..1]
    affixes = [t.name for t in resolve_templates("ner+affixes", COLS)]
    assert affixes[:len(ner_with_pos) - 5] == [t.name for t in ner_with_pos][:len(ner_with_pos) - 5]
    assert len(affixes) == len(ner_with_pos) + 14 and "pos[0]" in affixes
    gaz = [t.name for t in resolve_templates("ner+gaz", COLS, virtual=True)]
    assert gaz[:len(affixes) - 5] == affixes[:len(affixes) - 5] and "pos[0]" in gaz
    assert [n for n in gaz if "gaz" in n] == ["gaz[-1]", "gaz[0]", "gaz[1]", "gaz[-1]|gaz[0]", "gaz[0]|gaz[1]"]
    km = [t.name for t in resolve_templates("chunking+km", COLS)][20:]
    assert km == [f"km{k}(norm(lower(word[{o}])))" for o in (-1, 0, 1) for k in (64, 256, 1024)]
    kmvec = [t.name for t in resolve_templates("chunking+kmvec", COLS)]
    assert kmvec[:29] == [t.name for t in resolve_templates("chunking+km", COLS)]
    assert kmvec[29:] == [f"vec(norm(lower(word[{o}])))" for o in (-1, 0, 1)]
    posvec = [t.name for t in resolve_templates("pos+clustersvec", ("word",))]
    assert posvec[:-3] == [t.name for t in resolve_templates("pos+clusters", ("word",))]
    assert posvec[-3:] == [f"vec(norm(lower(word[{o}])))" for o in (-1, 0, 1)]


def test_state_round_trip():
    ex = AttributeExtractor(resolve_templates("chunking", COLS), COLS)
    a1 = ex.fit_transform(SENTS)
    meta, arrays = ex.state()
    ex2 = AttributeExtractor.from_state(meta, arrays)
    a2 = ex2.transform(SENTS)
    assert a1.attr_ids.tolist() == a2.attr_ids.tolist() and a1.tok_ptr.tolist() == a2.tok_ptr.tolist()
