"""The household's partial observation: a text description and the same facts as arrays.

The agent sees only the current room: the objects there that are not shut inside a closed
container (with their open/on state and what they stand on or in), what it holds, what it
stands next to or sits on, the actions it has completed and the instruction.
"""

from __future__ import annotations

import string

import numpy as np
from gymnasium import spaces

from rewardgym.envs.household.actions import N_ACTIONS
from rewardgym.envs.household.instructions import N_INSTRUCTIONS
from rewardgym.envs.household.tasks import N_TASKS
from rewardgym.envs.household.world import N_OBJECTS, N_ROOMS, OBJECT_NAMES, OBJECTS, ROOMS, World

TEXT_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n"
TEXT_MAX_LENGTH = 4096

# Fields of the structured part, in the order the flat encoding concatenates them.
MULTI_HOT_FIELDS: tuple[str, ...] = ("visible", "held", "open", "switched_on", "completed")
INDEX_FIELDS: tuple[str, ...] = ("room", "near", "sitting")
ID_FIELDS: tuple[str, ...] = ("task", "instruction")


def observation_space() -> spaces.Dict:
    """The ``Dict`` observation space of ``rewardgym/Household-v0``.

    ``near`` and ``sitting`` hold ``object id + 1`` (0 means none); ``completed`` is indexed
    by action id; ``task`` and ``instruction`` are ids into ``TASKS`` and ``INSTRUCTIONS``.
    """
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
            "task": spaces.Discrete(N_TASKS),
            "instruction": spaces.Discrete(N_INSTRUCTIONS),
        }
    )


_IS_CONTAINER = tuple(spec.container for spec in OBJECTS)
_IS_SWITCHABLE = tuple(spec.switchable for spec in OBJECTS)
_ARTICLE_NAMES = tuple(f"the {name}" for name in OBJECT_NAMES)


def _describe(world: World, obj: int) -> str:
    states = []
    if _IS_CONTAINER[obj]:
        states.append("open" if world.is_open[obj] else "closed")
    if _IS_SWITCHABLE[obj]:
        states.append("on" if world.is_on[obj] else "off")
    parent = world.obj_parent[obj]
    if parent >= 0:
        states.append(("in " if _IS_CONTAINER[parent] else "on ") + _ARTICLE_NAMES[parent])
    if not states:
        return OBJECT_NAMES[obj]
    return f"{OBJECT_NAMES[obj]} ({', '.join(states)})"


def render_text(world: World, visible: list[int], instruction: str, completed: str) -> str:
    """The text observation: instruction, place, visible objects, held object, completed actions."""
    where = f"You are in the {ROOMS[world.agent_room]}"
    if world.sitting >= 0:
        where += f", sitting on {_ARTICLE_NAMES[world.sitting]}"
    elif world.near >= 0:
        where += f", next to {_ARTICLE_NAMES[world.near]}"
    seen = ", ".join([_describe(world, obj) for obj in visible]) or "nothing"
    held = OBJECT_NAMES[world.held] if world.held >= 0 else "nothing"
    return (
        f"Instruction: {instruction}\n{where}.\nYou see: {seen}.\n"
        f"You are holding: {held}.\nCompleted actions: {completed or 'none'}."
    )


def structured_fields(world: World, visible: list[int]) -> dict[str, np.ndarray | int]:
    """The array fields of the observation (all but text, task and instruction)."""
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
    }


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
