"""Household-v1's observation: a display text and the same facts as documented array fields.

The agent sees only the current room: the objects there that are not shut inside a closed
container or thrown away (with their open/on state and what they stand on or in), what it
holds, what it stands next to or sits on, the actions it has completed, whether its last
action was executed (and, if not, which rule it broke) and the instruction. A judge or an
encoder reads the array fields; nothing needs to parse ``text``.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

from rewardgym.envs.household.engine import observation as _engine
from rewardgym.envs.household.engine.observation import TEXT_CHARSET, TEXT_HISTORY, TEXT_MAX_LENGTH
from rewardgym.envs.household.v1.actions import ACTION_NAMES, N_ACTIONS, N_REASONS
from rewardgym.envs.household.v1.instructions import N_INSTRUCTIONS
from rewardgym.envs.household.v1.tasks import N_TASKS
from rewardgym.envs.household.v1.world import HOUSE, World

FIELDS: dict[str, str] = {
    "text": "the display text (instruction, place, what is in view, held, last action, history)",
    "visible": "multi-hot over the 22 objects: in view now",
    "held": "multi-hot over the objects: the one in hand",
    "open": "multi-hot over the objects: visible containers that are open",
    "switched_on": "multi-hot over the objects: visible devices that are running",
    "completed": "multi-hot over the 61 actions: executed at least once this episode",
    "room": "the agent's room (index into ROOMS)",
    "near": "object id + 1 of what the agent stands next to (0: nothing)",
    "sitting": "object id + 1 of what the agent sits on (0: nothing)",
    "last_action": "action id + 1 of the previous step (0 at reset)",
    "last_result": "0 if the previous action was executed (or at reset), else the code of "
    "the rule it broke (index into REASONS)",
    "task": "task id (for bookkeeping; the encoders leave it out)",
    "instruction": "instruction id (for bookkeeping; the encoders leave it out)",
}
"""Every observation field and what it holds."""


def observation_space() -> spaces.Dict:
    """The ``Dict`` observation space of ``rewardgym/Household-v1`` (see ``FIELDS``)."""
    extra: dict[str, spaces.Space[Any]] = {
        "last_action": spaces.Discrete(N_ACTIONS + 1),
        "last_result": spaces.Discrete(N_REASONS),
    }
    return _engine.observation_space(HOUSE, N_ACTIONS, N_TASKS, N_INSTRUCTIONS, extra)


def render_text(
    world: World, visible: list[int], instruction: str, history: list[str], last: str
) -> str:
    """The display text: instruction, place, visible objects, held object, last action, history."""
    return _engine.render_text(HOUSE, world, visible, instruction, history, last)


def array_fields(
    world: World, visible: list[int], last_action: int, last_result: int
) -> dict[str, Any]:
    """The array fields of the observation (all but text, completed, task and instruction)."""
    fields = _engine.array_fields(HOUSE, world, visible)
    fields["last_action"] = last_action + 1
    fields["last_result"] = last_result
    return fields


def describe_last(action: int, reason: str) -> str:
    """The ``Last action`` line: the action's name and whether it was executed."""
    if action < 0:
        return ""
    name = ACTION_NAMES[action]
    return f"{name} (done)" if not reason else f"{name} (not done: {reason})"


__all__ = [
    "FIELDS",
    "TEXT_CHARSET",
    "TEXT_HISTORY",
    "TEXT_MAX_LENGTH",
    "array_fields",
    "describe_last",
    "observation_space",
    "render_text",
]
