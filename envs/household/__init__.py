"""The text household simulator: one engine (``engine/``) and its versions (``v0/``, ``v1/``).

``rewardgym.envs.household`` itself holds no version, so loading Household-v1 (or the engine)
never loads Household-v0. Its names are Household-v0's (``HouseholdEnv``, ``TASKS``, ...,
from :mod:`rewardgym.envs.household.v0`) and the SR / CGC / Plan metrics both versions share
(from :mod:`rewardgym.envs.household.engine.metrics`), each imported when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rewardgym.lazy import lazy_exports

if TYPE_CHECKING:
    from rewardgym.envs.household.engine.metrics import (
        EpisodeScore,
        goal_condition_completion,
        is_success,
        plan_match,
        score_episode,
        success_rate,
        summarize,
    )
    from rewardgym.envs.household.v0 import (
        ACTION_NAMES,
        ACTIONS,
        BEHAVIOURS,
        INSTRUCTION_KINDS,
        INSTRUCTIONS,
        LAYOUTS,
        N_ACTIONS,
        OBJECT_NAMES,
        OBJECTS,
        ROOMS,
        TASK_NAMES,
        TASKS,
        Action,
        HouseholdEnv,
        Instruction,
        Predicate,
        Task,
        World,
        action_id,
        apply_action,
        executable_actions,
        instructions_for,
        plan,
        predicate,
        task_id,
    )

_METRICS = (
    "EpisodeScore",
    "goal_condition_completion",
    "is_success",
    "plan_match",
    "score_episode",
    "success_rate",
    "summarize",
)
_V0 = (
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
)

__getattr__ = lazy_exports(
    __name__, {**dict.fromkeys(_METRICS, "engine.metrics"), **dict.fromkeys(_V0, "v0")}
)

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
