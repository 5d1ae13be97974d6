"""The defaults of ``chaintag train`` take the data directory's resources that cover the training words."""

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import chaintag
from chaintag.api.train_resources import default_resources, resources_off
from chaintag.errors import InputError
from chaintag.resources.coverage import (MIN_COVERAGE, MIN_TYPES, coverage, resource_vocabulary,
                                         training_types)

WORDS = ["".join(p) for p in itertools.product("bcdfg", "aeiou", "klmnp", "aeiou")][:MIN_TYPES + 100]  # 600


def _corpus(words):
    """POS sentences of 5 tokens in which every word occurs twice."""
    toks = [w for w in words for _ in range(2)]
    sents = [toks[i:i + 5] for i in range(0, len(toks), 5)]
    labels = [["NN" if w[0] in "bcd" else "VB" for w in s] for s in sents]
    return [[(w,) for w in s] for s in sents], labels


def _data_dir(tmp_path, vector_words=(), text_words=None, bio_words=None):
    d = tmp_path / "data"
    if vector_words:
        rng = np.random.default_rng(0)
        (d / "glove6b50d").mkdir(parents=True)
        (d / "glove6b50d" / "glove.6B.50d.txt").write_text(
            "".join(f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=4)) + "\n" for w in vector_words),
            encoding="utf-8")
    for name, words in (("unlabeled_en", text_words), ("unlabeled_bio", bio_words)):
        if words is not None:
            (d / name).mkdir(parents=True)
            (d / name / "a.txt").write_text(" ".join(words) + "\n", encoding="utf-8")
    d.mkdir(exist_ok=True)
    return d


def test_training_types_are_seen_twice_without_digits_case_folded():
    sents = [[("The",), ("dog",), ("3rd",), ("cat",)], [("the",), ("Dog",), ("3rd",), ("cow",)]]
    assert training_types(sents) == {"the", "dog"}
    assert coverage({"the", "dog"}, {"the", "cat"}) == 0.5 and coverage(set(), {"the"}) == 0.0


def test_resource_vocabulary_reads_vectors_and_text_up_to_the_sample(tmp_path):
    vec = tmp_path / "v.txt"
    vec.write_text("The 0.1 0.2\ndog 0.3 0.4\ncat 0.5 0.6\n", encoding="utf-8")
    assert resource_vocabulary(vec) == {"the", "dog", "cat"}
    assert resource_vocabulary(vec, max_tokens=2) == {"the", "dog"}
    folder = tmp_path / "text"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("One two\nthree\n", encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("four\n", encoding="utf-8")
    assert resource_vocabulary(folder) == {"one", "two", "three", "four"}
    assert resource_vocabulary(folder, max_tokens=2) == {"one", "two"}  # the first line reaches the sample


def _opts(data_dir, resources=None):
    return SimpleNamespace(data_dir=str(data_dir), resources=resources)


def test_vectors_are_taken_for_pos_when_they_cover_the_words(tmp_path):
    tokens, labels = _corpus(WORDS)
    train = SimpleNamespace(tokens=tokens, labels=labels, columns=("word",))
    cut = int(len(WORDS) * MIN_COVERAGE)  # exactly the threshold: taken
    d = _data_dir(tmp_path, vector_words=WORDS[:cut] + ["zzz"])
    said, opts = [], _opts(d)
    assert default_resources(opts, train, said.append) == "vectors"
    assert opts.resources == [str(d / "glove6b50d" / "glove.6B.50d.txt")]
    assert "holds 80.0% of the training word types seen twice (taken" in said[0]
    d2 = _data_dir(tmp_path / "b", vector_words=WORDS[:cut - 1])  # one word short: not taken
    said, opts = [], _opts(d2)
    assert default_resources(opts, train, said.append) is False and opts.resources is None
    assert "(not taken" in said[0]


def test_the_folder_of_text_that_covers_best_is_taken_for_chunking(tmp_path):
    tokens, _ = _corpus(WORDS)
    tokens = [[(w, "NN") for (w,) in s] for s in tokens]
    labels = [["B-NP"] + ["I-NP"] * (len(s) - 1) for s in tokens]
    train = SimpleNamespace(tokens=tokens, labels=labels, columns=("word", "pos"))
    d = _data_dir(tmp_path, text_words=WORDS[:550], bio_words=WORDS)  # 91.7% and 100%
    said, opts = [], _opts(d)
    assert default_resources(opts, train, said.append) == "clusters"
    assert opts.resources == [str(d / "unlabeled_bio")]
    assert [("unlabeled_bio" in s, "(taken" in s) for s in said] == [(True, True), (False, False)]
    # NER's default reads word vectors only (none here): no folder of text is looked at
    ner = SimpleNamespace(tokens=tokens, labels=[["B-PER"] * len(s) for s in tokens], columns=("word", "pos"))
    said, opts = [], _opts(d)
    assert default_resources(opts, ner, said.append) is False and opts.resources is None
    assert said == ["resources: no word vectors in the data directory (--resources to name one)"]


def test_toy_data_takes_no_resource(tmp_path):
    tokens, labels = _corpus(WORDS[:MIN_TYPES - 1])
    train = SimpleNamespace(tokens=tokens, labels=labels, columns=("word",))
    said, opts = [], _opts(_data_dir(tmp_path, vector_words=WORDS))
    assert default_resources(opts, train, said.append) is False and opts.resources is None
    assert said == [f"resources: {MIN_TYPES - 1} word types seen twice in the training data, fewer than "
                    f"{MIN_TYPES}: no resource of the data directory is taken (--resources to name one)"]


def test_resources_none_alone_turns_them_off(tmp_path):
    opts = _opts(tmp_path, ["None"])
    assert resources_off(opts) and opts.resources is None
    assert not resources_off(_opts(tmp_path, ["v.txt"]))
    with pytest.raises(InputError, match="give it alone"):
        resources_off(_opts(tmp_path, ["none", "v.txt"]))


def test_train_takes_the_vectors_and_none_keeps_the_plain_preset(tmp_path, capsys):
    tokens, labels = _corpus(WORDS)
    f = tmp_path / "pos.txt"
    f.write_text("\n\n".join("\n".join(f"{w} {lab}" for (w,), lab in zip(s, ls)) for s, ls in zip(tokens, labels))
                 + "\n", encoding="utf-8")
    extra = ["".join(p) for p in itertools.product("hjxyz", "aeiou", "qrstv", "aeiou")]  # >= 1024 in all
    d = _data_dir(tmp_path, vector_words=WORDS + extra[:600])
    r = chaintag.train(str(f), epochs=1, data_dir=str(d))
    assert r.model.features.startswith("pos+km;@clusters=") and "glove.6B.50d.txt" in r.model.features
    assert r.report["features"] == r.model.features
    assert r.report["resources"] == [str(d / "glove6b50d" / "glove.6B.50d.txt")]
    r = chaintag.train(str(f), epochs=1, data_dir=str(d), resources=["none"])
    assert r.model.features == "pos" and (r.report["features"], r.report["resources"]) == ("pos", [])


def test_ner_takes_the_vectors_that_cover_its_words_and_not_others(tmp_path):
    tokens, _ = _corpus(WORDS)
    labels = [["B-PER" if w[0] in "bc" else "O" for (w,) in s] for s in tokens]
    f = tmp_path / "ner.txt"
    f.write_text("\n\n".join("\n".join(f"{w} {lab}" for (w,), lab in zip(s, ls)) for s, ls in zip(tokens, labels))
                 + "\n", encoding="utf-8")
    extra = ["".join(p) for p in itertools.product("hjxyz", "aeiou", "qrstv", "aeiou")]  # >= 1024 in all
    d = _data_dir(tmp_path, vector_words=WORDS + extra[:600])
    r = chaintag.train(str(f), epochs=1, data_dir=str(d), algorithm="sapo")
    assert r.model.features.startswith("ner+gaz+km;@clusters=") and "glove.6B.50d.txt" in r.model.features
    cut = int(len(WORDS) * MIN_COVERAGE) - 1  # one word short of the threshold: the plain preset
    d2 = _data_dir(tmp_path / "b", vector_words=WORDS[:cut] + extra[:600])
    assert chaintag.train(str(f), epochs=1, data_dir=str(d2), algorithm="sapo").model.features == "ner+gaz"


def test_resources_given_as_one_string_is_one_path_and_a_missing_one_is_an_error(tmp_path):
    tokens, labels = _corpus(WORDS[:50])
    f = tmp_path / "pos.txt"
    f.write_text("\n\n".join("\n".join(f"{w} {lab}" for (w,), lab in zip(s, ls)) for s, ls in zip(tokens, labels))
                 + "\n", encoding="utf-8")
    vec = tmp_path / "v.txt"
    vec.write_text("".join(f"{w} 0.{k + 1} 0.5\n" for k, w in enumerate(WORDS[:70])), encoding="utf-8")
    one = chaintag.train(str(f), epochs=1, features="pos;km64(w[0])", resources=str(vec), data_dir=str(tmp_path))
    many = chaintag.train(str(f), epochs=1, features="pos;km64(w[0])", resources=[str(vec)], data_dir=str(tmp_path))
    assert one.model.features == many.model.features and str(vec) in one.model.features
    with pytest.raises(InputError, match="no such file or folder: .*nosuch"):
        chaintag.train(str(f), epochs=1, resources=str(tmp_path / "nosuch"), data_dir=str(tmp_path))
    with pytest.raises(InputError, match="--resources none gives none"):
        chaintag.train(str(f), epochs=1, features="pos;km64(w[0])", resources="none", data_dir=str(tmp_path))


def test_the_settings_for_the_kind_are_said_when_attributes_are_named(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("He PRP B-NP\nruns VBZ B-VP\n\nThe DT B-NP\ncat NN I-NP\n", encoding="utf-8")
    said = []
    m = chaintag.train(str(f), epochs=1, features="chunking", log=said.append).model
    assert m.feature_space == "gold"
    assert any("settings for chunking (feature_space=all, l2=2.0) not applied" in s for s in said)
    said = []
    chaintag.train(str(f), epochs=1, features="chunking", feature_space="all", l2=2.0, log=said.append)
    assert not any("not applied" in s for s in said)


def test_an_install_without_the_clusters_extra_takes_no_resource(tmp_path, monkeypatch):
    """The core install lacks gensim / scikit-learn: the default stays plain, and the log says why."""
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in ("gensim", "sklearn")
                        else real(name, *a))
    tokens, _ = _corpus(WORDS)
    tokens = [[(w, "NN") for (w,) in s] for s in tokens]
    labels = [["B-NP"] + ["I-NP"] * (len(s) - 1) for s in tokens]
    train = SimpleNamespace(tokens=tokens, labels=labels, columns=("word", "pos"))
    said, opts = [], _opts(_data_dir(tmp_path, text_words=WORDS, bio_words=WORDS[:550]))
    assert default_resources(opts, train, said.append) is False and opts.resources is None
    assert said[0].endswith("(not taken: it covers enough, but its word clusters need gensim, scikit-learn, "
                            "which this install lacks: pip install 'chaintag[clusters]'; the plain default is used)")
    assert "unlabeled_en" in said[0] and not any("(taken" in s for s in said)
    pos = SimpleNamespace(tokens=_corpus(WORDS)[0], labels=_corpus(WORDS)[1], columns=("word",))
    said, opts = [], _opts(_data_dir(tmp_path / "v", vector_words=WORDS))
    assert default_resources(opts, pos, said.append) is False and "need scikit-learn, which" in said[-1]


def test_vectors_of_another_language_are_not_taken_however_many_words_they_hold(tmp_path):
    """English GloVe held 88.5 % of a Spanish corpus's word types (names, common words) and was taken; the
    data's commonest words must also be among the vectors' commonest."""
    from chaintag.resources.coverage import MIN_AGREEMENT, commonest_words, frequent_words, language_agreement
    common = [f"q{w}" for w in WORDS[:20]]  # the data's own function words, each 50 times
    tokens, labels = _corpus(WORDS)
    extra = [[(w,) for w in common] for _ in range(50)]
    train = SimpleNamespace(tokens=tokens + extra, labels=labels + [["NN"] * 20] * 50, columns=("word",))
    other = [f"x{k}" for k in range(1000)]  # the vectors' own commonest words, then every word of the data
    d = _data_dir(tmp_path, vector_words=other + WORDS + common)
    path = d / "glove6b50d" / "glove.6B.50d.txt"
    assert language_agreement(commonest_words(train.tokens), frequent_words(path)) < 0.01 < MIN_AGREEMENT
    said, opts = [], _opts(d)
    assert default_resources(opts, train, said.append) is False and opts.resources is None
    assert "holds 100.0% of the training word types seen twice (not taken: another language: 0% of the data's " \
           "commonest words are among its 1,000 commonest" in said[0]
    # the same vectors with the data's commonest words first: taken
    d2 = _data_dir(tmp_path / "b", vector_words=common + WORDS + other)
    said, opts = [], _opts(d2)
    assert default_resources(opts, train, said.append) == "vectors"
