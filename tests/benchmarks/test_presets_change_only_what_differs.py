"""A suite's preset names only the values it changes: no keyword restates its config's default."""

from __future__ import annotations

import ast
import dataclasses
import importlib
from typing import Any

import pytest

SUITE_CONFIGS = (
    "rewardgym.benchmarks.shop.config",
    "rewardgym.benchmarks.fidelity.config",
    "rewardgym.benchmarks.embodied.config",
)
"""The preset modules checked."""


def _defaults(cls: type) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def restated_defaults(module_name: str) -> list[str]:
    """``file:line: Class(field=value)`` for every literal keyword equal to the class default."""
    module = importlib.import_module(module_name)
    path = module.__file__
    assert path is not None
    found = []
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        cls = getattr(module, node.func.id, None)
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            continue
        defaults = _defaults(cls)
        for keyword in node.keywords:
            try:
                value = ast.literal_eval(keyword.value)
            except ValueError:
                continue
            restated = keyword.arg in defaults and defaults[keyword.arg] == value
            if restated and keyword.arg != "name":  # a preset keeps its own name
                found.append(f"{path}:{keyword.lineno}: {node.func.id}({keyword.arg}={value!r})")
    return found


@pytest.mark.parametrize("module_name", SUITE_CONFIGS)
def test_presets_restate_no_default(module_name: str) -> None:
    found = restated_defaults(module_name)
    assert not found, "presets restate defaults (drop the keyword):\n" + "\n".join(found)
