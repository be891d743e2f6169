"""A house's action table and its executability rules, shared by every Household version.

Eight behaviours over the house's objects make one discrete action set: ``walk to <room>``
and ``find <object>`` (behaviour "find"), then ``grab`` (grabbable), ``open`` and ``close``
(lidded), ``sit on`` (sittable), ``put on`` (surface), ``put in`` (container) and ``switch on``
(switchable), each in object order. An action that breaks a rule leaves the world unchanged;
:meth:`ActionTable.apply` returns the rule's code (``0``: executed) and the version's
``reasons`` the sentence for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardgym.envs.household.engine.house import House
from rewardgym.envs.household.engine.state import World

BEHAVIOURS: tuple[str, ...] = ("find", "grab", "open", "close", "sit", "put", "put in", "switch on")

# Rule codes, the indices into a version's reasons table.
ALREADY_THERE, NOT_IN_VIEW, ALREADY_HELD, HANDS_FULL, NOT_NEAR = 1, 2, 3, 4, 5
ALREADY_OPEN, ALREADY_CLOSED, RUNNING, ALREADY_SITTING, NOTHING_HELD = 6, 7, 8, 9, 10
CLOSED, ALREADY_ON, OPEN_DEVICE = 11, 12, 13
N_RULES = 14

RULE_SENTENCES: tuple[str, ...] = (
    "",
    "you are already in the {room}",
    "you cannot see the {name} here",
    "you are already holding the {name}",
    "your hands are full: you are holding the {held}",
    "you are not next to the {name}; find it first",
    "the {name} is already open",
    "the {name} is already closed",
    "the {name} is running; it cannot be opened",
    "you are already sitting on the {name}",
    "you are not holding anything to put down",
    "the {name} is closed; open it first",
    "the {name} is already on",
    "the {name} is open; close it before switching it on",
)
"""Why an action was not executed, by rule code (``""``: it was), filled with ``str.format``;
a version may word some rules its own way."""

_WALK, _FIND, _GRAB, _OPEN, _CLOSE, _SIT, _PUT_ON, _PUT_IN, _SWITCH = range(9)
_BY_FLAG: tuple[tuple[str, str, str], ...] = (
    ("grab", "grabbable", "grab {}"),
    ("open", "lidded", "open {}"),
    ("close", "lidded", "close {}"),
    ("sit", "sittable", "sit on {}"),
    ("put", "surface", "put on {}"),
    ("put in", "container", "put in {}"),
    ("switch on", "switchable", "switch on {}"),
)


@dataclass(frozen=True)
class Action:
    """One entry of the action set: a behaviour, its target (a room for walks) and its name."""

    id: int
    behaviour: str
    target: int
    name: str
    is_room: bool = False


def build_actions(house: House) -> tuple[Action, ...]:
    """The action set of ``house``, in the documented order."""
    table: list[tuple[str, int, str, bool]] = []
    table += [("find", room, f"walk to {name}", True) for room, name in enumerate(house.rooms)]
    table += [("find", o, f"find {name}", False) for o, name in enumerate(house.object_names)]
    for behaviour, flag, pattern in _BY_FLAG:
        table += [
            (behaviour, obj, pattern.format(spec.name), False)
            for obj, spec in enumerate(house.objects)
            if getattr(spec, flag)
        ]
    return tuple(Action(i, b, t, n, r) for i, (b, t, n, r) in enumerate(table))


class ActionTable:
    """The action set of one house and the rules that decide what each action does."""

    def __init__(self, house: House, reasons: tuple[str, ...] = RULE_SENTENCES) -> None:
        """Build the table; ``reasons`` gives the sentence of every rule code (``""`` for 0)."""
        if len(reasons) != N_RULES:
            raise ValueError(
                f"reasons needs {N_RULES} entries (one per rule code), got {len(reasons)}"
            )
        self.house = house
        self.reasons = reasons
        self.actions = build_actions(house)
        self.names: tuple[str, ...] = tuple(action.name for action in self.actions)
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.n_actions = len(self.actions)
        # Flat tables so that ``apply`` does list look-ups instead of attribute access.
        self.kind: tuple[int, ...] = tuple(
            _WALK if a.is_room else 1 + BEHAVIOURS.index(a.behaviour) for a in self.actions
        )
        self.target: tuple[int, ...] = tuple(a.target for a in self.actions)
        self.irreversible: frozenset[int] = frozenset(
            a.id
            for a in self.actions
            if (self.kind[a.id] == _PUT_IN and house.discards[a.target])
            or self.kind[a.id] == _SWITCH
        )

    def action_id(self, name: str) -> int:
        """The id of the action called ``name`` (for example ``"find fridge"``)."""
        try:
            return self.index[name]
        except KeyError:
            raise ValueError(
                f"unknown {self.house.label} action {name!r}: see {self.house.module}.ACTION_NAMES"
            ) from None

    def by_behaviour(self, pattern: str) -> dict[int, int]:
        """Target id to action id for every action named ``pattern.format(target name)``."""
        names = self.house.rooms if pattern == "walk to {}" else self.house.object_names
        return {
            t: self.index[pattern.format(name)]
            for t, name in enumerate(names)
            if pattern.format(name) in self.index
        }

    def reason_text(self, world: World, action: int, code: int) -> str:
        """The sentence for rule ``code`` broken by ``action`` in ``world`` (``""`` for code 0)."""
        if code == 0:
            return ""
        target = self.target[action]
        house = self.house
        name = house.rooms[target] if self.kind[action] == _WALK else house.object_names[target]
        held = house.object_names[world.held] if world.held >= 0 else ""
        return self.reasons[code].format(room=name, name=name, held=held)

    def apply(self, world: World, action: int) -> int:
        """Execute ``action`` on ``world`` in place; return 0, or the code of the rule it broke."""
        kind = self.kind[action]
        target = self.target[action]
        if kind == _WALK:
            if world.agent_room == target:
                return ALREADY_THERE
            world.agent_room = target
            world.near = -1
            world.sitting = -1
            return 0
        if kind == _FIND:
            if world.held == target:
                return ALREADY_HELD
            if not world.is_visible(target):
                return NOT_IN_VIEW
            world.near = target
            world.sitting = -1
            return 0
        if kind == _GRAB:
            if world.held == target:
                return ALREADY_HELD
            if world.held >= 0:
                return HANDS_FULL
            if world.near != target:
                return NOT_NEAR
            world.held = target
            # The agent stays by whatever the object was taken from, as in VirtualHome.
            world.near = world.obj_parent[target]
            world.obj_room[target] = -1
            world.obj_parent[target] = -1
            return 0
        if kind in (_OPEN, _CLOSE):
            if world.near != target:
                return NOT_NEAR
            opening = kind == _OPEN
            if world.is_open[target] == opening:
                return ALREADY_OPEN if opening else ALREADY_CLOSED
            if opening and world.is_on[target]:
                return RUNNING
            world.is_open[target] = opening
            return 0
        if kind == _SIT:
            if world.sitting == target:
                return ALREADY_SITTING
            if world.near != target:
                return NOT_NEAR
            world.sitting = target
            return 0
        lidded = self.house.lidded
        if kind in (_PUT_ON, _PUT_IN):
            held = world.held
            if held < 0:
                return NOTHING_HELD
            if world.near != target:
                return NOT_NEAR
            if kind == _PUT_IN and lidded[target] and not world.is_open[target]:
                return CLOSED
            world.held = -1
            world.obj_room[held] = world.obj_room[target]
            world.obj_parent[held] = target
            if self.house.discards[target]:
                world.gone[held] = True
            return 0
        if world.near != target:
            return NOT_NEAR
        if world.is_on[target]:
            return ALREADY_ON
        if lidded[target] and world.is_open[target]:
            return OPEN_DEVICE
        world.is_on[target] = True
        return 0

    def executable(self, world: World) -> list[int]:
        """Every action that ``world`` would execute now, found by trying each on a copy."""
        return [a for a in range(self.n_actions) if self.apply(world.copy(), a) == 0]


__all__ = [
    "BEHAVIOURS",
    "N_RULES",
    "RULE_SENTENCES",
    "RUNNING",
    "Action",
    "ActionTable",
    "build_actions",
]
