"""The one household engine behind every Household version: house, world, actions, observation, planner.

A version is data on this engine (its :class:`~rewardgym.envs.household.engine.house.House`,
its rule sentences, its tasks and instructions, where its planner may put things down), as
Gymnasium's ``-vN`` ids are new rules on one engine: ``rewardgym.envs.household.v0`` holds
Household-v0's frozen data, ``rewardgym.envs.household.v1`` Household-v1's. What every version
shares beyond the rules lives here too: the scene names judges read (``scene.py``) and the
SR / CGC / Plan metrics (``metrics.py``).
"""

from __future__ import annotations

from rewardgym.envs.household.engine.actions import Action, ActionTable
from rewardgym.envs.household.engine.goals import Predicate, Task, WorldState
from rewardgym.envs.household.engine.house import House, ObjectSpec
from rewardgym.envs.household.engine.planner import PlannerRules
from rewardgym.envs.household.engine.state import World

__all__ = [
    "Action",
    "ActionTable",
    "House",
    "ObjectSpec",
    "PlannerRules",
    "Predicate",
    "Task",
    "World",
    "WorldState",
]
