"""The package's import rule, read from the source (imports inside functions included).

Imports point down the layers below; a module may import its own package and
any package of a lower layer, never a higher one. There are no import cycles
between modules, nothing outside ``chaintag.cli`` imports ``chaintag.cli``,
and nothing in the package imports the research package (``chaintag_research``).
The layers are also written in the README's layout section.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "chaintag"
sys.path.insert(0, str(SRC.parent.parent / "tools"))
from code_shape import strongly_connected  # noqa: E402 - the tool that reports the same figure

#: top layer first; the name is the package (or module) right under ``chaintag``; "" is ``chaintag`` itself
LAYERS: list[tuple[str, ...]] = [
    ("cli",),
    ("service",),
    ("", "api"),
    ("distributed",),
    ("streaming",),
    ("training",),
    ("learners",),
    ("features", "decoding"),
    ("resources",),
    ("data",),
    ("io", "evaluation", "text", "recipes", "models", "progress", "parallel", "lazy", "errors", "_version", "_jit"),
]
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _imports(path: Path, module: str) -> list[tuple[str, int]]:
    """Every absolute module name ``module`` imports (relative imports resolved), with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((target, node.lineno))
            out += [(f"{target}.{a.name}", node.lineno) for a in node.names]
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        for target, _ in _imports(p, m):
            while target and target not in mods:
                target = target.rpartition(".")[0]
            if target and target != m and not target.startswith(m + "."):
                graph[m].add(target)
    return graph


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), as ``tools/code_shape.py`` counts them."""
    return sorted(strongly_connected(graph))


def test_every_package_has_a_layer():
    tops = {_top(m) for m in _modules()}
    assert tops - set(RANK) == set(), "give the new package a layer in LAYERS and in the README"


def test_imports_point_down():
    graph = _graph()
    wrong = []
    for m, targets in graph.items():
        for t in targets:
            a, b = _top(m), _top(t)
            if a != b and RANK[b] < RANK[a] and m != "chaintag":
                wrong.append(f"{m} -> {t}")
    assert wrong == []


def test_the_root_package_imports_only_the_bottom_layer_at_import_time():
    # chaintag/__init__ names the public objects lazily (by module path strings), so that
    # `import chaintag` stays cheap; its real imports are the bottom layer only
    targets = {t for t, _ in _imports(SRC / "__init__.py", "chaintag")}
    tops = {_top(t) for t in targets if t.startswith("chaintag.")}
    assert all(RANK[t] == len(LAYERS) - 1 for t in tops), tops


def test_no_import_cycles():
    assert _cycles(_graph()) == []


def test_nothing_outside_the_cli_imports_the_cli():
    wrong = [f"{m} -> {t}" for m, ts in _graph().items() for t in ts
             if _top(t) == "cli" and _top(m) != "cli"]
    assert wrong == []


def test_nothing_in_the_package_imports_research_code():
    wrong = []
    for m, p in _modules().items():
        for target, line in _imports(p, m):
            if target.split(".")[0] == "chaintag_research" or target.startswith("chaintag.experiments"):
                wrong.append(f"{p.name}:{line} imports {target}")
    assert wrong == []


def test_the_checker_sees_a_cycle_and_an_upward_import():
    # the oracle on a hand-made graph: a -> b -> c -> a is one group; d alone is none
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _top("chaintag.learners.base") == "learners" and _top("chaintag") == ""
    assert RANK["learners"] < RANK["features"] < RANK["io"]


@pytest.mark.parametrize("module, expected", [
    ("chaintag.cli.train_cmd", "chaintag.cli.distributed_opts"),
    ("chaintag.learners.base", "chaintag.learners.inference"),
])
def test_the_graph_holds_known_edges(module, expected):
    assert expected in _graph()[module]
