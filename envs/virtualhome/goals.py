"""VirtualHome goal conditions and their check: node states, edges and ordered action goals.

Written here rather than taken from the Embodied Agent Interface's ``scene_evaluate_wID``,
which stops at the first satisfied edge goal (so every program with two or more edge goals is
judged failed even on its gold final graph) and keeps ordered action goals in a set whose
order depends on the hash seed. Here a node-state condition holds when the node's states
include it, an edge condition when the edge is in the current graph, and the action goals
(``LOOKAT|WATCH`` = either verb) are matched in their given order over the executed verbs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rewardgym.envs.virtualhome.simulator import relation, state_names


@dataclass(frozen=True)
class NodeState:
    """Node ``node`` (of class ``class_name``) is in state ``state`` (``ON``, ``OPEN``, ...)."""

    node: int
    class_name: str
    state: str


@dataclass(frozen=True)
class Edge:
    """Node ``source`` stands in ``relation`` (``ON``, ``INSIDE``, ...) to node ``target``."""

    source: int
    relation: str
    target: int


@dataclass(frozen=True)
class ActionGoal:
    """One of ``verbs`` is executed (after the earlier action goals, in order)."""

    verbs: tuple[str, ...]


Condition = NodeState | Edge | ActionGoal


def parse_goal(vh_goal: Mapping[str, Any]) -> tuple[Condition, ...]:
    """The conditions of one ``vh_goal`` entry of ``task_state_LTL_formula_accurate.json``."""
    out: list[Condition] = []
    for item in vh_goal.get("goal", []):
        if "state" in item:
            out.append(NodeState(int(item["id"]), str(item["class_name"]), str(item["state"])))
        else:
            out.append(Edge(int(item["from_id"]), str(item["relation_type"]), int(item["to_id"])))
    out.extend(ActionGoal(tuple(str(a).split("|"))) for a in vh_goal.get("actions", []))
    return tuple(out)


def condition_flags(
    state: Any, goal: Sequence[Condition], executed_verbs: Sequence[str]
) -> list[bool]:
    """Whether each condition of ``goal`` holds in ``state`` after ``executed_verbs``.

    Action goals match greedily in order: the first goal at the first verb among its
    alternatives, the next one at a later verb, and so on.

    Example:
        >>> goal = (ActionGoal(("LOOKAT", "WATCH")), ActionGoal(("TYPE",)))
        >>> condition_flags(None, goal, ["TYPE", "WATCH", "WALK"])
        [True, False]
    """
    flags: list[bool] = []
    position = 0
    for condition in goal:
        if isinstance(condition, NodeState):
            flags.append(condition.state in state_names(state.get_node(condition.node)))
        elif isinstance(condition, Edge):
            reached = state.get_node_ids_from(condition.source, relation(condition.relation))
            flags.append(condition.target in reached)
        else:
            while (
                position < len(executed_verbs) and executed_verbs[position] not in condition.verbs
            ):
                position += 1
            flags.append(position < len(executed_verbs))
            position += 1
    return flags


def describe(condition: Condition, names: Mapping[int, str]) -> str:
    """A condition as text, naming nodes as ``class.id``.

    Example:
        >>> describe(Edge(1003, "ON", 1001), {1003: "soap", 1001: "washing_machine"})
        'soap.1003 ON washing_machine.1001'
    """
    if isinstance(condition, NodeState):
        return f"{condition.class_name}.{condition.node} is {condition.state}"
    if isinstance(condition, Edge):
        source = f"{names.get(condition.source, '?')}.{condition.source}"
        target = f"{names.get(condition.target, '?')}.{condition.target}"
        return f"{source} {condition.relation} {target}"
    return "action " + "|".join(condition.verbs)


__all__ = [
    "ActionGoal",
    "Condition",
    "Edge",
    "NodeState",
    "condition_flags",
    "describe",
    "parse_goal",
]
