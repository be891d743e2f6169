"""The household's partial observation: a text description and the same facts as arrays.

The agent sees only the current room: the objects there that are not shut inside a closed
container (with their open/on state and what they stand on or in), what it holds, what it
stands next to or sits on, the actions it has completed and the instruction.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from rewardgym.envs.household.engine import observation as _engine
from rewardgym.envs.household.engine.observation import TEXT_CHARSET, TEXT_MAX_LENGTH
from rewardgym.envs.household.v0.actions import N_ACTIONS
from rewardgym.envs.household.v0.instructions import N_INSTRUCTIONS
from rewardgym.envs.household.v0.tasks import N_TASKS
from rewardgym.envs.household.v0.world import HOUSE, World

# Fields of the structured part, in the order the flat encoding concatenates them.
MULTI_HOT_FIELDS: tuple[str, ...] = ("visible", "held", "open", "switched_on", "completed")
INDEX_FIELDS: tuple[str, ...] = ("room", "near", "sitting")
ID_FIELDS: tuple[str, ...] = ("task", "instruction")


def observation_space() -> spaces.Dict:
    """The ``Dict`` observation space of ``rewardgym/Household-v0``.

    ``near`` and ``sitting`` hold ``object id + 1`` (0 means none); ``completed`` is indexed
    by action id; ``task`` and ``instruction`` are ids into ``TASKS`` and ``INSTRUCTIONS``.
    """
    return _engine.observation_space(HOUSE, N_ACTIONS, N_TASKS, N_INSTRUCTIONS)


def render_text(world: World, visible: list[int], instruction: str, history: list[str]) -> str:
    """The text observation: instruction, place, visible objects, held object, completed actions."""
    return _engine.render_text(HOUSE, world, visible, instruction, history)


def structured_fields(world: World, visible: list[int]) -> dict[str, Any]:
    """The array fields of the observation (all but text, task and instruction)."""
    return _engine.array_fields(HOUSE, world, visible)


__all__ = [
    "ID_FIELDS",
    "INDEX_FIELDS",
    "MULTI_HOT_FIELDS",
    "TEXT_CHARSET",
    "TEXT_MAX_LENGTH",
    "observation_space",
    "render_text",
    "structured_fields",
]
