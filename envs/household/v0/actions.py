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

from rewardgym.envs.household.engine.actions import (
    BEHAVIOURS,
    RULE_SENTENCES,
    RUNNING,
    Action,
    ActionTable,
)
from rewardgym.envs.household.v0.world import HOUSE, N_OBJECTS, World

REASONS: tuple[str, ...] = (
    *RULE_SENTENCES[:RUNNING],
    "the {name} is switched on; it cannot be opened while running",
    *RULE_SENTENCES[RUNNING + 1 :],
)
"""Why an action was not executed, by the engine's rule code (``""``: it was): the engine's
sentences, with Household-v0's own words for opening a running appliance."""

TABLE = ActionTable(HOUSE, REASONS)
"""Household-v0's action table on the shared engine."""
ACTIONS: tuple[Action, ...] = TABLE.actions
ACTION_NAMES: tuple[str, ...] = TABLE.names
ACTION_INDEX: dict[str, int] = TABLE.index
N_ACTIONS = TABLE.n_actions
action_id = TABLE.action_id
executable_actions = TABLE.executable


def apply_action(world: World, action: int) -> str:
    """Execute ``action`` on ``world`` in place; return ``""`` or why it was not executable."""
    return TABLE.reason_text(world, action, TABLE.apply(world, action))


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
