"""The handed cases 20, 22, 23, 24 and 26 (shared/cases/README.md): threads and processes, numbers that
overflow, strings a model file cannot hold, python-crfsuite item forms.

Each case file is used when the cases folder is available (CHAINTAG_CASES or ``<repo>/../shared/cases``);
the kinds are covered on the tests' own inputs in tests/test_faults_*.py, which always run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import chaintag
from chaintag.cli.main import main
from chaintag.errors import InputError
from cases_dir import cases_dir


CASES = cases_dir()
pytestmark = pytest.mark.skipif(CASES is None, reason="handed cases folder not available")
SRC = str(Path(chaintag.__file__).resolve().parents[1])


def run_case(name: str, *args: str, cwd: Path, env: dict | None = None, timeout: float = 300):
    """Run a case script in a fresh interpreter (the package under test first on the path)."""
    full_env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {}))
    return subprocess.run([sys.executable, str(CASES / name), *args], cwd=cwd, env=full_env, timeout=timeout,
                          capture_output=True, text=True)


def case_globals(name: str) -> dict:
    """The module-level names of a case script, without running its main part."""
    source = (CASES / name).read_text(encoding="utf-8")
    scope: dict = {"__name__": "case"}
    exec(compile(source.split("\nfor ")[0], name, "exec"), scope)
    return scope


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_20_fork_after_tag(tmp_path, method):
    r = run_case("20_fork_after_tag.py", method, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "parent: 100 sentences tagged" in r.stdout
    assert "children: [100, 100, 100, 100]" in r.stdout
    assert "fork() called from a process already using" not in r.stderr


def test_20_same_model_from_threads_under_workqueue(tmp_path):
    """The README's second half: several threads calling one model at once, on the workqueue layer."""
    script = tmp_path / "threads.py"
    body = (CASES / "20_fork_after_tag.py").read_text(encoding="utf-8").split('if __name__ == "__main__":')[0]
    script.write_text(body + "\nif __name__ == '__main__':\n"
                      "    from concurrent.futures import ThreadPoolExecutor\n"
                      "    import numba\n"
                      "    ref = m.predict(X)\n"
                      "    with ThreadPoolExecutor(8) as ex:\n"
                      "        outs = list(ex.map(lambda i: m.predict(X), range(32)))\n"
                      "    print(numba.threading_layer(), all(o == ref for o in outs))\n", encoding="utf-8")
    full_env = dict(os.environ, PYTHONPATH=SRC, NUMBA_THREADING_LAYER="workqueue")
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=full_env, timeout=300,
                       capture_output=True, text=True)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    assert r.stdout.split() == ["workqueue", "True"]


def test_22_surrogate_token(tmp_path):
    """fit refuses the token up front (sentence 0, token 0 named): never a model that trains and then cannot
    be saved; nothing is written."""
    r = run_case("22_surrogate_token.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert lines[0].startswith("fit -> InputError : training data: sentence 0, token 0, column 0: 'caf\\udce9' "
                               "holds the lone surrogate")
    assert "UnicodeEncodeError" not in r.stdout
    assert not (tmp_path / "surrogate.npz").exists()


def test_23_huge_feature_values(tmp_path):
    """Every learner of the case: values up to 1e100 train finite weights that are saved; 1e155 and more,
    and the int 10**400, are refused when read with the sentence, token and attribute named."""
    scope = case_globals("23_huge_feature_values.py")
    base, y = scope["base"], scope["y"]
    source = (CASES / "23_huge_feature_values.py").read_text(encoding="utf-8")
    algos = eval(re.search(r"for algo in (\[.*?\])", source).group(1))
    values = eval(re.search(r"for v in (\[.*?\])", source).group(1))
    assert len(algos) == 7 and 10 ** 400 in values
    for algo in algos:
        for v in values:
            X = [[dict(t) for t in s] for s in base]
            X[0][0]["count"] = v
            learner = chaintag.make_learner(algo, **({} if algo == "maxent" else {"epochs": 3}))
            if abs(v) > 1e150:
                with pytest.raises(InputError, match="sentence 0, token 0: feature 'count' has the value"):
                    learner.fit(X, y)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = learner.fit(X, y)
            m.save(tmp_path / "huge.npz")
            assert np.isfinite(chaintag.load(tmp_path / "huge.npz").weights_).all(), (algo, v)


def test_24_crfsuite_item_forms(tmp_path):
    r = run_case("24_crfsuite_item_forms.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert len(lines) == 4
    for line in lines:
        assert "ok: columns_=('<feature dict>',) predict=[['B-NP', 'B-VP'], ['B-NP', 'B-VP']]" in line, line
    forms = case_globals("24_crfsuite_item_forms.py")["forms"]
    m = chaintag.StructuredPerceptron(epochs=3).fit(forms["token = list of attribute names"], [["B-NP", "B-VP"]] * 2)
    assert sorted(m.extractor_.names) == ["bias", "w=He", "w=She", "w=runs", "w=sings"]
    nested = chaintag.StructuredPerceptron(epochs=3).fit(forms["nested dict"], [["B-NP", "B-VP"]] * 2)
    assert "nb:w[-1]=He" in nested.extractor_.names
    lists = chaintag.StructuredPerceptron(epochs=3).fit(forms["nested list"], [["B-NP", "B-VP"]] * 2)
    assert {"bigrams:BOS He", "bigrams:He runs"} <= set(lists.extractor_.names)


def test_26_labels_with_space(tmp_path, capsys):
    """fit refuses the labels with the label and sentence named; a model holding them (written by a chaintag
    that accepted them) makes ``chaintag tag`` stop with one line, exit 2, not a traceback."""
    r = run_case("26_labels_with_space.py", cwd=tmp_path)
    assert r.returncode != 0
    assert "InputError: training data: sentence 0, token 0: the label 'B-Product Name' holds a space" in r.stderr
    assert not (tmp_path / "space.npz").exists()
    X = [[("Acme",), ("Widget",), ("sold",)], [("Big",), ("Box",), ("ok",)]]
    with pytest.raises(InputError, match=r"the label 'B-X\\n' holds a line break"):
        chaintag.StructuredPerceptron(features="w[0]", columns=("word",), epochs=3).fit(
            X, [["B-X\n", "I-X\n", "O"]] * 2)
    m = chaintag.StructuredPerceptron(features="w[0]", columns=("word",), epochs=3).fit(X, [["B-A", "I-A", "O"]] * 2)
    m.labels_ = ["B-Product Name", "I-Product Name", "O"]
    m.save(tmp_path / "space.npz")
    src = tmp_path / "in.txt"
    src.write_text("Acme\nWidget\nsold\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["tag", "--model", str(tmp_path / "space.npz"), str(src)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "'B-Product Name' holds a space" in err
