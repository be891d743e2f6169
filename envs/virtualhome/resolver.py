"""From a class to an instance: which node an action on ``<class>`` acts on.

The agent names classes; the simulator acts on node ids and ignores class names. For each
argument the candidates are the nodes of that class, those in the agent's room first, then
those no earlier action with the same verb acted on, then by id; the action runs on the first
combination the simulator accepts. Every id comes
from the episode's own graph, so the simulator never sees an unknown id (its WALK crashes on
one) or a class name that does not match its id.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rewardgym.envs.virtualhome.simulator import execute, relation


@dataclass(frozen=True)
class SceneIndex:
    """What the resolver and the observation need to know of one initial graph."""

    character: int
    rooms: dict[int, str]
    """Room node id -> room class name."""
    by_class: dict[str, tuple[int, ...]]
    """Class name -> the ids of its nodes, ascending."""
    names: dict[int, str]
    """Node id -> class name."""

    @classmethod
    def of(cls, graph: Any) -> SceneIndex:
        """Index the nodes of a simulator ``EnvironmentGraph``."""
        names: dict[int, str] = {}
        rooms: dict[int, str] = {}
        by_class: dict[str, list[int]] = {}
        for node in graph.get_nodes():
            names[node.id] = node.class_name
            by_class.setdefault(node.class_name, []).append(node.id)
            if node.category == "Rooms":
                rooms[node.id] = node.class_name
        characters = by_class.get("character", [])
        if not characters:
            raise ValueError("the scene graph has no character node")
        return cls(
            min(characters),
            dict(sorted(rooms.items())),
            {c: tuple(sorted(ids)) for c, ids in by_class.items()},
            names,
        )


def room_of(state: Any, node: int, rooms: Mapping[int, str]) -> int | None:
    """The room node that ``node`` is inside (``None``: none)."""
    inside = state.get_node_ids_from(node, relation("INSIDE"))
    return next((r for r in rooms if r in inside), None)


def candidates(
    state: Any, scene: SceneIndex, name: str, room: int | None, used: frozenset[int] = frozenset()
) -> list[int]:
    """The nodes of class ``name``: those inside ``room`` first, then by whether in ``used``, then id."""
    ids = scene.by_class.get(name, ())
    inside = {i for i in ids if room is not None and room_of(state, i, scene.rooms) == room}
    return sorted(ids, key=lambda i: (i not in inside, i in used, i))


def resolve_and_execute(
    state: Any,
    scene: SceneIndex,
    verb: str,
    classes: Sequence[str],
    used: frozenset[int] = frozenset(),
) -> tuple[Any, str, tuple[int, ...]]:
    """Run ``verb`` on the first instances of ``classes`` the simulator accepts.

    ``used`` are the nodes an earlier action with the same verb acted on: within a room they
    come last, so a second ``[GRAB] <plate>`` takes another plate than the one already put away.

    Returns the next state (``None``: no combination was accepted), the reason of the first
    refusal (empty when executed) and the ids acted on.
    """
    missing = [c for c in classes if c not in scene.by_class]
    if missing:
        return None, f"there is no <{missing[0]}> in this house", ()
    room = room_of(state, scene.character, scene.rooms)
    pools = [candidates(state, scene, c, room, used) for c in classes]
    first_reason = ""
    for ids in itertools.product(*pools):
        following, reason = execute(state, verb, list(zip(classes, ids, strict=True)))
        if following is not None:
            return following, "", tuple(ids)
        first_reason = first_reason or reason
    return None, first_reason or "not executable", ()


__all__ = ["SceneIndex", "candidates", "resolve_and_execute", "room_of"]
