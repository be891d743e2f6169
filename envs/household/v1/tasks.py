"""Household-v1's 25 tasks: 3-5 goal predicates each, in sibling pairs that share their objects.

A predicate is one of ``inside(x, container)``, ``on(x, surface)``, ``held(x)``,
``switched_on(device)``, ``open(container)``, ``closed(container)`` and ``sitting(furniture)``
(the same kinds as Household-v0). A task succeeds when all its predicates hold at once (SR);
the share that holds is its CGC. Every task names a *sibling*: a task over the same objects
whose demonstration looks plausible under this task's instruction but is wrong (the data
collector mixes such demonstrations in, see ``rewardgym.envs.trajectories.collect``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardgym.envs.household.engine.goals import Predicate as _EnginePredicate
from rewardgym.envs.household.engine.goals import Task as _EngineTask
from rewardgym.envs.household.engine.goals import find_task_id, make_predicate
from rewardgym.envs.household.v1.world import HOUSE, OBJECT_NAMES


class Predicate(_EnginePredicate):
    """One goal condition over Household-v1's objects (the engine's predicate, v1's names)."""

    object_names = OBJECT_NAMES


def predicate(kind: str, obj: str, target: str | None = None) -> Predicate:
    """Build a checked predicate from object names, e.g. ``predicate("on", "book", "shelf")``."""
    return make_predicate(Predicate, HOUSE, kind, obj, target)


@dataclass(frozen=True)
class Task(_EngineTask):
    """A task: an id, a short name, the goal predicates and the id of its sibling task."""

    sibling: int


_P = predicate
# (name, goal, sibling name); siblings handle the same objects in another, plausible way.
_TASKS: tuple[tuple[str, tuple[Predicate, ...], str], ...] = (
    (
        "snack in front of the tv",
        (
            _P("on", "apple", "coffee table"),
            _P("on", "milk", "coffee table"),
            _P("switched_on", "tv"),
            _P("sitting", "sofa"),
        ),
        "throw out the old food",
    ),
    (
        "throw out the old food",
        (
            _P("inside", "apple", "trash can"),
            _P("inside", "milk", "trash can"),
            _P("on", "plate", "kitchen table"),
            _P("closed", "fridge"),
        ),
        "snack in front of the tv",
    ),
    (
        "warm the milk",
        (
            _P("inside", "milk", "microwave"),
            _P("switched_on", "microwave"),
            _P("on", "plate", "kitchen table"),
            _P("on", "apple", "kitchen table"),
        ),
        "heat up the plate",
    ),
    (
        "heat up the plate",
        (
            _P("inside", "plate", "microwave"),
            _P("switched_on", "microwave"),
            _P("on", "milk", "kitchen table"),
            _P("on", "apple", "kitchen table"),
        ),
        "warm the milk",
    ),
    (
        "bake the apple",
        (
            _P("inside", "apple", "microwave"),
            _P("switched_on", "microwave"),
            _P("on", "plate", "coffee table"),
            _P("sitting", "sofa"),
        ),
        "throw away the apple",
    ),
    (
        "throw away the apple",
        (
            _P("inside", "apple", "trash can"),
            _P("on", "plate", "coffee table"),
            _P("switched_on", "tv"),
            _P("sitting", "sofa"),
        ),
        "bake the apple",
    ),
    (
        "set the kitchen table",
        (
            _P("on", "plate", "kitchen table"),
            _P("on", "apple", "kitchen table"),
            _P("on", "milk", "kitchen table"),
            _P("closed", "fridge"),
            _P("closed", "kitchen cabinet"),
        ),
        "breakfast at the desk",
    ),
    (
        "breakfast at the desk",
        (
            _P("on", "plate", "desk"),
            _P("on", "apple", "desk"),
            _P("on", "milk", "desk"),
            _P("switched_on", "lamp"),
        ),
        "set the kitchen table",
    ),
    (
        "tidy up the living room",
        (
            _P("on", "remote control", "shelf"),
            _P("on", "book", "shelf"),
            _P("inside", "clothes", "washing machine"),
            _P("closed", "washing machine"),
        ),
        "watch tv with the remote",
    ),
    (
        "watch tv with the remote",
        (
            _P("held", "remote control"),
            _P("on", "book", "coffee table"),
            _P("on", "apple", "coffee table"),
            _P("switched_on", "tv"),
            _P("sitting", "sofa"),
        ),
        "tidy up the living room",
    ),
    (
        "movie night",
        (
            _P("on", "milk", "coffee table"),
            _P("on", "plate", "coffee table"),
            _P("held", "remote control"),
            _P("switched_on", "tv"),
            _P("sitting", "sofa"),
        ),
        "dinner in bed",
    ),
    (
        "dinner in bed",
        (
            _P("on", "milk", "desk"),
            _P("on", "plate", "desk"),
            _P("switched_on", "lamp"),
            _P("sitting", "bed"),
        ),
        "movie night",
    ),
    (
        "read on the sofa",
        (
            _P("held", "book"),
            _P("on", "milk", "coffee table"),
            _P("on", "apple", "coffee table"),
            _P("sitting", "sofa"),
        ),
        "read in bed",
    ),
    (
        "read in bed",
        (
            _P("held", "book"),
            _P("on", "milk", "desk"),
            _P("on", "apple", "desk"),
            _P("switched_on", "lamp"),
            _P("sitting", "bed"),
        ),
        "read on the sofa",
    ),
    (
        "do the laundry",
        (
            _P("inside", "clothes", "washing machine"),
            _P("inside", "towel", "washing machine"),
            _P("switched_on", "washing machine"),
            _P("sitting", "bed"),
        ),
        "tidy the bathroom",
    ),
    (
        "tidy the bathroom",
        (
            _P("inside", "clothes", "washing machine"),
            _P("inside", "towel", "bathroom cabinet"),
            _P("closed", "washing machine"),
            _P("closed", "bathroom cabinet"),
            _P("on", "book", "shelf"),
        ),
        "do the laundry",
    ),
    (
        "replace the old towel",
        (
            _P("inside", "towel", "trash can"),
            _P("inside", "clothes", "bathroom cabinet"),
            _P("closed", "bathroom cabinet"),
            _P("switched_on", "lamp"),
        ),
        "wash the towel",
    ),
    (
        "wash the towel",
        (
            _P("inside", "towel", "washing machine"),
            _P("inside", "clothes", "bathroom cabinet"),
            _P("switched_on", "washing machine"),
            _P("switched_on", "lamp"),
        ),
        "replace the old towel",
    ),
    (
        "tidy the bedroom",
        (
            _P("on", "book", "shelf"),
            _P("inside", "clothes", "washing machine"),
            _P("closed", "washing machine"),
            _P("switched_on", "lamp"),
        ),
        "pack for a trip",
    ),
    (
        "pack for a trip",
        (
            _P("on", "book", "sofa"),
            _P("on", "clothes", "sofa"),
            _P("on", "towel", "sofa"),
            _P("closed", "bathroom cabinet"),
        ),
        "tidy the bedroom",
    ),
    (
        "put the milk back and relax",
        (
            _P("inside", "milk", "fridge"),
            _P("closed", "fridge"),
            _P("on", "book", "coffee table"),
            _P("on", "apple", "coffee table"),
            _P("sitting", "sofa"),
        ),
        "warm milk before bed",
    ),
    (
        "warm milk before bed",
        (
            _P("inside", "milk", "microwave"),
            _P("switched_on", "microwave"),
            _P("held", "book"),
            _P("switched_on", "lamp"),
            _P("sitting", "bed"),
        ),
        "put the milk back and relax",
    ),
    (
        "evening routine",
        (
            _P("inside", "clothes", "washing machine"),
            _P("closed", "washing machine"),
            _P("held", "book"),
            _P("switched_on", "lamp"),
            _P("sitting", "bed"),
        ),
        "get ready for a bath",
    ),
    (
        "get ready for a bath",
        (
            _P("held", "towel"),
            _P("inside", "clothes", "washing machine"),
            _P("closed", "washing machine"),
            _P("switched_on", "lamp"),
        ),
        "evening routine",
    ),
    (
        "store the leftovers",
        (
            _P("inside", "plate", "fridge"),
            _P("inside", "apple", "fridge"),
            _P("closed", "fridge"),
            _P("on", "milk", "kitchen table"),
        ),
        "heat up the plate",
    ),
)
TASK_NAMES: tuple[str, ...] = tuple(name for name, _, _ in _TASKS)
TASKS: tuple[Task, ...] = tuple(
    Task(i, name, goal, TASK_NAMES.index(sibling)) for i, (name, goal, sibling) in enumerate(_TASKS)
)
N_TASKS = len(TASKS)


def task_id(task: int | str) -> int:
    """The id of ``task``, given as an id or as its name."""
    return find_task_id(task, TASK_NAMES, HOUSE)


__all__ = ["N_TASKS", "TASKS", "TASK_NAMES", "Predicate", "Task", "predicate", "task_id"]
