"""A house's partial observation: a display text and the same facts as array fields.

The agent sees only the current room: the objects there that are not shut inside a closed
container or thrown away (with their open/on state and what they stand on or in), what it
holds, what it stands next to or sits on and the actions it has completed; a version may add
fields (Household-v1: the last action and its result).
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

from rewardgym.envs.household.engine.house import House
from rewardgym.envs.household.engine.state import World
from rewardgym.envs.spaces import SharedText

TEXT_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"
TEXT_MAX_LENGTH = 4096
TEXT_HISTORY = 40
"""The text lists at most this many completed actions, so it stays inside the Text space."""


def observation_space(
    house: House,
    n_actions: int,
    n_tasks: int,
    n_instructions: int,
    extra: dict[str, spaces.Space[Any]] | None = None,
) -> spaces.Dict:
    """The ``Dict`` observation space: text, the array fields, ``extra`` fields, task and instruction."""
    n = house.n_objects
    fields: dict[str, spaces.Space[Any]] = {
        "text": SharedText(TEXT_MAX_LENGTH, min_length=1, charset=TEXT_CHARSET),
        "visible": spaces.MultiBinary(n),
        "held": spaces.MultiBinary(n),
        "open": spaces.MultiBinary(n),
        "switched_on": spaces.MultiBinary(n),
        "completed": spaces.MultiBinary(n_actions),
        "room": spaces.Discrete(house.n_rooms),
        "near": spaces.Discrete(n + 1),
        "sitting": spaces.Discrete(n + 1),
    }
    fields.update(extra or {})
    fields["task"] = spaces.Discrete(n_tasks)
    fields["instruction"] = spaces.Discrete(n_instructions)
    return spaces.Dict(fields)


def _describe(house: House, world: World, obj: int) -> str:
    states = []
    if house.lidded[obj]:
        states.append("open" if world.is_open[obj] else "closed")
    if house.switchable[obj]:
        states.append("on" if world.is_on[obj] else "off")
    parent = world.obj_parent[obj]
    if parent >= 0:
        states.append(("in " if house.container[parent] else "on ") + house.article_names[parent])
    if not states:
        return house.object_names[obj]
    return f"{house.object_names[obj]} ({', '.join(states)})"


def render_text(
    house: House,
    world: World,
    visible: list[int],
    instruction: str,
    history: list[str],
    last: str | None = None,
) -> str:
    """The display text: instruction, place, visible, held, last action (unless ``None``), history."""
    names = house.article_names
    where = f"You are in the {house.rooms[world.agent_room]}"
    if world.sitting >= 0:
        where += f", sitting on {names[world.sitting]}"
    elif world.near >= 0:
        where += f", next to {names[world.near]}"
    seen = ", ".join([_describe(house, world, obj) for obj in visible]) or "nothing"
    held = house.object_names[world.held] if world.held >= 0 else "nothing"
    last_line = "" if last is None else f"Last action: {last or 'none'}.\n"
    completed = ", ".join(history[-TEXT_HISTORY:]) or "none"
    return (
        f"Instruction: {instruction}\n{where}.\nYou see: {seen}.\n"
        f"You are holding: {held}.\n{last_line}Completed actions: {completed}."
    )


def array_fields(house: House, world: World, visible: list[int]) -> dict[str, Any]:
    """The shared array fields (visible, held, open, switched_on, room, near, sitting)."""
    n = house.n_objects
    seen = np.zeros(n, dtype=np.int8)
    seen[visible] = 1
    held = np.zeros(n, dtype=np.int8)
    if world.held >= 0:
        held[world.held] = 1
    is_open = np.zeros(n, dtype=np.int8)
    is_on = np.zeros(n, dtype=np.int8)
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
    }


__all__ = [
    "TEXT_CHARSET",
    "TEXT_HISTORY",
    "TEXT_MAX_LENGTH",
    "array_fields",
    "observation_space",
    "render_text",
]
