"""Natural-language instructions for the 25 household tasks, split into train and held-out sets.

Each task has 5 training instructions (2 abstract, 3 step-by-step), 5 held-out fine-grained
(step-by-step) ones and 5 held-out abstract ones: the 250 test instructions of COREN. The
step-by-step ones are generated from the goal predicates with a different verb set and
sentence pattern per variant, so no held-out string (or phrasing) appears in training.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardgym.envs.household.tasks import TASKS, Predicate, Task
from rewardgym.envs.household.world import OBJECT_NAMES, OBJECTS

INSTRUCTION_KINDS: tuple[str, ...] = ("train", "fine-grained", "abstract")

# Per task: 2 training and 5 held-out abstract instructions, in task order.
_ABSTRACT: tuple[tuple[str, ...], ...] = (
    (
        "Keep the apple cold.",
        "The apple belongs in the fridge.",
        "I want a chilled apple later.",
        "Make sure the apple stays fresh.",
        "Store the fruit where it stays cool.",
        "Don't leave the apple out to go soft.",
        "Refrigerate the apple.",
    ),
    (
        "I'd like some warm milk.",
        "Heat up the milk for me.",
        "Could you warm the milk?",
        "Get the milk warming.",
        "Prepare a hot milk.",
        "I fancy a warm drink of milk.",
        "Make the milk nice and warm.",
    ),
    (
        "Time to watch some television.",
        "Let's enjoy a show from the couch.",
        "Settle in for a TV evening.",
        "Watch TV comfortably.",
        "Catch a show on the sofa.",
        "Put something on and get comfortable on the couch.",
        "Have a TV night.",
    ),
    (
        "Turn the television on.",
        "I want the TV running.",
        "Get the telly going.",
        "Power up the television.",
        "Put the TV on, please.",
        "The TV should be on.",
        "Start the television.",
    ),
    (
        "Set the table for a meal.",
        "Put a plate out for dinner.",
        "Get the table ready to eat.",
        "Lay out a plate on the table.",
        "Prepare the kitchen table for lunch.",
        "We need a plate on the table.",
        "Make the table ready for a meal.",
    ),
    (
        "Read a book on the couch.",
        "Curl up on the sofa with the book.",
        "Enjoy some reading in the living room.",
        "Relax with a book on the sofa.",
        "Take the book and get cosy on the couch.",
        "Have a reading break on the sofa.",
        "Sit down on the sofa with something to read.",
    ),
    (
        "Do some work on the computer.",
        "Get to work at the computer.",
        "Start a working session at the desk computer.",
        "Use the computer for a while.",
        "Sit down and work on the PC.",
        "Time to get some computer work done.",
        "Boot up and get working.",
    ),
    (
        "Get me a plate.",
        "I need a plate in hand.",
        "Fetch a plate.",
        "Take out a plate.",
        "Have a plate ready in your hands.",
        "Grab a dish for me.",
        "Hold a plate for serving.",
    ),
    (
        "Put the dirty clothes in the washer.",
        "Load the laundry into the machine.",
        "The clothes go into the washing machine.",
        "Load the washer with the clothes.",
        "Get the laundry into the machine.",
        "Clothes belong in the washer now.",
        "Stuff the clothes into the washing machine.",
    ),
    (
        "Brush your teeth.",
        "Get ready to brush your teeth.",
        "Time for dental hygiene.",
        "Get the toothbrush in hand.",
        "Prepare to clean your teeth.",
        "Do your teeth.",
        "Get ready for bed by brushing.",
    ),
    (
        "Put the towel away in the bathroom.",
        "Tidy the towel into the cabinet.",
        "The towel should be stored away.",
        "Keep the towel in the cabinet, shut.",
        "Clean up the towel and close the cabinet.",
        "Stow the towel properly.",
        "Put the towel where it belongs and close up.",
    ),
    (
        "Put the milk back in the fridge.",
        "Don't let the milk spoil.",
        "Return the milk to the fridge and shut it.",
        "Keep the milk refrigerated.",
        "The milk needs to go back in the cold.",
        "Chill the milk and close the fridge.",
        "Store the milk properly.",
    ),
    (
        "Bring the remote to the living room table.",
        "The remote should be on the coffee table.",
        "Leave the remote where we watch TV.",
        "Put the remote by the sofa table.",
        "Return the remote to the living room.",
        "Make the remote easy to find in the lounge.",
        "The clicker goes on the coffee table.",
    ),
    (
        "Relax on the sofa.",
        "Take a seat on the couch.",
        "Have a rest in the living room.",
        "Sit down and unwind on the sofa.",
        "Get comfy on the couch.",
        "Take a break on the sofa.",
        "Lounge on the sofa for a bit.",
    ),
    (
        "Go to bed.",
        "Time to rest in bed.",
        "Get into bed.",
        "Lie down on the bed.",
        "Turn in for the night.",
        "Have a nap in the bedroom.",
        "Rest on the bed.",
    ),
    (
        "Put the book on the coffee table.",
        "Leave the book in the living room.",
        "The book should be on the lounge table.",
        "Bring the book to the coffee table.",
        "Move the book to the living room table.",
        "Place the novel by the sofa.",
        "Put the book out in the lounge.",
    ),
    (
        "Bring a snack to the desk.",
        "Put an apple on the desk.",
        "I want a piece of fruit where I work.",
        "Leave an apple by the computer.",
        "Get a snack ready on the desk.",
        "Put some fruit on my desk.",
        "Have an apple waiting at the desk.",
    ),
    (
        "Heat up the plate.",
        "Warm the plate in the microwave.",
        "Make the plate warm before serving.",
        "Give the plate a spin in the microwave.",
        "Preheat a plate.",
        "I want a warm plate.",
        "Get the plate heated.",
    ),
    (
        "Check what's in the fridge.",
        "Take a look inside the fridge.",
        "See what food we have in the fridge.",
        "Peek into the fridge.",
        "Open up the fridge to check it.",
        "Look in the refrigerator.",
        "Have a look at the fridge's contents.",
    ),
    (
        "Put the towel in the wash.",
        "The towel needs washing.",
        "Load the towel into the washer and shut it.",
        "Get the towel ready to be washed.",
        "Towel goes in the washing machine.",
        "Throw the towel in the washer.",
        "Prepare the towel for a wash.",
    ),
    (
        "Warm up the apple.",
        "I'd like a baked apple.",
        "Heat the apple in the microwave.",
        "Make the apple warm.",
        "Give the apple a quick heat.",
        "Cook the apple a little.",
        "Zap the apple in the microwave.",
    ),
    (
        "Bring the milk to the living room.",
        "Put the milk on the coffee table.",
        "I want the milk by the sofa.",
        "Serve the milk in the lounge.",
        "Leave the milk on the living room table.",
        "Take the milk to the coffee table.",
        "Have the milk ready in the living room.",
    ),
    (
        "Read a book in bed.",
        "Take the book to bed.",
        "Do some reading in bed.",
        "Read before sleeping.",
        "Get into bed with the book.",
        "Enjoy a bedtime story.",
        "Relax in bed with something to read.",
    ),
    (
        "Watch TV with the remote in hand.",
        "Get the remote and enjoy the television.",
        "Settle on the sofa with the remote for a show.",
        "Watch television, remote at hand.",
        "Take control of the TV from the couch.",
        "Be the one holding the remote tonight.",
        "TV time, and keep the remote with you.",
    ),
    (
        "Do the laundry.",
        "Wash the clothes.",
        "Get a load of laundry going.",
        "Run the washing machine with the clothes.",
        "Clean the dirty clothes.",
        "Start a wash with the clothes.",
        "Get the clothes washed.",
    ),
)

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


def _clause(pred: Predicate, verbs: dict[str, str], goal: tuple[Predicate, ...]) -> str:
    target = OBJECT_NAMES[pred.target] if pred.target >= 0 else ""
    loaded = pred.kind == "switched_on" and any(
        p.kind == "inside" and p.target == pred.obj for p in goal
    )
    return clause(
        pred.kind,
        OBJECT_NAMES[pred.obj],
        target,
        verbs,
        lidded=True,
        close_first=loaded and OBJECTS[pred.obj].container,
    )


def step_by_step_instruction(task: Task, variant: int) -> str:
    """The generated step-by-step instruction number ``variant`` (0-7) for ``task``."""
    verbs = VERB_SETS[variant]
    return step_by_step_text([_clause(p, verbs, task.goal) for p in task.goal], variant)


@dataclass(frozen=True)
class Instruction:
    """One instruction string, the task it describes and its split."""

    id: int
    task_id: int
    kind: str
    text: str


def _build_instructions() -> tuple[Instruction, ...]:
    rows: list[tuple[int, str, str]] = []
    for task in TASKS:
        abstract = _ABSTRACT[task.id]
        train = list(abstract[:2]) + [step_by_step_instruction(task, v) for v in TRAIN_VARIANTS]
        rows += [(task.id, "train", text) for text in train]
        fine = [step_by_step_instruction(task, v) for v in HELD_OUT_VARIANTS]
        rows += [(task.id, "fine-grained", text) for text in fine]
        rows += [(task.id, "abstract", text) for text in abstract[2:]]
    return tuple(Instruction(i, t, k, s) for i, (t, k, s) in enumerate(rows))


INSTRUCTIONS: tuple[Instruction, ...] = _build_instructions()
N_INSTRUCTIONS = len(INSTRUCTIONS)


def instructions_for(task_id: int, kind: str) -> tuple[Instruction, ...]:
    """The instructions of split ``kind`` ("train", "fine-grained" or "abstract") for a task."""
    if kind not in INSTRUCTION_KINDS:
        raise ValueError(f"unknown instruction split {kind!r}: use one of {INSTRUCTION_KINDS}")
    return _BY_TASK_AND_KIND[(task_id, kind)]


_BY_TASK_AND_KIND: dict[tuple[int, str], tuple[Instruction, ...]] = {
    (task.id, kind): tuple(i for i in INSTRUCTIONS if i.task_id == task.id and i.kind == kind)
    for task in TASKS
    for kind in INSTRUCTION_KINDS
}

__all__ = [
    "HELD_OUT_VARIANTS",
    "INSTRUCTIONS",
    "INSTRUCTION_KINDS",
    "N_INSTRUCTIONS",
    "SENTENCE_PATTERNS",
    "TRAIN_VARIANTS",
    "VERB_SETS",
    "Instruction",
    "clause",
    "instructions_for",
    "step_by_step_instruction",
    "step_by_step_text",
]
