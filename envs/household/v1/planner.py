"""Household-v1's two experts: a privileged planner and the searcher whose script the data follow.

Both act on a private copy of the world and work through the unmet goal predicates in a fixed
order (placements, held objects, doors, switches, closing, sitting last), simulating every
step so that the plan they return is executable.

- ``plan(world, task)`` is privileged: it knows where every object is, so it goes straight to
  it. Its length is the true remaining distance to the goal (the oracle's potential), and it
  is the replanning expert's next move. ``None`` means the goal can no longer be reached.
- ``search_script(world, task)`` is what a person who does not know the placements would do:
  before it can reach a key object it has not seen yet, it looks in the object's plausible
  places, most likely first (walking into a room shows what lies on its surfaces and floor;
  a closed container must be found and opened), and stops as soon as the object is in view.
  It is the fixed expert script of data collection and the reference of the Plan metric.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping
from functools import cache

from rewardgym.envs.household.v1.actions import ACTION_INDEX, apply_action
from rewardgym.envs.household.v1.tasks import Predicate, Task
from rewardgym.envs.household.v1.world import N_OBJECTS, OBJECT_NAMES, OBJECTS, ROOMS, World

_ORDER = {"inside": 0, "on": 0, "held": 1, "open": 2, "switched_on": 3, "closed": 4, "sitting": 5}
_WALK = tuple(ACTION_INDEX[f"walk to {room}"] for room in ROOMS)
_FIND = tuple(ACTION_INDEX[f"find {name}"] for name in OBJECT_NAMES)
_LIDDED = tuple(spec.lidded for spec in OBJECTS)
_SURFACE = tuple(spec.surface for spec in OBJECTS)
_STORAGE = tuple(spec.lidded and not spec.switchable for spec in OBJECTS)


def _act(behaviour: str, obj: int) -> int:
    return ACTION_INDEX[f"{behaviour} {OBJECT_NAMES[obj]}"]


_OPEN = {o: _act("open", o) for o in range(N_OBJECTS) if _LIDDED[o]}
_CLOSE = {o: _act("close", o) for o in range(N_OBJECTS) if _LIDDED[o]}
_GRAB = {o: _act("grab", o) for o in range(N_OBJECTS) if OBJECTS[o].grabbable}
_PUT_ON = {o: _act("put on", o) for o in range(N_OBJECTS) if _SURFACE[o]}
_PUT_IN = {o: _act("put in", o) for o in range(N_OBJECTS) if OBJECTS[o].container}
_SWITCH = {o: _act("switch on", o) for o in range(N_OBJECTS) if OBJECTS[o].switchable}
_SIT = {o: _act("sit on", o) for o in range(N_OBJECTS) if OBJECTS[o].sittable}


class _DeadEnd(Exception):
    """Raised inside the planner when a needed step is not executable from the current state."""


class _Planner:
    """Builds one plan by acting on a private copy of the world."""

    def __init__(
        self,
        world: World,
        priors: Mapping[int, tuple[tuple[int, float], ...]] | None,
        known: Collection[int] = (),
        checked: Collection[int] = (),
    ):
        self.sim = world.copy()
        self.actions: list[int] = []
        self.priors = priors
        self.checked = set(checked)
        # The searcher knows where an object is once it has seen it (or has moved it itself).
        self.known = [True] * N_OBJECTS
        if priors is not None:
            for obj in priors:
                self.known[obj] = obj in known
            self._look()

    def _look(self) -> None:
        sim = self.sim
        self.checked.update(sim.places_in_view())
        for obj in range(N_OBJECTS):
            if not self.known[obj] and (sim.held == obj or sim.is_visible(obj)):
                self.known[obj] = True

    def do(self, action: int) -> None:
        if apply_action(self.sim, action):
            raise _DeadEnd
        self.actions.append(action)
        if self.priors is not None:
            self._look()

    def search(self, obj: int) -> None:
        """Look in ``obj``'s plausible places, most likely first, until it is in view."""
        assert self.priors is not None
        sim = self.sim
        for place, _ in self.priors[obj]:
            if self.known[obj]:
                return
            if place in self.checked:
                continue  # already looked there (and the object was not in view)
            room = -1 - place if place < 0 else sim.obj_room[place]
            if sim.agent_room != room:
                self.do(_WALK[room])
            if self.known[obj] or place < 0 or not _LIDDED[place]:
                continue
            if not sim.is_open[place] and not sim.is_on[place]:
                if sim.near != place:
                    self.do(_FIND[place])
                self.do(_OPEN[place])
        if not self.known[obj]:
            raise _DeadEnd

    def reach(self, obj: int) -> None:
        """Stand next to ``obj``, searching for it and opening what hides it if needed."""
        sim = self.sim
        if sim.near == obj:
            return
        if not self.known[obj]:
            self.search(obj)
        if sim.gone[obj]:
            raise _DeadEnd
        parent = sim.obj_parent[obj]
        if parent >= 0 and _LIDDED[parent] and not sim.is_open[parent]:
            self.reach(parent)
            self.do(_OPEN[parent])
        if sim.agent_room != sim.obj_room[obj]:
            self.do(_WALK[sim.obj_room[obj]])
        self.do(_FIND[obj])

    def free_hands(self) -> None:
        """Put whatever is held on a surface in this room (or into an open cupboard), never the trash."""
        sim = self.sim
        if sim.held < 0:
            return
        near = sim.near
        if near >= 0 and _SURFACE[near]:
            self.do(_PUT_ON[near])
            return
        if near >= 0 and _STORAGE[near] and sim.is_open[near]:
            self.do(_PUT_IN[near])
            return
        here = [o for o in range(N_OBJECTS) if sim.obj_room[o] == sim.agent_room]
        surfaces = [o for o in here if _SURFACE[o]]
        if surfaces:
            self.reach(surfaces[0])
            self.do(_PUT_ON[surfaces[0]])
            return
        storage = [o for o in here if _STORAGE[o]]
        if not storage:
            raise _DeadEnd
        self.reach(storage[0])
        if not sim.is_open[storage[0]]:
            self.do(_OPEN[storage[0]])
        self.do(_PUT_IN[storage[0]])

    def grab(self, obj: int) -> None:
        """Hold ``obj``, putting down anything else first."""
        if self.sim.held == obj:
            return
        if self.sim.gone[obj]:
            raise _DeadEnd
        self.free_hands()
        self.reach(obj)
        self.do(_GRAB[obj])

    def achieve(self, pred: Predicate) -> None:
        """Act until ``pred`` holds."""
        sim, obj, kind = self.sim, pred.obj, pred.kind
        if kind in ("inside", "on"):
            target = pred.target
            if sim.is_on[target]:
                raise _DeadEnd  # a running appliance cannot be loaded
            self.grab(obj)
            self.reach(target)
            if kind == "inside":
                if _LIDDED[target] and not sim.is_open[target]:
                    self.do(_OPEN[target])
                self.do(_PUT_IN[target])
            else:
                self.do(_PUT_ON[target])
        elif kind == "held":
            self.grab(obj)
        elif kind == "open":
            self.reach(obj)
            self.do(_OPEN[obj])
        elif kind == "closed":
            self.reach(obj)
            self.do(_CLOSE[obj])
        elif kind == "switched_on":
            self.reach(obj)
            if _LIDDED[obj] and sim.is_open[obj]:
                self.do(_CLOSE[obj])
            self.do(_SWITCH[obj])
        else:
            self.reach(obj)
            self.do(_SIT[obj])


def _run(planner: _Planner, task: Task) -> list[int] | None:
    held = planner.sim.held

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


def plan(world: World, task: Task) -> list[int] | None:
    """The privileged expert's actions from ``world`` to ``task``'s goal; ``[]`` if met, ``None`` if lost."""
    return _run(_Planner(world, None), task)


def search_script(
    world: World,
    task: Task,
    priors: Mapping[int, tuple[tuple[int, float], ...]],
    *,
    known: Collection[int] = (),
    checked: Collection[int] = (),
) -> list[int] | None:
    """The searcher's actions from ``world``: it knows only ``priors``, what it sees, the objects
    in ``known`` (seen before) and that the places in ``checked`` were looked at already."""
    return _run(_Planner(world, priors, known, checked), task)


@cache
def longest_script(task: Task, layout: str) -> int:
    """The longest search script of ``task`` over every placement of its objects and start room."""
    from rewardgym.envs.household.v1.world import N_ROOMS, PRIORS

    priors = PRIORS[layout]
    objs = sorted(o for o in task.objects if o in priors)
    base = {o: places[0][0] for o, places in priors.items()}
    longest = 0
    for combo in itertools.product(*[priors[o] for o in objs]):
        placements = {**base, **{o: place for o, (place, _) in zip(objs, combo, strict=True)}}
        for room in range(N_ROOMS):
            script = search_script(World(placements, room), task, priors)
            longest = max(longest, len(script or ()))
    return longest


def default_max_steps(task: Task, layout: str) -> int:
    """The step limit of ``task``: half again its longest expert script, at least 20."""
    return max(20, math.ceil(1.5 * longest_script(task, layout)))


__all__ = ["default_max_steps", "longest_script", "plan", "search_script"]
