"""Faults found by a user of n-best lists, marginals, constraints and fixed labels, each as a kind."""

import pytest

import chaintag
from chaintag.cli.main import main

from toy_corpus import LABELS, SENTS


@pytest.mark.parametrize("batch_size", ["2000", "10"])
def test_a_sentence_no_sequence_fits_is_named_by_file_and_line(tmp_path, capsys, batch_size):
    """`tag --partial --constrain` named an impossible sentence by its index in its batch (sentence 5 of
    the third batch of 10 for the 26th sentence), whatever the batch size; now by the file and line."""
    model = tmp_path / "crf.npz"
    chaintag.CRF(epochs=2, features="w[0];pos[0]").fit(SENTS, LABELS).save(model)
    blocks = []
    for s in range(40):  # sentence 25 (0-based) starts with I-NP fixed: IOB2 forbids it
        blocks.append("\n".join(f"{w} {p} {'I-NP' if (s, i) == (25, 0) else '_'}"
                                for i, (w, p) in enumerate([("the", "DT"), ("dog", "NN"), ("barks", "VBZ")])))
    path = tmp_path / "part.txt"
    path.write_text("\n\n".join(blocks) + "\n")
    assert main(["tag", "-m", str(model), "--partial", "--constrain", "--batch-size", batch_size, str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{25 * 4 + 1}: --partial: no label sequence satisfies the fixed labels and the label " \
           "scheme's rules" in err
