"""VirtualHome-v0's observation: a text the sentence encoder reads whole, and the same facts as arrays.

What the agent sees is its room: the objects inside it that no closed container hides, those
it stands close to, what it holds, its last action and whether it was executed, and the
actions it has completed. ``observation="compact"`` (the default) writes the instruction,
the room, at most :data:`COMPACT_CLOSE` objects close by (with their open/on states), the held
objects, the last action and the last :data:`COMPACT_DONE` completed actions: it leaves out
the list of the room's objects (52 at the median, about 900 characters, longer than
all-MiniLM-L6-v2's 256 word pieces on its own), which the ``visible`` array still carries.
``observation="full"`` adds that list and every completed action. The encoders read the
array fields; nothing needs to parse ``text``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces

from rewardgym.envs.household.engine.observation import TEXT_CHARSET
from rewardgym.envs.spaces import SharedText
from rewardgym.envs.virtualhome.actions import action_table
from rewardgym.envs.virtualhome.resolver import SceneIndex, room_of
from rewardgym.envs.virtualhome.simulator import relation, state_names

OBSERVATIONS: tuple[str, ...] = ("compact", "full")
TEXT_MAX_LENGTH = 8192
COMPACT_CLOSE = 8
"""Objects close to the agent that the compact text names (the nearest classes, by name)."""
COMPACT_DONE = 5
"""Completed actions that the compact text names (the latest)."""
SHOWN_STATES: tuple[str, ...] = ("OPEN", "CLOSED", "ON", "OFF")
HIDDEN_CATEGORIES: frozenset[str] = frozenset(
    {"Rooms", "Characters", "Walls", "Floor", "Floors", "Ceiling"}
)
"""Node categories that are never listed as objects."""

FIELDS: dict[str, str] = {
    "text": "the text (see the module docstring for what compact and full hold)",
    "visible": "multi-hot over the action set's classes: in the agent's room, not shut away",
    "close": "multi-hot over the classes: the agent stands close to one",
    "held": "multi-hot over the classes: in the agent's hands",
    "open": "multi-hot over the classes: a visible one is open",
    "switched_on": "multi-hot over the classes: a visible one is on",
    "completed": "multi-hot over the actions: executed at least once this episode",
    "room": "the agent's room (index into ROOMS)",
    "last_action": "action id + 1 of the previous step (0 at reset)",
    "last_result": "0 if the previous action was executed (or at reset), 1 if not",
    "task": "task category id (for bookkeeping; the encoders leave it out)",
    "instruction": "program index among all usable programs (for bookkeeping; left out too)",
}
ROOMS: tuple[str, ...] = ("bathroom", "bedroom", "dining_room", "home_office")
"""TrimmedTestScene1's rooms."""


@functools.cache
def object_classes(action_set: str) -> tuple[str, ...]:
    """The classes the actions of ``action_set`` name, sorted (the multi-hot fields index this)."""
    return tuple(sorted({c for a in action_table(action_set) for c in a.classes}))


def observation_space(action_set: str, n_tasks: int, n_programs: int) -> spaces.Dict:
    """The ``Dict`` observation space for ``action_set`` (see :data:`FIELDS`)."""
    n_classes = len(object_classes(action_set))
    n_actions = len(action_table(action_set))
    return spaces.Dict(
        {
            "text": SharedText(TEXT_MAX_LENGTH, min_length=1, charset=TEXT_CHARSET),
            "visible": spaces.MultiBinary(n_classes),
            "close": spaces.MultiBinary(n_classes),
            "held": spaces.MultiBinary(n_classes),
            "open": spaces.MultiBinary(n_classes),
            "switched_on": spaces.MultiBinary(n_classes),
            "completed": spaces.MultiBinary(n_actions),
            "room": spaces.Discrete(len(ROOMS)),
            "last_action": spaces.Discrete(n_actions + 1),
            "last_result": spaces.Discrete(2),
            "task": spaces.Discrete(n_tasks),
            "instruction": spaces.Discrete(n_programs),
        }
    )


@dataclass(frozen=True)
class View:
    """What the agent perceives now (node ids)."""

    room: str
    visible: tuple[int, ...]
    close: tuple[int, ...]
    held: tuple[int, ...]


def room_members(graph: Any, scene: SceneIndex) -> dict[int, tuple[int, ...]]:
    """Per room, the listable nodes inside it in the initial graph."""
    out: dict[int, list[int]] = {room: [] for room in scene.rooms}
    inside = relation("INSIDE")
    for node in graph.get_nodes():
        if node.category in HIDDEN_CATEGORIES:
            continue
        for room in graph.get_node_ids_from(node.id, inside):
            if room in out:
                out[room].append(node.id)
    return {room: tuple(sorted(ids)) for room, ids in out.items()}


def perceive(
    state: Any, scene: SceneIndex, members: dict[int, tuple[int, ...]], moved: set[int]
) -> View:
    """The agent's view of ``state``: ``moved`` are nodes actions touched (they may change rooms)."""
    char = scene.character
    room = room_of(state, char, scene.rooms)
    held = tuple(
        sorted(
            state.get_node_ids_from(char, relation("HOLDS_RH"))
            | state.get_node_ids_from(char, relation("HOLDS_LH"))
        )
    )
    inside = relation("INSIDE")
    visible = []
    for node in sorted(set(members.get(room, ())) | moved) if room is not None else ():
        if node in held or room_of(state, node, scene.rooms) != room:
            continue
        containers = [c for c in state.get_node_ids_from(node, inside) if c not in scene.rooms]
        if any("CLOSED" in state_names(state.get_node(c)) for c in containers):
            continue
        visible.append(node)
    close = tuple(
        sorted(
            n
            for n in state.get_node_ids_from(char, relation("CLOSE"))
            if state.get_node(n).category not in HIDDEN_CATEGORIES
        )
    )
    # Every program's graph puts the character inside a room; the first room stands in otherwise.
    name = scene.rooms[room] if room is not None else ROOMS[0]
    return View(name, tuple(visible), close, held)


def array_fields(state: Any, scene: SceneIndex, view: View, action_set: str) -> dict[str, Any]:
    """The multi-hot class fields and the room of ``view``."""
    classes = object_classes(action_set)
    index = {c: i for i, c in enumerate(classes)}
    fields = {k: np.zeros(len(classes), dtype=np.int8) for k in ("visible", "close", "held")}
    flags = {k: np.zeros(len(classes), dtype=np.int8) for k in ("open", "switched_on")}
    for key, nodes in (("visible", view.visible), ("close", view.close), ("held", view.held)):
        for node in nodes:
            i = index.get(scene.names[node])
            if i is not None:
                fields[key][i] = 1
    for node in view.visible:
        i = index.get(scene.names[node])
        if i is None:
            continue
        states = state_names(state.get_node(node))
        flags["open"][i] |= "OPEN" in states
        flags["switched_on"][i] |= "ON" in states
    return {**fields, **flags, "room": ROOMS.index(view.room)}


def _described(state: Any, scene: SceneIndex, node: int) -> str:
    shown = [s.lower() for s in state_names(state.get_node(node)) if s in SHOWN_STATES]
    name = scene.names[node]
    return f"{name} ({', '.join(shown)})" if shown else name


def _listing(state: Any, scene: SceneIndex, nodes: Sequence[int], limit: int | None) -> str:
    seen: dict[str, str] = {}
    for node in nodes:
        seen.setdefault(scene.names[node], _described(state, scene, node))
    items = [seen[name] for name in sorted(seen)]
    if limit is not None and len(items) > limit:
        items = [*items[:limit], f"{len(items) - limit} more"]
    return ", ".join(items) if items else "nothing"


def render_text(
    state: Any,
    scene: SceneIndex,
    view: View,
    instruction: str,
    last: str,
    done: Sequence[str],
    observation: str,
) -> str:
    """The text observation, compact or full (see the module docstring)."""
    full = observation == "full"
    lines = [
        f"Instruction: {instruction}",
        f"You are in the {view.room.replace('_', ' ')}.",
        f"Close to: {_listing(state, scene, view.close, None if full else COMPACT_CLOSE)}.",
        f"Holding: {_listing(state, scene, view.held, None)}.",
    ]
    if full:
        lines.append(f"In the room: {_listing(state, scene, view.visible, None)}.")
    if last:
        lines.append(f"Last action: {last}")
    shown = done if full else done[-COMPACT_DONE:]
    if shown:
        lines.append("Done: " + ", ".join(shown))
    text = "\n".join(lines)
    text = "".join(ch if ch in TEXT_CHARSET else " " for ch in text)
    return text[:TEXT_MAX_LENGTH]


__all__ = [
    "FIELDS",
    "OBSERVATIONS",
    "ROOMS",
    "View",
    "array_fields",
    "object_classes",
    "observation_space",
    "perceive",
    "render_text",
    "room_members",
]
