"""Natural-language instructions for the 25 household tasks, split into train and held-out sets.

Each task has 5 training instructions (2 abstract, 3 step-by-step), 5 held-out fine-grained
(step-by-step) ones and 5 held-out abstract ones: the 250 test instructions of COREN. The
step-by-step ones are generated from the goal predicates with a different verb set and
sentence pattern per variant, so no held-out string (or phrasing) appears in training.
"""

from __future__ import annotations

from rewardgym.envs.household.engine.phrasing import (
    HELD_OUT_VARIANTS,
    SENTENCE_PATTERNS,
    TRAIN_VARIANTS,
    VERB_SETS,
    Instruction,
    build_instructions,
    by_task_and_kind,
    clause,
    step_by_step_text,
)
from rewardgym.envs.household.engine.phrasing import (
    step_by_step_instruction as _step_by_step_instruction,
)
from rewardgym.envs.household.v0.tasks import TASKS, Task
from rewardgym.envs.household.v0.world import HOUSE

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


def step_by_step_instruction(task: Task, variant: int) -> str:
    """The generated step-by-step instruction number ``variant`` (0-7) for ``task``."""
    return _step_by_step_instruction(HOUSE, task, variant)


INSTRUCTIONS: tuple[Instruction, ...] = build_instructions(
    HOUSE, TASKS, _ABSTRACT, ("train", "fine-grained", "abstract")
)
N_INSTRUCTIONS = len(INSTRUCTIONS)
_BY_TASK_AND_KIND = by_task_and_kind(INSTRUCTIONS, TASKS, INSTRUCTION_KINDS)


def instructions_for(task_id: int, kind: str) -> tuple[Instruction, ...]:
    """The instructions of split ``kind`` ("train", "fine-grained" or "abstract") for a task."""
    if kind not in INSTRUCTION_KINDS:
        raise ValueError(f"unknown instruction split {kind!r}: use one of {INSTRUCTION_KINDS}")
    return _BY_TASK_AND_KIND[(task_id, kind)]


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
