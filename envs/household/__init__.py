"""``rewardgym/Household-v0``: a text household simulator with tasks, instructions, an expert and metrics."""

from __future__ import annotations

from rewardgym.envs.household.actions import (
    ACTION_NAMES,
    ACTIONS,
    BEHAVIOURS,
    N_ACTIONS,
    Action,
    action_id,
    apply_action,
    executable_actions,
)
from rewardgym.envs.household.env import HouseholdEnv
from rewardgym.envs.household.expert import plan
from rewardgym.envs.household.instructions import (
    INSTRUCTION_KINDS,
    INSTRUCTIONS,
    Instruction,
    instructions_for,
)
from rewardgym.envs.household.metrics import (
    EpisodeScore,
    goal_condition_completion,
    is_success,
    plan_match,
    score_episode,
    success_rate,
    summarize,
)
from rewardgym.envs.household.tasks import TASK_NAMES, TASKS, Predicate, Task, predicate, task_id
from rewardgym.envs.household.world import LAYOUTS, OBJECT_NAMES, OBJECTS, ROOMS, World

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
    "EpisodeScore",
    "HouseholdEnv",
    "Instruction",
    "Predicate",
    "Task",
    "World",
    "action_id",
    "apply_action",
    "executable_actions",
    "goal_condition_completion",
    "instructions_for",
    "is_success",
    "plan",
    "plan_match",
    "predicate",
    "score_episode",
    "success_rate",
    "summarize",
    "task_id",
]
