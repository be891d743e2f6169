"""The one bridge to VirtualHome's evolving-graph simulator in ``virtualhome_eval`` (imported lazily).

Importing the package's ``evolving_graph`` calls ``random.seed(123)`` on Python's global
generator; :func:`simulator` restores the caller's ``random`` state around that import, so
``import rewardgym`` and ``gym.make("rewardgym/VirtualHome-v0")`` leave it as it was.
The simulator ignores an action's class names and uses only the node ids (and its WALK fails
with a ``KeyError`` on an id that is not in the graph): callers pass ids they took from the
graph (:mod:`rewardgym.envs.virtualhome.resolver`).
"""

from __future__ import annotations

import functools
import importlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from rewardgym.errors import SimulatorPackageMissing

PACKAGE = "virtualhome_eval"
PACKAGE_VERSION = "0.1.1"
INSTALL_COMMAND = f"pip install --no-deps {PACKAGE}=={PACKAGE_VERSION}"
"""Its declared dependencies (pddlgym, lark, fire, openai, ipdb) serve parts rewardgym never uses."""


@dataclass(frozen=True)
class Simulator:
    """The simulator's modules, imported once."""

    execution: ModuleType
    scripts: ModuleType
    environment: ModuleType
    root: Path
    """The installed package's folder (programs, graphs and goal files live under it)."""


@functools.cache
def simulator() -> Simulator:
    """The simulator's modules; raise :class:`SimulatorPackageMissing` naming the install command."""
    saved = random.getstate()
    try:
        package = importlib.import_module(PACKAGE)
        prefix = f"{PACKAGE}.simulation.evolving_graph"
        execution = importlib.import_module(f"{prefix}.execution")
        scripts = importlib.import_module(f"{prefix}.scripts")
        environment = importlib.import_module(f"{prefix}.environment")
    except ImportError as err:
        raise SimulatorPackageMissing(
            f"rewardgym/VirtualHome-v0 runs VirtualHome's evolving-graph simulator from the "
            f"{PACKAGE} package, which is not installed ({err}): run `{INSTALL_COMMAND}`"
        ) from err
    finally:
        random.setstate(saved)  # its utils module calls random.seed(123) on import
    return Simulator(execution, scripts, environment, Path(str(package.__file__)).parent)


@functools.cache
def name_equivalence() -> dict[str, list[str]]:
    """The simulator's class-name synonyms (it reads them only without instance selection)."""
    path = simulator().root / "resources" / "class_name_equivalence.json"
    return dict(json.loads(path.read_text(encoding="utf-8")))


def load_graph(graph: dict[str, Any]) -> Any:
    """An ``EnvironmentGraph`` of a graph dict (``nodes`` and ``edges``)."""
    return simulator().environment.EnvironmentGraph(graph)


def initial_state(graph: Any) -> Any:
    """A fresh simulator state on ``graph`` (states are never changed in place: this is a reset)."""
    return simulator().environment.EnvironmentState(graph, name_equivalence(), True)


def relation(name: str) -> Any:
    """The simulator's ``Relation`` member called ``name`` (``ON``, ``INSIDE``, ``CLOSE``, ...)."""
    return simulator().environment.Relation[name]


def execute(state: Any, verb: str, arguments: Sequence[tuple[str, int]]) -> tuple[Any, str]:
    """Run ``[verb] <class> (id) ...`` on ``state``: the next state, or ``None`` and the reason.

    Every id must be a node of ``state``'s graph (the simulator's WALK crashes on others).
    """
    sim = simulator()
    line = " ".join([f"[{verb}]", *(f"<{name}> ({node})" for name, node in arguments)])
    script = sim.scripts.Script([sim.scripts.parse_script_line(line, 0)])
    info = sim.execution.ExecutionInfo(eval_mode=True)
    calls = sim.execution.ScriptExecutor.call_action_method(script, state, info, 0)
    following = next(calls, None)
    if following is None:
        reason = info.get_error_string().split(" when executing ")[0] or "not executable"
        return None, reason
    return following, ""


def state_names(node: Any) -> list[str]:
    """A node's states as upper-case names (``OPEN``, ``ON``, ``PLUGGED_IN``, ...)."""
    return sorted(getattr(s, "name", str(s)) for s in node.states)


__all__ = [
    "INSTALL_COMMAND",
    "PACKAGE",
    "Simulator",
    "execute",
    "initial_state",
    "load_graph",
    "name_equivalence",
    "relation",
    "simulator",
    "state_names",
]
