"""Issue 30 item 6: each default has one owner that every other place imports.

The source is parsed, never imported: a ``Literal`` that has a name is never written out again,
a registered environment id is spelled only in ``envs/__init__.py``, and no ``n_prompts`` takes a
number of its own; each suite's ``PresetName`` lists exactly its ``PRESETS``.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

from rewardgym.envs import rewardgym_ids
from rewardgym.wrappers.coren.config import N_PROMPTS, CorenConfig

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] not in {"tests", "build", ".venv"}:
            yield rel, ast.parse(path.read_text(encoding="utf-8"))


def _literal_values(node: ast.AST) -> frozenset[object] | None:
    """The values of ``Literal[...]`` at ``node``, or None when ``node`` is not one."""
    if not isinstance(node, ast.Subscript):
        return None
    name = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
    if name != "Literal":
        return None
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return frozenset(p.value for p in parts if isinstance(p, ast.Constant))


def test_a_named_literal_is_never_written_out_again() -> None:
    named: dict[frozenset[object], str] = {}
    uses: list[tuple[frozenset[object], str]] = []
    for rel, tree in _modules():
        aliases = {
            id(node.value): node.targets[0].id
            for node in tree.body
            if isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and _literal_values(node.value) is not None
        }
        for node in ast.walk(tree):
            values = _literal_values(node)
            if values is None:
                continue
            if id(node) in aliases:
                named[values] = f"{aliases[id(node)]} ({rel}:{node.lineno})"
            else:
                uses.append((values, f"{rel}:{node.lineno}"))
    found = " ".join(named.values())
    assert all(name in found for name in ("CertaintyKind", "PresetName", "AdvantageMode"))
    copies = [f"{where} repeats {named[v]}" for v, where in uses if v in named]
    assert copies == []


def test_a_registered_id_is_spelled_only_where_it_is_registered() -> None:
    ids = set(rewardgym_ids())
    spelled = [
        f"{rel}:{node.lineno}: {node.value}"
        for rel, tree in _modules()
        if rel != Path("envs/__init__.py")
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in ids
    ]
    assert spelled == []


def test_n_prompts_has_one_default() -> None:
    """Every ``n_prompts`` default in the package is :data:`N_PROMPTS`, never a number."""
    numbers = []
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "n_prompts":
                defaults = [(node.target, node.value)]
            elif isinstance(node, ast.FunctionDef):
                args = node.args.args + node.args.kwonlyargs
                values = [None] * (len(node.args.args) - len(node.args.defaults))
                values += node.args.defaults + node.args.kw_defaults
                defaults = list(zip(args, values, strict=True))
            else:
                continue
            for target, value in defaults:
                name = getattr(target, "id", getattr(target, "arg", ""))
                if name == "n_prompts" and isinstance(value, ast.Constant):
                    numbers.append(f"{rel}:{value.lineno}: n_prompts = {value.value!r}")
    assert numbers == []
    assert CorenConfig().n_prompts == N_PROMPTS == 5  # COREN's N (arXiv 2411.17135)


@pytest.mark.parametrize("suite", ["shop", "fidelity", "embodied"])
def test_preset_names_are_the_presets(suite: str) -> None:
    config = importlib.import_module(f"rewardgym.benchmarks.{suite}.config")
    assert get_args(config.PresetName) == tuple(config.PRESETS)
