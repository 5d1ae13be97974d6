"""A named dataset missing from the user data folder is fetched on first use (local fake source)."""

from __future__ import annotations

import socket

import pytest

from chaintag.cli.main import main
from chaintag.data import fetch as fetch_mod
from chaintag.data.datasets import resolve
from chaintag.errors import InputError
from test_fetch import CONLL_TEST, CONLL_TRAIN, Mirror, put_conll2000


@pytest.fixture
def fresh_machine(tmp_path, monkeypatch):
    """No --data-dir, no CHAINTAG_DATA, no ../shared/data: the user data folder is in use."""
    home = tmp_path / "home"
    work = tmp_path / "a" / "work"
    work.mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    monkeypatch.delenv("CHAINTAG_DATA", raising=False)
    monkeypatch.delenv("CHAINTAG_AUTO_FETCH", raising=False)
    monkeypatch.chdir(work)
    return home / "chaintag" / "data"


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    root = tmp_path / "www"
    root.mkdir()
    m = Mirror(root, monkeypatch)
    monkeypatch.setenv(fetch_mod.BASE_URL_ENV, m.url)
    yield m
    m.close()


def test_missing_dataset_is_fetched_on_first_use(fresh_machine, mirror, capsys):
    put_conll2000(mirror)
    found = resolve("conll2000:train")
    assert found.path == fresh_machine / "conll2000" / "train.txt"
    assert found.path.read_bytes() == CONLL_TRAIN
    assert (fresh_machine / "conll2000" / "test.txt").read_bytes() == CONLL_TEST
    assert "fetching it from its public source" in capsys.readouterr().err
    n = len(mirror.requests)
    resolve("conll2000:test")  # present now: nothing downloaded again
    assert len(mirror.requests) == n == 1


def test_the_main_command_works_on_a_fresh_machine(fresh_machine, mirror, capsys, tmp_path):
    put_conll2000(mirror)
    model = tmp_path / "m.npz"
    assert main(["train", "--algorithm", "perceptron", "--features", "chunking", "--train", "conll2000:train",
                 "--test", "conll2000:test", "--epochs", "2", "--model", str(model), "--quiet"]) == 0
    assert "test F1" in capsys.readouterr().out and model.exists()


def test_offline_gives_the_clear_message(fresh_machine, monkeypatch):
    with socket.socket() as s:  # a port with nothing listening: the download fails at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv(fetch_mod.BASE_URL_ENV, f"http://127.0.0.1:{port}")
    with pytest.raises(InputError) as err:
        resolve("conll2000:train")
    msg = str(err.value)
    assert "dataset file not found" in msg and "fetching it failed" in msg
    assert "chaintag data fetch conll2000" in msg and "--data-dir" in msg
    assert not (fresh_machine / "conll2000").exists()


def test_no_fetch_into_another_folder_or_when_disabled(fresh_machine, mirror, tmp_path, monkeypatch):
    put_conll2000(mirror)
    with pytest.raises(InputError, match="chaintag data fetch conll2000"):
        resolve("conll2000:train", data_dir=tmp_path / "elsewhere")
    monkeypatch.setenv("CHAINTAG_AUTO_FETCH", "0")
    with pytest.raises(InputError, match="chaintag data fetch conll2000"):
        resolve("conll2000:train")
    assert mirror.requests == []
