"""Household-v1's observation: a display text and the same facts as documented array fields.

The agent sees only the current room: the objects there that are not shut inside a closed
container or thrown away (with their open/on state and what they stand on or in), what it
holds, what it stands next to or sits on, the actions it has completed, whether its last
action was executed (and, if not, which rule it broke) and the instruction. A judge or an
encoder reads the array fields; nothing needs to parse ``text``.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

from rewardgym.envs.household.v1.actions import ACTION_NAMES, N_ACTIONS, N_REASONS
from rewardgym.envs.household.v1.instructions import N_INSTRUCTIONS
from rewardgym.envs.household.v1.tasks import N_TASKS
from rewardgym.envs.household.v1.world import (
    N_OBJECTS,
    N_ROOMS,
    OBJECT_NAMES,
    OBJECTS,
    ROOMS,
    World,
)

TEXT_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"
TEXT_MAX_LENGTH = 4096
TEXT_HISTORY = 40
"""The text lists at most this many completed actions, so it stays inside the Text space."""

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
    return spaces.Dict(
        {
            "text": spaces.Text(TEXT_MAX_LENGTH, min_length=1, charset=TEXT_CHARSET),
            "visible": spaces.MultiBinary(N_OBJECTS),
            "held": spaces.MultiBinary(N_OBJECTS),
            "open": spaces.MultiBinary(N_OBJECTS),
            "switched_on": spaces.MultiBinary(N_OBJECTS),
            "completed": spaces.MultiBinary(N_ACTIONS),
            "room": spaces.Discrete(N_ROOMS),
            "near": spaces.Discrete(N_OBJECTS + 1),
            "sitting": spaces.Discrete(N_OBJECTS + 1),
            "last_action": spaces.Discrete(N_ACTIONS + 1),
            "last_result": spaces.Discrete(N_REASONS),
            "task": spaces.Discrete(N_TASKS),
            "instruction": spaces.Discrete(N_INSTRUCTIONS),
        }
    )


_LIDDED = tuple(spec.lidded for spec in OBJECTS)
_SWITCHABLE = tuple(spec.switchable for spec in OBJECTS)
_ARTICLE_NAMES = tuple(f"the {name}" for name in OBJECT_NAMES)


def _describe(world: World, obj: int) -> str:
    states = []
    if _LIDDED[obj]:
        states.append("open" if world.is_open[obj] else "closed")
    if _SWITCHABLE[obj]:
        states.append("on" if world.is_on[obj] else "off")
    parent = world.obj_parent[obj]
    if parent >= 0:
        states.append(("in " if OBJECTS[parent].container else "on ") + _ARTICLE_NAMES[parent])
    if not states:
        return OBJECT_NAMES[obj]
    return f"{OBJECT_NAMES[obj]} ({', '.join(states)})"


def render_text(
    world: World, visible: list[int], instruction: str, history: list[str], last: str
) -> str:
    """The display text: instruction, place, visible objects, held object, last action, history."""
    where = f"You are in the {ROOMS[world.agent_room]}"
    if world.sitting >= 0:
        where += f", sitting on {_ARTICLE_NAMES[world.sitting]}"
    elif world.near >= 0:
        where += f", next to {_ARTICLE_NAMES[world.near]}"
    seen = ", ".join([_describe(world, obj) for obj in visible]) or "nothing"
    held = OBJECT_NAMES[world.held] if world.held >= 0 else "nothing"
    completed = ", ".join(history[-TEXT_HISTORY:]) or "none"
    return (
        f"Instruction: {instruction}\n{where}.\nYou see: {seen}.\n"
        f"You are holding: {held}.\nLast action: {last or 'none'}.\n"
        f"Completed actions: {completed}."
    )


def array_fields(
    world: World, visible: list[int], last_action: int, last_result: int
) -> dict[str, Any]:
    """The array fields of the observation (all but text, completed, task and instruction)."""
    seen = np.zeros(N_OBJECTS, dtype=np.int8)
    seen[visible] = 1
    held = np.zeros(N_OBJECTS, dtype=np.int8)
    if world.held >= 0:
        held[world.held] = 1
    is_open = np.zeros(N_OBJECTS, dtype=np.int8)
    is_on = np.zeros(N_OBJECTS, dtype=np.int8)
    for obj in visible:
        if world.is_open[obj]:
            is_open[obj] = 1
        if world.is_on[obj]:
            is_on[obj] = 1
    return {
        "visible": seen,
        "held": held,
        "open": is_open,
        "switched_on": is_on,
        "room": world.agent_room,
        "near": world.near + 1,
        "sitting": world.sitting + 1,
        "last_action": last_action + 1,
        "last_result": last_result,
    }


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
