"""Model files: bit-for-bit round trips, and clear errors on bad files."""

import json
import zipfile

import numpy as np
import pytest

import chaintag
from chaintag import ModelFormatError, StructuredPerceptron
from chaintag.io.model_file import FORMAT_VERSION, load_model, save_model

SENTS = [[("Ünïcode", "NN"), ("is", "VBZ"), ("fine", "JJ")], [("日本", "NNP"), ("x=1|y", "SYM"), (":", ":")]]
LABELS = [["B-NP", "B-VP", "B-ADJP"], ["B-NP", "I-NP", "O"]]


@pytest.fixture()
def model():
    return StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=3,
                                progress=False).fit(SENTS, LABELS)


def test_round_trip_is_bit_for_bit(model, tmp_path):
    path = tmp_path / "m.npz"
    model.save(path)
    loaded = chaintag.load(path)
    np.testing.assert_array_equal(loaded.weights_, model.weights_)
    assert loaded.weights_.tobytes() == model.weights_.tobytes()
    assert loaded.labels_ == model.labels_
    # every setting comes back except the progress display, which is not part of the model
    assert dict(loaded.get_params(), progress=False) == model.get_params()
    assert loaded.predict(SENTS) == model.predict(SENTS)
    timeless = [{k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds")} for r in model.history_]
    assert loaded.history_ == json.loads(json.dumps(timeless))
    # saving the loaded model again gives the same bytes
    path2 = tmp_path / "m2.npz"
    loaded.save(path2)
    a, b = load_model(path)[1], load_model(path2)[1]
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].tobytes() == b[k].tobytes() and a[k].dtype == b[k].dtype


def test_file_is_plain_npz_without_pickles(model, tmp_path):
    path = tmp_path / "m.npz"
    model.save(path)
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(bytes(data["__meta__"]).decode())
        assert meta["format"] == "chaintag-model" and meta["format_version"] == FORMAT_VERSION
        assert meta["labels"] == model.labels_ and meta["algorithm"] == "perceptron"
        assert all(data[k].dtype != object for k in data.files)


def test_truncated_file(model, tmp_path):
    path = tmp_path / "m.npz"
    model.save(path)
    raw = path.read_bytes()
    bad = tmp_path / "cut.npz"
    bad.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ModelFormatError, match="cut.npz"):
        chaintag.load(bad)


def test_garbage_and_foreign_files(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"this is not a model")
    with pytest.raises(ModelFormatError, match="junk.npz"):
        chaintag.load(junk)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, a=np.arange(3))
    with pytest.raises(ModelFormatError, match="not a chaintag model"):
        chaintag.load(foreign)
    with pytest.raises(FileNotFoundError):
        chaintag.load(tmp_path / "missing.npz")


def test_future_version_is_refused(tmp_path):
    path = tmp_path / "future.npz"
    save_model(path, {"algorithm": "perceptron"}, {"x": np.zeros(1)})
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    import io
    meta = json.loads(bytes(np.load(io.BytesIO(entries["__meta__.npy"]))).decode())
    meta["format_version"] = FORMAT_VERSION + 1
    buf = io.BytesIO()
    np.save(buf, np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    entries["__meta__.npy"] = buf.getvalue()
    with zipfile.ZipFile(path, "w") as zf:
        for n, b in entries.items():
            zf.writestr(n, b)
    with pytest.raises(ModelFormatError, match="newer"):
        chaintag.load(path)


def test_failed_save_leaves_previous_file(model, tmp_path):
    path = tmp_path / "m.npz"
    model.save(path)
    before = path.read_bytes()
    with pytest.raises(ValueError):
        save_model(path, {"algorithm": "perceptron"}, {"bad": np.array([object()], dtype=object)})
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"]


def test_no_features_is_refused(tmp_path):
    from chaintag.errors import TrainingError
    m = StructuredPerceptron(features=["w[0]"], columns=("word", "pos"), cc=50, epochs=1, progress=False)
    with pytest.raises(TrainingError, match="no features"):
        m.fit(SENTS, LABELS)
    m = StructuredPerceptron(features=["w[0]"], columns=("word", "pos"), epochs=1, progress=False)
    m.fit(SENTS, LABELS)
    m.feature_index_.feat_label = m.feature_index_.feat_label[:0]  # as if nothing was learned
    with pytest.raises(TrainingError, match="no features"):
        m.save(tmp_path / "empty.npz")
    assert not (tmp_path / "empty.npz").exists()


def test_equal_models_give_equal_bytes(tmp_path):
    m1 = StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2, progress=False).fit(SENTS, LABELS)
    m2 = StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2, progress=False).fit(SENTS, LABELS)
    m1.save(tmp_path / "a.npz")
    m2.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_progress_setting_does_not_change_the_file(tmp_path, capsys):
    """`-q` (no progress) and a visible progress give byte-identical model files."""
    from chaintag.cli.main import main
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                 for s, ls in zip(SENTS, LABELS)) + "\n")
    common = ["train", "--train", str(train), "--features", "w[0];pos[0]", "--epochs", "2"]
    assert main(common + ["--model", str(tmp_path / "q.npz"), "-q"]) == 0
    assert main(common + ["--model", str(tmp_path / "v.npz")]) == 0
    assert (tmp_path / "q.npz").read_bytes() == (tmp_path / "v.npz").read_bytes()
    m = StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2, progress=True)
    m.fit(SENTS, LABELS).save(tmp_path / "p.npz")
    m.set_params(progress=False) if hasattr(m, "set_params") else setattr(m, "progress", False)
    m.save(tmp_path / "n.npz")
    assert (tmp_path / "p.npz").read_bytes() == (tmp_path / "n.npz").read_bytes()
