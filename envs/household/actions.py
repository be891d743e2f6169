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

from rewardgym.envs.household.engine.actions import BEHAVIOURS, Action, ActionTable
from rewardgym.envs.household.world import HOUSE, N_OBJECTS, World

REASONS: tuple[str, ...] = (
    "",
    "you are already in the {room}",
    "you cannot see the {name} here",
    "you are already holding the {name}",
    "your hands are full: you are holding the {held}",
    "you are not next to the {name}; find it first",
    "the {name} is already open",
    "the {name} is already closed",
    "the {name} is switched on; it cannot be opened while running",
    "you are already sitting on the {name}",
    "you are not holding anything to put down",
    "the {name} is closed; open it first",
    "the {name} is already on",
    "the {name} is open; close it before switching it on",
)
"""Why an action was not executed, by the engine's rule code (``""``: it was): Household-v0's words."""

TABLE = ActionTable(HOUSE, REASONS)
"""Household-v0's action table on the shared engine."""
ACTIONS: tuple[Action, ...] = TABLE.actions
ACTION_NAMES: tuple[str, ...] = TABLE.names
ACTION_INDEX: dict[str, int] = TABLE.index
N_ACTIONS = TABLE.n_actions


def action_id(name: str) -> int:
    """The id of the action called ``name`` (for example ``"find fridge"``)."""
    return TABLE.action_id(name)


def apply_action(world: World, action: int) -> str:
    """Execute ``action`` on ``world`` in place; return ``""`` or why it was not executable."""
    return TABLE.reason_text(world, action, TABLE.apply(world, action))


def executable_actions(world: World) -> list[int]:
    """Every action that ``world`` would execute now, found by trying each on a copy."""
    return TABLE.executable(world)


assert N_OBJECTS == 21 and N_ACTIONS == 58, "the action table must keep its documented size"

__all__ = [
    "ACTIONS",
    "ACTION_INDEX",
    "ACTION_NAMES",
    "BEHAVIOURS",
    "N_ACTIONS",
    "REASONS",
    "TABLE",
    "Action",
    "action_id",
    "apply_action",
    "executable_actions",
]
