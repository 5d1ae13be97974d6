"""FeatureSpec: the one reader of the feature specification language."""

from __future__ import annotations

import os

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError
from chaintag.features.feature_spec import FeatureSpec
from chaintag.features.spec import inline, resource_paths, vector_scale, with_clusters
from chaintag.features.templates import resolve_templates

from toy_corpus import LABELS, SENTS


def test_parts_become_typed_fields():
    s = FeatureSpec.parse("chunking;w[0]|w[1];@clusters=a.tsv;@vecscale=raw;@vecdim=8;@gazetteer=train;"
                          "@gazfolds=3;@gazblock=2;@autotags=text;@autofolds=4;@autoepochs=6;@autotarget=pos")
    assert s.clusters == ("a.tsv",) and s.vec_scale is None and s.vec_dim == 8
    assert s.gazetteer == ("train",) and (s.gaz_folds, s.gaz_block) == (3, 2)
    assert s.autotags == ("text",) and (s.auto_folds, s.auto_epochs, s.auto_target) == (4, 6, "pos")
    assert s.template_specs()[-1] == "w[0]|w[1]" and len(s.template_specs()) == 20  # chunking: 19, then ours
    assert FeatureSpec.parse("pos").vec_scale == 0.1 and FeatureSpec.parse("pos").preset == "pos"


@pytest.mark.parametrize("text, message", [
    ("pos;@vecscale=-1", "the vector scale is a positive number"),
    ("pos;@vecdim=0", "the vector dimension is a positive integer"),
    ("pos;@gazfolds=1", "at least 2"),
    ("pos;@autotags=", "name the unlabeled text"),
])
def test_bad_values_are_refused_naming_the_part(text, message):
    with pytest.raises(InputError, match=message):
        FeatureSpec.parse(text)


def test_unknown_parts_are_refused_when_read():
    s = FeatureSpec.parse("pos;@nosuch=1")
    with pytest.raises(InputError, match="unknown feature directive '@nosuch=1'"):
        resource_paths(s)
    with pytest.raises(InputError, match="unknown feature preset or template file 'nopreset'"):
        resolve_templates("w[0];nopreset", ["word"])


def test_a_template_file_reads_its_paths_from_its_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    f = tmp_path / "sub" / "t.txt"
    f.write_text("# my templates\nw[0]\nsuf3(w[0])  # a suffix\n@clusters=c.tsv\n@gazetteer=train\n", encoding="utf-8")
    s = FeatureSpec.parse(str(f))
    assert s.clusters == (os.path.join(str(tmp_path / "sub"), "c.tsv"),)
    assert [t.line for t in s.templates] == [2, 3] and s.templates[0].path == str(f)
    text = inline(str(f))
    assert text == f"w[0];suf3(w[0]);@clusters={tmp_path / 'sub' / 'c.tsv'};@gazetteer=train"
    again = FeatureSpec.parse(text)
    assert again.clusters == s.clusters and again.template_specs() == s.template_specs()
    added = with_clusters(str(f), [str(tmp_path / "d.tsv")])
    assert added == text + f";@clusters={tmp_path / 'd.tsv'}"


def test_builders_return_new_specs():
    s = FeatureSpec.parse("pos")
    t = s.with_clusters(["x.tsv"]).with_autotags(["text"]).with_autoepochs(3)
    assert s.clusters == () and t.clusters == (os.path.abspath("x.tsv"),)
    assert t.auto_epochs == 3 and FeatureSpec.parse(t.to_text()).autotags == t.autotags
    assert t.with_autoepochs(9).auto_epochs == 3  # already set: unchanged
    assert vector_scale(t) == 0.1


def test_a_learner_takes_a_feature_spec_as_its_text():
    spec = FeatureSpec.parse("w[0];suf2(w[0]);pos[0]")
    a = chaintag.StructuredPerceptron(features=spec, epochs=3).fit(SENTS, LABELS)
    b = chaintag.StructuredPerceptron(features="w[0];suf2(w[0]);pos[0]", epochs=3).fit(SENTS, LABELS)
    assert np.array_equal(a.weights_, b.weights_)
    assert [t.name for t in resolve_templates(spec, ["word", "pos"])] == \
        [t.name for t in resolve_templates("w[0];suf2(w[0]);pos[0]", ["word", "pos"])]


def test_the_optional_parts_of_a_preset_follow_the_columns():
    assert len(resolve_templates("ner", ["word", "pos"])) == len(resolve_templates("ner", ["word"])) + 5


def test_a_model_file_keeps_the_specification_as_text(tmp_path):
    spec = FeatureSpec.parse("w[0];suf2(w[0])")
    a = chaintag.StructuredPerceptron(features=spec, epochs=2).fit(SENTS, LABELS)
    b = chaintag.StructuredPerceptron(features="w[0];suf2(w[0])", epochs=2).fit(SENTS, LABELS)
    a.save(tmp_path / "a.npz")
    b.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    back = chaintag.load(tmp_path / "a.npz")
    assert back.features == "w[0];suf2(w[0])" and back.predict(SENTS) == a.predict(SENTS)
