"""Goal predicates and tasks over a house: what a task asks for and how far the world is from it.

A predicate is one of ``inside(x, container)``, ``on(x, surface)``, ``held(x)``,
``switched_on(device)``, ``open(container)``, ``closed(container)`` and ``sitting(furniture)``.
A task succeeds when all its predicates hold at once (SR); the share that holds is its CGC.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, TypeVar

from rewardgym.envs.conventions import brief
from rewardgym.envs.household.engine.house import House
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
    """What a predicate reads of a world (every Household version's world has it)."""

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
    """One goal condition: a kind, the object it is about and, for placements, the target.

    A version subclasses it to set ``object_names``, the names its ``str`` shows.
    """

    kind: str
    obj: int
    target: int = -1
    object_names: ClassVar[tuple[str, ...]] = ()

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
        args = self.object_names[self.obj]
        if self.target >= 0:
            args += f", {self.object_names[self.target]}"
        return f"{self.kind}({args})"


P = TypeVar("P", bound=Predicate)


def make_predicate(cls: type[P], house: House, kind: str, obj: str, target: str | None = None) -> P:
    """A ``cls`` predicate from object names, checked against ``house``'s affordances."""
    if kind not in PREDICATE_KINDS:
        raise ValueError(f"unknown predicate kind {kind!r}: use one of {PREDICATE_KINDS}")
    try:
        obj_id = house.object_index[obj]
        target_id = -1 if target is None else house.object_index[target]
    except KeyError as err:
        raise ValueError(
            f"unknown {house.label} object {err.args[0]!r} in predicate {kind}"
        ) from None
    spec = house.objects[obj_id]
    needs = {
        "inside": spec.grabbable and target is not None and house.container[target_id],
        "on": spec.grabbable and target is not None and house.surface[target_id],
        "held": spec.grabbable,
        "switched_on": spec.switchable,
        "open": spec.lidded,
        "closed": spec.lidded,
        "sitting": spec.sittable,
    }
    if not needs[kind]:
        raise ValueError(f"predicate {kind}({obj}, {target}) does not fit the objects' affordances")
    return cls(kind, obj_id, target_id)


@dataclass(frozen=True)
class Task:
    """A task: an id, a short name and the goal predicates that define success."""

    id: int
    name: str
    goal: tuple[Predicate, ...]

    def goal_flags(self, world: WorldState) -> list[bool]:
        """Which of the goal predicates hold in ``world``, in goal order."""
        return [p.holds(world) for p in self.goal]

    @property
    def objects(self) -> frozenset[int]:
        """Every object the goal names (the objects relevant to the task)."""
        return frozenset(
            {p.obj for p in self.goal} | {p.target for p in self.goal if p.target >= 0}
        )


def find_task_id(task: int | str, names: tuple[str, ...], house: House) -> int:
    """The id of ``task`` among ``names``, given as an id or as its name."""
    if isinstance(task, str):
        if task in names:
            return names.index(task)
        raise ValueError(f"unknown {house.label} task {brief(task)}: see {house.module}.TASK_NAMES")
    return discrete_index(task, len(names), what=f"{house.label} task id", unit="task id")


__all__ = [
    "PREDICATE_KINDS",
    "Predicate",
    "Task",
    "WorldState",
    "find_task_id",
    "make_predicate",
]
