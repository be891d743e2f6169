"""Instructions over a house: step-by-step sentences generated from goal predicates, and splits.

Every task has 5 training instructions (2 abstract, 3 step-by-step), 5 held-out step-by-step
ones and 5 held-out abstract ones. The step-by-step ones are generated from the goal predicates
with a different verb set and sentence pattern per variant, so no held-out phrasing appears in
training; the abstract ones are each version's data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rewardgym.envs.household.engine.goals import Task
from rewardgym.envs.household.engine.house import House

# One verb set and one sentence pattern per generated variant: 0-2 train, 3-7 held out.
VERB_SETS: tuple[dict[str, str], ...] = tuple(
    dict(
        zip(
            ("find", "grab", "open", "close", "put_in", "put_on", "switch", "sit"), row, strict=True
        )
    )
    for row in (
        ("find", "grab", "open", "close", "put it in", "put it on", "switch on", "sit on"),
        (
            "locate",
            "take",
            "open up",
            "shut",
            "place it inside",
            "place it on",
            "turn on",
            "sit down on",
        ),
        (
            "go to",
            "pick up",
            "open",
            "close",
            "store it in",
            "set it down on",
            "power on",
            "take a seat on",
        ),
        (
            "look for",
            "get",
            "pull open",
            "close up",
            "drop it into",
            "leave it on",
            "start",
            "settle on",
        ),
        ("head to", "lift", "open", "shut", "load it into", "lay it on", "switch on", "sit on"),
        (
            "walk over to",
            "collect",
            "swing open",
            "close",
            "set it inside",
            "rest it on",
            "activate",
            "sit down on",
        ),
        ("get to", "fetch", "open up", "shut", "stow it in", "drop it on", "turn on", "rest on"),
        (
            "approach",
            "grasp",
            "open",
            "close",
            "slide it into",
            "position it on",
            "start up",
            "take a seat on",
        ),
    )
)
SENTENCE_PATTERNS: tuple[tuple[str, str, str], ...] = (
    ("", ", then ", "."),
    ("First ", ". After that, ", "."),
    ("Please ", " and then ", "."),
    ("", ". Once that is done, ", "."),
    ("Step by step: ", "; next, ", "."),
    ("I need you to ", ", and afterwards ", "."),
    ("Go ahead and ", "; when finished, ", "."),
    ("Your steps are: ", ", followed by: ", "."),
)
TRAIN_VARIANTS: tuple[int, ...] = (0, 1, 2)
HELD_OUT_VARIANTS: tuple[int, ...] = (3, 4, 5, 6, 7)


def clause(
    kind: str, obj: str, target: str, verbs: dict[str, str], *, lidded: bool, close_first: bool
) -> str:
    """One goal predicate as an imperative clause, from object names and a verb set.

    ``lidded`` says whether an ``inside`` target must be opened first; ``close_first``
    whether a ``switched_on`` device holds a load and must be closed before it starts.
    """
    if kind == "inside":
        opening = f"{verbs['open']} the {target} and " if lidded else "and "
        comma = ", " if lidded else " "
        return f"{verbs['find']} the {obj}, {verbs['grab']} it{comma}{opening}{verbs['put_in']} the {target}"
    if kind == "on":
        return f"{verbs['find']} the {obj}, {verbs['grab']} it and {verbs['put_on']} the {target}"
    if kind == "held":
        return f"{verbs['find']} the {obj} and {verbs['grab']} it"
    if kind == "switched_on":
        close = f"{verbs['close']} the {obj} and " if close_first else ""
        return f"{close}{verbs['switch']} the {obj}"
    if kind == "open":
        return f"{verbs['find']} the {obj} and {verbs['open']} it"
    if kind == "closed":
        return f"{verbs['close']} the {obj}"
    return f"{verbs['find']} the {obj} and {verbs['sit']} it"


def step_by_step_text(clauses: list[str], variant: int) -> str:
    """Join clauses with sentence pattern ``variant`` and capitalise the first letter."""
    prefix, sep, suffix = SENTENCE_PATTERNS[variant]
    text = prefix + sep.join(clauses) + suffix
    return text[0].upper() + text[1:]


def step_by_step_instruction(house: House, task: Task, variant: int) -> str:
    """The generated step-by-step instruction number ``variant`` (0-7) for ``task``."""
    verbs = VERB_SETS[variant]
    names = house.object_names
    clauses = []
    for pred in task.goal:
        loaded = pred.kind == "switched_on" and any(
            p.kind == "inside" and p.target == pred.obj for p in task.goal
        )
        clauses.append(
            clause(
                pred.kind,
                names[pred.obj],
                names[pred.target] if pred.target >= 0 else "",
                verbs,
                lidded=pred.target >= 0 and house.lidded[pred.target],
                close_first=loaded,
            )
        )
    return step_by_step_text(clauses, variant)


@dataclass(frozen=True)
class Instruction:
    """One instruction string, the task it describes and its split."""

    id: int
    task_id: int
    kind: str
    text: str


def build_instructions(
    house: House,
    tasks: Sequence[Task],
    abstract: Sequence[tuple[str, ...]],
    kinds: tuple[str, str, str],
) -> tuple[Instruction, ...]:
    """Every task's instructions, task by task: train, held-out step-by-step, held-out abstract.

    ``abstract`` holds per task its 2 training and then 5 held-out abstract sentences;
    ``kinds`` names the three splits.
    """
    train_kind, fine_kind, abstract_kind = kinds
    rows: list[tuple[int, str, str]] = []
    for task in tasks:
        own = abstract[task.id]
        train = list(own[:2]) + [step_by_step_instruction(house, task, v) for v in TRAIN_VARIANTS]
        rows += [(task.id, train_kind, text) for text in train]
        fine = [step_by_step_instruction(house, task, v) for v in HELD_OUT_VARIANTS]
        rows += [(task.id, fine_kind, text) for text in fine]
        rows += [(task.id, abstract_kind, text) for text in own[2:]]
    return tuple(Instruction(i, t, k, s) for i, (t, k, s) in enumerate(rows))


def by_task_and_kind(
    instructions: Sequence[Instruction], tasks: Sequence[Task], kinds: Sequence[str]
) -> dict[tuple[int, str], tuple[Instruction, ...]]:
    """The instructions grouped by task id and split."""
    return {
        (task.id, kind): tuple(i for i in instructions if i.task_id == task.id and i.kind == kind)
        for task in tasks
        for kind in kinds
    }


__all__ = [
    "HELD_OUT_VARIANTS",
    "SENTENCE_PATTERNS",
    "TRAIN_VARIANTS",
    "VERB_SETS",
    "Instruction",
    "build_instructions",
    "by_task_and_kind",
    "clause",
    "step_by_step_instruction",
    "step_by_step_text",
]
