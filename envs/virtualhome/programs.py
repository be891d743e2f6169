"""VirtualHome's human-written programs with symbolic goals: loading, caching and the splits.

The ``virtualhome_eval`` package ships 518 programs in one scene (TrimmedTestScene1: bathroom,
bedroom, dining room, home office), each a title (the task category, e.g. "Watch TV"), a
human description and a script, with the scene graphs before and after. The Embodied Agent
Interface gives symbolic goals for 342 of them in 26 categories; 337 are usable (four goals
are empty and :data:`EXCLUDED` names the other). The index of the programs (their texts and
goals, a few milliseconds) is read once per process, and each program's initial graph (15-25 ms
to read, about 0.7 MB) only when an episode first needs it, then kept.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rewardgym.envs.virtualhome.goals import Condition, parse_goal
from rewardgym.envs.virtualhome.simulator import load_graph, simulator

SCENE = "TrimmedTestScene1_graph"
_RUN = f"{SCENE}/results_intentions_march-13-18"
_DATASET = "dataset/programs_processed_precond_nograb_morepreconds"
GOALS_FILE = "resources/task_state_LTL_formula_accurate.json"

EXCLUDED: dict[str, str] = {
    "688_1": "its goal asks for the same water glass in both hands, which no program can reach"
}
"""Programs with a non-empty goal that are left out, and why."""

SPLITS: tuple[str, ...] = ("train", "validation", "test", "all")
SPLIT_SHARE = 0.2
"""Share of each task category's programs held out for validation, and again for test."""
GRAPH_CACHE = 400
"""Initial graphs kept in memory per process: every program's (about 0.7 MB each, 240 MB for
all 337), since collecting and evaluating deal the programs round-robin and a graph takes
15-25 ms to read on an idle core (several times more on a busy one)."""

_LINE = re.compile(r"^\[(\w+)\]((?:\s*<[^>]+>\s*\([\d.]+\))*)\s*$")
_ARGUMENT = re.compile(r"<([^>]+)>\s*\((?:\d+\.)?(\d+)\)")


@dataclass(frozen=True)
class Step:
    """One script line: a verb and its arguments as (class name, node id) pairs."""

    verb: str
    arguments: tuple[tuple[str, int], ...]

    def __str__(self) -> str:
        return " ".join([f"[{self.verb}]", *(f"<{c}> ({i})" for c, i in self.arguments)])


@dataclass(frozen=True)
class Task:
    """A task category (a program title): its id (index in :func:`task_names`) and name."""

    id: int
    name: str


@dataclass(frozen=True)
class Program:
    """One human-written program with a symbolic goal."""

    id: str
    """The file's id, e.g. ``"27_2"`` (``file27_2.txt``)."""
    task: Task
    description: str
    """The human's own description: the fine-grained instruction."""
    steps: tuple[Step, ...]
    goal: tuple[Condition, ...]


def parse_step(line: str, where: str) -> Step:
    """A script line such as ``[PUTBACK] <mug> (1.413) <table> (1.99)``; ids keep the part after the dot.

    Example:
        >>> parse_step("[GRAB] <mouse> (1.413)", "x")
        Step(verb='GRAB', arguments=(('mouse', 413),))
    """
    match = _LINE.match(line.strip())
    if match is None:
        raise ValueError(f"{where}: cannot read the script line {line!r}")
    arguments = tuple((name, int(node)) for name, node in _ARGUMENT.findall(match.group(2)))
    return Step(match.group(1).upper(), arguments)


def _program_path(program: str, kind: str) -> Path:
    folder = "executable_programs" if kind == "txt" else "init_and_final_graphs"
    return simulator().root / _DATASET / folder / _RUN / f"file{program}.{kind}"


@functools.cache
def _catalogue() -> tuple[dict[str, Program], tuple[str, ...]]:
    root = simulator().root
    goals: dict[str, dict[str, Any]] = json.loads((root / GOALS_FILE).read_text(encoding="utf-8"))[
        "scene_1"
    ]
    names = tuple(sorted(goals))
    programs: dict[str, Program] = {}
    for task_index, name in enumerate(names):
        for program, entry in goals[name].items():
            goal = parse_goal(entry["vh_goal"])
            if not goal or program in EXCLUDED:
                continue
            path = _program_path(program, "txt")
            lines = path.read_text(encoding="utf-8").split("\n")
            steps = tuple(
                parse_step(line, f"{path}:{n + 1}")
                for n, line in enumerate(lines)
                if n >= 2 and line.strip()
            )
            programs[program] = Program(
                program, Task(task_index, name), " ".join(lines[1].split()), steps, goal
            )
    return dict(sorted(programs.items(), key=lambda kv: _sort_key(kv[0]))), names


def _sort_key(program: str) -> tuple[int, ...]:
    return tuple(int(part) for part in program.split("_"))


def all_programs() -> Mapping[str, Program]:
    """Every usable program by id, in numeric id order."""
    return _catalogue()[0]


def task_names() -> tuple[str, ...]:
    """The 26 task categories, sorted (a task id indexes this)."""
    return _catalogue()[1]


@functools.cache
def split_programs(split: str, seed: int = 0) -> tuple[str, ...]:
    """The program ids of ``split`` ("train", "validation", "test" or "all"), in id order.

    Within each task category the programs (in id order) are shuffled by a generator seeded
    with ``seed`` and the category's index; :data:`SPLIT_SHARE` of them (rounded, at least
    one when the category has three or more) go to test, as many to validation, the rest to
    train. A category of two programs gives one to test; a category of one keeps it for train.
    The same data and seed always give the same splits.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: use one of {SPLITS}")
    programs = all_programs()
    if split == "all":
        return tuple(programs)
    chosen: set[str] = set()
    for task_index, _ in enumerate(task_names()):
        members = [p for p, prog in programs.items() if prog.task.id == task_index]
        order = np.random.default_rng([seed, task_index]).permutation(len(members))
        shuffled = [members[i] for i in order]
        n = len(shuffled)
        held = max(1, round(SPLIT_SHARE * n)) if n >= 3 else 0
        n_test = held if n >= 3 else (1 if n == 2 else 0)
        parts = {
            "test": shuffled[:n_test],
            "validation": shuffled[n_test : n_test + held],
            "train": shuffled[n_test + held :],
        }
        chosen.update(parts[split])
    return tuple(p for p in programs if p in chosen)


@functools.lru_cache(maxsize=GRAPH_CACHE)
def initial_graph(program: str) -> Any:
    """The simulator's ``EnvironmentGraph`` of ``program``'s initial scene (read once, then cached)."""
    path = _program_path(program, "json")
    return load_graph(json.loads(path.read_text(encoding="utf-8"))["init_graph"])


__all__ = [
    "EXCLUDED",
    "GRAPH_CACHE",
    "SPLITS",
    "SPLIT_SHARE",
    "Program",
    "Step",
    "Task",
    "all_programs",
    "initial_graph",
    "parse_step",
    "split_programs",
    "task_names",
]
