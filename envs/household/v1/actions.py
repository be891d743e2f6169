"""Household-v1's action set, its executability rules and its irreversible steps.

Eight behaviours over the house's objects make one ``Discrete(61)`` action set:

=============  ==============================================  =====
behaviour      actions                                         count
=============  ==============================================  =====
find           ``walk to <room>``, ``find <object>``           4 + 22
grab           ``grab <key object>``                           7
open, close    ``open <lidded container>``, ``close ...``      5 + 5
sit            ``sit on <sofa|bed>``                           2
put            ``put on <surface>`` (what is held)             6
put in         ``put in <container>`` (what is held)           6
switch on      ``switch on <device>``                          4
=============  ==============================================  =====

An action that breaks a rule leaves the world unchanged; :func:`apply_action` returns the
rule's code (``0``: executed) and ``REASONS`` its text. Two kinds of step cannot be undone:
``put in trash can`` throws the held object away, and ``switch on`` starts an appliance's
only cycle (there is no switch off, and a running appliance cannot be opened), so switching
one on too early, or with the wrong load, wastes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardgym.envs.household.v1.world import N_OBJECTS, OBJECT_NAMES, OBJECTS, ROOMS, World

BEHAVIOURS: tuple[str, ...] = ("find", "grab", "open", "close", "sit", "put", "put in", "switch on")

REASONS: tuple[str, ...] = (
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
"""Why an action was not executed, by code (``0``: it was). Fill with ``str.format``."""
N_REASONS = len(REASONS)


@dataclass(frozen=True)
class Action:
    """One entry of the action set: a behaviour, its target (a room for walks) and its name."""

    id: int
    behaviour: str
    target: int
    name: str
    is_room: bool = False


def _build_actions() -> tuple[Action, ...]:
    table: list[tuple[str, int, str, bool]] = []
    table += [("find", room, f"walk to {name}", True) for room, name in enumerate(ROOMS)]
    table += [("find", obj, f"find {name}", False) for obj, name in enumerate(OBJECT_NAMES)]
    by_flag = (
        ("grab", "grabbable", "grab {}"),
        ("open", "lidded", "open {}"),
        ("close", "lidded", "close {}"),
        ("sit", "sittable", "sit on {}"),
        ("put", "surface", "put on {}"),
        ("put in", "container", "put in {}"),
        ("switch on", "switchable", "switch on {}"),
    )
    for behaviour, flag, pattern in by_flag:
        table += [
            (behaviour, obj, pattern.format(spec.name), False)
            for obj, spec in enumerate(OBJECTS)
            if getattr(spec, flag)
        ]
    return tuple(Action(i, b, t, n, r) for i, (b, t, n, r) in enumerate(table))


ACTIONS: tuple[Action, ...] = _build_actions()
ACTION_NAMES: tuple[str, ...] = tuple(action.name for action in ACTIONS)
ACTION_INDEX: dict[str, int] = {name: i for i, name in enumerate(ACTION_NAMES)}
N_ACTIONS = len(ACTIONS)

# Flat tables so that ``apply_action`` does list look-ups instead of attribute access.
_WALK, _FIND, _GRAB, _OPEN, _CLOSE, _SIT, _PUT_ON, _PUT_IN, _SWITCH = range(9)
_KIND: tuple[int, ...] = tuple(
    _WALK if a.is_room else 1 + BEHAVIOURS.index(a.behaviour) for a in ACTIONS
)
_TARGET: tuple[int, ...] = tuple(a.target for a in ACTIONS)
_LIDDED: tuple[bool, ...] = tuple(spec.lidded for spec in OBJECTS)
_DISCARDS: tuple[bool, ...] = tuple(spec.discards for spec in OBJECTS)
IRREVERSIBLE: frozenset[int] = frozenset(
    a.id
    for a in ACTIONS
    if (_KIND[a.id] == _PUT_IN and _DISCARDS[a.target]) or _KIND[a.id] == _SWITCH
)
"""Action ids whose effect cannot be undone: throwing away and switching on."""


def action_id(name: str) -> int:
    """The id of the action called ``name`` (for example ``"find fridge"``)."""
    try:
        return ACTION_INDEX[name]
    except KeyError:
        raise ValueError(
            f"unknown Household-v1 action {name!r}: see rewardgym.envs.household.v1.ACTION_NAMES"
        ) from None


def reason_text(world: World, action: int, code: int) -> str:
    """The sentence for rule ``code`` broken by ``action`` in ``world`` (``""`` for code 0)."""
    if code == 0:
        return ""
    target = _TARGET[action]
    name = ROOMS[target] if _KIND[action] == _WALK else OBJECT_NAMES[target]
    held = OBJECT_NAMES[world.held] if world.held >= 0 else ""
    return REASONS[code].format(room=name, name=name, held=held)


def apply_action(world: World, action: int) -> int:
    """Execute ``action`` on ``world`` in place; return 0, or the code of the rule it broke."""
    kind = _KIND[action]
    target = _TARGET[action]
    if kind == _WALK:
        if world.agent_room == target:
            return 1
        world.agent_room = target
        world.near = -1
        world.sitting = -1
        return 0
    if kind == _FIND:
        if world.held == target:
            return 3
        if not world.is_visible(target):
            return 2
        world.near = target
        world.sitting = -1
        return 0
    if kind == _GRAB:
        if world.held == target:
            return 3
        if world.held >= 0:
            return 4
        if world.near != target:
            return 5
        world.held = target
        # The agent stays by whatever the object was taken from, as in VirtualHome.
        world.near = world.obj_parent[target]
        world.obj_room[target] = -1
        world.obj_parent[target] = -1
        return 0
    if kind in (_OPEN, _CLOSE):
        if world.near != target:
            return 5
        opening = kind == _OPEN
        if world.is_open[target] == opening:
            return 6 if opening else 7
        if opening and world.is_on[target]:
            return 8
        world.is_open[target] = opening
        return 0
    if kind == _SIT:
        if world.sitting == target:
            return 9
        if world.near != target:
            return 5
        world.sitting = target
        return 0
    if kind in (_PUT_ON, _PUT_IN):
        held = world.held
        if held < 0:
            return 10
        if world.near != target:
            return 5
        if kind == _PUT_IN and _LIDDED[target] and not world.is_open[target]:
            return 11
        world.held = -1
        world.obj_room[held] = world.obj_room[target]
        world.obj_parent[held] = target
        if _DISCARDS[target]:
            world.gone[held] = True
        return 0
    if world.near != target:
        return 5
    if world.is_on[target]:
        return 12
    if _LIDDED[target] and world.is_open[target]:
        return 13
    world.is_on[target] = True
    return 0


def executable_actions(world: World) -> list[int]:
    """Every action that ``world`` would execute now, found by trying each on a copy."""
    return [a for a in range(N_ACTIONS) if apply_action(world.copy(), a) == 0]


assert N_OBJECTS == 22 and N_ACTIONS == 61, "the action table must keep its documented size"

__all__ = [
    "ACTIONS",
    "ACTION_INDEX",
    "ACTION_NAMES",
    "BEHAVIOURS",
    "IRREVERSIBLE",
    "N_ACTIONS",
    "N_REASONS",
    "REASONS",
    "Action",
    "action_id",
    "apply_action",
    "executable_actions",
    "reason_text",
]
