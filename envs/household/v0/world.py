"""The household's rooms, objects and mutable world state, with the two object layouts.

The house has four rooms and 21 objects. Each object has fixed affordances (grabbable,
container, surface, switchable, sittable) and a place in the house that the layout sets: a
room floor, the inside of a container or the top of a surface. The ``shifted`` layout moves
the key (grabbable) objects to other rooms or containers, the cross-domain setting of COREN.
"""

from __future__ import annotations

from rewardgym.envs.household.engine.house import House, ObjectSpec
from rewardgym.envs.household.engine.state import World as _EngineWorld

ROOMS: tuple[str, ...] = ("kitchen", "living room", "bedroom", "bathroom")
LAYOUTS: tuple[str, ...] = ("default", "shifted")

# Every Household-v0 container has a door (``lidded``); none destroys what goes in.
OBJECTS: tuple[ObjectSpec, ...] = (
    ObjectSpec("fridge", "kitchen", container=True, lidded=True),
    ObjectSpec("microwave", "kitchen", container=True, lidded=True, switchable=True),
    ObjectSpec("kitchen table", "kitchen", surface=True),
    ObjectSpec("kitchen cabinet", "kitchen", container=True, lidded=True),
    ObjectSpec("apple", "kitchen", grabbable=True),
    ObjectSpec("milk", "kitchen", grabbable=True),
    ObjectSpec("plate", "kitchen", grabbable=True),
    ObjectSpec("sofa", "living room", sittable=True),
    ObjectSpec("tv", "living room", switchable=True),
    ObjectSpec("coffee table", "living room", surface=True),
    ObjectSpec("remote control", "living room", grabbable=True),
    ObjectSpec("book", "living room", grabbable=True),
    ObjectSpec("bed", "bedroom", sittable=True),
    ObjectSpec("desk", "bedroom", surface=True),
    ObjectSpec("chair", "bedroom", sittable=True),
    ObjectSpec("computer", "bedroom", switchable=True),
    ObjectSpec("clothes", "bedroom", grabbable=True),
    ObjectSpec("bathroom cabinet", "bathroom", container=True, lidded=True),
    ObjectSpec("towel", "bathroom", grabbable=True),
    ObjectSpec("toothbrush", "bathroom", grabbable=True),
    ObjectSpec("washing machine", "bathroom", container=True, lidded=True, switchable=True),
)
HOUSE = House("household", "rewardgym.envs.household", ROOMS, OBJECTS)
"""Household-v0's house as the engine reads it."""
OBJECT_NAMES: tuple[str, ...] = HOUSE.object_names
OBJECT_INDEX: dict[str, int] = HOUSE.object_index
N_OBJECTS = HOUSE.n_objects
N_ROOMS = HOUSE.n_rooms

# Where each grabbable object starts: a room (on the floor), ("in", container) or ("on", surface).
Placement = str | tuple[str, str]
_PLACEMENTS: dict[str, dict[str, Placement]] = {
    "default": {
        "apple": ("on", "coffee table"),
        "milk": ("on", "kitchen table"),
        "plate": ("in", "kitchen cabinet"),
        "remote control": ("on", "desk"),
        "book": ("on", "desk"),
        "clothes": "bedroom",
        "towel": "bathroom",
        "toothbrush": ("in", "bathroom cabinet"),
    },
    "shifted": {
        "apple": ("on", "kitchen table"),
        "milk": ("in", "kitchen cabinet"),
        "plate": ("on", "coffee table"),
        "remote control": ("on", "kitchen table"),
        "book": ("on", "kitchen table"),
        "clothes": "bathroom",
        "towel": ("on", "desk"),
        "toothbrush": ("in", "kitchen cabinet"),
    },
}


def layout_placements(layout: str) -> dict[str, Placement]:
    """The starting place of every grabbable object in ``layout``."""
    try:
        return dict(_PLACEMENTS[layout])
    except KeyError:
        raise ValueError(f"unknown layout {layout!r}: use one of {LAYOUTS}") from None


def _place_ids(layout: str) -> dict[int, int]:
    """``layout``'s placements as engine place ids (``-1 - room`` for a floor)."""
    placements = layout_placements(layout)
    return {
        OBJECT_INDEX[name]: HOUSE.place_id(place if isinstance(place, str) else place[1])
        for name, place in placements.items()
    }


class World(_EngineWorld):
    """The mutable state of Household-v0's house: where every object is, what is open or on, the agent.

    Every field is a plain list or int so that copying and stepping stay cheap; ``-1`` means
    "none" for ``held``, ``near``, ``sitting`` and an object's ``parent``.
    """

    __slots__ = ()
    house = HOUSE

    def __init__(self, layout: str = "default", start_room: int = 0) -> None:
        """Place every object as ``layout`` says and the agent, empty-handed, in ``start_room``."""
        self._place(_place_ids(layout), start_room)


__all__ = [
    "HOUSE",
    "LAYOUTS",
    "N_OBJECTS",
    "N_ROOMS",
    "OBJECTS",
    "OBJECT_INDEX",
    "OBJECT_NAMES",
    "ROOMS",
    "ObjectSpec",
    "World",
    "layout_placements",
]
