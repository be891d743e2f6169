"""VirtualHome-v0's discrete actions: verb + class pairs taken from the programs' own scripts.

``"full"``: every (verb, classes) pair that occurs in a usable program (453 over the 337).
``"coren"``: COREN's 8 behaviours (find, grab, open, close, sit, put, put in, switch on), with
WALK and RUN read as FIND, and STANDUP (:data:`CAN_STAND_UP`: without it SIT is a dead end and
the 5 programs that start seated cannot be solved); a program's other steps are left out of its
expert script, and the programs with an action goal that only a left-out verb meets are dropped
(189 programs in 16 task categories, 185 actions; a program whose goal needs a left-out step's
effect, e.g. lying on the sofa or a plug put in, then fails under its own script: 162 of the
189 replay to success, ``benchmarks/embodied/virtualhome_replay.py`` counts them). The agent names a class, never an instance:
:mod:`rewardgym.envs.virtualhome.resolver` picks one.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from rewardgym.envs.virtualhome.goals import ActionGoal
from rewardgym.envs.virtualhome.programs import Program, Step, all_programs

ACTION_SETS: tuple[str, ...] = ("full", "coren")
COREN_VERBS: tuple[str, ...] = (
    "FIND",
    "GRAB",
    "OPEN",
    "CLOSE",
    "SIT",
    "PUTBACK",
    "PUTIN",
    "SWITCHON",
)
"""COREN's 8 behaviours as the simulator's verbs (put = PUTBACK, put in = PUTIN)."""
CAN_STAND_UP: tuple[str, ...] = (*COREN_VERBS, "STANDUP")
"""The verbs of the ``"coren"`` action set: COREN's 8 and STANDUP, without which a program
that starts seated (5 of them) or an agent that sat down could never move again."""
READ_AS_FIND: frozenset[str] = frozenset({"WALK", "RUN"})


@dataclass(frozen=True)
class Action:
    """One discrete action: a verb and the classes of its arguments."""

    verb: str
    classes: tuple[str, ...]

    @property
    def name(self) -> str:
        """The action as a script line without ids, e.g. ``[PUTBACK] <mug> <table>``."""
        return " ".join([f"[{self.verb}]", *(f"<{c}>" for c in self.classes)])


def action_of(step: Step, action_set: str) -> Action | None:
    """The action a script step is in ``action_set`` (``None``: that set has no such verb)."""
    verb = step.verb
    if action_set == "coren":
        verb = "FIND" if verb in READ_AS_FIND else verb
        if verb not in CAN_STAND_UP:
            return None
    return Action(verb, tuple(name for name, _ in step.arguments))


def _kept(program: Program, action_set: str) -> bool:
    if action_set == "full":
        return True
    return all(set(c.verbs) & set(CAN_STAND_UP) for c in program.goal if isinstance(c, ActionGoal))


def kept_steps(program: Program, action_set: str) -> tuple[Step, ...]:
    """The steps of ``program`` that are actions of ``action_set`` (its expert script)."""
    return tuple(s for s in program.steps if action_of(s, action_set) is not None)


@functools.cache
def action_table(action_set: str) -> tuple[Action, ...]:
    """Every action of ``action_set``, sorted by name (an action id indexes this)."""
    if action_set not in ACTION_SETS:
        raise ValueError(f"unknown action_set {action_set!r}: use one of {ACTION_SETS}")
    found: set[Action] = set()
    for program in all_programs().values():
        if _kept(program, action_set):
            found.update(a for a in (action_of(s, action_set) for s in program.steps) if a)
    return tuple(sorted(found, key=lambda a: a.name))


@functools.cache
def _index(action_set: str) -> dict[Action, int]:
    return {action: i for i, action in enumerate(action_table(action_set))}


def usable_programs(programs: Iterable[str], action_set: str) -> tuple[str, ...]:
    """The programs of ``programs`` that ``action_set`` keeps (see the module docstring)."""
    every = all_programs()
    return tuple(p for p in programs if _kept(every[p], action_set))


def script_actions(program: Program, action_set: str) -> list[int]:
    """The action ids of ``program``'s expert script in ``action_set`` (:func:`kept_steps`)."""
    index = _index(action_set)
    actions = (action_of(step, action_set) for step in kept_steps(program, action_set))
    return [index[a] for a in actions if a is not None]


__all__ = [
    "ACTION_SETS",
    "CAN_STAND_UP",
    "COREN_VERBS",
    "Action",
    "action_of",
    "action_table",
    "kept_steps",
    "script_actions",
    "usable_programs",
]
