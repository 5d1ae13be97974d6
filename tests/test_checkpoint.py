"""Checkpoints: an interrupted run resumed gives the same weights as an uninterrupted one."""

import numpy as np
import pytest

import chaintag
from chaintag.errors import InputError

from toy_corpus import LABELS, SENTS  # noqa: E402
BASE = dict(features=["w[0]", "w[-1]", "pos[0]", "pos[-1]|pos[0]"], columns=("word", "pos"), progress=False)
CASES = {
    "perceptron": dict(shuffle=True),
    "sapo": dict(structure_reg=1.5, averaged=True),
    "sapo2": dict(averaged=True, pair_features=True),
    "perceptron2": dict(averaged=True, shuffle=True),
    "crf": dict(learning_rate=0.3),
    "nbest-mira": dict(shuffle=True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_resume_equals_uninterrupted(name, tmp_path):
    params = {**BASE, **CASES[name]}
    full = chaintag.make_learner(name, epochs=5, **params).fit(SENTS, LABELS, dev=(SENTS, LABELS))
    # "interrupted" after 2 epochs, then resumed to 5
    chaintag.make_learner(name, epochs=2, **params).fit(SENTS, LABELS, dev=(SENTS, LABELS),
                                                        checkpoint_dir=tmp_path)
    resumed = chaintag.make_learner(name, epochs=5, **params).fit(
        SENTS, LABELS, dev=(SENTS, LABELS), checkpoint_dir=tmp_path, resume=True)
    np.testing.assert_array_equal(resumed.weights_, full.weights_)
    assert resumed.best_epoch_ == full.best_epoch_
    assert [h["epoch"] for h in resumed.history_] == [1, 2, 3, 4, 5]


def test_checkpoint_of_other_settings_is_refused(tmp_path):
    chaintag.StructuredPerceptron(epochs=1, **BASE).fit(SENTS, LABELS, checkpoint_dir=tmp_path)
    other = chaintag.StructuredPerceptron(epochs=2, cc=2, **BASE)
    with pytest.raises(InputError, match="other (training data or )?settings"):
        other.fit(SENTS, LABELS, checkpoint_dir=tmp_path, resume=True)


def test_cli_resume(tmp_path, capsys):
    from chaintag.cli.main import main
    train = tmp_path / "train.txt"
    train.write_text("\n\n".join("\n".join(f"{w} {p} {lab}" for (w, p), lab in zip(s, ls))
                                 for s, ls in zip(SENTS, LABELS)) + "\n")
    common = ["train", "--train", str(train), "--features", "w[0];pos[0]", "--quiet",
              "--checkpoint-dir", str(tmp_path / "ck"), "--shuffle"]
    assert main(common + ["--epochs", "2", "--model", str(tmp_path / "a.npz")]) == 0
    assert main(common + ["--epochs", "4", "--resume", "--model", str(tmp_path / "b.npz")]) == 0
    assert main(["train", "--train", str(train), "--features", "w[0];pos[0]", "--quiet", "--shuffle",
                 "--epochs", "4", "--model", str(tmp_path / "c.npz")]) == 0
    assert (tmp_path / "b.npz").read_bytes() == (tmp_path / "c.npz").read_bytes()


def test_resume_refuses_changed_dev_and_fewer_epochs(tmp_path):
    m = chaintag.StructuredPerceptron(epochs=3, **BASE)
    m.fit(SENTS, LABELS, dev=(SENTS[:2], LABELS[:2]), checkpoint_dir=tmp_path)
    with pytest.raises(InputError, match="other (training data or )?settings"):
        chaintag.StructuredPerceptron(epochs=5, **BASE).fit(SENTS, LABELS, checkpoint_dir=tmp_path, resume=True)
    with pytest.raises(InputError, match="already holds 3 epochs"):
        chaintag.StructuredPerceptron(epochs=2, **BASE).fit(SENTS, LABELS, dev=(SENTS[:2], LABELS[:2]),
                                                            checkpoint_dir=tmp_path, resume=True)
