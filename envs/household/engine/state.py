"""The mutable state of a house: where every object is, what is open or on, where the agent is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from rewardgym.envs.household.engine.house import House


class World:
    """The state of one version's house (``house``, set by the version's subclass).

    Every field is a plain list or int so that copying and stepping stay cheap; ``-1`` means
    "none" for ``held``, ``near``, ``sitting`` and an object's ``parent``; an object that was
    thrown away has ``gone`` set and is nowhere in view.
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
    house: ClassVar[House]

    def _place(self, placements: Mapping[int, int], start_room: int) -> None:
        """Put each object of ``placements`` at its place id, the agent empty-handed in a room."""
        house = self.house
        self.obj_room = list(house.home_rooms)
        self.obj_parent = [-1] * house.n_objects
        for obj, place in placements.items():
            if place < 0:
                self.obj_room[obj] = -1 - place
            else:
                self.obj_parent[obj] = place
                self.obj_room[obj] = self.obj_room[place]
        self.is_open = [False] * house.n_objects
        self.is_on = [False] * house.n_objects
        self.gone = [False] * house.n_objects
        self.agent_room = start_room
        self.held = -1
        self.near = -1
        self.sitting = -1

    def copy(self) -> Self:
        """An independent copy, for planning ahead without touching this state."""
        other = type(self).__new__(type(self))
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
        return {name: getattr(self, name) for name in World.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore the fields written by ``__getstate__``."""
        for name, value in state.items():
            setattr(self, name, value)

    def __eq__(self, other: object) -> bool:
        """Two worlds of the same house are equal when every field is."""
        if not isinstance(other, World) or other.house is not self.house:
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in World.__slots__)

    def is_visible(self, obj: int) -> bool:
        """Whether ``obj`` is in the agent's room, not held, not gone, not in a closed container."""
        if self.obj_room[obj] != self.agent_room or obj == self.held or self.gone[obj]:
            return False
        parent = self.obj_parent[obj]
        return parent < 0 or not self.house.lidded[parent] or self.is_open[parent]

    def visible_objects(self) -> list[int]:
        """The objects the agent can see now, in the fixed object order."""
        room, held, parent_of, is_open = self.agent_room, self.held, self.obj_parent, self.is_open
        lidded, gone = self.house.lidded, self.gone
        visible = []
        for obj, obj_room in enumerate(self.obj_room):
            if obj_room != room or obj == held or gone[obj]:
                continue
            parent = parent_of[obj]
            if parent < 0 or not lidded[parent] or is_open[parent]:
                visible.append(obj)
        return visible

    def places_in_view(self) -> list[int]:
        """The places whose contents the agent sees now: this room's floor, surfaces, open lids."""
        room, house = self.agent_room, self.house
        here = [-1 - room]
        here += [o for o in house.surface_ids if self.obj_room[o] == room]
        here += [o for o in house.lidded_ids if self.obj_room[o] == room and self.is_open[o]]
        return here

    def location_of(self, obj: int) -> tuple[int, int]:
        """The room and the parent (``-1`` for the floor) of ``obj``; the room is -1 if held."""
        return self.obj_room[obj], self.obj_parent[obj]


__all__ = ["World"]
