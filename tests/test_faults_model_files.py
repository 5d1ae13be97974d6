"""Faults found by a user auditing model files (arrays that pass the digests, names, messages), each as a kind."""

import json

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError, ModelFormatError
from chaintag.io.model_file import load_model, save_model

from toy_corpus import LABELS, SENTS


@pytest.fixture()
def model_file(tmp_path):
    path = tmp_path / "ok.npz"
    chaintag.StructuredPerceptron(epochs=2, progress=False).fit(SENTS, LABELS).save(path)
    return path


def _rewrite(src, dst, edit=None, meta_edit=None):
    """A copy of model ``src`` with its arrays or metadata changed and its digests written anew."""
    meta, arrays = load_model(src)
    arrays = {k: np.array(v) for k, v in arrays.items()}
    if edit:
        edit(arrays)
    if meta_edit:
        meta_edit(meta)
    save_model(dst, meta, arrays)
    return dst


EDITS = {
    "feat_label": (lambda a: a["feat_label"].__setitem__(slice(None), 2**30), "label id \\(feat_label\\)"),
    "feat_label_negative": (lambda a: a["feat_label"].__setitem__(0, -5), "label id \\(feat_label\\)"),
    "feat_label_order": (lambda a: a.__setitem__("feat_label", np.zeros_like(a["feat_label"])),
                         "feature labels \\(feat_label\\) are not distinct and ascending"),
    "feat_ptr_reversed": (lambda a: a.__setitem__("feat_ptr", a["feat_ptr"][::-1].copy()), "feat_ptr"),
    "feat_ptr_end": (lambda a: a["feat_ptr"].__setitem__(-1, 10**12), "feat_ptr"),
    "attr_offset": (lambda a: a["attr_offset"].__setitem__(slice(None), 10**9), "attr_offset"),
    "attr_keys": (lambda a: a.__setitem__("attr_keys", a["attr_keys"][::-1].copy()), "attr_keys"),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_arrays_that_pass_the_digests_but_not_the_kernels_are_refused(model_file, tmp_path, capsys, name):
    """The digests prove a file unchanged since it was written, not that its arrays are sound: a label id
    of 2**30 segfaulted `chaintag tag` (the kernels index the weights by it), reversed offsets tagged
    silently wrong. Every index array is now checked when the file is loaded."""
    edit, what = EDITS[name]
    bad = _rewrite(model_file, tmp_path / f"{name}.npz", edit)
    with pytest.raises(ModelFormatError, match=f"^{bad}: model file is incomplete or inconsistent: .*{what}"):
        chaintag.load(bad)
    assert main(["inspect", str(bad)]) == 2  # one line, no traceback
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err


def test_a_sound_file_still_loads_and_tags_as_before(model_file):
    m = chaintag.load(model_file)
    again = chaintag.load(_rewrite(model_file, model_file.parent / "copy.npz"))
    assert m.predict(SENTS) == again.predict(SENTS) == LABELS


@pytest.mark.parametrize("field", ["algorithm", "columns", "extractor", "params"])
def test_a_missing_metadata_entry_is_named(model_file, tmp_path, field):
    bad = _rewrite(model_file, tmp_path / f"no_{field}.npz", meta_edit=lambda m: m.pop(field))
    expected = ("it names no algorithm" if field == "algorithm" else f"it has no '{field}' entry")
    with pytest.raises(ModelFormatError, match=f"^{bad}: model file is incomplete: {expected}"):
        chaintag.load(bad)


def test_inspect_names_the_format_and_the_release_that_wrote_the_file(model_file, capsys):
    assert main(["inspect", str(model_file)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1] == f"file: format version 2, written by chaintag {chaintag.__version__}"
    assert main(["inspect", str(model_file), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["file_format"] == {"format_version": 2, "chaintag_version": chaintag.__version__}


def test_a_bytes_path_saves_as_it_loads(model_file, tmp_path):
    m = chaintag.load(bytes(model_file))
    m.save(bytes(tmp_path / "b.npz"))
    assert (tmp_path / "b.npz").read_bytes() == model_file.read_bytes()


def test_tag_by_name_refuses_a_cached_model_of_another_learner(tmp_path, monkeypatch, capsys):
    """`chaintag tag --model NAME` loaded the cached file by its path, skipping the check that load, eval,
    inspect and serve make: a cached en-chunk built with SAPO tagged as the catalog's perceptron."""
    monkeypatch.setenv("CHAINTAG_CACHE", str(tmp_path / "cache"))
    from chaintag.models.cache import cached_model_path
    path = cached_model_path("en-chunk")
    path.parent.mkdir(parents=True)
    chaintag.SAPO(features="w[0];pos[0]", epochs=1, progress=False).fit(SENTS, LABELS).save(path)
    text = tmp_path / "in.txt"
    text.write_text("the DT\ndog NN\n")
    assert main(["tag", "--model", "en-chunk", str(text)]) == 2
    assert "was built with sapo, but the catalog's en-chunk is perceptron" in capsys.readouterr().err
    with pytest.raises(InputError, match="was built with sapo"):
        chaintag.tag_file("en-chunk", str(text), str(tmp_path / "out.txt"))


def test_quiet_silences_the_resource_lines(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHAINTAG_CACHE", str(tmp_path / "cache"))
    vectors = tmp_path / "vec.txt"
    rng = np.random.default_rng(0)
    vectors.write_text("".join(f"w{i} " + " ".join(f"{x:.3f}" for x in rng.normal(size=4)) + "\n"
                               for i in range(40)) + "the 1 0 0 0\ndog 0 1 0 0\n")
    train = tmp_path / "t.txt"
    train.write_text("the DT\ndog NN\n\nthe DT\ndog NN\n")
    argv = ["train", "--train", str(train), "--features", "w[0];km4(w[0])", "--resources", str(vectors),
            "--epochs", "1", "-m", str(tmp_path / "m.npz")]
    pytest.importorskip("sklearn")
    from chaintag.features import spec as spec_module
    monkeypatch.setattr(spec_module, "_CACHE", {})  # the resource maps this process read forgotten
    assert main(argv + ["-q"]) == 0
    assert capsys.readouterr().err == ""  # the reading and k-means lines included
    monkeypatch.setenv("CHAINTAG_CACHE", str(tmp_path / "cache2"))
    monkeypatch.setattr(spec_module, "_CACHE", {})
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"resources: reading {vectors}" in err and "resources: k-means of 42 word vectors into 4" in err


def test_deep_metadata_and_weights_of_the_wrong_shape_are_refused(model_file, tmp_path, monkeypatch):
    """Found by a security review: metadata nested 100,000 deep ended in a RecursionError traceback, and a
    2-D weights array loaded and failed in the compiled kernel (a numba dump as the server's 500)."""
    from chaintag.io import model_file as mf
    meta, arrays = load_model(model_file)
    meta["x"] = "NEST"
    dumps = mf.json.dumps
    monkeypatch.setattr(mf.json, "dumps", lambda obj, **kw: dumps(obj, **kw).replace(
        '"NEST"', "[" * 100_000 + "]" * 100_000))
    nested = tmp_path / "nested.npz"
    save_model(nested, meta, {k: np.array(v) for k, v in arrays.items()})
    monkeypatch.setattr(mf.json, "dumps", dumps)
    with pytest.raises(ModelFormatError, match="metadata nested too deeply"):
        chaintag.load(nested)
    two_d = _rewrite(model_file, tmp_path / "two_d.npz", lambda a: a.__setitem__("weights", a["weights"][:, None]))
    with pytest.raises(ModelFormatError, match="weights are an array of 2 dimensions"):
        chaintag.load(two_d)
