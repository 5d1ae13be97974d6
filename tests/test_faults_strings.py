"""Strings a model file or a column file cannot hold: refused by fit with the sentence, token and reason,
never a model that trains and then fails to save, never a traceback from ``chaintag tag``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from chaintag.io.model_file import load_model, save_model
from chaintag.io.writable import unwritable_label, unwritable_text

X = [[("He", "PRP"), ("runs", "VBZ")], [("She", "PRP"), ("sings", "VBZ")]]
Y = [["B-NP", "B-VP"], ["B-NP", "B-VP"]]
BAD = "caf" + "\udce9"  # b"caf\xe9" decoded with errors="surrogateescape"


def learner(**kw):
    return chaintag.StructuredPerceptron(features="chunking", columns=("word", "pos"), epochs=2, **kw)


def test_lone_surrogate_in_a_column_token_is_refused_at_fit(tmp_path):
    bad = [list(s) for s in X]
    bad[1][0] = (BAD, "NN")
    with pytest.raises(InputError) as err:
        learner().fit(bad, Y)
    msg = str(err.value)
    assert "sentence 1, token 0, column 0" in msg and "surrogate" in msg and "'\\udce9'" in msg
    assert "errors='replace'" in msg
    # the same text decoded with errors="replace" trains and saves
    ok = [list(s) for s in X]
    ok[1][0] = (b"caf\xe9".decode("utf-8", "replace"), "NN")
    learner().fit(ok, Y).save(tmp_path / "m.npz")
    assert chaintag.load(tmp_path / "m.npz").predict(ok) == learner().fit(ok, Y).predict(ok)


def test_lone_surrogate_in_a_feature_dict_is_refused_at_fit():
    D = [[{"w": "He"}, {"w": "runs"}], [{"w": "She"}, {"w": BAD}]]
    with pytest.raises(InputError, match=r"sentence 1, token 1: the attribute 'w=caf\\udce9' holds the lone"):
        chaintag.StructuredPerceptron(epochs=2).fit(D, Y)
    K = [[{"w": "He"}, {"w": "runs"}], [{BAD: True}, {"w": "x"}]]
    with pytest.raises(InputError, match="sentence 1, token 0"):
        chaintag.StructuredPerceptron(epochs=2).fit(K, Y)


def test_lone_surrogate_at_predict_is_an_unseen_word():
    """Chosen behaviour: predict reads such a token as it is; it matches no attribute of the model."""
    m = learner().fit(X, Y)
    unseen = [[("zzz", "PRP"), ("runs", "VBZ")]]
    assert m.predict([[(BAD, "PRP"), ("runs", "VBZ")]]) == m.predict(unseen)
    d = chaintag.StructuredPerceptron(epochs=2).fit([[{"w": "He"}, {"w": "runs"}]], [["B-NP", "B-VP"]])
    assert d.predict([[{"w": BAD}, {"w": "runs"}]]) == d.predict([[{"w": "zzz"}, {"w": "runs"}]])


@pytest.mark.parametrize("label, kind", [("B-Product Name", "a space"), ("B-X\n", "a line break"),
                                         ("B-X\r", "a line break"), ("B\tX", "a tab"),
                                         ("B-X\u2028", "a line break"), ("", "is empty"),
                                         ("B-" + "\ud800", "lone surrogate")])
def test_labels_a_column_file_cannot_hold_are_refused_at_fit(label, kind):
    y = [["O", "O"], ["O", label]]
    with pytest.raises(InputError) as err:
        learner().fit(X, y)
    assert "sentence 1, token 1" in str(err.value) and repr(label) in str(err.value) and kind in str(err.value)


def test_labels_with_other_unicode_are_kept(tmp_path):
    """A no-break space or an ideographic space is not a column separator (column files split on ASCII
    spaces and tabs): such labels train, save, load and are written back."""
    y = [["B-Prod\u00a0Name", "O"], ["B-\u4eba\u3000X", "O"]]
    m = learner().fit(X, y)
    m.save(tmp_path / "m.npz")
    assert chaintag.load(tmp_path / "m.npz").predict(X) == y
    assert unwritable_label("B-Prod\u00a0Name") is None


def test_model_file_carries_any_python_string(tmp_path):
    """Metadata UTF-8 cannot hold is written with JSON's ASCII escapes and read back unchanged."""
    meta = {"names": [BAD, "\u00e9t\u00e9", "x\ud800y"], "plain": "caf\u00e9"}
    save_model(tmp_path / "s.npz", meta, {"w": np.arange(3.0)})
    back, arrays = load_model(tmp_path / "s.npz")
    assert back["names"] == meta["names"] and back["plain"] == meta["plain"]
    assert arrays["w"].tolist() == [0.0, 1.0, 2.0]
    # ordinary metadata keeps its UTF-8 form (non-ASCII characters are not escaped)
    save_model(tmp_path / "u.npz", {"plain": "caf\u00e9"}, {"w": np.zeros(1)})
    assert "caf\u00e9".encode("utf-8") in (tmp_path / "u.npz").read_bytes()


def test_unwritable_text_names_the_position():
    assert unwritable_text("abc") is None
    assert "position 3" in unwritable_text(BAD)


def _model_with_labels(tmp_path, labels):
    """A model file holding labels that fit now refuses (as a chaintag that accepted them wrote it)."""
    X1 = [[("Acme",), ("Widget",), ("sold",)], [("Big",), ("Box",), ("ok",)]]
    m = chaintag.StructuredPerceptron(features="w[0]", columns=("word",), epochs=3)
    m.fit(X1, [["B-A", "I-A", "O"]] * 2)
    m.labels_ = [labels.get(lab, lab) for lab in m.labels_]
    path = tmp_path / "old.npz"
    m.save(path)
    return path


@pytest.mark.parametrize("bad", ["Product Name", "X\n"])
def test_tag_refuses_a_model_whose_labels_a_column_file_cannot_hold(tmp_path, capsys, bad):
    path = _model_with_labels(tmp_path, {"B-A": f"B-{bad}", "I-A": f"I-{bad}"})
    src = tmp_path / "in.txt"
    src.write_text("Acme\nWidget\nsold\n", encoding="utf-8")
    assert main(["tag", "-m", str(path), str(src), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and repr(f"B-{bad}") in err and "--nbest" in err
    # JSON lines hold any label
    assert main(["tag", "-m", str(path), str(src), "--nbest", "1", "--quiet"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["nbest"][0]["labels"] == [f"B-{bad}", f"I-{bad}", "O"]


def test_train_refuses_a_label_with_a_line_separator(tmp_path, capsys):
    """From the command line: a column file whose label holds U+2028 (a line break for str.splitlines)."""
    src = tmp_path / "t.txt"
    src.write_text("He PRP B-X\u2028\nruns VBZ O\n\nShe PRP B-X\nsings VBZ O\n", encoding="utf-8")
    model = tmp_path / "m.npz"
    assert main(["train", "--train", str(src), "--model", str(model), "--epochs", "2", "--quiet"]) == 2
    assert "'B-X\\u2028' holds a line break" in capsys.readouterr().err
    assert not model.exists()
