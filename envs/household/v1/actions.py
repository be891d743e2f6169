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

from rewardgym.envs.household.engine.actions import (
    BEHAVIOURS,
    N_RULES,
    RULE_SENTENCES,
    Action,
    ActionTable,
)
from rewardgym.envs.household.v1.world import HOUSE, N_OBJECTS

REASONS: tuple[str, ...] = RULE_SENTENCES
"""Why an action was not executed, by code (``0``: it was). Fill with ``str.format``."""
N_REASONS = N_RULES

TABLE = ActionTable(HOUSE, REASONS)
"""Household-v1's action table on the shared engine."""
ACTIONS: tuple[Action, ...] = TABLE.actions
ACTION_NAMES: tuple[str, ...] = TABLE.names
ACTION_INDEX: dict[str, int] = TABLE.index
N_ACTIONS = TABLE.n_actions
action_id = TABLE.action_id
reason_text = TABLE.reason_text
apply_action = TABLE.apply
executable_actions = TABLE.executable
IRREVERSIBLE: frozenset[int] = TABLE.irreversible
"""Action ids whose effect cannot be undone: throwing away and switching on."""


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
