"""Household-v0's symbolic expert: the engine's privileged planner under v0's rules.

The planner reads the full world state (the expert is privileged: it knows where everything
is, in either layout), works through the unmet goal predicates in a fixed order (placements
first, then switches and doors, sitting last), and simulates every step on a copy of the
world so that the plan it returns is executable. After a perturbation it simply plans again
from the new state; a state from which the goal can no longer be reached gives ``None``.
Household-v0's planner frees its hands into any open container (v1's never into an appliance).
"""

from __future__ import annotations

from rewardgym.envs.household.engine import planner as _engine
from rewardgym.envs.household.engine.planner import PlannerRules
from rewardgym.envs.household.v0.actions import TABLE
from rewardgym.envs.household.v0.tasks import Task
from rewardgym.envs.household.v0.world import HOUSE, World

RULES = PlannerRules(TABLE, put_down_in=HOUSE.container)
"""Household-v0's planner rules: its action table; hands are freed into any container."""


def plan(world: World, task: Task) -> list[int] | None:
    """The expert's action ids from ``world`` to ``task``'s goal; ``[]`` if met, ``None`` if stuck."""
    return _engine.plan(RULES, world, task)


__all__ = ["RULES", "plan"]
