"""The 25 household tasks, each a set of goal predicates over the world state.

A predicate is one of ``inside(x, container)``, ``on(x, surface)``, ``held(x)``,
``switched_on(device)``, ``open(container)``, ``closed(container)`` and ``sitting(furniture)``.
A task succeeds when all its predicates hold at once (SR); the share that holds is its CGC.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from rewardgym.envs.household.world import OBJECT_INDEX, OBJECT_NAMES, OBJECTS
from rewardgym.envs.spaces import discrete_index

PREDICATE_KINDS: tuple[str, ...] = (
    "inside",
    "on",
    "held",
    "switched_on",
    "open",
    "closed",
    "sitting",
)


class WorldState(Protocol):
    """What a predicate reads of a world (Household-v0's and Household-v1's both have it)."""

    @property
    def obj_parent(self) -> Sequence[int]: ...

    @property
    def is_on(self) -> Sequence[bool]: ...

    @property
    def is_open(self) -> Sequence[bool]: ...

    @property
    def held(self) -> int: ...

    @property
    def sitting(self) -> int: ...


@dataclass(frozen=True)
class Predicate:
    """One goal condition: a kind, the object it is about and, for placements, the target."""

    kind: str
    obj: int
    target: int = -1

    def holds(self, world: WorldState) -> bool:
        """Whether this condition is true in ``world``."""
        kind = self.kind
        if kind == "inside" or kind == "on":
            return world.obj_parent[self.obj] == self.target
        if kind == "held":
            return world.held == self.obj
        if kind == "switched_on":
            return world.is_on[self.obj]
        if kind == "open":
            return world.is_open[self.obj]
        if kind == "closed":
            return not world.is_open[self.obj]
        return world.sitting == self.obj

    def __str__(self) -> str:
        """The predicate as ``kind(object[, target])``."""
        args = OBJECT_NAMES[self.obj]
        if self.target >= 0:
            args += f", {OBJECT_NAMES[self.target]}"
        return f"{self.kind}({args})"


def predicate(kind: str, obj: str, target: str | None = None) -> Predicate:
    """Build a checked predicate from object names, for example ``predicate("on", "book", "desk")``."""
    if kind not in PREDICATE_KINDS:
        raise ValueError(f"unknown predicate kind {kind!r}: use one of {PREDICATE_KINDS}")
    try:
        obj_id = OBJECT_INDEX[obj]
        target_id = -1 if target is None else OBJECT_INDEX[target]
    except KeyError as err:
        raise ValueError(f"unknown household object {err.args[0]!r} in predicate {kind}") from None
    spec = OBJECTS[obj_id]
    needs = {
        "inside": spec.grabbable and target is not None and OBJECTS[target_id].container,
        "on": spec.grabbable and target is not None and OBJECTS[target_id].surface,
        "held": spec.grabbable,
        "switched_on": spec.switchable,
        "open": spec.container,
        "closed": spec.container,
        "sitting": spec.sittable,
    }
    if not needs[kind]:
        raise ValueError(f"predicate {kind}({obj}, {target}) does not fit the objects' affordances")
    return Predicate(kind, obj_id, target_id)


@dataclass(frozen=True)
class Task:
    """A household task: an id, a short name and the goal predicates that define success."""

    id: int
    name: str
    goal: tuple[Predicate, ...]

    def goal_flags(self, world: WorldState) -> list[bool]:
        """Which of the goal predicates hold in ``world``, in goal order."""
        return [p.holds(world) for p in self.goal]


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
    if isinstance(task, str):
        if task in TASK_NAMES:
            return TASK_NAMES.index(task)
        raise ValueError(
            f"unknown household task {task!r}: see rewardgym.envs.household.TASK_NAMES"
        )
    return discrete_index(task, N_TASKS, what="household task id", unit="task id")


__all__ = [
    "N_TASKS",
    "PREDICATE_KINDS",
    "TASKS",
    "TASK_NAMES",
    "Predicate",
    "Task",
    "predicate",
    "task_id",
]
