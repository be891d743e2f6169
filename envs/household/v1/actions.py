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

from rewardgym.envs.household.engine.actions import BEHAVIOURS, N_RULES, Action, ActionTable
from rewardgym.envs.household.v1.world import HOUSE, N_OBJECTS, World

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
N_REASONS = N_RULES

TABLE = ActionTable(HOUSE, REASONS)
"""Household-v1's action table on the shared engine."""
ACTIONS: tuple[Action, ...] = TABLE.actions
ACTION_NAMES: tuple[str, ...] = TABLE.names
ACTION_INDEX: dict[str, int] = TABLE.index
N_ACTIONS = TABLE.n_actions
IRREVERSIBLE: frozenset[int] = TABLE.irreversible
"""Action ids whose effect cannot be undone: throwing away and switching on."""


def action_id(name: str) -> int:
    """The id of the action called ``name`` (for example ``"find fridge"``)."""
    return TABLE.action_id(name)


def reason_text(world: World, action: int, code: int) -> str:
    """The sentence for rule ``code`` broken by ``action`` in ``world`` (``""`` for code 0)."""
    return TABLE.reason_text(world, action, code)


def apply_action(world: World, action: int) -> int:
    """Execute ``action`` on ``world`` in place; return 0, or the code of the rule it broke."""
    return TABLE.apply(world, action)


def executable_actions(world: World) -> list[int]:
    """Every action that ``world`` would execute now, found by trying each on a copy."""
    return TABLE.executable(world)


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
    "TABLE",
    "Action",
    "action_id",
    "apply_action",
    "executable_actions",
    "reason_text",
]
