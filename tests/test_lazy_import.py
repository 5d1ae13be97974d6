"""The package imports its learners on first use: every public name still resolves, a fresh
process that loads one model imports that learner's module only, and models of every
first-order learner load in a fresh process."""

import json
import subprocess
import sys

import pytest

import chaintag
import chaintag.learners

LEARNER_MODULES = ["chaintag.learners.perceptron", "chaintag.learners.sapo", "chaintag.learners.crf",
                   "chaintag.learners.mira", "chaintag.learners.second_order", "chaintag.learners.maxent",
                   "chaintag.learners.neural"]


def _fresh(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; it prints one JSON line, returned parsed."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_public_name_resolves_to_its_object():
    from chaintag.api.corpus import load_corpus
    from chaintag.learners.sapo import SAPO
    for name in chaintag.__all__:
        assert getattr(chaintag, name) is not None, name
    assert chaintag.SAPO is SAPO and chaintag.learners.SAPO is SAPO
    assert chaintag.load_corpus is load_corpus
    assert set(chaintag.__all__) <= set(dir(chaintag))
    assert chaintag.learners.LEARNERS["sapo"] is SAPO and len(chaintag.learners.LEARNERS) == 12
    assert chaintag.learners.perceptron.StructuredPerceptron is chaintag.StructuredPerceptron
    with pytest.raises(AttributeError):
        chaintag.no_such_name  # noqa: B018
    with pytest.raises(AttributeError):
        chaintag.learners.NoSuchLearner  # noqa: B018


def test_import_chaintag_imports_no_learner():
    got = _fresh("import json, sys, chaintag, chaintag.cli.main\n"
                 f"print(json.dumps([m for m in {LEARNER_MODULES!r} if m in sys.modules]))")
    assert got == []


@pytest.mark.parametrize("name", ["perceptron", "sapo", "crf", "mira", "perceptron2", "maxent"])
def test_a_model_loads_in_a_fresh_process_importing_its_learner_only(name, tmp_path):
    sents = [[("the", "D"), ("dog", "N")], [("a", "D"), ("cat", "N")]]
    labels = [["D", "N"], ["D", "N"]]
    model = chaintag.make_learner(name, strict=False, features=["w[0]"], columns=("word", "pos"), epochs=2,
                                  progress=False).fit(sents, labels)
    path = tmp_path / "m.npz"
    model.save(path)
    got = _fresh("import json, sys\nfrom chaintag.learners import load\n"
                 f"m = load({str(path)!r})\n"
                 "print(json.dumps([type(m).__module__, m.predict([[('the', 'D'), ('cat', 'N')]]), "
                 f"[x for x in {LEARNER_MODULES!r} if x in sys.modules]]))")
    module, pred, imported = got
    assert module == type(model).__module__
    assert pred == model.predict([[("the", "D"), ("cat", "N")]])
    assert imported == [module]
