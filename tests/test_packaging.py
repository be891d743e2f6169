"""The package as users install it: every subpackage shipped, every environment registered."""

from __future__ import annotations

import tomllib
from pathlib import Path

import gymnasium as gym

import rewardgym

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL = ("envs", "wrappers", "agents", "integrations", "benchmarks")


def test_every_subpackage_is_listed_in_pyproject() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    on_disk = {"rewardgym"}
    for top in TOP_LEVEL:
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT).parts
            on_disk.add(".".join(("rewardgym", *parts)))
    assert on_disk == listed


def test_every_plugin_module_is_listed_in_pyproject() -> None:
    # verifiers finds a taskset by importing a top-level module named after its id.
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {path.stem for path in (ROOT / "plugins").glob("*.py")}
    assert set(setuptools["py-modules"]) == on_disk
    assert {"rewardgym_store", "rewardgym_virtualhome"} <= on_disk


def test_import_registers_environments() -> None:
    ids = rewardgym.envs.rewardgym_ids()
    assert {
        "rewardgym/ShopSession-v0",
        "rewardgym/Household-v0",
        "rewardgym/TrajectoryReplay-v0",
    } <= set(ids)
    assert all(gym.spec(i) is not None for i in ids)
    assert rewardgym.__version__


def test_imported_from_installed_package_not_a_stray_copy() -> None:
    # The repository root is the package; it must be imported under its own name.
    assert (
        Path(rewardgym.__file__).resolve().parent == ROOT or "site-packages" in rewardgym.__file__
    )
