"""The boundary between the library and the research package (``chaintag_research``).

The library never imports the research code; the commands that run it (``reproduce``, ``compare``,
``tune``, ``plot``) import it inside the command through one helper (``chaintag.cli.research``), and
without it they exit 2 with one line saying how to install it. The core install (no research
package, no scikit-learn, SciPy or matplotlib) trains and tags.
"""

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import chaintag

SRC = Path(chaintag.__file__).resolve().parent
RESEARCH = ("chaintag_research", "chaintag.experiments")
MODULE_NAME = re.compile(r"^chaintag_research(\.\w+)*$")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool):
    """``(target, line)`` of every import in ``tree`` (inside functions too), relative ones resolved."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield target, node.lineno
            for alias in node.names:  # from chaintag import experiments
                yield f"{target}.{alias.name}", node.lineno


def _sources():
    for path in sorted(SRC.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_no_module_of_the_library_imports_the_research_package():
    wrong = []
    for path, tree in _sources():
        module = _module_name(path)
        for target, line in _imported(tree, module, path.name == "__init__.py"):
            if target in RESEARCH or target.startswith(tuple(f"{r}." for r in RESEARCH)):
                wrong.append(f"{module}:{line} imports {target}")
    assert wrong == []
    assert not (SRC / "experiments").exists()  # no shim left in the package


def test_only_the_cli_helper_names_the_research_package_as_a_module():
    # the one dynamic import of the research package: a string that is a module name of it
    named = sorted({_module_name(path) for path, tree in _sources() for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and MODULE_NAME.match(node.value)})
    assert named == ["chaintag.cli.research"]


def test_the_checker_resolves_relative_imports():
    tree = ast.parse("from ..experiments import sapo\nfrom . import x\nimport chaintag_research.runner\n"
                     "def f():\n    from chaintag import experiments\n")
    found = {t for t, _ in _imported(tree, "chaintag.cli.compare_cmd", False)}
    assert {"chaintag.experiments", "chaintag.experiments.sapo", "chaintag.cli.x",
            "chaintag_research.runner"} <= found


#: Run in a fresh interpreter with the research package (and, with BLOCK_HEAVY, scikit-learn, SciPy and
#: matplotlib) unimportable; prints one JSON line of results.
CHILD = r"""
import contextlib, io, json, os, sys
for name in ["chaintag_research"] + (["sklearn", "scipy", "matplotlib"] if os.environ.get("BLOCK_HEAVY") else []):
    sys.modules[name] = None
out = {}
import chaintag
model = chaintag.make_learner("perceptron", features="pos", epochs=3)
model.fit([["the", "dog", "runs"], ["a", "cat", "sleeps"]], [["D", "N", "V"], ["D", "N", "V"]])
out["tagged"] = model.predict([["the", "cat", "runs"]])
from chaintag.cli.main import main
tmp = sys.argv[1]
data = os.path.join(tmp, "train.txt")
with open(data, "w") as f:
    f.write("the D\ndog N\nruns V\n\na D\ncat N\nsleeps V\n\n")
history = os.path.join(tmp, "h.jsonl")
with open(history, "w") as f:
    f.write('{"epoch": 1, "errors": 3}\n')
commands = {
    "compare": ["compare", "-a", "perceptron", "--train", data, "--test", data, "--out", os.path.join(tmp, "c")],
    "tune": ["tune", "-a", "perceptron", "--train", data, "--features", "pos", "--out", os.path.join(tmp, "t")],
    "plot": ["plot", history, "--output", os.path.join(tmp, "p.png")],
    "reproduce": ["reproduce", "sapo", "--quick", "--out", os.path.join(tmp, "r")],
    "train": ["train", "--train", data, "--model", os.path.join(tmp, "m.npz"), "--epochs", "2", "--quiet"],
}
for name, argv in commands.items():
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    out[name] = [code, err.getvalue().strip().splitlines()]
out["made"] = sorted(n for n in os.listdir(tmp) if n not in ("train.txt", "h.jsonl"))
out["heavy_loaded"] = sorted(m for m in ("sklearn", "scipy", "matplotlib") if sys.modules.get(m) is not None)
print(json.dumps(out))
"""


def _child(tmp_path, block_heavy):
    env = {k: v for k, v in os.environ.items() if k != "BLOCK_HEAVY"}
    if block_heavy:
        env["BLOCK_HEAVY"] = "1"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_without_the_research_package_its_commands_exit_2_with_the_install_line(tmp_path):
    out = _child(tmp_path, block_heavy=False)
    from chaintag.cli.research import INSTALL_HINT
    for command in ("compare", "tune", "plot", "reproduce"):
        code, err = out[command]
        assert code == 2, (command, err)
        assert err == [f"chaintag {command}: error: this command needs the research package chaintag-research, "
                       f"which is not installed: {INSTALL_HINT}"]
    assert "pip install -e ./research" in INSTALL_HINT
    assert out["tagged"] == [["D", "N", "V"]]
    assert out["train"][0] == 0
    assert out["made"] == ["m.npz"]  # the refused commands wrote nothing


def test_the_core_install_trains_and_tags_without_sklearn_scipy_or_matplotlib(tmp_path):
    out = _child(tmp_path, block_heavy=True)
    assert out["tagged"] == [["D", "N", "V"]]
    assert out["train"] == [0, []]
    assert out["heavy_loaded"] == []
    assert out["compare"][0] == 2
