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

import numpy as np

from rewardgym.envs.household.engine.house import House, ObjectSpec
from rewardgym.envs.household.engine.state import World as _EngineWorld

ROOMS: tuple[str, ...] = ("kitchen", "living room", "bedroom", "bathroom")
LAYOUTS: tuple[str, ...] = ("default", "shifted")


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
HOUSE = House("Household-v1", "rewardgym.envs.household.v1", ROOMS, OBJECTS)
"""Household-v1's house as the engine reads it."""
OBJECT_NAMES: tuple[str, ...] = HOUSE.object_names
OBJECT_INDEX: dict[str, int] = HOUSE.object_index
N_OBJECTS = HOUSE.n_objects
N_ROOMS = HOUSE.n_rooms
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


PRIORS: dict[str, dict[int, tuple[tuple[int, float], ...]]] = {
    layout: {
        OBJECT_INDEX[obj]: tuple((HOUSE.place_id(p), w) for p, w in places)
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
    return HOUSE.place_name(place)


def sample_placements(layout: str, rng: np.random.Generator) -> dict[int, int]:
    """One draw of every key object's place from ``layout``'s priors."""
    out = {}
    for obj, places in PRIORS[layout].items():
        weights = np.array([w for _, w in places])
        out[obj] = places[int(rng.choice(len(places), p=weights / weights.sum()))][0]
    return out


class World(_EngineWorld):
    """The mutable state of Household-v1's house; every field is a plain list or int so copies are cheap.

    ``-1`` means "none" for ``held``, ``near``, ``sitting`` and an object's ``parent``; an
    object in the trash has ``gone`` set and is nowhere.
    """

    __slots__ = ()
    house = HOUSE

    def __init__(self, placements: Mapping[int, int], start_room: int = 0) -> None:
        """Put every key object at its place (see ``sample_placements``), the agent in ``start_room``."""
        self._place(placements, start_room)


__all__ = [
    "HOUSE",
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
