"""Model files written before the library's redesign load and tag to the same bytes.

The files in ``tests/data/legacy_v2`` were written by chaintag 0.1.0 (commit 99a4e8d):
an averaged perceptron with the ``chunking`` attributes and a SAPO model with the
``ner+gaz`` gazetteer, with their tagged outputs (see the folder's README).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chaintag.cli.main import main

LEGACY = Path(__file__).parent / "data" / "legacy_v2"
CASES = [
    ("chunk_perceptron.npz", "chunk_test.txt", [], "chunk_test.expected"),
    ("chunk_perceptron.npz", "chunk_test.txt", ["--nbest", "2"], "chunk_test.nbest2.expected"),
    ("ner_gaz_sapo.npz", "ner_test.txt", [], "ner_test.expected"),
    ("ner_gaz_sapo.npz", "ner_test.txt", ["--nbest", "3"], "ner_test.nbest3.expected"),
]


@pytest.mark.parametrize("model, text, extra, expected", CASES)
def test_legacy_model_tags_to_the_same_bytes(tmp_path, model, text, extra, expected):
    out = tmp_path / "out.txt"
    rc = main(["tag", "--model", str(LEGACY / model), str(LEGACY / text), "-q", "--output", str(out), *extra])
    assert rc in (0, None)
    got, want = out.read_bytes(), (LEGACY / expected).read_bytes()
    if "--nbest" not in extra:
        assert got == want
        return
    # n-best lines: the labels exactly; scores and probabilities to 1e-12 relative (the last bit
    # of a float64 sum may differ between compiler versions, not the model it reads)
    got_lines, want_lines = got.decode().splitlines(), want.decode().splitlines()
    assert len(got_lines) == len(want_lines)
    for g, w in zip(got_lines, want_lines):
        g, w = json.loads(g), json.loads(w)
        assert g["tokens"] == w["tokens"]
        assert [c["labels"] for c in g["nbest"]] == [c["labels"] for c in w["nbest"]]
        for gc, wc in zip(g["nbest"], w["nbest"]):
            assert gc["score"] == pytest.approx(wc["score"], rel=1e-12, abs=1e-12)
            assert gc["probability"] == pytest.approx(wc["probability"], rel=1e-12, abs=1e-15)


def test_legacy_model_loads_in_python():
    import chaintag

    m = chaintag.load(LEGACY / "chunk_perceptron.npz")
    sents = [[("the", "DT"), ("old", "JJ"), ("dog", "NN"), ("runs", "VBZ"), (".", ".")]]
    assert m.predict(sents) == [["B-NP", "I-NP", "I-NP", "B-VP", "O"]]
