"""The 25 household tasks, each a set of goal predicates over the world state.

A predicate is one of ``inside(x, container)``, ``on(x, surface)``, ``held(x)``,
``switched_on(device)``, ``open(container)``, ``closed(container)`` and ``sitting(furniture)``.
A task succeeds when all its predicates hold at once (SR); the share that holds is its CGC.
"""

from __future__ import annotations

from rewardgym.envs.household.engine.goals import (
    PREDICATE_KINDS,
    Task,
    WorldState,
    find_task_id,
    make_predicate,
)
from rewardgym.envs.household.engine.goals import Predicate as _EnginePredicate
from rewardgym.envs.household.v0.world import HOUSE, OBJECT_NAMES


class Predicate(_EnginePredicate):
    """One goal condition over Household-v0's objects (the engine's predicate, v0's names)."""

    object_names = OBJECT_NAMES


def predicate(kind: str, obj: str, target: str | None = None) -> Predicate:
    """Build a checked predicate from object names, for example ``predicate("on", "book", "desk")``."""
    return make_predicate(Predicate, HOUSE, kind, obj, target)


_P = predicate
_TASK_GOALS: tuple[tuple[str, tuple[Predicate, ...]], ...] = (
    ("put apple in fridge", (_P("inside", "apple", "fridge"),)),
    ("warm milk", (_P("inside", "milk", "microwave"), _P("switched_on", "microwave"))),
    ("watch tv", (_P("switched_on", "tv"), _P("sitting", "sofa"))),
    ("turn on tv", (_P("switched_on", "tv"),)),
    ("set the table", (_P("on", "plate", "kitchen table"),)),
    ("read book on sofa", (_P("held", "book"), _P("sitting", "sofa"))),
    ("use computer", (_P("switched_on", "computer"), _P("sitting", "chair"))),
    ("take a plate", (_P("held", "plate"),)),
    ("load washing machine", (_P("inside", "clothes", "washing machine"),)),
    ("brush teeth", (_P("held", "toothbrush"),)),
    ("store towel", (_P("inside", "towel", "bathroom cabinet"), _P("closed", "bathroom cabinet"))),
    ("store milk", (_P("inside", "milk", "fridge"), _P("closed", "fridge"))),
    ("bring remote to coffee table", (_P("on", "remote control", "coffee table"),)),
    ("relax on sofa", (_P("sitting", "sofa"),)),
    ("go to bed", (_P("sitting", "bed"),)),
    ("put book on coffee table", (_P("on", "book", "coffee table"),)),
    ("snack at desk", (_P("on", "apple", "desk"),)),
    ("heat plate", (_P("inside", "plate", "microwave"), _P("switched_on", "microwave"))),
    ("check fridge", (_P("open", "fridge"),)),
    ("wash towel", (_P("inside", "towel", "washing machine"), _P("closed", "washing machine"))),
    ("warm apple", (_P("inside", "apple", "microwave"), _P("switched_on", "microwave"))),
    ("milk to living room", (_P("on", "milk", "coffee table"),)),
    ("read in bed", (_P("held", "book"), _P("sitting", "bed"))),
    (
        "watch tv with remote",
        (_P("held", "remote control"), _P("switched_on", "tv"), _P("sitting", "sofa")),
    ),
    (
        "do laundry",
        (_P("inside", "clothes", "washing machine"), _P("switched_on", "washing machine")),
    ),
)
TASKS: tuple[Task, ...] = tuple(Task(i, name, goal) for i, (name, goal) in enumerate(_TASK_GOALS))
TASK_NAMES: tuple[str, ...] = tuple(task.name for task in TASKS)
N_TASKS = len(TASKS)


def task_id(task: int | str) -> int:
    """The id of ``task``, given as an id or as its name."""
    return find_task_id(task, TASK_NAMES, HOUSE)


__all__ = [
    "N_TASKS",
    "PREDICATE_KINDS",
    "TASKS",
    "TASK_NAMES",
    "Predicate",
    "Task",
    "WorldState",
    "predicate",
    "task_id",
]
