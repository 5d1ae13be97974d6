"""Models by name: the built-in UD EWT taggers, name resolution, ``chaintag models list`` and ``build``.

The checks against UD English EWT (the shipped files rebuilt byte for byte, the
documented accuracy) run where the data directory holds ``ud_en_ewt``; the
rest needs no data (tiny corpora are written here).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import chaintag
from chaintag.api.builtin_models import build_model, file_sha256, list_models
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.models.cache import cache_dir, cached_model_path
from chaintag.models.catalog import BUILTIN, MODELS
from chaintag.models.resolve import builtin_model_path, resolve_model

ROOT = Path(__file__).resolve().parents[1]


def _ud_data() -> Path | None:
    """The data directory holding UD English EWT, or None."""
    env = os.environ.get("CHAINTAG_DATA")
    for root in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "data"]:
        if all((root / "ud_en_ewt" / f"en_ewt-ud-{s}.conllu").is_file() for s in ("train", "dev", "test")):
            return root
    return None


needs_ud = pytest.mark.skipif(_ud_data() is None, reason="UD English EWT is not in the data directory")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder of its own (CHAINTAG_CACHE), no data directory from the environment."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("CHAINTAG_CACHE", str(folder))
    monkeypatch.delenv("CHAINTAG_DATA", raising=False)
    monkeypatch.setenv("CHAINTAG_AUTO_FETCH", "0")
    return folder


# ------------------------------------------------------------------ the built-in taggers

SENTENCES = [
    ("The cat sat on the mat .", "DT NN VBD IN DT NN .", "DET NOUN VERB ADP DET NOUN PUNCT"),
    ("She sells sea shells .", "PRP VBZ NN NNS .", "PRON VERB NOUN NOUN PUNCT"),
    ("We were not happy with the service .", "PRP VBD RB JJ IN DT NN .",
     "PRON AUX PART ADJ ADP DET NOUN PUNCT"),
]


def test_the_built_in_models_load_by_name_and_tag_sentences_right():
    words = [s.split() for s, _, _ in SENTENCES]
    assert chaintag.load("en-pos").predict(words) == [x.split() for _, x, _ in SENTENCES]
    assert chaintag.load("en-upos").predict(words) == [u.split() for _, _, u in SENTENCES]


def test_the_shipped_files_are_the_catalog_s_and_small():
    for name in BUILTIN:
        path = builtin_model_path(name)
        assert file_sha256(path) == MODELS[name].sha256
        assert path.stat().st_size < 6_000_000
        assert MODELS[name].licence.startswith("CC BY-SA 4.0")
    folder = builtin_model_path("en-pos").parent
    attribution = (folder / "ATTRIBUTION-UD-EWT.txt").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in attribution and "UD_English-EWT" in attribution
    assert (folder / "LICENSE-CC-BY-SA-4.0.txt").read_text(encoding="utf-8").startswith(
        "Attribution-ShareAlike 4.0 International")


def test_the_package_data_globs_take_the_model_files():
    import tomllib
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["chaintag.models"]
    shipped = {p.name for p in builtin_model_path("en-pos").parent.iterdir() if p.suffix in (".npz", ".txt")}
    assert {"en-pos.npz", "en-upos.npz", "ATTRIBUTION-UD-EWT.txt", "LICENSE-CC-BY-SA-4.0.txt"} <= shipped
    assert all(any(Path(n).match(g) for g in globs) for n in shipped)


def test_tag_by_name_on_the_command_line_with_no_data_directory(tmp_path, monkeypatch, cache, capsys):
    monkeypatch.chdir(tmp_path)  # no ../shared/data from here
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    words = tmp_path / "in.txt"
    words.write_text("She sells sea shells .\n", encoding="utf-8")
    assert main(["tag", "--model", "en-pos", "--format", "pretokenized", "--output-format", "columns",
                 "-q", str(words)]) == 0
    out = capsys.readouterr().out.split()
    assert out == "She PRP sells VBZ sea NN shells NNS . .".split()


def test_a_built_in_model_tags_a_raw_sentence(tmp_path, monkeypatch, cache, capsys):
    text = "We were not happy with the service. She sells sea shells."
    doc = chaintag.tag_text("en-pos", text)
    assert [t.text for t in doc.tokens] == "We were not happy with the service . She sells sea shells .".split()
    assert [t.label for t in doc.tokens] == "PRP VBD RB JJ IN DT NN . PRP VBZ NN NNS .".split()
    assert doc.sentences == [(0, 8), (8, 13)] and doc.spans == []
    assert all(text[t.start:t.end] == t.text for t in doc.tokens)
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "raw.txt"
    src.write_text(text + "\n", encoding="utf-8")
    assert main(["tag", "--model", "en-pos", "--format", "raw", "--output-format", "conll", "-q", str(src)]) == 0
    rows = [r.split("\t") for r in capsys.readouterr().out.splitlines() if r]
    assert [lab for _, lab in rows] == [t.label for t in doc.tokens]


# ------------------------------------------------------------------ names and files

def _tiny_model(path):
    chaintag.StructuredPerceptron(features=["w[0]"], epochs=2, progress=False).fit(
        [["a", "b"]], [["X", "Y"]]).save(path)


def test_a_file_wins_over_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tiny_model(tmp_path / "en-pos")  # a file named like the built-in model
    assert resolve_model("en-pos") == "en-pos"
    assert chaintag.load("en-pos").labels_ == ["X", "Y"]
    os.mkdir(tmp_path / "en-upos")  # a folder is no model file: the name still means the built-in model
    assert resolve_model("en-upos") == str(builtin_model_path("en-upos"))


def test_an_unknown_name_is_one_error_listing_the_known_names(tmp_path, monkeypatch, cache, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="no model file or known model named 'en-nope'.*en-pos, en-upos, "
                                         "en-chunk, en-np, en-pos-wsj, en-bio-ner"):
        chaintag.load("en-nope")
    assert main(["tag", "--model", "en-nope", "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "known models are en-pos, en-upos" in err[0]
    with pytest.raises(FileNotFoundError):  # a path (a suffix or a folder) stays a path
        chaintag.load(tmp_path / "missing.npz")
    with pytest.raises(InputError, match="not built yet: chaintag models build en-chunk"):
        chaintag.load("en-chunk")


def test_the_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("CHAINTAG_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "chaintag"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "chaintag"
    monkeypatch.setenv("CHAINTAG_CACHE", str(tmp_path / "own"))
    assert cached_model_path("en-np") == tmp_path / "own" / "models" / "en-np.npz"


# ------------------------------------------------------------------ chaintag models list / build

TINY_POS = "".join(f"{s}\n\n" for s in (
    "the DT\ndog NN\nruns VBZ\n. .", "a DT\ncat NN\nsleeps VBZ\n. .", "the DT\ncats NNS\nrun VBP\n. .",
    "dogs NNS\nsleep VBP\n. ."))


def _tiny_data(tmp_path) -> Path:
    data = tmp_path / "data"
    (data / "ptb_sample").mkdir(parents=True)
    (data / "ptb_sample" / "train.txt").write_text(TINY_POS, encoding="utf-8")
    return data


def test_models_list_marks_built_in_buildable_and_not_available(tmp_path, cache, capsys):
    data = _tiny_data(tmp_path)
    assert main(["models", "list", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"data directory: {data}; built models are kept in {cache / 'models'}"
    rows = {ln.split()[0]: ln.split()[1:] for ln in lines[1:] if ln.startswith("  en-")}
    assert list(rows) == ["en-pos", "en-upos", "en-chunk", "en-np", "en-pos-wsj", "en-bio-ner"]
    assert rows["en-pos"][:3] == ["built-in", "4.7", "MB"] and rows["en-upos"][:3] == ["built-in", "4.6", "MB"]
    assert rows["en-pos-wsj"][:2] == ["buildable", "-"]
    assert rows["en-chunk"][:3] == ["not", "available", "-"]
    assert "accuracy dev 94.32, test 94.30" in out and "accuracy dev 94.76, test 94.93" in out
    assert "licence: CC BY-SA 4.0 (UD English EWT; attribution in ATTRIBUTION-UD-EWT.txt)" in out
    assert "not in the data directory: chaintag data fetch conll2000" in out


def test_build_into_the_cache_folder_then_use_by_name(tmp_path, cache, capsys, monkeypatch):
    data = _tiny_data(tmp_path)
    assert main(["models", "build", "en-pos-wsj", "--data-dir", str(data), "-q"]) == 0
    path = cache / "models" / "en-pos-wsj.npz"
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"en-pos-wsj: {path} (") and out[1] == f"sha256 {file_sha256(path)}"
    assert sorted(p.name for p in path.parent.iterdir()) == ["en-pos-wsj.npz"]  # no temporary file left
    model = chaintag.load("en-pos-wsj")
    assert (model.algorithm, model.features, model.epochs) == ("perceptron", "pos", 20)  # the catalog's
    assert model.predict([["the", "dog", "runs", "."]]) == [["DT", "NN", "VBZ", "."]]
    state = {st.info.name: st.state for st in list_models(data)}
    assert state["en-pos-wsj"] == "built" and state["en-pos"] == "built-in"
    monkeypatch.chdir(tmp_path)
    words = tmp_path / "in.txt"
    words.write_text("the cats run .\n", encoding="utf-8")
    assert main(["tag", "--model", "en-pos-wsj", "--format", "pretokenized", "--output-format", "columns",
                 "-q", str(words)]) == 0
    assert capsys.readouterr().out.split() == "the DT cats NNS run VBP . .".split()
    # the same data and settings give the same bytes
    again = build_model("en-pos-wsj", data_dir=data, output=tmp_path / "again.npz")
    assert again.sha256 == file_sha256(path) and again.matches_shipped is None


def test_a_built_in_model_is_rebuilt_only_to_an_output(cache):
    with pytest.raises(InputError, match="en-pos is built in.*--output PATH"):
        build_model("en-pos")
    with pytest.raises(InputError, match="unknown model 'en-xx'; the known models are en-pos"):
        build_model("en-xx")


# ------------------------------------------------------------------ against UD English EWT

@needs_ud
@pytest.mark.parametrize("name", BUILTIN)
def test_rebuilding_a_built_in_model_gives_the_shipped_bytes(name, tmp_path, capsys):
    assert main(["models", "build", name, "--data-dir", str(_ud_data()), "--output",
                 str(tmp_path / "m.npz"), "-q"]) == 0
    out = capsys.readouterr().out
    assert f"the same bytes as the shipped {name}.npz" in out
    assert file_sha256(tmp_path / "m.npz") == MODELS[name].sha256


@needs_ud
@pytest.mark.parametrize("name", BUILTIN)
def test_accuracy_on_ud_ewt_is_the_documented_figure(name):
    info = MODELS[name]
    model = chaintag.load(name)
    doc = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    for split in ("dev", "test"):
        corpus = chaintag.load_corpus(f"ud_en_ewt:{split}", data_dir=_ud_data(), label_field=info.settings[
            "label_field"])
        got = model.evaluate(corpus.tokens, corpus.labels).accuracy
        assert round(got, 2) == info.scores[split]
        assert f"{info.scores[split]:.2f}" in doc
