"""Figures of the package's shape: lines, largest files and functions, import cycles.

Usage::

    python tools/code_shape.py [--src src/chaintag] [--top 10]

Prints the package's line count, its largest files, every function longer
than 80 lines that is not a compiled kernel (decorated with ``njit`` or
``jit``), the strongly connected components of the import graph between
the package's modules (imports inside functions included), and the share
of internal imports made inside functions.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path


def module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(tree: ast.Module, mod: str, is_pkg: bool, known: set[str]):
    """Yield (target module, inside a function) for each internal import."""
    package = mod if is_pkg else mod.rpartition(".")[0]

    def visit(node, in_func):
        for child in ast.iter_child_nodes(node):
            f = in_func or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.Import):
                for a in child.names:
                    yield a.name, f
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                yield target, f
                for a in child.names:
                    yield f"{target}.{a.name}", f
            yield from visit(child, f)

    for target, f in visit(tree, False):
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != mod:
            yield target, f


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in list(graph):
        if v not in index:
            connect(v)
    return out


def is_kernel(fn: ast.AST) -> bool:
    for d in getattr(fn, "decorator_list", []):
        name = ast.unparse(d)
        if "njit" in name or "jit" in name or "vectorize" in name:
            return True
    return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default="src/chaintag")
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args(argv)
    root = Path(args.src)
    files = sorted(root.rglob("*.py"))
    mods = {module_name(root, p): p for p in files}
    known = set(mods)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    total_lines = 0
    sizes, long_funcs = [], []
    n_internal = n_deferred = 0
    for mod, path in mods.items():
        text = path.read_text(encoding="utf-8")
        n = text.count("\n")
        total_lines += n
        sizes.append((n, str(path)))
        tree = ast.parse(text)
        for target, deferred in imports_of(tree, mod, path.name == "__init__.py", known):
            if target.startswith(mod + "."):
                continue
            graph[mod].add(target)
            n_internal += 1
            n_deferred += deferred
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not is_kernel(node):
                length = node.end_lineno - node.lineno + 1
                if length > 80:
                    long_funcs.append((length, f"{path}:{node.lineno} {node.name}"))
    print(f"package lines: {total_lines:,} in {len(files)} files")
    print("largest files:")
    for n, p in sorted(sizes, reverse=True)[: args.top]:
        print(f"  {n:6d}  {p}")
    print(f"non-kernel functions over 80 lines: {len(long_funcs)}")
    for n, p in sorted(long_funcs, reverse=True):
        print(f"  {n:6d}  {p}")
    # package __init__ modules re-export their children: leave the parent -> child edges out
    cycles = strongly_connected(graph)
    print(f"import cycles (strongly connected groups of modules): {len(cycles)}")
    for c in cycles:
        print("  " + " <-> ".join(c))
    share = n_deferred / max(n_internal, 1)
    print(f"internal imports inside functions: {n_deferred} of {n_internal} ({share:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
