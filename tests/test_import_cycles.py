"""No import cycle inside the package: the modules import one another as a directed acyclic graph.

Every ``.py`` file of the package is parsed (never imported) and each import of another package
module becomes an edge: ``from a.b import c`` points at the module ``a.b.c`` when there is
one, else at ``a.b`` (whose ``__init__`` defines ``c``); relative imports are resolved.

What counts:

- Imports that run when the module loads (at module level, in a class body, in a ``try``)
  count, and any cycle among them fails.
- Imports inside a function count too: a lazy import that closes a loop still makes two
  modules need each other, and only hides the loop from the import system. A cycle that
  needs one fails unless ``LAZY_CYCLES`` lists it with the reason it stays.
- Imports under ``if TYPE_CHECKING:`` do not count: they never run, and an annotation that
  names a class is not a dependency of the code.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "rewardgym"
ROOT = Path(__file__).resolve().parents[1]
SKIPPED = frozenset({"tests", "build", "docs"})
"""Folders under the root that are not package code (nor are hidden ones, such as ``.venv``)."""
LAZY_CYCLES: dict[frozenset[str], str] = {
    frozenset({"rewardgym.agents.offline.iql", "rewardgym.agents.offline.iql_settings"}): (
        "IQLSettings (light, parsed from the command line before torch loads) builds the "
        "d3rlpy DiscreteIQLConfig on demand, and that config takes its defaults from "
        "IQLSettings, so the hyper-parameters are declared once"
    ),
    frozenset({"rewardgym.benchmarks.embodied.stats", "rewardgym.benchmarks.embodied.paired"}): (
        "the reprint command is `python -m rewardgym.benchmarks.embodied.stats PAGE_FOLDER` "
        "(issue 47), and it renders through paired's tables, which are built on stats' draws; "
        "stats imports paired only when the command runs"
    ),
}
"""Cycles that need a function-level import, allowed with the reason they stay."""


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at ``path`` (``root/envs/a/b.py``: ``rewardgym.envs.a.b``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def package_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name."""
    files = (
        p
        for p in root.rglob("*.py")
        if not any(part in SKIPPED or part.startswith(".") for part in p.relative_to(root).parts)
    )
    return {module_name(path, root): path for path in sorted(files)}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, module: str, modules: set[str]) -> list[tuple[int, str, bool]]:
    """``(line, package module, lazy)`` for each import in ``path`` of another package module.

    ``lazy`` marks an import inside a function; imports under ``TYPE_CHECKING`` are left out.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str, bool]] = []

    def target(name: str) -> str | None:
        parts = name.split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()
        return ".".join(parts) or None

    def visit(node: ast.AST, lazy: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.orelse:
                    visit_one(stmt, lazy)
            else:
                visit_one(child, lazy)

    def visit_one(node: ast.AST, lazy: bool) -> None:
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            hit = target(name)
            if hit is not None and hit != module:
                found.append((getattr(node, "lineno", 0), hit, lazy))
        inner = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        visit(node, lazy or inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), lazy=False)
    return found


def import_graph(modules: dict[str, Path], *, lazy: bool) -> dict[str, dict[str, tuple[int, bool]]]:
    """``graph[a][b] = (line, lazy)``: module ``a`` imports ``b`` (function-level ones if ``lazy``)."""
    names = set(modules)
    graph: dict[str, dict[str, tuple[int, bool]]] = {name: {} for name in modules}
    for name, path in modules.items():
        for line, hit, is_lazy in imports(path, name, names):
            if is_lazy and not lazy:
                continue
            if hit not in graph[name] or (graph[name][hit][1] and not is_lazy):
                graph[name][hit] = (line, is_lazy)
    return graph


def cycles(graph: dict[str, dict[str, tuple[int, bool]]]) -> list[frozenset[str]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def describe(component: frozenset[str], graph: dict[str, dict[str, tuple[int, bool]]]) -> str:
    """Each edge inside ``component``: ``a -> b (line N[, in a function])``."""
    edges = [
        f"  {a} -> {b} (line {line}{', in a function' if lazy else ''})"
        for a in sorted(component)
        for b, (line, lazy) in sorted(graph[a].items())
        if b in component
    ]
    return "\n".join(edges)


def test_no_cycle_among_module_level_imports() -> None:
    modules = package_modules()
    assert len(modules) > 150, f"found only {len(modules)} modules under {ROOT}: wrong root?"
    graph = import_graph(modules, lazy=False)
    found = cycles(graph)
    assert not found, "import cycles (move the shared piece to the module it belongs to):\n" + (
        "\n".join(describe(c, graph) for c in found)
    )


def test_no_cycle_through_function_level_imports_but_the_listed_ones() -> None:
    graph = import_graph(package_modules(), lazy=True)
    found = [c for c in cycles(graph) if c not in LAZY_CYCLES]
    assert not found, "import cycles through lazy imports (break them, or list one in "
    "LAZY_CYCLES with why it stays):\n" + "\n".join(describe(c, graph) for c in found)
    stale = [sorted(c) for c in LAZY_CYCLES if c not in cycles(graph)]
    assert not stale, f"LAZY_CYCLES lists cycles that are gone: {stale}"


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, source in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return package_modules(tmp_path)


@pytest.mark.parametrize(
    ("files", "eager", "lazy"),
    [
        ({"a.py": "from rewardgym import b\n", "b.py": "from rewardgym.a import x\n"}, 1, 1),
        ({"a.py": "from . import b\n", "b.py": "def f():\n    from .a import x\n"}, 0, 1),
        (
            {
                "a.py": "from rewardgym.b import y\n",
                "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from rewardgym.a import x\n",
            },
            0,
            0,
        ),
        (
            {
                "p/__init__.py": "from rewardgym.p.a import x\n",
                "p/a.py": "from rewardgym.p.b import y\n",
                "p/b.py": "from rewardgym.p import z\n",
            },
            1,
            1,
        ),
        (
            {"p/__init__.py": "from .a import x\n", "p/a.py": "from .b import y\n", "p/b.py": ""},
            0,
            0,
        ),
        (
            {
                "a.py": "import rewardgym.b.c\n",
                "b/__init__.py": "",
                "b/c.py": "import rewardgym.a\n",
            },
            1,
            1,
        ),
        (
            {
                "a.py": "try:\n    from rewardgym import b\nexcept ImportError:\n    pass\n",
                "b.py": "class C:\n    from rewardgym.a import x\n",
            },
            1,
            1,
        ),
    ],
)
def test_the_checker_finds_cycles(
    tmp_path: Path, files: dict[str, str], eager: int, lazy: int
) -> None:
    modules = _package(tmp_path, files)
    assert len(cycles(import_graph(modules, lazy=False))) == eager
    assert len(cycles(import_graph(modules, lazy=True))) == lazy
