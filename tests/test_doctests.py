"""Every ``Example:`` in the package runs: the doctests of every module, found by walking it."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import rewardgym


def _modules() -> dict[str, bool]:
    """Every module of the package, and whether its source holds an example (``>>>``)."""
    found: dict[str, bool] = {}
    for info in pkgutil.walk_packages(rewardgym.__path__, prefix="rewardgym."):
        if info.name.startswith(("rewardgym.tests", "rewardgym.build", "rewardgym.docs")):
            continue
        spec = importlib.util.find_spec(info.name)
        origin = spec.origin if spec is not None else None
        found[info.name] = bool(origin) and ">>>" in Path(str(origin)).read_text(encoding="utf-8")
    return found


MODULES = _modules()


def test_walk_finds_every_layer() -> None:
    tops = {name.split(".")[1] for name in MODULES}
    assert {"envs", "wrappers", "agents", "benchmarks", "outputs", "embeddings"} <= tops
    assert sum(MODULES.values()) >= 10


@pytest.mark.parametrize("name", sorted(name for name, has in MODULES.items() if has))
def test_module_doctests(name: str) -> None:
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module, name) if t.examples]
    assert tests, f"{name} shows '>>>' but doctest finds no example: is it in a docstring?"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
