"""``rewardgym/Household-v0``: the frozen first household version: its house, tasks, instructions and expert."""

from __future__ import annotations

from rewardgym.envs.household.v0.actions import (
    ACTION_NAMES,
    ACTIONS,
    BEHAVIOURS,
    N_ACTIONS,
    Action,
    action_id,
    apply_action,
    executable_actions,
)
from rewardgym.envs.household.v0.env import HouseholdEnv
from rewardgym.envs.household.v0.expert import plan
from rewardgym.envs.household.v0.instructions import (
    INSTRUCTION_KINDS,
    INSTRUCTIONS,
    Instruction,
    instructions_for,
)
from rewardgym.envs.household.v0.tasks import TASK_NAMES, TASKS, Predicate, Task, predicate, task_id
from rewardgym.envs.household.v0.world import LAYOUTS, OBJECT_NAMES, OBJECTS, ROOMS, World

__all__ = [
    "ACTIONS",
    "ACTION_NAMES",
    "BEHAVIOURS",
    "INSTRUCTIONS",
    "INSTRUCTION_KINDS",
    "LAYOUTS",
    "N_ACTIONS",
    "OBJECTS",
    "OBJECT_NAMES",
    "ROOMS",
    "TASKS",
    "TASK_NAMES",
    "Action",
    "HouseholdEnv",
    "Instruction",
    "Predicate",
    "Task",
    "World",
    "action_id",
    "apply_action",
    "executable_actions",
    "instructions_for",
    "plan",
    "predicate",
    "task_id",
]
