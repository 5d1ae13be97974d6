"""The content-digest cache of derived resources (parsed word vectors, k-means ids), train --resources,
and the known resource of the data directory taken when templates need one and none is given."""

import hashlib
import json
import logging

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.features import spec as spec_module
from chaintag.resources import files as files_module
from chaintag.resources import kmeans as kmeans_module
from chaintag.resources.cached import cached_kmeans, load_resources
from chaintag.resources.store import resource_cache_dir
from toy_corpus import LABELS, SENTS

WORDS = ["the", "a", "dog", "cat", "barks", "sleeps", "here", "dogs", "bark", "old", "cow", "sheep"]


def _vectors_text(shift=0.0):
    rng = np.random.default_rng(7)
    rows = rng.normal(size=(len(WORDS), 4)) + shift
    return "".join(f"{w} " + " ".join(f"{x:.5f}" for x in row) + "\n" for w, row in zip(WORDS, rows))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache folder, the in-memory resource maps forgotten, and counters of the reader and k-means."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("CHAINTAG_CACHE", str(folder))
    monkeypatch.delenv("CHAINTAG_RESOURCE_CACHE", raising=False)
    monkeypatch.setattr(spec_module, "_CACHE", {})
    calls = {"read": 0, "kmeans": 0}
    read, km = files_module.read_vectors, kmeans_module.kmeans_ids

    def counted_read(*a, **k):
        calls["read"] += 1
        return read(*a, **k)

    def counted_kmeans(*a, **k):
        calls["kmeans"] += 1
        return km(*a, **k)

    monkeypatch.setattr(files_module, "read_vectors", counted_read)
    monkeypatch.setattr(kmeans_module, "kmeans_ids", counted_kmeans)
    return calls


def _vec_file(tmp_path, name="v.txt", text=None):
    p = tmp_path / name
    p.write_text(text if text is not None else _vectors_text(), encoding="utf-8")
    return p


def _entries(kind):
    return sorted(resource_cache_dir().glob(f"{kind}-*.npz"))


def test_vectors_and_kmeans_ids_are_digested_cached_and_reused(tmp_path, cache):
    path = _vec_file(tmp_path)
    first = load_resources([str(path)])
    ids = first.kmeans(3)
    assert cache == {"read": 1, "kmeans": 1}
    assert resource_cache_dir() == tmp_path / "cache" / "resources"
    (npz,) = _entries("vectors")
    meta = json.loads(npz.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["file_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (meta["n_words"], meta["dim"], meta["reader"]) == (len(WORDS), 4, files_module.VECTORS_READER_VERSION)
    assert len(_entries("kmeans")) == 1
    assert not any(p.suffix == ".pkl" for p in resource_cache_dir().iterdir())
    with np.load(npz, allow_pickle=False) as z:  # plain arrays, no pickled objects
        assert z["vectors"].dtype == np.float32 and z["words"].dtype == np.uint8
    # the second load reads neither the file's text nor runs k-means
    second = load_resources([str(path)])
    np.testing.assert_array_equal(second.kmeans(3), ids)
    assert cache == {"read": 1, "kmeans": 1}
    assert second.words == first.words and second.source == first.source == "v.txt"
    np.testing.assert_array_equal(second.vectors, first.vectors)
    assert second.vectors.dtype == np.float32
    # another size is computed once, then reused too
    load_resources([str(path)]).kmeans(2)
    load_resources([str(path)]).kmeans(2)
    assert cache["kmeans"] == 2 and len(_entries("kmeans")) == 2


def test_a_changed_file_is_read_again(tmp_path, cache):
    path = _vec_file(tmp_path)
    old = load_resources([str(path)])
    old.kmeans(3)
    path.write_text(_vectors_text(shift=1.0), encoding="utf-8")  # new bytes (same size and name)
    new = load_resources([str(path)])
    new.kmeans(3)
    assert cache == {"read": 2, "kmeans": 2}
    assert not np.array_equal(new.vectors, old.vectors)
    np.testing.assert_array_equal(new.vectors, files_module.read_vectors(path).vectors)
    assert len(_entries("vectors")) == 2 and len(_entries("kmeans")) == 2


def _truncate(p):
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _flip_last_value(p):  # a byte of the last array's data: the zip CRC no longer matches
    data = bytearray(p.read_bytes())
    at = data.rfind(b"PK\x01\x02") - 3  # just before the central directory: the data of the last member
    data[at] ^= 0xFF
    p.write_bytes(bytes(data))


def _garble_json(p):
    p.with_suffix(".json").write_text("{not json", encoding="utf-8")


def _wrong_shape(p):
    meta = json.loads(p.with_suffix(".json").read_text(encoding="utf-8"))
    name = sorted(meta["arrays"])[0]
    meta["arrays"][name][0] = [12345]
    p.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")


@pytest.mark.parametrize("damage", [_truncate, _flip_last_value, _garble_json, _wrong_shape])
def test_a_damaged_entry_is_rebuilt_with_a_warning(tmp_path, cache, caplog, damage):
    path = _vec_file(tmp_path)
    good = load_resources([str(path)])
    ids = good.kmeans(3)
    for entry in _entries("vectors") + _entries("kmeans"):
        damage(entry)
    with caplog.at_level(logging.WARNING, logger="chaintag.resources"):
        again = load_resources([str(path)])
        again_ids = again.kmeans(3)
    damaged = [r for r in caplog.records if "damaged" in r.getMessage()]
    assert len(damaged) == 2 and all("rebuilt" in r.getMessage() for r in damaged)
    assert cache == {"read": 2, "kmeans": 2}
    np.testing.assert_array_equal(again.vectors, good.vectors)
    np.testing.assert_array_equal(again_ids, ids)
    # the rebuilt entries are whole again: the next load uses them
    caplog.clear()
    load_resources([str(path)]).kmeans(3)
    assert cache == {"read": 2, "kmeans": 2} and not caplog.records


def test_out_of_range_cached_ids_are_not_trusted(tmp_path, cache, caplog):
    vectors = np.random.default_rng(0).normal(size=(10, 3)).astype(np.float32)
    ids = cached_kmeans(vectors, 3)
    (npz,) = _entries("kmeans")
    np.savez(npz, ids=np.full(10, 7, dtype=np.int32))  # well formed, but ids >= 3
    with caplog.at_level(logging.WARNING, logger="chaintag.resources"):
        np.testing.assert_array_equal(cached_kmeans(vectors, 3), ids)
    assert cache["kmeans"] == 2 and "damaged" in caplog.text  # its sha256 is not the one described


def test_the_arrays_of_another_entry_put_in_an_entrys_place_are_not_trusted(tmp_path, cache, caplog):
    """Swapped k-means entries whose ids fit both ranges (km3's in km4's place) passed every check and
    changed the model: each description now holds its arrays' sha256."""
    vectors = np.random.default_rng(0).normal(size=(40, 3)).astype(np.float32)
    ids3, ids4 = cached_kmeans(vectors, 3), cached_kmeans(vectors, 4)
    entries = _entries("kmeans")
    assert len(entries) == 2
    blobs = [e.read_bytes() for e in entries]
    for entry, blob in zip(entries, reversed(blobs)):
        entry.write_bytes(blob)
    with caplog.at_level(logging.WARNING, logger="chaintag.resources"):
        np.testing.assert_array_equal(cached_kmeans(vectors, 3), ids3)
        np.testing.assert_array_equal(cached_kmeans(vectors, 4), ids4)
    assert cache["kmeans"] == 4 and caplog.text.count("sha256 differs") == 2


def test_a_malformed_vectors_file_gives_one_error_naming_file_and_line(tmp_path, cache, capsys):
    lines = _vectors_text().splitlines(keepends=True)
    lines[2] = "dog 0.1 zero 0.3 0.4\n"
    bad = _vec_file(tmp_path, "bad.txt", "".join(lines))
    with pytest.raises(InputError) as info:
        load_resources([str(bad)])
    assert (info.value.path, info.value.line) == (str(bad), 3) and "'zero'" in str(info.value)
    assert _entries("vectors") == []  # nothing cached for a file that was refused
    tr = _train_file(tmp_path)
    assert main(["train", "--train", str(tr), "--model", str(tmp_path / "m.npz"), "--features",
                 "w[0];km2(w[0])", "--resources", str(bad), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3:" in err and err.count("error") == 1


def _train_file(tmp_path):
    tr = tmp_path / "train.txt"
    tr.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                              for s, ls in zip(SENTS, LABELS)) + "\n", encoding="utf-8")
    return tr


FEATURES = "w[0];km3(w[0]);km2(w[-1]);vec(w[0])"


def test_the_model_trained_from_the_cache_is_the_model_trained_without(tmp_path, cache, monkeypatch):
    path = _vec_file(tmp_path)
    tr = _train_file(tmp_path)

    def model(name, **env):
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        spec_module._CACHE.clear()  # no maps kept in memory from the run before
        out = tmp_path / name
        chaintag.train(str(tr), model=str(out), features=FEATURES, resources=[str(path)], epochs=2)
        return out

    plain = model("plain.npz", CHAINTAG_RESOURCE_CACHE="0")
    assert cache == {"read": 1, "kmeans": 2} and _entries("vectors") == []
    cold = model("cold.npz", CHAINTAG_RESOURCE_CACHE="1")
    warm = model("warm.npz")
    assert cache == {"read": 2, "kmeans": 4}  # the warm run read nothing, clustered nothing
    assert cold.read_bytes() == plain.read_bytes() and warm.read_bytes() == plain.read_bytes()
    m = chaintag.load(warm)
    assert m.extractor_.resources.source == "v.txt" and sorted(m.extractor_.resources.clusters) == [2, 3]
    assert m.predict([[("the", "DT"), ("cow", "NN")]]) == chaintag.load(plain).predict([[("the", "DT"), ("cow", "NN")]])


def test_resources_and_clusters_name_the_same_files(tmp_path, cache, capsys):
    path = _vec_file(tmp_path)
    tr = _train_file(tmp_path)
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert main(["train", "--train", str(tr), "--model", str(a), "--features", FEATURES, "--resources",
                 str(path), "--epochs", "2", "--quiet"]) == 0
    assert main(["train", "--train", str(tr), "--model", str(b), "--features", FEATURES, "--clusters",
                 str(path), "--epochs", "2", "--quiet"]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert cache["read"] == 1  # the second run took the cached vectors


def test_a_known_resource_of_the_data_directory_is_taken_and_named(tmp_path, cache, capsys, monkeypatch):
    tr = _train_file(tmp_path)
    data = tmp_path / "data"
    glove = data / "glove6b50d" / "glove.6B.50d.txt"
    glove.parent.mkdir(parents=True)
    glove.write_text(_vectors_text(), encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(tr), "--model", str(model), "--features", FEATURES, "--epochs", "1",
                 "--data-dir", str(data)]) == 0
    err = capsys.readouterr().err
    assert f"using {glove} from the data directory" in err and "no --resources was given" in err
    m = chaintag.load(model)
    assert m.extractor_.resources.source == "glove.6B.50d.txt" and m.extractor_.has_vectors
    # CHAINTAG_DATA is the data directory too
    monkeypatch.setenv("CHAINTAG_DATA", str(data))
    assert main(["train", "--train", str(tr), "--model", str(tmp_path / "e.npz"), "--features", FEATURES,
                 "--epochs", "1"]) == 0
    assert f"using {glove}" in capsys.readouterr().err
    # a given file wins: nothing is looked for
    own = _vec_file(tmp_path)
    assert main(["train", "--train", str(tr), "--model", str(model), "--features", FEATURES, "--epochs", "1",
                 "--data-dir", str(data), "--resources", str(own)]) == 0
    assert "data directory" not in capsys.readouterr().err
    assert chaintag.load(model).extractor_.resources.source == "v.txt"
    # vectors cannot give cluster paths: not taken for brownK, the error says what to give
    assert main(["train", "--train", str(tr), "--model", str(model), "--features", "w[0];brown2(w[0])",
                 "--data-dir", str(data), "--quiet"]) == 2
    assert "--resources" in capsys.readouterr().err
    # none there: the error stays
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["train", "--train", str(tr), "--model", str(model), "--features", FEATURES,
                 "--data-dir", str(empty), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "no cluster resource is given" in err and "--resources" in err and "glove6b50d" in err


def test_the_api_takes_resources_and_refuses_them_for_neural_learners(tmp_path, cache):
    path = _vec_file(tmp_path)
    tr = _train_file(tmp_path)
    result = chaintag.train(str(tr), features=FEATURES, resources=[str(path)], epochs=1)
    assert result.model.extractor_.resources.source == "v.txt"
    with pytest.raises(InputError, match="--resources does not apply"):
        chaintag.train(str(tr), algorithm="bilstm", resources=[str(path)], epochs=1)


def test_neural_vectors_are_read_once_then_from_the_cache(tmp_path, monkeypatch):
    """The neural learners' reader (a repeated word keeps its first vector) through the cache: the same
    words and float32 values, and the file is parsed only once per content."""
    import chaintag.learners.neural.vectors as nv
    path = tmp_path / "v.txt"
    path.write_text("the 0.5 -1.25\nCat 1e-3 2\nthe 9 9\n", encoding="utf-8")
    want = nv.read_vectors(path)
    first = nv.load_vectors(path)
    assert first[0] == want[0] == ["the", "Cat"] and np.array_equal(first[1], want[1])

    def no_parse(_):
        raise AssertionError("parsed again")

    monkeypatch.setattr(nv, "read_vectors", no_parse)
    again = nv.load_vectors(path)
    assert again[0] == want[0] and again[1].dtype == np.float32 and np.array_equal(again[1], want[1])
    path.write_text("dog 1 2\n", encoding="utf-8")  # new content, new key: parsed
    with pytest.raises(AssertionError, match="parsed again"):
        nv.load_vectors(path)


def _text_folder(tmp_path, name="text", extra=""):
    import random
    rng = random.Random(0)
    words = [a + b for a in "bfghjkmp" for b in "aeiou"] + ["the", "dog", "cat", "runs"]  # no digits: "norm" keeps them
    folder = tmp_path / name
    (folder / "sub").mkdir(parents=True, exist_ok=True)
    lines = [" ".join(rng.choice(words) for _ in range(8)) for _ in range(300)]
    (folder / "a.txt").write_text("\n".join(lines[:150]) + "\n", encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("\n".join(lines[150:]) + "\n" + extra, encoding="utf-8")
    (folder / "notes.md").write_text("not text to read\n", encoding="utf-8")
    return folder


def test_a_folder_of_unlabeled_text_is_induced_once_then_read_from_the_cache(tmp_path, monkeypatch):
    pytest.importorskip("gensim")
    import chaintag.resources.induce as induce_module
    import chaintag.resources.induced as induced
    monkeypatch.setattr(induced, "INDUCE_SETTINGS", dict(induced.INDUCE_SETTINGS, ks=(2, 4), dim=8, min_count=1))
    folder = _text_folder(tmp_path)
    assert [p.name for p in induced.text_files(folder)] == ["a.txt", "b.txt"]
    first = induced.cached_induced(folder, log=lambda m: None)
    assert len(first.words) == 44 and first.vectors.shape == (44, 8) and sorted(first.clusters) == [2, 4]
    assert all(set(p) <= {"0", "1"} and p for p in first.paths)
    real = induce_module.induce

    def no_induce(*a, **k):
        raise AssertionError("induced again")

    monkeypatch.setattr(induce_module, "induce", no_induce)
    again = induced.cached_induced(folder, log=lambda m: None)
    assert again.words == first.words and again.paths == first.paths
    assert np.array_equal(again.vectors, first.vectors) and again.vectors.dtype == np.float32
    assert all(np.array_equal(again.clusters[k], first.clusters[k]) for k in (2, 4))
    assert again.normalize == ("lower", "norm")
    # another text (one more line) is another entry: induced again
    _text_folder(tmp_path, extra="the dog runs\n")
    with pytest.raises(AssertionError, match="induced again"):
        induced.cached_induced(folder, log=lambda m: None)
    monkeypatch.setattr(induce_module, "induce", real)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"\*\.txt files"):
        induced.cached_induced(tmp_path / "empty", log=print)


def test_train_reads_a_folder_of_text_named_in_the_data_directory(tmp_path, monkeypatch, capsys):
    pytest.importorskip("gensim")
    import chaintag.resources.induced as induced
    monkeypatch.setattr(induced, "INDUCE_SETTINGS", dict(induced.INDUCE_SETTINGS, ks=(2, 4), dim=8, min_count=1))
    data = tmp_path / "data"
    _text_folder(data, name="unlabeled_xx")
    train = tmp_path / "train.txt"
    train.write_text("the DT\ndog NN\nruns VBZ\n\nthe DT\ncat NN\nruns VBZ\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--train", str(train), "--features", "w[0];km4(w[0])", "--resources", "unlabeled_xx",
                 "--data-dir", str(data), "--epochs", "2", "--model", str(model)]) == 0
    err = capsys.readouterr().err
    assert f"resources: {data / 'unlabeled_xx'} (" in err  # found in the data directory by its name
    m = chaintag.load(model)
    assert sorted(m.extractor_.resources.clusters) == [4]
    assert m.predict([["the", "cat", "runs"]]) == [["DT", "NN", "VBZ"]]
