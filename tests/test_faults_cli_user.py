"""A new user's mistakes and what the commands then say: a test split as dev data, a folder as
--model, a model file as text, tabs mixed with spaces, progress off a terminal, counts of sentences
(document markers, "1 sentence"), -q and first-use fetching, the kernel compilation line, and where
the data directory was looked for."""

from __future__ import annotations

import io
import sys
import zipfile

import pytest

import chaintag
from chaintag.cli.common import library_messages
from chaintag.cli.main import main
from chaintag.api.train_checks import check_dev_is_not_test, dev_test_reason
from chaintag.errors import InputError
from chaintag.io.columns import read_sentences
from chaintag.progress import CountProgress, compile_step, plural

TRAIN = "He PRP B-NP\nruns VBZ B-VP\n. . O\n\nShe PRP B-NP\nsings VBZ B-VP\n\n"


@pytest.fixture()
def train_file(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text(TRAIN, encoding="utf-8")
    return str(path)


@pytest.fixture()
def model_file(tmp_path, train_file):
    model = tmp_path / "m.npz"
    assert main(["train", "--train", train_file, "--model", str(model), "-a", "perceptron", "--epochs", "1",
                 "--features", "w[0];pos[0]", "-q"]) == 0
    return str(model)


def _err(capsys) -> str:
    return capsys.readouterr().err


# --- a test split as dev data ------------------------------------------------------------------

def test_dev_test_reason(tmp_path, train_file):
    assert dev_test_reason("conll2000:test") == "it is a test split (conll2000:test)"
    assert dev_test_reason("ptb_sample:dev") is None and dev_test_reason(None) is None
    assert dev_test_reason(train_file, train_file) == "it is the --test data"
    assert dev_test_reason(train_file, "conll2000:test") is None
    # the file of a named test split, given by its path
    folder = tmp_path / "data" / "conll2000"
    folder.mkdir(parents=True)
    (folder / "test.txt").write_text(TRAIN, encoding="utf-8")
    assert dev_test_reason(str(folder / "test.txt"), None, str(tmp_path / "data")) == "it is the file of conll2000:test"
    with pytest.raises(InputError, match="chosen on the test data"):
        check_dev_is_not_test("ud_en_ewt:test", command="tune")
    assert check_dev_is_not_test(train_file, train_file).startswith("warning: ")
    assert check_dev_is_not_test("ptb_sample:dev", train_file) is None


def test_train_refuses_a_test_split_as_dev(tmp_path, train_file, capsys):
    model = tmp_path / "m.npz"
    assert main(["train", "--train", train_file, "--dev", "conll2000:test", "--model", str(model)]) == 2
    err = _err(capsys)
    assert "--dev conll2000:test: it is a test split" in err and "the best epoch would then be chosen" in err
    assert not model.exists()
    # the file of a named test split, given by its path: refused too
    folder = tmp_path / "data" / "conll2000"
    folder.mkdir(parents=True)
    (folder / "test.txt").write_text(TRAIN, encoding="utf-8")
    assert main(["train", "--train", train_file, "--dev", str(folder / "test.txt"), "--data-dir",
                 str(tmp_path / "data"), "--model", str(model)]) == 2
    assert "it is the file of conll2000:test" in _err(capsys) and not model.exists()
    # the same file as --test: a loud warning (even with -q), the run goes on
    assert main(["train", "--train", train_file, "--dev", train_file, "--test", train_file, "-a", "perceptron",
                 "--epochs", "1", "--model", str(model), "-q"]) == 0
    err = _err(capsys)
    assert err.startswith("warning: --dev ") and "it is the --test data" in err and "not a held-out score" in err


def test_tune_refuses_a_test_split_as_dev(tmp_path, train_file, capsys):
    pytest.importorskip("chaintag_research")
    assert main(["tune", "--train", train_file, "--dev", "conll2000:test", "--out", str(tmp_path / "t"),
                 "-a", "perceptron", "--features", "w[0]"]) == 2
    assert "the settings would then be chosen on the test data" in _err(capsys)


# --- a folder as --model -------------------------------------------------------------------------

def test_train_refuses_a_folder_as_model(tmp_path, train_file, capsys):
    new = tmp_path / "newdir"
    assert main(["train", "--train", train_file, "--model", str(new) + "/", "-q"]) == 2
    err = _err(capsys)
    assert "names a folder (it ends with a separator)" in err and f"--model {new / 'model.npz'}" in err
    assert not new.exists()
    new.mkdir()
    assert main(["train", "--train", train_file, "--model", str(new), "-q"]) == 2
    assert "names an existing folder" in _err(capsys) and list(new.iterdir()) == []


# --- a model file or a zip file as text ------------------------------------------------------------

def test_a_model_file_as_input_says_use_model(tmp_path, model_file, capsys):
    assert main(["tag", "--model", model_file, model_file]) == 2
    assert "this is a chaintag model file (npz), not text; use --model" in _err(capsys)
    with pytest.raises(InputError, match="chaintag model file"):
        read_sentences(model_file)
    with open(model_file, "rb") as fh:  # on standard input too (no file to open: the first bytes tell)
        data = fh.read()
    with pytest.raises(InputError, match="chaintag model file|zip file"):
        read_sentences(io.BytesIO(data))
    other = tmp_path / "a.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("x.txt", "hello\n")
    assert main(["train", "--train", str(other), "--model", str(tmp_path / "m2.npz")]) == 2
    assert "this is a zip file, not text" in _err(capsys)


# --- tabs mixed with spaces ------------------------------------------------------------------------

def test_tabs_and_spaces_hint_names_sep(tmp_path, capsys):
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("He\tPRP\tB-NP\nruns VBZ B-VP\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_sentences(str(mixed))
    assert info.value.line == 2 and "found 1" in info.value.message and "--sep space" in info.value.message
    assert [s.tokens for s in read_sentences(str(mixed), sep=" ")] == [[("He", "PRP", "B-NP"), ("runs", "VBZ", "B-VP")]]
    assert main(["train", "--train", str(mixed), "--model", str(tmp_path / "m.npz"), "-q"]) == 2
    assert "mixes tabs and spaces" in _err(capsys)
    assert main(["train", "--train", str(mixed), "--sep", "space", "--model", str(tmp_path / "m.npz"), "-q",
                 "--epochs", "1", "-a", "perceptron"]) == 0
    # a tab-separated file whose tokens hold spaces is no mistake: no hint there
    ok = tmp_path / "ok.txt"
    ok.write_text("New York\tNNP\tB-LOC\nis\tVBZ\tO x\n", encoding="utf-8")
    assert [s.tokens[0] for s in read_sentences(str(ok))] == [("New York", "NNP", "B-LOC")]


# --- counts of sentences and plurals -----------------------------------------------------------------

def test_plural():
    assert [plural(n, "sentence") for n in (0, 1, 2)] == ["0 sentences", "1 sentence", "2 sentences"]
    assert plural(4260, "sentence", thousands=True) == "4,260 sentences"
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == "3 entries"


def test_tag_counts_sentences_not_document_markers(tmp_path, model_file, capsys):
    data = tmp_path / "docs.txt"
    data.write_text("-DOCSTART- -X- O\n\nHe PRP\nruns VBZ\n\n-DOCSTART- -X- O\n\nShe PRP\n\n"
                    "###MEDLINE:123\n\nShe PRP\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["tag", "--model", model_file, str(data), "--output", str(out)]) == 0
    last = _err(capsys).splitlines()[-1]
    assert last.startswith("tagging: done, 3 sentences in ")
    one = tmp_path / "one.txt"
    one.write_text("-DOCSTART- -X- O\n\nHe PRP\n", encoding="utf-8")
    assert main(["tag", "--model", model_file, str(one), "--output", str(out)]) == 0
    assert _err(capsys).splitlines()[-1].startswith("tagging: done, 1 sentence in ")


def test_one_sentence_is_singular_in_train_and_eval(tmp_path, capsys):
    one = tmp_path / "one.txt"
    one.write_text("He PRP\nruns VBZ\n", encoding="utf-8")
    assert main(["train", "--train", str(one), "--model", str(tmp_path / "m.npz"), "-a", "perceptron",
                 "--epochs", "1"]) == 0
    assert f"read 1 sentence, 2 tokens from {one}" in _err(capsys)
    assert main(["eval", str(one), "--gold-column", "1", "--pred-column", "1"]) == 0
    assert "processed 2 tokens in 1 sentence (" in capsys.readouterr().out


# --- progress off a terminal ----------------------------------------------------------------------

def test_count_progress_writes_plain_lines(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    bar = CountProgress("log", 2, "tune", unit="run")
    for score in (90.5, 91.25):  # as a grid loop uses a tqdm bar: update, then the postfix
        bar.update(1)
        bar.set_postfix_str(f"dev {score:.2f}")
    bar.close()
    lines = err.getvalue().splitlines()
    assert [ln.split(",")[0] for ln in lines] == ["tune: run 1/2 (dev 90.50)", "tune: run 2/2 (dev 91.25)"]
    assert "\r" not in err.getvalue()
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    bar = CountProgress(None, 2, "tune", unit="run")
    bar.update(1)
    bar.close()
    assert quiet.getvalue() == ""


def test_tune_off_a_terminal_writes_no_bars(tmp_path, train_file, capsys):
    pytest.importorskip("chaintag_research")
    dev = tmp_path / "dev.txt"
    dev.write_text(TRAIN, encoding="utf-8")
    assert main(["tune", "--train", train_file, "--dev", str(dev), "--out", str(tmp_path / "t"), "-a",
                 "perceptron", "--features", "w[0]", "w[0];pos[0]", "--epochs", "1"]) == 0
    err = _err(capsys)
    assert "\r" not in err
    assert [ln.split(" (")[0] for ln in err.splitlines() if ln.startswith("tune: run")] == ["tune: run 1/2",
                                                                                           "tune: run 2/2"]


# --- the kernel compilation line -----------------------------------------------------------------

def test_compile_line_says_what_happened(capsys):
    from numba import njit

    @njit
    def add_one(x):
        return x + 1

    with compile_step("log"):
        add_one(1)
    with compile_step("log"):
        add_one(2)
    lines = _err(capsys).splitlines()
    assert lines[0].startswith("compiled kernels (compiled on this run: 1 function; later runs load them")
    assert lines[1].startswith("compiled kernels (loaded from the cache): ")
    with compile_step(None):
        add_one(3)
    assert _err(capsys) == ""


# --- -q and first-use fetching; where the data directory was looked for -------------------------------

@pytest.fixture()
def no_data_dir(tmp_path, monkeypatch):
    """A working folder without ../shared/data, no CHAINTAG_DATA, an empty user data folder."""
    work = tmp_path / "a" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.delenv("CHAINTAG_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path


def test_quiet_silences_first_use_fetching(no_data_dir, monkeypatch, capsys):
    import chaintag.data.fetch as fetch_module

    calls = []

    def fake_fetch(name, data_dir=None, base_url=None, quiet=False):
        calls.append(quiet)
        if not quiet:
            print(f"downloading https://example.invalid/{name}", file=sys.stderr)
        raise fetch_module.FetchError("offline")

    monkeypatch.setattr(fetch_module, "fetch", fake_fetch)
    monkeypatch.setenv("CHAINTAG_AUTO_FETCH", "1")
    args = ["train", "--train", "conll2000:train", "--model", "m.npz"]
    assert main(args) == 2
    assert calls and not any(calls)
    calls.clear()
    loud = _err(capsys)
    assert "downloading" in loud and "fetching it from its public source" in loud
    assert main(args + ["-q"]) == 2
    quiet = _err(capsys)
    assert "downloading" not in quiet and "fetching it from" not in quiet
    assert quiet.startswith("chaintag train: error: ") and len(quiet.splitlines()) == 1
    assert calls and all(calls)
    # the command's -q ends with it: the library called next is not silenced
    from chaintag.data import autofetch
    assert autofetch._QUIET is False
    restore = library_messages(type("A", (), {"quiet": True})())
    assert autofetch._QUIET is True
    restore()
    assert autofetch._QUIET is False


def test_unresolved_dataset_says_where_the_data_directory_was_looked_for(no_data_dir, monkeypatch, capsys):
    monkeypatch.setenv("CHAINTAG_AUTO_FETCH", "0")
    with pytest.raises(InputError) as info:
        chaintag.load_corpus("conll2000:train")
    msg = info.value.message
    assert "the data directory was looked for in: --data-dir (not given); CHAINTAG_DATA (not set); " in msg
    assert "../shared/data from the working folder) (no such folder)" in msg
    assert f"{no_data_dir / 'xdg' / 'chaintag' / 'data'} (used)" in msg
    assert "--data-dir DIR" in msg and "CHAINTAG_DATA=DIR" in msg
    assert main(["train", "--train", "conll2000:train", "--model", "m.npz", "--data-dir", "elsewhere"]) == 2
    assert "--data-dir elsewhere (used)" in _err(capsys)
