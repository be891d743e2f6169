"""The household's discrete action set and its executability rules.

Eight behaviours over objects make one ``Discrete(58)`` action set:

=============  ===========================================  =====
behaviour      actions                                      count
=============  ===========================================  =====
walk / find    ``walk to <room>``, ``find <object>``        4 + 21
grab           ``grab <grabbable>``                         8
open, close    ``open <container>``, ``close <container>``  5 + 5
sit            ``sit on <sofa|bed|chair>``                  3
put            ``put on <surface>`` (what is held)          3
put in         ``put in <container>`` (what is held)        5
switch on      ``switch on <device>``                       4
=============  ===========================================  =====

An action that breaks a rule leaves the world unchanged; :func:`apply_action` then returns
the reason (an empty string means it was executed).
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardgym.envs.household.world import N_OBJECTS, OBJECT_NAMES, OBJECTS, ROOMS, World

BEHAVIOURS: tuple[str, ...] = (
    "find",
    "grab",
    "open",
    "close",
    "sit",
    "put",
    "put in",
    "switch on",
)


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
        ("open", "container", "open {}"),
        ("close", "container", "close {}"),
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

# Flat tables so that ``apply_action`` does two list look-ups instead of attribute access.
_KIND: tuple[int, ...] = tuple(-1 if a.is_room else BEHAVIOURS.index(a.behaviour) for a in ACTIONS)
_TARGET: tuple[int, ...] = tuple(a.target for a in ACTIONS)
_IS_CONTAINER: tuple[bool, ...] = tuple(spec.container for spec in OBJECTS)
_IS_SWITCHABLE: tuple[bool, ...] = tuple(spec.switchable for spec in OBJECTS)


def action_id(name: str) -> int:
    """The id of the action called ``name`` (for example ``"find fridge"``)."""
    try:
        return ACTION_INDEX[name]
    except KeyError:
        raise ValueError(
            f"unknown household action {name!r}: see rewardgym.envs.household.ACTION_NAMES"
        ) from None


def _not_near(world: World, obj: int) -> str:
    return f"you are not next to the {OBJECT_NAMES[obj]}; find it first"


def apply_action(world: World, action: int) -> str:
    """Execute ``action`` on ``world`` in place; return ``""`` or why it was not executable."""
    kind = _KIND[action]
    target = _TARGET[action]
    name = OBJECT_NAMES[target] if kind >= 0 else ""
    if kind == -1:  # walk to a room
        if world.agent_room == target:
            return f"you are already in the {ROOMS[target]}"
        world.agent_room = target
        world.near = -1
        world.sitting = -1
        return ""
    if kind == 0:  # find an object
        if world.held == target:
            return f"you are already holding the {name}"
        if not world.is_visible(target):
            return f"you cannot see the {name} here"
        world.near = target
        world.sitting = -1
        return ""
    if kind == 1:  # grab
        if world.held == target:
            return f"you are already holding the {name}"
        if world.held >= 0:
            return f"your hands are full: you are holding the {OBJECT_NAMES[world.held]}"
        if world.near != target:
            return _not_near(world, target)
        world.held = target
        # The agent stays by whatever the object was taken from, as in VirtualHome.
        world.near = world.obj_parent[target]
        world.obj_room[target] = -1
        world.obj_parent[target] = -1
        return ""
    if kind == 2 or kind == 3:  # open, close
        if world.near != target:
            return _not_near(world, target)
        opening = kind == 2
        if world.is_open[target] == opening:
            return f"the {name} is already {'open' if opening else 'closed'}"
        if opening and world.is_on[target]:
            return f"the {name} is switched on; it cannot be opened while running"
        world.is_open[target] = opening
        return ""
    if kind == 4:  # sit
        if world.sitting == target:
            return f"you are already sitting on the {name}"
        if world.near != target:
            return _not_near(world, target)
        world.sitting = target
        return ""
    if kind == 5 or kind == 6:  # put on a surface, put in a container
        held = world.held
        if held < 0:
            return "you are not holding anything to put down"
        if world.near != target:
            return _not_near(world, target)
        if kind == 6 and not world.is_open[target]:
            return f"the {name} is closed; open it first"
        world.held = -1
        world.obj_room[held] = world.obj_room[target]
        world.obj_parent[held] = target
        return ""
    # switch on
    if world.near != target:
        return _not_near(world, target)
    if world.is_on[target]:
        return f"the {name} is already on"
    if _IS_CONTAINER[target] and world.is_open[target]:
        return f"the {name} is open; close it before switching it on"
    world.is_on[target] = True
    return ""


def executable_actions(world: World) -> list[int]:
    """Every action that ``world`` would execute now, found by trying each on a copy."""
    return [a for a in range(N_ACTIONS) if not apply_action(world.copy(), a)]


assert N_OBJECTS == 21 and N_ACTIONS == 58, "the action table must keep its documented size"

__all__ = [
    "ACTIONS",
    "ACTION_INDEX",
    "ACTION_NAMES",
    "BEHAVIOURS",
    "N_ACTIONS",
    "Action",
    "action_id",
    "apply_action",
    "executable_actions",
]
