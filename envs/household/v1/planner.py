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

from rewardgym.envs.household.engine import planner as _engine
from rewardgym.envs.household.engine.planner import PlannerRules
from rewardgym.envs.household.v1.actions import TABLE
from rewardgym.envs.household.v1.tasks import Task
from rewardgym.envs.household.v1.world import HOUSE, N_ROOMS, PRIORS, World

RULES = PlannerRules(
    TABLE,
    put_down_in=tuple(
        lid and not dev for lid, dev in zip(HOUSE.lidded, HOUSE.switchable, strict=True)
    ),
)
"""Household-v1's planner rules: hands are freed only into lidded storage, never an appliance or
the trash can."""


def plan(world: World, task: Task) -> list[int] | None:
    """The privileged expert's actions from ``world`` to ``task``'s goal; ``[]`` if met, ``None`` if lost."""
    return _engine.plan(RULES, world, task)


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
    return _engine.search_script(RULES, world, task, priors, known=known, checked=checked)


@cache
def longest_script(task: Task, layout: str) -> int:
    """The longest search script of ``task`` over every placement of its objects and start room."""
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


__all__ = ["RULES", "default_max_steps", "longest_script", "plan", "search_script"]
