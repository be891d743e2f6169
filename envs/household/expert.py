"""A symbolic expert that plans a shortest-in-practice action sequence for any household task.

The planner reads the full world state (the expert is privileged: it knows where everything
is, in either layout), works through the unmet goal predicates in a fixed order (placements
first, then switches and doors, sitting last), and simulates every step on a copy of the
world so that the plan it returns is executable. After a perturbation it simply plans again
from the new state; a state from which the goal can no longer be reached gives ``None``.
"""

from __future__ import annotations

from rewardgym.envs.household.actions import ACTION_INDEX, apply_action
from rewardgym.envs.household.tasks import Predicate, Task
from rewardgym.envs.household.world import OBJECT_NAMES, OBJECTS, ROOMS, World

_ORDER = {"inside": 0, "on": 0, "held": 1, "open": 2, "switched_on": 3, "closed": 4, "sitting": 5}
_WALK = tuple(ACTION_INDEX[f"walk to {room}"] for room in ROOMS)
_FIND = tuple(ACTION_INDEX[f"find {name}"] for name in OBJECT_NAMES)


def _act(behaviour: str, obj: int) -> int:
    return ACTION_INDEX[f"{behaviour} {OBJECT_NAMES[obj]}"]


class _DeadEnd(Exception):
    """Raised inside the planner when a needed step is not executable from the current state."""


class _Planner:
    """Builds one plan by acting on a private copy of the world."""

    def __init__(self, world: World) -> None:
        self.sim = world.copy()
        self.actions: list[int] = []

    def do(self, action: int) -> None:
        if apply_action(self.sim, action):
            raise _DeadEnd
        self.actions.append(action)

    def reach(self, obj: int) -> None:
        """Stand next to ``obj``, opening the closed container that hides it if needed."""
        sim = self.sim
        if sim.near == obj:
            return
        parent = sim.obj_parent[obj]
        if parent >= 0 and OBJECTS[parent].container and not sim.is_open[parent]:
            self.reach(parent)
            self.do(_act("open", parent))
        if sim.agent_room != sim.obj_room[obj]:
            self.do(_WALK[sim.obj_room[obj]])
        self.do(_FIND[obj])

    def free_hands(self) -> None:
        """Put down whatever is held on the nearest surface or open container in this room."""
        sim = self.sim
        if sim.held < 0:
            return
        near = sim.near
        if near >= 0 and OBJECTS[near].surface:
            self.do(_act("put on", near))
            return
        if near >= 0 and OBJECTS[near].container and sim.is_open[near]:
            self.do(_act("put in", near))
            return
        room_objects = [o for o in range(len(OBJECTS)) if sim.obj_room[o] == sim.agent_room]
        surfaces = [o for o in room_objects if OBJECTS[o].surface]
        if surfaces:
            self.reach(surfaces[0])
            self.do(_act("put on", surfaces[0]))
            return
        containers = [o for o in room_objects if OBJECTS[o].container and not sim.is_on[o]]
        if not containers:
            raise _DeadEnd
        self.reach(containers[0])
        if not sim.is_open[containers[0]]:
            self.do(_act("open", containers[0]))
        self.do(_act("put in", containers[0]))

    def grab(self, obj: int) -> None:
        """Hold ``obj``, putting down anything else first."""
        if self.sim.held == obj:
            return
        self.free_hands()
        self.reach(obj)
        self.do(_act("grab", obj))

    def achieve(self, pred: Predicate) -> None:
        """Act until ``pred`` holds."""
        sim, obj, kind = self.sim, pred.obj, pred.kind
        if kind in ("inside", "on"):
            self.grab(obj)
            self.reach(pred.target)
            if kind == "inside":
                if not sim.is_open[pred.target]:
                    self.do(_act("open", pred.target))
                self.do(_act("put in", pred.target))
            else:
                self.do(_act("put on", pred.target))
        elif kind == "held":
            self.grab(obj)
        elif kind == "open":
            self.reach(obj)
            self.do(_act("open", obj))
        elif kind == "closed":
            self.reach(obj)
            self.do(_act("close", obj))
        elif kind == "switched_on":
            self.reach(obj)
            if OBJECTS[obj].container and sim.is_open[obj]:
                self.do(_act("close", obj))
            self.do(_act("switch on", obj))
        else:
            self.reach(obj)
            self.do(_act("sit on", obj))


def plan(world: World, task: Task) -> list[int] | None:
    """The expert's action ids from ``world`` to ``task``'s goal; ``[]`` if met, ``None`` if stuck."""
    planner = _Planner(world)
    held = world.held

    def priority(pred: Predicate) -> tuple[int, int]:
        # A placement of the object already in hand goes first, so nothing is put down twice.
        return (_ORDER[pred.kind], 0 if pred.obj == held and pred.kind in ("inside", "on") else 1)

    ordered = sorted(task.goal, key=priority)
    try:
        for _ in range(3):
            for pred in ordered:
                if not pred.holds(planner.sim):
                    planner.achieve(pred)
            if all(p.holds(planner.sim) for p in task.goal):
                return planner.actions
    except _DeadEnd:
        return None
    return None


__all__ = ["plan"]
