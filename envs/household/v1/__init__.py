"""``rewardgym/Household-v1``: longer tasks, drawn hidden placements, irreversible wrong steps."""

from __future__ import annotations

from rewardgym.envs.household.v1.actions import (
    ACTION_NAMES,
    ACTIONS,
    BEHAVIOURS,
    IRREVERSIBLE,
    N_ACTIONS,
    REASONS,
    Action,
    action_id,
    apply_action,
    executable_actions,
)
from rewardgym.envs.household.v1.env import HouseholdV1Env
from rewardgym.envs.household.v1.instructions import (
    INSTRUCTION_KINDS,
    INSTRUCTIONS,
    Instruction,
    instructions_for,
    split_name,
)
from rewardgym.envs.household.v1.observation import FIELDS
from rewardgym.envs.household.v1.planner import default_max_steps, plan, search_script
from rewardgym.envs.household.v1.tasks import TASK_NAMES, TASKS, Predicate, Task, predicate, task_id
from rewardgym.envs.household.v1.world import (
    KEY_OBJECTS,
    LAYOUTS,
    OBJECT_NAMES,
    OBJECTS,
    PRIORS,
    ROOMS,
    World,
    plausible_places,
    sample_placements,
)

__all__ = [
    "ACTIONS",
    "ACTION_NAMES",
    "BEHAVIOURS",
    "FIELDS",
    "INSTRUCTIONS",
    "INSTRUCTION_KINDS",
    "IRREVERSIBLE",
    "KEY_OBJECTS",
    "LAYOUTS",
    "N_ACTIONS",
    "OBJECTS",
    "OBJECT_NAMES",
    "PRIORS",
    "REASONS",
    "ROOMS",
    "TASKS",
    "TASK_NAMES",
    "Action",
    "HouseholdV1Env",
    "Instruction",
    "Predicate",
    "Task",
    "World",
    "action_id",
    "apply_action",
    "default_max_steps",
    "executable_actions",
    "instructions_for",
    "plan",
    "plausible_places",
    "predicate",
    "sample_placements",
    "search_script",
    "split_name",
    "task_id",
]
