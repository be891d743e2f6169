"""The planner shared by every Household version: a privileged expert and a searcher.

Both act on a private copy of the world and work through the unmet goal predicates in a fixed
order (placements, held objects, doors, switches, closing, sitting last), simulating every
step so that the plan they return is executable.

- :func:`plan` is privileged: it knows where every object is, so it goes straight to it; its
  length is the true remaining distance to the goal. ``None`` means the goal is unreachable.
- :func:`search_script` is what a person who does not know the placements would do: before it
  can reach a key object it has not seen yet, it looks in the object's plausible places, most
  likely first, and stops as soon as the object is in view.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from rewardgym.envs.household.engine.actions import ActionTable
from rewardgym.envs.household.engine.goals import Predicate, Task
from rewardgym.envs.household.engine.state import World

Priors = Mapping[int, tuple[tuple[int, float], ...]]
"""Per key object id: its plausible places (``-1 - room`` for a floor) and weights."""

_ORDER = {"inside": 0, "on": 0, "held": 1, "open": 2, "switched_on": 3, "closed": 4, "sitting": 5}


class PlannerRules:
    """The action ids a planner uses, and where it may put down what it holds."""

    def __init__(self, table: ActionTable, put_down_in: tuple[bool, ...]) -> None:
        """Look up every behaviour's actions; ``put_down_in`` marks the containers to free hands into."""
        self.table = table
        self.put_down_in = put_down_in
        self.walk = table.by_behaviour("walk to {}")
        self.find = table.by_behaviour("find {}")
        self.open = table.by_behaviour("open {}")
        self.close = table.by_behaviour("close {}")
        self.grab = table.by_behaviour("grab {}")
        self.put_on = table.by_behaviour("put on {}")
        self.put_in = table.by_behaviour("put in {}")
        self.switch = table.by_behaviour("switch on {}")
        self.sit = table.by_behaviour("sit on {}")


class _DeadEnd(Exception):
    """Raised inside the planner when a needed step is not executable from the current state."""


class _Planner:
    """Builds one plan by acting on a private copy of the world."""

    def __init__(
        self,
        rules: PlannerRules,
        world: World,
        priors: Priors | None,
        known: Collection[int] = (),
        checked: Collection[int] = (),
    ) -> None:
        self.rules = rules
        self.house = rules.table.house
        self.sim = world.copy()
        self.actions: list[int] = []
        self.priors = priors
        self.checked = set(checked)
        # The searcher knows where an object is once it has seen it (or has moved it itself).
        self.known = [True] * self.house.n_objects
        if priors is not None:
            for obj in priors:
                self.known[obj] = obj in known
            self._look()

    def _look(self) -> None:
        sim = self.sim
        self.checked.update(sim.places_in_view())
        for obj in range(self.house.n_objects):
            if not self.known[obj] and (sim.held == obj or sim.is_visible(obj)):
                self.known[obj] = True

    def do(self, action: int) -> None:
        if self.rules.table.apply(self.sim, action):
            raise _DeadEnd
        self.actions.append(action)
        if self.priors is not None:
            self._look()

    def search(self, obj: int) -> None:
        """Look in ``obj``'s plausible places, most likely first, until it is in view."""
        assert self.priors is not None
        sim, rules, lidded = self.sim, self.rules, self.house.lidded
        for place, _ in self.priors[obj]:
            if self.known[obj]:
                return
            if place in self.checked:
                continue  # already looked there (and the object was not in view)
            room = -1 - place if place < 0 else sim.obj_room[place]
            if sim.agent_room != room:
                self.do(rules.walk[room])
            if self.known[obj] or place < 0 or not lidded[place]:
                continue
            if not sim.is_open[place] and not sim.is_on[place]:
                if sim.near != place:
                    self.do(rules.find[place])
                self.do(rules.open[place])
        if not self.known[obj]:
            raise _DeadEnd

    def reach(self, obj: int) -> None:
        """Stand next to ``obj``, searching for it and opening what hides it if needed."""
        sim, rules = self.sim, self.rules
        if sim.near == obj:
            return
        if not self.known[obj]:
            self.search(obj)
        if sim.gone[obj]:
            raise _DeadEnd
        parent = sim.obj_parent[obj]
        if parent >= 0 and self.house.lidded[parent] and not sim.is_open[parent]:
            self.reach(parent)
            self.do(rules.open[parent])
        if sim.agent_room != sim.obj_room[obj]:
            self.do(rules.walk[sim.obj_room[obj]])
        self.do(rules.find[obj])

    def free_hands(self) -> None:
        """Put whatever is held on a surface in this room, or into an open container that may take it."""
        sim, rules, surface, into = self.sim, self.rules, self.house.surface, self.rules.put_down_in
        if sim.held < 0:
            return
        near = sim.near
        if near >= 0 and surface[near]:
            self.do(rules.put_on[near])
            return
        if near >= 0 and into[near] and sim.is_open[near]:
            self.do(rules.put_in[near])
            return
        here = [o for o in range(self.house.n_objects) if sim.obj_room[o] == sim.agent_room]
        surfaces = [o for o in here if surface[o]]
        if surfaces:
            self.reach(surfaces[0])
            self.do(rules.put_on[surfaces[0]])
            return
        containers = [o for o in here if into[o] and not sim.is_on[o]]
        if not containers:
            raise _DeadEnd
        self.reach(containers[0])
        if not sim.is_open[containers[0]]:
            self.do(rules.open[containers[0]])
        self.do(rules.put_in[containers[0]])

    def grab(self, obj: int) -> None:
        """Hold ``obj``, putting down anything else first."""
        if self.sim.held == obj:
            return
        if self.sim.gone[obj]:
            raise _DeadEnd
        self.free_hands()
        self.reach(obj)
        self.do(self.rules.grab[obj])

    def achieve(self, pred: Predicate) -> None:
        """Act until ``pred`` holds."""
        sim, rules, obj, kind = self.sim, self.rules, pred.obj, pred.kind
        lidded = self.house.lidded
        if kind in ("inside", "on"):
            target = pred.target
            if sim.is_on[target]:
                raise _DeadEnd  # a running appliance cannot be loaded
            self.grab(obj)
            self.reach(target)
            if kind == "inside":
                if lidded[target] and not sim.is_open[target]:
                    self.do(rules.open[target])
                self.do(rules.put_in[target])
            else:
                self.do(rules.put_on[target])
        elif kind == "held":
            self.grab(obj)
        elif kind == "open":
            self.reach(obj)
            self.do(rules.open[obj])
        elif kind == "closed":
            self.reach(obj)
            self.do(rules.close[obj])
        elif kind == "switched_on":
            self.reach(obj)
            if lidded[obj] and sim.is_open[obj]:
                self.do(rules.close[obj])
            self.do(rules.switch[obj])
        else:
            self.reach(obj)
            self.do(rules.sit[obj])


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


def plan(rules: PlannerRules, world: World, task: Task) -> list[int] | None:
    """The privileged expert's actions from ``world`` to ``task``'s goal; ``[]`` if met, ``None`` if lost."""
    return _run(_Planner(rules, world, None), task)


def search_script(
    rules: PlannerRules,
    world: World,
    task: Task,
    priors: Priors,
    *,
    known: Collection[int] = (),
    checked: Collection[int] = (),
) -> list[int] | None:
    """The searcher's actions from ``world``: it knows only ``priors``, what it sees, the objects
    in ``known`` (seen before) and that the places in ``checked`` were looked at already."""
    return _run(_Planner(rules, world, priors, known, checked), task)


__all__ = ["PlannerRules", "Priors", "plan", "search_script"]
