"""Word-cluster resources: files read (and refused with file and line), template functions, model round trips."""

import os

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features.extract import AttributeExtractor
from chaintag.features.templates import parse_template, resolve_templates
from chaintag.resources.files import (read_brown_paths, read_cluster_table, read_resource, read_vectors,
                                      sniff_kind, write_cluster_table)
from chaintag.resources.wordmaps import WordMaps, is_resource_function
from toy_corpus import LABELS, SENTS

PATHS = "0010\tthe\t50\n0011\ta\t40\n110\tdog\t9\n1110\tcat\t8\n11110\tdogs\t2\n10\tbarks\t3\n101\tbark\t1\n"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def _error(fn, *args):
    with pytest.raises(InputError) as info:
        fn(*args)
    return info.value


# ---------------------------------------------------------------- files
def test_brown_paths_read_and_prefixes(tmp_path):
    maps = read_brown_paths(_write(tmp_path, "paths", PATHS))
    assert maps.words[:3] == ["the", "a", "dog"]
    b2, b4, b20 = maps.function("brown2"), maps.function("brown4"), maps.function("brown20")
    assert (b2("the"), b4("the"), b20("dogs")) == ("00", "0010", "11110")
    assert b4("dog") == "110"  # a path shorter than K is used whole
    assert b4("unknown") is None  # an unknown word makes the atom absent
    with pytest.raises(InputError, match="km16"):
        maps.function("km16")  # paths only: no k-means ids


@pytest.mark.parametrize("text, line, what", [
    ("0010\tthe\t5\n01x1\ta\t4\n", 2, "not a string of 0 and 1"),
    ("0010\tthe\t5\n0011 a 4\n", 2, "2 or 3 tab-separated fields"),
    ("0010\tthe\t5\n0011\ta\tmany\n", 2, "not a non-negative integer"),
    ("0010\tthe\t5\n\n0011\tthe\t4\n", 3, "listed twice (first on line 1)"),
])
def test_brown_paths_malformed_lines_name_file_and_line(tmp_path, text, line, what):
    path = _write(tmp_path, "bad.paths", text)
    err = _error(read_brown_paths, path)
    assert err.path == path and err.line == line and what in err.message
    assert str(err).startswith(f"{path}:{line}: ")


def test_vectors_read_with_and_without_header(tmp_path):
    body = "the 1 0 0\ncat 0 1 0.5\ndog 0 0.9 0.5\n"
    a = read_vectors(_write(tmp_path, "a.vec", "3 3\n" + body))
    b = read_vectors(_write(tmp_path, "b.txt", body))
    assert a.words == b.words == ["the", "cat", "dog"]
    np.testing.assert_array_equal(a.vectors, b.vectors)
    np.testing.assert_array_equal(a.vectors[1], np.array([0, 1, 0.5], dtype=np.float32))
    ids = a.kmeans(2)  # cat and dog are close, the apart
    assert ids[1] == ids[2] != ids[0]
    assert a.function("km2")("dog") == str(ids[2]) and a.function("km2")("cow") is None


@pytest.mark.parametrize("text, line, what", [
    ("the 1 0\ncat 0 1 2\n", 2, "3 values where the vectors have 2"),
    ("2 2\nthe 1 0\ncat 0 x\n", 3, "'x' is not a number"),
    ("3 2\nthe 1 0\ncat 0 1\n", 1, "announces 3 vectors"),
    ("the 1 0\nthe 0 1\n", 2, "listed twice"),
    ("the 1 0\ncat nan 1\n", 2, "inf or nan"),
])
def test_vectors_malformed_lines_name_file_and_line(tmp_path, text, line, what):
    path = _write(tmp_path, "bad.vec", text)
    err = _error(read_vectors, path)
    assert err.path == path and err.line == line and what in err.message


def test_cluster_table_round_trip_and_malformed(tmp_path):
    maps = WordMaps(["the", "cat", "Dog"], ["01", "", "1101"],
                    {4: np.array([0, 3, -1], np.int32), 2: np.array([1, 0, 1], np.int32)},
                    normalize=("lower",))
    path = str(tmp_path / "c.tsv")
    write_cluster_table(path, maps, {"k": [2, 4]})
    assert sniff_kind(path) == "table"
    back = read_cluster_table(path)
    assert back.words == maps.words and back.paths == maps.paths and back.normalize == ("lower",)
    assert sorted(back.clusters) == [2, 4]
    np.testing.assert_array_equal(back.clusters[4], [0, 3, -1])
    assert back.function("brown2")("THE") == "01"  # normalized before the lookup
    assert back.function("km4")("Cat") == "3" and back.function("km4")("dog") is None
    lines = open(path, encoding="utf-8").read().splitlines()
    bad = lines[:-1] + ["Dog\t1101\t1"]  # one field short
    err = _error(read_cluster_table, _write(tmp_path, "bad1.tsv", "\n".join(bad) + "\n"))
    assert err.line == len(lines) and "fields" in err.message
    bad = lines[:-1] + ["Dog\t1101\t1\t4"]  # km4 id out of range
    err = _error(read_cluster_table, _write(tmp_path, "bad2.tsv", "\n".join(bad) + "\n"))
    assert err.line == len(lines) and "outside -1 .. 3" in err.message
    err = _error(read_cluster_table, _write(tmp_path, "bad3.tsv", "word\tpath\nthe\t01\n"))
    assert err.line == 1 and "not a chaintag cluster table" in err.message


def test_sniff_kinds(tmp_path):
    assert sniff_kind(_write(tmp_path, "p", PATHS)) == "brown"
    assert sniff_kind(_write(tmp_path, "v", "10 300\n")) == "vectors"
    assert read_resource(_write(tmp_path, "p2", PATHS)).paths is not None


# ---------------------------------------------------------------- templates
def test_resource_function_names():
    assert is_resource_function("brown6") and is_resource_function("km256")
    assert not is_resource_function("brown65") and not is_resource_function("km") \
        and not is_resource_function("brownie")
    t = parse_template("brown6(lower(w[-1]))|km256(w[0])")
    assert t.atoms[0].functions == ("lower", "brown6") and str(t) == "brown6(lower(word[-1]))|km256(word[0])"
    with pytest.raises(InputError, match="unknown template function"):
        parse_template("brownie(w[0])")


def test_templates_without_resource_are_refused():
    templates = resolve_templates("w[0];brown4(w[0])", ("word", "pos"))
    with pytest.raises(InputError, match="--clusters"):
        AttributeExtractor(templates, ("word", "pos"))


def test_presets_compose_with_directives(tmp_path):
    cols = ("word", "pos")
    plain = [t.name for t in resolve_templates("chunking", cols)]
    both = [t.name for t in resolve_templates(f"chunking;brown4(w[0]);@clusters={tmp_path}/x", cols)]
    assert both == plain + ["brown4(word[0])"]
    names = [t.name for t in resolve_templates("chunking+clusters", cols)]
    assert names[:len(plain)] == plain and "brown20(word[2])" in names and "km1024(word[0])" in names
    from chaintag.features.spec import uses_resources
    assert uses_resources("chunking+clusters") and uses_resources("w[0];km8(lower(w[0]))")
    assert not uses_resources("chunking") and not uses_resources("pos;shape(w[0])")


def test_extractor_attribute_values(tmp_path):
    maps = read_brown_paths(_write(tmp_path, "paths", PATHS))
    ex = AttributeExtractor(resolve_templates("brown3(w[0]);brown2(w[-1])", ("word", "pos")), ("word", "pos"),
                            resources=maps)
    attrs = ex.fit_transform([[("the", "DT"), ("dog", "NN"), ("zebra", "NN")]])
    names = [[ex.attribute_name(a) for a in attrs.attr_ids[attrs.tok_ptr[i]:attrs.tok_ptr[i + 1]]]
             for i in range(3)]
    assert names == [["bias", "brown3(word[0])=001"],
                     ["bias", "brown3(word[0])=110", "brown2(word[-1])=00"],
                     ["bias", "brown2(word[-1])=11"]]  # zebra: no path, no attribute
    assert ex.resources.paths is not None and ex.resources.clusters == {}


# ---------------------------------------------------------------- models
@pytest.mark.parametrize("hash_bits", [None, 12])
def test_model_keeps_the_maps_round_trip(tmp_path, hash_bits):
    paths = _write(tmp_path, "paths", PATHS)
    vec = _write(tmp_path, "v.vec", "the 1 0\na 0.9 0.1\ndog 0 1\ncat 0.1 0.9\nsleeps 0.5 0.5\n")
    features = f"w[0];pos[0];brown2(w[0]);brown4(w[-1]);km2(w[0]);@clusters={paths};@clusters={vec}"
    tagger = chaintag.SAPO(features=features, epochs=3, n_best=3, hash_bits=hash_bits).fit(SENTS, LABELS)
    test = [[("a", "DT"), ("dogs", "NNS"), ("sleeps", "VBZ")], [("the", "DT"), ("cat", "NN")]]
    before = tagger.predict(test)
    model = tmp_path / "m.npz"
    tagger.save(model)
    os.remove(paths)
    os.remove(vec)  # tagging needs no resource file: the model keeps the maps
    back = chaintag.load(model)
    assert back.predict(test) == before
    np.testing.assert_array_equal(back.weights_, tagger.weights_)
    assert back.extractor_.resources.words == tagger.extractor_.resources.words
    np.testing.assert_array_equal(back.extractor_.resources.clusters[2], tagger.extractor_.resources.clusters[2])
    assert back.extractor_.resources.vectors is None  # vectors are not stored, only what templates read
    a = tagger.extractor_.transform(test)
    b = back.extractor_.transform(test)
    np.testing.assert_array_equal(a.attr_ids, b.attr_ids)
    back.save(tmp_path / "m2.npz")
    assert (tmp_path / "m2.npz").read_bytes() == model.read_bytes()


def test_cli_train_with_clusters_and_bad_resource(tmp_path, capsys):
    tr = tmp_path / "train.txt"
    tr.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                              for s, ls in zip(SENTS, LABELS)) + "\n")
    paths = _write(tmp_path, "paths", PATHS)
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(tr), "--model", str(model), "--features", "w[0];brown3(w[0])",
                 "--clusters", paths, "--epochs", "2", "--quiet"]) == 0
    assert chaintag.load(model).extractor_.resources.paths is not None
    bad = _write(tmp_path, "bad", "0010\tthe\t5\n0x\ta\t4\n")
    assert main(["train", "--train", str(tr), "--model", str(tmp_path / "n.npz"), "--features",
                 "w[0];brown3(w[0])", "--clusters", bad, "--quiet"]) == 2
    assert f"{bad}:2:" in capsys.readouterr().err
    assert main(["train", "--train", str(tr), "--model", str(tmp_path / "n.npz"), "--features",
                 "w[0];brown3(w[0])", "--quiet"]) == 2
    assert "--clusters" in capsys.readouterr().err


def test_clusters_command_from_vectors(tmp_path):
    rng = np.random.default_rng(0)
    centers = np.eye(4) * 5
    lines = [f"w{i} " + " ".join(f"{v:.4f}" for v in centers[i % 4] + rng.normal(0, 0.1, 4)) for i in range(40)]
    vec = _write(tmp_path, "v.txt", "\n".join(lines) + "\n")
    out = tmp_path / "c.tsv"
    assert main(["clusters", "--vectors", vec, "--k", "2", "4", "--out", str(out), "--quiet"]) == 0
    maps = read_cluster_table(out)
    ids = maps.clusters[4]
    for i in range(40):  # the four blobs are found: same blob, same cluster and same path
        assert ids[i] == ids[i % 4] and maps.paths[i] == maps.paths[i % 4]
    assert len(set(ids[:4].tolist())) == 4
    # the hierarchy's leaves: 4 distinct paths, none a prefix of another
    leaves = sorted(set(maps.paths))
    assert len(leaves) == 4 and not any(a != b and b.startswith(a) for a in leaves for b in leaves)


def test_induce_from_text(tmp_path):
    pytest.importorskip("gensim")
    from chaintag.resources.induce import induce
    rng = np.random.default_rng(1)
    nouns, verbs = ["dog", "cat", "cow", "pig"], ["runs", "eats", "sleeps", "walks"]
    text = [["the", nouns[rng.integers(4)], verbs[rng.integers(4)], "."] for _ in range(400)]
    maps, settings = induce(text, ks=(2, 4), dim=8, min_count=1, epochs=2, normalize=("lower",))
    again, _ = induce(text, ks=(2, 4), dim=8, min_count=1, epochs=2, normalize=("lower",))
    assert maps.words == again.words and maps.paths == again.paths  # seeded: the same clusters
    np.testing.assert_array_equal(maps.clusters[4], again.clusters[4])
    assert set(maps.words) == set(nouns + verbs + ["the", "."])
    assert settings["tokens"] == 1600 and settings["ks"] == [2, 4]
    assert maps.function("brown1")("THE") is not None


def test_streamed_training_reads_the_clusters_too(tmp_path):
    from chaintag.streaming import fit_streamed
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                 for s, ls in zip(SENTS * 3, LABELS * 3)) + "\n")
    features = f"w[0];brown2(w[0]);brown4(w[-1]);@clusters={_write(tmp_path, 'paths', PATHS)}"
    c = chaintag.load_corpus(str(train))
    serial = chaintag.StructuredPerceptron(features=features, columns=c.columns, epochs=2).fit(c.tokens, c.labels)
    streamed = fit_streamed(chaintag.StructuredPerceptron(features=features, columns=c.columns, epochs=2),
                            str(train), chunk_sentences=4)
    serial.save(tmp_path / "a.npz")
    streamed.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_train_recipe_fills_defaults_and_yields_to_explicit_options(tmp_path, capsys, monkeypatch):
    tr = tmp_path / "train.txt"
    tr.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                              for s, ls in zip(SENTS, LABELS)) + "\n")
    model = tmp_path / "m.npz"
    assert main(["train", "--recipe", "bio-ner", "--train", str(tr), "--model", str(model), "--epochs",
                 "2"]) == 0
    m = chaintag.load(model)
    assert m.algorithm == "sapo2" and m.features == "ner+doc" and m.epochs == 2  # --epochs given wins
    assert m.l2 == 5.0
    assert "recipe bio-ner: --algorithm sapo --order 2 --features ner+doc --l2 5.0" in capsys.readouterr().err
    # a retired recipe says what replaced it, and trains nothing
    assert main(["train", "--recipe", "bio-ner-gaz", "--train", str(tr), "--model", str(tmp_path / "r.npz"),
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "recipe bio-ner-gaz is retired: bio-ner-doc replaced it" in err and "--recipe bio-ner:" in err
    assert "docs/results/presets" in err and not (tmp_path / "r.npz").exists()
    assert main(["train", "--recipe", "bio-ner", "--train", str(tr), "--model", str(model), "--epochs", "2",
                 "--quiet"]) == 0
    m = chaintag.load(model)
    assert (m.algorithm, m.features, m.l2, m.epochs) == ("sapo2", "ner+doc", 5.0, 2)
    assert m.columns_[-3:] == ("abbr", "docnext", "doccap")
    # an option given explicitly wins even when it equals its default (abbreviated or --name=value too);
    # another learner takes the recipe's attributes and epochs, not the settings chosen for its learner
    for extra, expect in ((["--l2", "1"], ("sapo2", 1.0)), (["--l2=1.0"], ("sapo2", 1.0)),
                          (["--order", "1"], ("sapo", 5.0)), (["--algorithm", "perceptron"], ("perceptron", None)),
                          (["--algo=perceptron"], ("perceptron", None))):
        assert main(["train", "--recipe", "bio-ner", "--train", str(tr), "--model", str(model), "--epochs", "2",
                     "--quiet"] + extra) == 0, extra
        m = chaintag.load(model)
        assert (m.algorithm, getattr(m, "l2", None), m.features) == expect + ("ner+doc",), extra
    capsys.readouterr()
    assert main(["train", "--recipe", "bio-ner", "-a", "perceptron", "--train", str(tr), "--model", str(model),
                 "--epochs", "1"]) == 0
    assert "(not --order 2 --l2 5.0: the recipe's settings for sapo)" in capsys.readouterr().err
    # a learner that takes no passes (maxent) gets the recipe's attributes only, not its epochs
    assert main(["train", "--recipe", "bio-ner", "-a", "maxent", "--train", str(tr), "--model",
                 str(model)]) == 0
    assert "--features ner+doc (not --order 2 --l2 5.0 --epochs 29" in capsys.readouterr().err
    assert chaintag.load(model).features == "ner+doc"
    words = ["the", "a", "dog", "cat", "barks"]
    table = str(tmp_path / "c.tsv")
    write_cluster_table(table, WordMaps(words, ["00", "01", "10", "10", "11"],
                                        {k: np.arange(5, dtype=np.int32) for k in (64, 256, 1024)}))
    assert main(["train", "--recipe", "pos-ptb", "--train", str(tr), "--model", str(model), "--epochs", "1",
                 "--clusters", table, "--quiet"]) == 0
    m = chaintag.load(model)
    assert (m.algorithm, m.l2, m.feature_space, m.features.split(";")[0]) == ("sapo", 2.0, "all", "pos+clusters")
    assert sorted(m.extractor_.resources.clusters) == [256, 1024] and m.extractor_.resources.paths is not None
    # the base-NP recipe reads the k-means ids and the vectors' values: a table and a vector file
    vectors = tmp_path / "v.txt"
    vectors.write_text("".join(f"{w} {k} 0.5 {-k}\n" for k, w in enumerate(words)))
    assert main(["train", "--recipe", "base-np", "--train", str(tr), "--model", str(model), "--epochs", "1",
                 "--clusters", table, str(vectors), "--quiet"]) == 0
    m = chaintag.load(model)
    assert (m.features.split(";")[0], m.feature_space, m.epochs) == ("chunking+kmvec", "gold", 1)
    assert sorted(m.extractor_.resources.clusters) == [64, 256, 1024] and m.extractor_.resources.paths is None
    assert m.extractor_.has_vectors and m.extractor_._vectors.shape[1] == 3
    vec = [a for a in range(m.extractor_.n_attributes) if m.extractor_.attribute_name(a).startswith("vec(")]
    assert len(vec) == 9  # three components of w[-1], w[0], w[1]
    # the UD recipe also reads the labels of the unlabeled text in its data directory (or --autotags)
    data = tmp_path / "data"
    (data / "unlabeled_en").mkdir(parents=True)
    (data / "unlabeled_en" / "a.txt").write_text("the dog barks\na cat\n", encoding="utf-8")
    assert main(["train", "--recipe", "pos-ud", "--train", str(tr), "--model", str(model), "--epochs", "1",
                 "--clusters", table, str(vectors), "--data-dir", str(data), "--quiet"]) == 0
    m = chaintag.load(model)
    assert m.features.split(";")[0] == "pos+autotags" and "@autoepochs=20" in m.features
    assert m.extractor_.autotags.sources == ["a.txt"] and m.extractor_.autotags.n_tokens == 5
    # the recipe's text is the data directory's even where the working folder has one of that name
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "unlabeled_en").mkdir(parents=True)
    (elsewhere / "unlabeled_en" / "b.txt").write_text("dogs\n", encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    assert main(["train", "--recipe", "pos-ud", "--train", str(tr), "--model", str(model), "--epochs", "1",
                 "--clusters", table, str(vectors), "--data-dir", str(data), "--quiet"]) == 0
    assert chaintag.load(model).extractor_.autotags.sources == ["a.txt"]
    other = tmp_path / "other.txt"
    other.write_text("dogs bark\n", encoding="utf-8")
    assert main(["train", "--recipe", "pos-ud", "--train", str(tr), "--model", str(model), "--epochs", "1",
                 "--clusters", table, str(vectors), "--autotags", str(other), "--quiet"]) == 0
    assert chaintag.load(model).extractor_.autotags.sources == ["other.txt"]
    # the chunking recipe: the text's taggers read the words alone (@autofeatures=pos), the chunker the POS too
    assert main(["train", "--recipe", "chunking", "--train", str(tr), "--model", str(model), "--epochs", "1",
                 "--clusters", table, str(vectors), "--data-dir", str(data), "--quiet"]) == 0
    m = chaintag.load(model)
    assert m.features.split(";")[0] == "chunking+autotags" and "@autofeatures=pos" in m.features
    assert m.extractor_.autotags.sources == ["a.txt"] and any(t.name == "pos[0]" for t in m.extractor_.templates)


def test_a_template_without_its_resource_says_which_kind_serves_it():
    """Found by a user of the core install: pos+clusters (cluster paths) was told to use the data
    directory's GloVe file, which cannot serve brownK."""
    import chaintag
    from chaintag.errors import InputError
    words = [["the", "dog"], ["a", "cat"]]
    with pytest.raises(InputError, match=r"these read cluster paths \(brownK\): a folder of unlabeled text"):
        chaintag.StructuredPerceptron(features="w[0];brown4(w[0])", columns=("word",)).fit(words, [["D", "N"]] * 2)
    with pytest.raises(InputError, match=r"these read k-means ids \(kmN\) or vectors: a word-vector file"):
        chaintag.StructuredPerceptron(features="w[0];km4(w[0])", columns=("word",)).fit(words, [["D", "N"]] * 2)
