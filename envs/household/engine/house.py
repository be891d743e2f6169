"""A house as data: its rooms, its objects with their affordances, and the tables derived from them.

Every Household version describes its house with one :class:`House`; the engine (world state,
action rules, observation, planner) reads only these tables, so a version differs from another
in its data, not in its code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ObjectSpec:
    """The fixed facts about one object: its name, home room and affordances.

    ``lidded`` containers open and close and hide what is inside while closed; a container
    that ``discards`` destroys what is put into it.
    """

    name: str
    room: str
    grabbable: bool = False
    container: bool = False
    lidded: bool = False
    surface: bool = False
    switchable: bool = False
    sittable: bool = False
    discards: bool = False


class House:
    """The rooms and objects of one Household version, with flat per-object look-up tables."""

    def __init__(
        self, label: str, module: str, rooms: tuple[str, ...], objects: tuple[ObjectSpec, ...]
    ) -> None:
        """Keep the tables; ``label`` and ``module`` name the version in error messages."""
        self.label = label
        self.module = module
        self.rooms = rooms
        self.objects = objects
        self.object_names: tuple[str, ...] = tuple(spec.name for spec in objects)
        self.object_index: dict[str, int] = {name: i for i, name in enumerate(self.object_names)}
        self.n_objects = len(objects)
        self.n_rooms = len(rooms)
        self.home_rooms: tuple[int, ...] = tuple(rooms.index(spec.room) for spec in objects)
        self.grabbable = tuple(spec.grabbable for spec in objects)
        self.container = tuple(spec.container for spec in objects)
        self.lidded = tuple(spec.lidded for spec in objects)
        self.surface = tuple(spec.surface for spec in objects)
        self.switchable = tuple(spec.switchable for spec in objects)
        self.sittable = tuple(spec.sittable for spec in objects)
        self.discards = tuple(spec.discards for spec in objects)
        self.surface_ids = tuple(o for o in range(self.n_objects) if self.surface[o])
        self.lidded_ids = tuple(o for o in range(self.n_objects) if self.lidded[o])
        self.article_names = tuple(f"the {name}" for name in self.object_names)

    def place_id(self, place: str) -> int:
        """A place as an int: ``-1 - room`` for a room floor, else the object id."""
        return -1 - self.rooms.index(place) if place in self.rooms else self.object_index[place]

    def place_name(self, place: int) -> str:
        """The name of a place id (a room for negative ids)."""
        return self.rooms[-1 - place] if place < 0 else self.object_names[place]


__all__ = ["House", "ObjectSpec"]
