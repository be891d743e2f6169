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

from rewardgym.envs.household.tasks import PREDICATE_KINDS
from rewardgym.envs.household.tasks import Predicate as _Predicate
from rewardgym.envs.household.v1.world import OBJECT_INDEX, OBJECT_NAMES, OBJECTS, World
from rewardgym.envs.spaces import discrete_index


class Predicate(_Predicate):
    """One goal condition over Household-v1's objects (Household-v0's predicate, v1's names)."""

    def __str__(self) -> str:
        """The predicate as ``kind(object[, target])``."""
        args = OBJECT_NAMES[self.obj]
        if self.target >= 0:
            args += f", {OBJECT_NAMES[self.target]}"
        return f"{self.kind}({args})"


def predicate(kind: str, obj: str, target: str | None = None) -> Predicate:
    """Build a checked predicate from object names, e.g. ``predicate("on", "book", "shelf")``."""
    if kind not in PREDICATE_KINDS:
        raise ValueError(f"unknown predicate kind {kind!r}: use one of {PREDICATE_KINDS}")
    try:
        obj_id = OBJECT_INDEX[obj]
        target_id = -1 if target is None else OBJECT_INDEX[target]
    except KeyError as err:
        raise ValueError(f"unknown Household-v1 object {err.args[0]!r} in {kind}") from None
    spec = OBJECTS[obj_id]
    needs = {
        "inside": spec.grabbable and target is not None and OBJECTS[target_id].container,
        "on": spec.grabbable and target is not None and OBJECTS[target_id].surface,
        "held": spec.grabbable,
        "switched_on": spec.switchable,
        "open": spec.lidded,
        "closed": spec.lidded,
        "sitting": spec.sittable,
    }
    if not needs[kind]:
        raise ValueError(f"predicate {kind}({obj}, {target}) does not fit the objects' affordances")
    return Predicate(kind, obj_id, target_id)


@dataclass(frozen=True)
class Task:
    """A task: an id, a short name, the goal predicates and the id of its sibling task."""

    id: int
    name: str
    goal: tuple[Predicate, ...]
    sibling: int

    def goal_flags(self, world: World) -> list[bool]:
        """Which of the goal predicates hold in ``world``, in goal order."""
        return [p.holds(world) for p in self.goal]

    @property
    def objects(self) -> frozenset[int]:
        """Every object the goal names (the objects relevant to the task)."""
        return frozenset(
            {p.obj for p in self.goal} | {p.target for p in self.goal if p.target >= 0}
        )


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
    if isinstance(task, str):
        if task in TASK_NAMES:
            return TASK_NAMES.index(task)
        raise ValueError(
            f"unknown Household-v1 task {task!r}: see rewardgym.envs.household.v1.TASK_NAMES"
        )
    return discrete_index(task, N_TASKS, what="Household-v1 task id", unit="task id")


__all__ = ["N_TASKS", "TASKS", "TASK_NAMES", "Predicate", "Task", "predicate", "task_id"]
