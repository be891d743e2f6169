"""Imports run one way, root <- envs <- wrappers <- agents <- integrations <- benchmarks: no room imports one above.

The root room is the modules at the package root (``errors.py``, ``bounds.py``, ``home.py``,
``atomic.py``, ``outputs.py``, ``threads.py``, ``lazy.py``, ``progress.py``, ``embeddings.py``,
``pretrained.py``, ``tokenizer_io.py``, ``cli.py``, ``cli_help.py``): services every room
uses, so they import no room. ``cli.py`` names each command's class as a ``"module:Class"``
string and imports it only when that command runs, as Gymnasium's string entry points do. The package's own ``__init__`` is in no room: it is what
``import rewardgym`` runs (it registers the environments), and it is loaded before any of its
modules, so ``from rewardgym import __version__`` is allowed anywhere.

Every ``.py`` file of the rooms is parsed (never imported) and every import in it is
checked, at any depth: module level, inside functions and under ``TYPE_CHECKING``, relative
imports resolved, and ``importlib.import_module("rewardgym....")`` calls with a literal name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "rewardgym"
ROOT = Path(__file__).resolve().parents[1]
ROOMS: tuple[str, ...] = ("root", "envs", "wrappers", "agents", "integrations", "benchmarks")
"""The rooms from the lowest up; a room may import only itself and the rooms before it."""
ROOT_MODULES: frozenset[str] = frozenset(
    p.stem for p in ROOT.glob("*.py") if p.name != "__init__.py"
)
"""The modules at the package root: the ``root`` room."""
TRAINING_LIBRARIES: tuple[str, ...] = ("d3rlpy", "torch", "transformers", "trl")
"""Libraries that train models: ``envs/`` imports none of them, so its data sets stay light
(the d3rlpy ``MDPDataset`` of a data set is built in ``agents/offline/mdp.py``)."""


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at ``path`` (``root/envs/a/b.py``: ``rewardgym.envs.a.b``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every ``(line, absolute module name)`` that ``source`` (the module ``module``) imports."""
    found: list[tuple[int, str]] = []
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from rewardgym import wrappers` names a room in the alias, not the module.
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def room_of(name: str) -> str | None:
    """The room of the package module ``name`` (``None`` for the package itself and outside it)."""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != PACKAGE:
        return None
    if parts[1] in ROOT_MODULES:
        return "root"
    return parts[1] if parts[1] in ROOMS else None


def violations(files: list[Path], root: Path = ROOT) -> list[str]:
    """``file:line: room imports module`` for every import of a room above the file's own."""
    out = []
    for path in files:
        module = module_name(path, root)
        own = room_of(module)
        if own is None:
            continue
        source = path.read_text(encoding="utf-8")
        for line, name in imported_modules(source, module, path.name == "__init__.py"):
            target = room_of(name)
            if target is not None and ROOMS.index(target) > ROOMS.index(own):
                rel = path.relative_to(root)
                out.append(f"{rel}:{line}: {own}/ imports {name} ({target}/ is above {own}/)")
    return out


def training_imports(files: list[Path], root: Path = ROOT) -> list[str]:
    """``file:line: envs/ imports module`` for every import of a training library under ``envs/``."""
    out = []
    for path in files:
        module = module_name(path, root)
        if room_of(module) != "envs":
            continue
        source = path.read_text(encoding="utf-8")
        for line, name in imported_modules(source, module, path.name == "__init__.py"):
            if name.split(".")[0] in TRAINING_LIBRARIES:
                out.append(f"{path.relative_to(root)}:{line}: envs/ imports {name}")
    return out


def package_files() -> list[Path]:
    """Every ``.py`` file of the rooms (the package's own ``__init__`` is in none)."""
    rooms = [p for room in ROOMS[1:] for p in (ROOT / room).rglob("*.py")]
    return sorted([*rooms, *(ROOT / f"{name}.py" for name in ROOT_MODULES)])


def test_every_root_module_is_checked() -> None:
    files = package_files()
    for name in (
        *("home", "atomic", "outputs", "threads", "lazy"),
        *("embeddings", "errors", "bounds", "cli", "progress", "pretrained"),
    ):
        assert ROOT / f"{name}.py" in files
        assert room_of(f"{PACKAGE}.{name}") == "root"
    assert room_of(PACKAGE) is None


def test_the_package_imports_only_downwards() -> None:
    files = package_files()
    assert len(files) > 100, f"found only {len(files)} files under {ROOT}: wrong root?"
    found = violations(files)
    assert not found, "imports that run upwards (move the helper down a room):\n" + "\n".join(found)


def _module(tmp_path: Path, room: str, source: str) -> Path:
    """A module holding ``source`` in ``room`` of a scratch package root (``root``: ``outputs.py``)."""
    path = (
        tmp_path / "outputs.py"
        if room == "root"
        else tmp_path / room / "trajectories" / "module.py"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    return path


def test_envs_import_no_training_library() -> None:
    found = training_imports(package_files())
    assert not found, "envs/ imports a training library (move that code to agents/):\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    ("room", "source", "flagged"),
    [
        ("envs", "def f():\n    from d3rlpy.dataset import MDPDataset\n", True),
        ("envs", "import torch.nn\n", True),
        ("agents", "from d3rlpy.dataset import MDPDataset\n", False),
        ("envs", "import minari\nimport numpy\n", False),
    ],
)
def test_the_checker_flags_training_imports_in_envs(
    tmp_path: Path, room: str, source: str, flagged: bool
) -> None:
    assert bool(training_imports([_module(tmp_path, room, source)], tmp_path)) is flagged


@pytest.mark.parametrize(
    ("room", "source", "flagged"),
    [
        ("envs", "from rewardgym.wrappers.composition import compose_rewards\n", True),
        ("envs", "def f():\n    import rewardgym.agents.offline\n", True),
        ("envs", "from ... import benchmarks\n", True),
        ("envs", "from ...wrappers import oracle\n", True),
        ("envs", "import importlib\nimportlib.import_module('rewardgym.agents')\n", True),
        (
            "envs",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from rewardgym.wrappers import x\n",
            True,
        ),
        ("wrappers", "from rewardgym.agents.offline import train_offline\n", True),
        ("wrappers", "from rewardgym.benchmarks import shop\n", True),
        ("agents", "from rewardgym.benchmarks.embodied.suite import run_task\n", True),
        ("agents", "from rewardgym.wrappers.composition import compose_rewards\n", False),
        ("benchmarks", "from rewardgym.agents.offline import train_offline\n", False),
        ("envs", "from rewardgym.outputs import atomic_output\nfrom . import dataset\n", False),
        ("root", "from rewardgym.envs.household import HouseholdEnv\n", True),
        ("root", "def f():\n    from rewardgym.agents.offline import train_offline\n", True),
        ("root", "from rewardgym import envs\n", True),
        ("root", "from rewardgym.errors import Error\nfrom . import bounds\n", False),
        ("root", "def f():\n    from rewardgym import __version__\n", False),
        ("envs", "from rewardgym import __version__\nimport rewardgym.cli\n", False),
    ],
)
def test_the_checker_flags_upward_imports(
    tmp_path: Path, room: str, source: str, flagged: bool
) -> None:
    assert bool(violations([_module(tmp_path, room, source)], tmp_path)) is flagged
