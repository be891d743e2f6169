"""The household's rooms, objects and mutable world state, with the two object layouts.

The house has four rooms and 21 objects. Each object has fixed affordances (grabbable,
container, surface, switchable, sittable) and a place in the house that the layout sets: a
room floor, the inside of a container or the top of a surface. The ``shifted`` layout moves
the key (grabbable) objects to other rooms or containers, the cross-domain setting of COREN.
"""

from __future__ import annotations

from dataclasses import dataclass

ROOMS: tuple[str, ...] = ("kitchen", "living room", "bedroom", "bathroom")
LAYOUTS: tuple[str, ...] = ("default", "shifted")


@dataclass(frozen=True)
class ObjectSpec:
    """The fixed facts about one household object: its name and what can be done with it."""

    name: str
    room: str
    grabbable: bool = False
    container: bool = False
    surface: bool = False
    switchable: bool = False
    sittable: bool = False


OBJECTS: tuple[ObjectSpec, ...] = (
    ObjectSpec("fridge", "kitchen", container=True),
    ObjectSpec("microwave", "kitchen", container=True, switchable=True),
    ObjectSpec("kitchen table", "kitchen", surface=True),
    ObjectSpec("kitchen cabinet", "kitchen", container=True),
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
    ObjectSpec("bathroom cabinet", "bathroom", container=True),
    ObjectSpec("towel", "bathroom", grabbable=True),
    ObjectSpec("toothbrush", "bathroom", grabbable=True),
    ObjectSpec("washing machine", "bathroom", container=True, switchable=True),
)
OBJECT_NAMES: tuple[str, ...] = tuple(spec.name for spec in OBJECTS)
OBJECT_INDEX: dict[str, int] = {name: i for i, name in enumerate(OBJECT_NAMES)}
N_OBJECTS = len(OBJECTS)
N_ROOMS = len(ROOMS)

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


class World:
    """The mutable state of the house: where every object is, what is open or on, the agent.

    Every field is a plain list or int so that copying and stepping stay cheap; ``-1`` means
    "none" for ``held``, ``near``, ``sitting`` and an object's ``parent``.
    """

    __slots__ = (
        "agent_room",
        "held",
        "is_on",
        "is_open",
        "near",
        "obj_parent",
        "obj_room",
        "sitting",
    )

    def __init__(self, layout: str = "default", start_room: int = 0) -> None:
        """Place every object as ``layout`` says and the agent, empty-handed, in ``start_room``."""
        placements = layout_placements(layout)
        self.obj_room = [ROOMS.index(spec.room) for spec in OBJECTS]
        self.obj_parent = [-1] * N_OBJECTS
        for name, place in placements.items():
            obj = OBJECT_INDEX[name]
            if isinstance(place, str):
                self.obj_room[obj] = ROOMS.index(place)
            else:
                parent = OBJECT_INDEX[place[1]]
                self.obj_parent[obj] = parent
                self.obj_room[obj] = self.obj_room[parent]
        self.is_open = [False] * N_OBJECTS
        self.is_on = [False] * N_OBJECTS
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
        other.agent_room = self.agent_room
        other.held = self.held
        other.near = self.near
        other.sitting = self.sitting
        return other

    def __getstate__(self) -> dict[str, object]:
        """Plain fields, so that a ``World`` pickles despite ``__slots__``."""
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, object]) -> None:
        """Restore the fields written by ``__getstate__``."""
        for name, value in state.items():
            setattr(self, name, value)

    def __eq__(self, other: object) -> bool:
        """Two worlds are equal when every field is."""
        if not isinstance(other, World):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def is_visible(self, obj: int) -> bool:
        """Whether ``obj`` is in the agent's room and not shut inside a closed container."""
        if self.obj_room[obj] != self.agent_room or obj == self.held:
            return False
        parent = self.obj_parent[obj]
        return parent < 0 or not OBJECTS[parent].container or self.is_open[parent]

    def visible_objects(self) -> list[int]:
        """The objects the agent can see now, in the fixed object order."""
        room, held, parent_of, is_open = self.agent_room, self.held, self.obj_parent, self.is_open
        visible = []
        for obj, obj_room in enumerate(self.obj_room):
            if obj_room != room or obj == held:
                continue
            parent = parent_of[obj]
            if parent < 0 or not _IS_CONTAINER[parent] or is_open[parent]:
                visible.append(obj)
        return visible

    def location_of(self, obj: int) -> tuple[int, int]:
        """The room and the parent (``-1`` for the floor) of ``obj``; the room is -1 if held."""
        return self.obj_room[obj], self.obj_parent[obj]


_IS_CONTAINER: tuple[bool, ...] = tuple(spec.container for spec in OBJECTS)

__all__ = [
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
