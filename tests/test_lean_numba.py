"""The command line starts numba without scipy.linalg, and SciPy stays importable afterwards."""

import subprocess
import sys

CHECK = r"""
import sys
from chaintag.cli.lean_numba import numba_without_scipy
assert numba_without_scipy() is True
assert numba_without_scipy() is False  # once per process
import numpy as np
from chaintag import StructuredPerceptron
m = StructuredPerceptron(features=["w[0]"], epochs=2, progress=False).fit([["a", "b"]], [["X", "Y"]])
assert m.predict([["a", "b"]]) == [["X", "Y"]]
assert "scipy.linalg" not in sys.modules
import scipy.linalg  # importable again
assert abs(scipy.linalg.det(np.eye(2)) - 1.0) < 1e-12
print("ok")
"""

TAG = r"""
import sys, os
from chaintag.cli.main import main
d = sys.argv[1]
numpy_before = "numpy" in sys.modules  # False: OPENBLAS_NUM_THREADS is read when NumPy is imported, later
code = main(["tag", "--model", os.path.join(d, "m.npz"), os.path.join(d, "in.txt"), "--output",
             os.path.join(d, "out.txt")])
print(code, "scipy.linalg" in sys.modules, os.environ.get("OMP_WAIT_POLICY"), os.environ.get("OPENBLAS_NUM_THREADS"),
      numpy_before)
"""


def test_numba_without_scipy_then_scipy_again():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_tag_command_needs_no_scipy_linalg(tmp_path):
    from chaintag import StructuredPerceptron
    StructuredPerceptron(features=["w[0]"], epochs=2, progress=False).fit([["a", "b"]], [["X", "Y"]]).save(
        tmp_path / "m.npz")
    (tmp_path / "in.txt").write_text("a\nb\n")
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", TAG, str(tmp_path)], capture_output=True, text=True, timeout=600,
                         env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "False", "PASSIVE", "1", "False"]
    assert (tmp_path / "out.txt").read_text().split() == ["a", "X", "b", "Y"]


YAML = r"""
import sys
from chaintag.cli.lean_numba import numba_without_scipy
numba_without_scipy()
import numba.core.config as c
print("yaml" in sys.modules, c._HAVE_YAML)
import yaml  # importable again
"""


def test_numba_reads_its_yaml_config_only_when_there_is_one(tmp_path):
    import pytest
    pytest.importorskip("yaml")
    out = subprocess.run([sys.executable, "-c", YAML], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]
    (tmp_path / ".numba_config.yaml").write_text("DEBUG: 0\n")
    out = subprocess.run([sys.executable, "-c", YAML], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"]
