"""Household-v1's house: rooms, objects, the plausible places of every key object, the state.

One house of four rooms and 22 objects. Each object has fixed affordances (grabbable, a
container with or without a lid, a surface, switchable, sittable). The seven grabbable key
objects have no fixed place: every episode draws each one's place from its *plausible places*
with the layout's prior weights (an apple is usually in the fridge, sometimes on the kitchen
table or the counter). ``layout="shifted"`` moves those plausible places, the cross-domain test
of COREN. Closed containers hide what is inside; the trash can has no lid and destroys what
goes into it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

ROOMS: tuple[str, ...] = ("kitchen", "living room", "bedroom", "bathroom")
LAYOUTS: tuple[str, ...] = ("default", "shifted")


@dataclass(frozen=True)
class ObjectSpec:
    """The fixed facts about one object: its name, home room and affordances."""

    name: str
    room: str
    grabbable: bool = False
    container: bool = False
    lidded: bool = False
    surface: bool = False
    switchable: bool = False
    sittable: bool = False
    discards: bool = False


OBJECTS: tuple[ObjectSpec, ...] = (
    ObjectSpec("fridge", "kitchen", container=True, lidded=True),
    ObjectSpec("microwave", "kitchen", container=True, lidded=True, switchable=True),
    ObjectSpec("kitchen cabinet", "kitchen", container=True, lidded=True),
    ObjectSpec("trash can", "kitchen", container=True, discards=True),
    ObjectSpec("kitchen table", "kitchen", surface=True),
    ObjectSpec("kitchen counter", "kitchen", surface=True),
    ObjectSpec("sofa", "living room", surface=True, sittable=True),
    ObjectSpec("tv", "living room", switchable=True),
    ObjectSpec("coffee table", "living room", surface=True),
    ObjectSpec("shelf", "living room", surface=True),
    ObjectSpec("bed", "bedroom", sittable=True),
    ObjectSpec("desk", "bedroom", surface=True),
    ObjectSpec("lamp", "bedroom", switchable=True),
    ObjectSpec("bathroom cabinet", "bathroom", container=True, lidded=True),
    ObjectSpec("washing machine", "bathroom", container=True, lidded=True, switchable=True),
    ObjectSpec("apple", "kitchen", grabbable=True),
    ObjectSpec("milk", "kitchen", grabbable=True),
    ObjectSpec("plate", "kitchen", grabbable=True),
    ObjectSpec("book", "bedroom", grabbable=True),
    ObjectSpec("remote control", "living room", grabbable=True),
    ObjectSpec("clothes", "bedroom", grabbable=True),
    ObjectSpec("towel", "bathroom", grabbable=True),
)
OBJECT_NAMES: tuple[str, ...] = tuple(spec.name for spec in OBJECTS)
OBJECT_INDEX: dict[str, int] = {name: i for i, name in enumerate(OBJECT_NAMES)}
N_OBJECTS = len(OBJECTS)
N_ROOMS = len(ROOMS)
KEY_OBJECTS: tuple[str, ...] = tuple(spec.name for spec in OBJECTS if spec.grabbable)

# A place is a room name (the floor) or the name of a container or surface.
_PRIORS: dict[str, dict[str, tuple[tuple[str, float], ...]]] = {
    "default": {
        "apple": (("fridge", 0.5), ("kitchen counter", 0.3), ("coffee table", 0.2)),
        "milk": (("fridge", 0.6), ("kitchen counter", 0.4)),
        "plate": (("kitchen cabinet", 0.5), ("kitchen table", 0.3), ("kitchen counter", 0.2)),
        "book": (("desk", 0.5), ("shelf", 0.3), ("sofa", 0.2)),
        "remote control": (("coffee table", 0.5), ("sofa", 0.3), ("desk", 0.2)),
        "clothes": (("bedroom", 0.5), ("bathroom", 0.3), ("sofa", 0.2)),
        "towel": (("bathroom cabinet", 0.5), ("bathroom", 0.3), ("bedroom", 0.2)),
    },
    "shifted": {
        "apple": (("coffee table", 0.5), ("desk", 0.3), ("fridge", 0.2)),
        "milk": (("kitchen cabinet", 0.6), ("fridge", 0.4)),
        "plate": (("coffee table", 0.5), ("kitchen counter", 0.3), ("kitchen cabinet", 0.2)),
        "book": (("kitchen table", 0.5), ("sofa", 0.3), ("desk", 0.2)),
        "remote control": (("desk", 0.5), ("shelf", 0.3), ("coffee table", 0.2)),
        "clothes": (("bathroom", 0.5), ("living room", 0.3), ("bedroom", 0.2)),
        "towel": (("bedroom", 0.5), ("sofa", 0.3), ("bathroom cabinet", 0.2)),
    },
}


def _place_id(place: str) -> int:
    """A place as an int: ``-1 - room`` for a room floor, else the object id."""
    return -1 - ROOMS.index(place) if place in ROOMS else OBJECT_INDEX[place]


PRIORS: dict[str, dict[int, tuple[tuple[int, float], ...]]] = {
    layout: {
        OBJECT_INDEX[obj]: tuple((_place_id(p), w) for p, w in places)
        for obj, places in table.items()
    }
    for layout, table in _PRIORS.items()
}
"""Per layout and key object id: its plausible places (``-1 - room`` for a floor) and weights,
most likely first. This order is also the expert's search order."""


def plausible_places(layout: str) -> dict[str, tuple[tuple[str, float], ...]]:
    """The plausible places of every key object in ``layout``, by name, most likely first."""
    if layout not in _PRIORS:
        raise ValueError(f"unknown layout {layout!r}: use one of {LAYOUTS}")
    return dict(_PRIORS[layout])


def place_name(place: int) -> str:
    """The name of a place id (a room for negative ids)."""
    return ROOMS[-1 - place] if place < 0 else OBJECT_NAMES[place]


def sample_placements(layout: str, rng: np.random.Generator) -> dict[int, int]:
    """One draw of every key object's place from ``layout``'s priors."""
    out = {}
    for obj, places in PRIORS[layout].items():
        weights = np.array([w for _, w in places])
        out[obj] = places[int(rng.choice(len(places), p=weights / weights.sum()))][0]
    return out


class World:
    """The mutable state of the house; every field is a plain list or int so copies are cheap.

    ``-1`` means "none" for ``held``, ``near``, ``sitting`` and an object's ``parent``; an
    object in the trash has ``gone`` set and is nowhere.
    """

    __slots__ = (
        "agent_room",
        "gone",
        "held",
        "is_on",
        "is_open",
        "near",
        "obj_parent",
        "obj_room",
        "sitting",
    )

    def __init__(self, placements: Mapping[int, int], start_room: int = 0) -> None:
        """Put every key object at its place (see ``sample_placements``), the agent in ``start_room``."""
        self.obj_room = [ROOMS.index(spec.room) for spec in OBJECTS]
        self.obj_parent = [-1] * N_OBJECTS
        for obj, place in placements.items():
            if place < 0:
                self.obj_room[obj] = -1 - place
            else:
                self.obj_parent[obj] = place
                self.obj_room[obj] = self.obj_room[place]
        self.is_open = [False] * N_OBJECTS
        self.is_on = [False] * N_OBJECTS
        self.gone = [False] * N_OBJECTS
        self.agent_room = start_room
        self.held = -1
        self.near = -1
        self.sitting = -1

    def copy(self) -> World:
        """An independent copy, for planning ahead without touching this state."""
        other = World.__new__(World)
        other.obj_room = self.obj_room.copy()
        other.obj_parent = self.obj_parent.copy()
        other.is_open = self.is_open.copy()
        other.is_on = self.is_on.copy()
        other.gone = self.gone.copy()
        other.agent_room = self.agent_room
        other.held = self.held
        other.near = self.near
        other.sitting = self.sitting
        return other

    def __getstate__(self) -> dict[str, Any]:
        """Plain fields, so that a ``World`` pickles despite ``__slots__``."""
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore the fields written by ``__getstate__``."""
        for name, value in state.items():
            setattr(self, name, value)

    def __eq__(self, other: object) -> bool:
        """Two worlds are equal when every field is."""
        if not isinstance(other, World):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def is_visible(self, obj: int) -> bool:
        """Whether ``obj`` is in the agent's room, not held, not gone, not in a closed container."""
        if self.obj_room[obj] != self.agent_room or obj == self.held or self.gone[obj]:
            return False
        parent = self.obj_parent[obj]
        return parent < 0 or not _LIDDED[parent] or self.is_open[parent]

    def visible_objects(self) -> list[int]:
        """The objects the agent can see now, in the fixed object order."""
        return [obj for obj in range(N_OBJECTS) if self.is_visible(obj)]

    def places_in_view(self) -> list[int]:
        """The places whose contents the agent sees now: this room's floor, surfaces, open lids."""
        room = self.agent_room
        here = [-1 - room]
        here += [o for o in _SURFACES if self.obj_room[o] == room]
        here += [o for o in _LIDDED_IDS if self.obj_room[o] == room and self.is_open[o]]
        return here


_LIDDED: tuple[bool, ...] = tuple(spec.lidded for spec in OBJECTS)
_SURFACES: tuple[int, ...] = tuple(o for o, spec in enumerate(OBJECTS) if spec.surface)
_LIDDED_IDS: tuple[int, ...] = tuple(o for o, spec in enumerate(OBJECTS) if spec.lidded)

__all__ = [
    "KEY_OBJECTS",
    "LAYOUTS",
    "N_OBJECTS",
    "N_ROOMS",
    "OBJECTS",
    "OBJECT_INDEX",
    "OBJECT_NAMES",
    "PRIORS",
    "ROOMS",
    "ObjectSpec",
    "World",
    "place_name",
    "plausible_places",
    "sample_placements",
]
