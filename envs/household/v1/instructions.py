"""Household-v1's instructions: 5 training, 5 held-out fine and 5 held-out abstract per task.

Each task has 5 training instructions (2 abstract, 3 step-by-step), 5 held-out fine-grained
(step-by-step) ones and 5 held-out abstract ones, COREN's 250 test instructions. Step-by-step
instructions are generated from the goal predicates by the engine's phrasing
(``rewardgym.envs.household.engine.phrasing``: the verb sets and sentence patterns both
versions share), a different set per variant, so no held-out phrasing appears in training.
"""

from __future__ import annotations

from rewardgym.envs.household.engine.phrasing import (
    Instruction,
    build_instructions,
    by_task_and_kind,
)
from rewardgym.envs.household.engine.phrasing import (
    step_by_step_instruction as _step_by_step_instruction,
)
from rewardgym.envs.household.v1.tasks import TASKS, Task
from rewardgym.envs.household.v1.world import HOUSE

INSTRUCTION_KINDS: tuple[str, ...] = ("train", "fine", "abstract")
"""The instruction splits: training, held-out fine-grained and held-out abstract."""
KIND_ALIASES: dict[str, str] = {"fine-grained": "fine"}
"""Household-v0's split names accepted by Household-v1."""

# Per task, in task order: 2 training and then 5 held-out abstract instructions.
_ABSTRACT: tuple[tuple[str, ...], ...] = (
    (
        "Have a snack while watching TV.",
        "Bring a snack to the couch and put the TV on.",
        "Set me up with an apple and milk in front of the television.",
        "Snack time on the sofa with the TV running.",
        "I want to munch an apple and drink milk while watching TV from the couch.",
        "Bring the fruit and the milk to the living room and enjoy some television.",
        "Get comfortable on the sofa with a snack and the TV on.",
    ),
    (
        "The apple and the milk have gone bad; get rid of them.",
        "Throw out the spoiled food and leave a plate on the table.",
        "Bin the old apple and the sour milk.",
        "Clean out the food that went off and put a plate out.",
        "Dispose of the rotten apple and the expired milk.",
        "The milk and apple are past their date: toss them.",
        "Get the spoiled groceries into the bin and lay a plate on the kitchen table.",
    ),
    (
        "Warm up the milk and set out a plate with an apple.",
        "I'd like warm milk, and an apple on a plate at the table.",
        "Heat the milk for me and lay the table with a plate and an apple.",
        "Make the milk hot and get a plate and the apple onto the kitchen table.",
        "Could you warm some milk and put out a plate and fruit?",
        "Get the milk warming and set the kitchen table with a plate and an apple.",
        "Prepare a warm drink of milk and an apple on a plate.",
    ),
    (
        "Heat up the plate and put the milk and the apple on the table.",
        "Warm the plate in the microwave and set out milk and an apple.",
        "Get the plate hot and bring the milk and the apple to the kitchen table.",
        "Warm a plate for dinner and lay out the milk and fruit.",
        "Microwave the plate, then milk and apple on the table.",
        "The plate should be warmed, the milk and apple served at the table.",
        "Heat a dish and leave the milk and an apple on the kitchen table.",
    ),
    (
        "Bake the apple and wait on the sofa with a plate ready.",
        "Cook the apple in the microwave and put a plate on the coffee table.",
        "Make a baked apple, then relax on the couch with a plate out.",
        "Warm the apple and get a plate ready in the living room.",
        "I fancy a hot apple; set a plate on the coffee table and sit down.",
        "Roast the apple in the microwave and have a seat by the coffee table with a plate.",
        "Get the apple cooking and sit on the sofa with a plate waiting.",
    ),
    (
        "Throw away the bad apple and watch TV with a plate on the coffee table.",
        "Get rid of the apple, then put on the TV from the sofa.",
        "The apple is rotten: bin it, put a plate in the living room and watch television.",
        "Toss the apple and relax in front of the TV with a plate out.",
        "Dispose of the apple, leave a plate on the coffee table and turn on the telly.",
        "Discard the spoiled apple and settle on the sofa with the TV on.",
        "Put the apple in the bin and enjoy the TV on the sofa, plate on the table.",
    ),
    (
        "Set the kitchen table for breakfast.",
        "Lay the plate, the apple and the milk on the kitchen table and shut the cupboards.",
        "Get breakfast ready at the kitchen table.",
        "Put out a plate, fruit and milk at the table and close the fridge and the cabinet.",
        "Prepare the table in the kitchen for a morning meal.",
        "Breakfast goes on the kitchen table: plate, apple, milk.",
        "Make the kitchen table ready to eat, with everything shut away after.",
    ),
    (
        "Have breakfast at the desk.",
        "Bring a plate, the apple and the milk to the desk and turn on the lamp.",
        "Set up breakfast in the bedroom at the desk.",
        "I'll eat at my desk: plate, apple and milk, with the lamp on.",
        "Serve the morning meal on the desk and light the lamp.",
        "Take breakfast to the bedroom desk and switch on the light.",
        "Put my breakfast on the desk and turn the lamp on.",
    ),
    (
        "Tidy up the living room.",
        "Put the remote and the book on the shelf and the clothes in the washer.",
        "Clean up: the book and remote belong on the shelf, the clothes in the washing machine.",
        "Straighten the living room and load the dirty clothes into the washer.",
        "Put away the remote and the book on the shelf and get the laundry into the machine.",
        "Make the living room neat and shut the clothes in the washing machine.",
        "Shelve the book and the remote, then stow the clothes in the washer.",
    ),
    (
        "Watch TV with the remote in hand.",
        "Put the book and an apple on the coffee table and watch television from the sofa.",
        "Settle in for a TV evening with the remote, a book and an apple at hand.",
        "Get the remote, lay the book and apple on the coffee table, and watch TV on the couch.",
        "Turn on the TV and keep the remote while relaxing on the sofa.",
        "Have a TV night with a snack and something to read nearby.",
        "Sit on the sofa holding the remote, TV on, apple and book on the table.",
    ),
    (
        "Movie night on the sofa.",
        "Bring milk and a plate to the coffee table, take the remote and watch TV.",
        "Let's have a film evening in the living room with milk and a plate.",
        "Set up a movie night: drink and dish on the coffee table, remote in hand.",
        "Watch a movie from the couch with the remote, milk and a plate ready.",
        "Time for a film: TV on, remote held, snacks on the coffee table.",
        "Prepare the living room for a movie and get comfy on the sofa.",
    ),
    (
        "Have dinner in the bedroom.",
        "Put the milk and a plate on the desk, switch on the lamp and sit on the bed.",
        "Eat in the bedroom tonight with the lamp on.",
        "Take dinner to the bedroom desk and rest on the bed.",
        "Serve milk and a plate at the desk and settle on the bed.",
        "Set up supper in the bedroom and sit down on the bed.",
        "Bring dinner to the desk, light the lamp and relax on the bed.",
    ),
    (
        "Read a book on the sofa with a snack.",
        "Put the milk and an apple on the coffee table and read on the couch.",
        "Curl up on the sofa with the book and a snack nearby.",
        "Enjoy some reading in the living room with milk and fruit.",
        "Relax with a book on the couch, apple and milk on the table.",
        "Take the book to the sofa and set out a snack.",
        "Have a reading break on the sofa with something to eat.",
    ),
    (
        "Read in bed with a snack on the desk.",
        "Put the milk and an apple on the desk, turn on the lamp and read on the bed.",
        "Get cosy in bed with the book, the lamp on and a snack nearby.",
        "Read in the bedroom with the light on and food on the desk.",
        "Take the book to bed; leave milk and an apple on the desk.",
        "Settle on the bed to read, with the lamp lit.",
        "Have a bedtime read, snack at the desk.",
    ),
    (
        "Do the laundry.",
        "Wash the clothes and the towel, then rest on the bed.",
        "Run a wash with the clothes and the towel.",
        "Get the laundry going and then lie down on the bed.",
        "Load the washer with the clothes and towel and start it.",
        "Clean the dirty clothes and the towel in the machine.",
        "Start a laundry cycle and take a rest in the bedroom.",
    ),
    (
        "Tidy the bathroom.",
        "Put the clothes in the washer, the towel in the cabinet, and the book on the shelf.",
        "Clean up the bathroom and close everything.",
        "Stow the towel in the cabinet and the clothes in the washing machine; shelve the book.",
        "Put things where they belong in the bathroom, and the book on the shelf.",
        "Make the bathroom neat with the doors shut.",
        "Tidy away the towel and the clothes, and return the book to the shelf.",
    ),
    (
        "Throw out the old towel.",
        "Bin the worn towel, store the clothes in the bathroom cabinet and turn on the lamp.",
        "The towel is worn out: get rid of it and put the clothes away.",
        "Dispose of the towel, keep the clothes in the cabinet and light the bedroom lamp.",
        "Toss the old towel and stow the clothes in the bathroom cabinet.",
        "Replace the towel: throw the old one away and tidy the clothes.",
        "Get the ragged towel into the bin and shut the clothes in the cabinet.",
    ),
    (
        "Wash the towel.",
        "Put the towel in the washing machine and start it, and store the clothes in the cabinet.",
        "Clean the towel in the washer and put the clothes away.",
        "Run the towel through a wash, keep the clothes in the bathroom cabinet.",
        "Launder the towel and light the lamp.",
        "The towel needs washing; the clothes go into the cabinet.",
        "Start the washing machine with the towel, then turn on the bedroom light.",
    ),
    (
        "Tidy the bedroom.",
        "Put the book on the shelf and the clothes in the washer, and turn on the lamp.",
        "Clean up the bedroom: book on the shelf, clothes in the machine.",
        "Put away the book and the dirty clothes and light the lamp.",
        "Make the bedroom neat and switch the lamp on.",
        "Return the book to the shelf and shut the clothes in the washer.",
        "Clear the bedroom of clutter with the lamp on.",
    ),
    (
        "Pack for a trip.",
        "Gather the book, the clothes and the towel on the sofa.",
        "Get my things ready for travelling on the couch.",
        "Lay out what I need for the trip on the sofa.",
        "Collect the book, clothes and towel for the journey.",
        "Put the travel things together on the sofa.",
        "Prepare a pile for packing: book, clothes, towel.",
    ),
    (
        "Put the milk back and relax on the sofa.",
        "Return the milk to the fridge, put the book and an apple on the coffee table and sit.",
        "Chill the milk, then unwind on the couch with a book and an apple.",
        "Keep the milk cold and take a break in the living room.",
        "Store the milk in the fridge and settle on the sofa with a snack and a book.",
        "Refrigerate the milk and get comfortable on the couch.",
        "Milk back in the fridge; book and apple on the coffee table; sit.",
    ),
    (
        "Warm some milk before bed.",
        "Heat the milk in the microwave, take the book and sit on the bed with the lamp on.",
        "Have a warm milk and read in bed.",
        "Get the milk warming and go to bed with the book.",
        "Make hot milk, light the lamp and settle on the bed with something to read.",
        "Prepare warm milk, then retire to bed with the book.",
        "Start the microwave with the milk and read on the bed.",
    ),
    (
        "Do the evening routine.",
        "Put the clothes in the washer, close it, and read on the bed with the lamp on.",
        "Wind down for the night: laundry in the machine, then a book in bed.",
        "Stow the dirty clothes in the washer and read in bed.",
        "Get ready for bed with the lamp on and the book in hand.",
        "End the day: clothes in the washing machine, then sit on the bed reading.",
        "Tidy the clothes into the washer and relax in bed with a book.",
    ),
    (
        "Get ready for a bath.",
        "Take the towel, put the clothes in the washing machine and turn on the lamp.",
        "Prepare for bathing with a towel in hand.",
        "Bath time: towel ready, clothes in the washer.",
        "Hold the towel and put the dirty clothes in the washing machine.",
        "Get set for a bath and switch on the lamp.",
        "Take a towel and load the clothes into the washer before bathing.",
    ),
    (
        "Store the leftovers.",
        "Put the plate and the apple in the fridge and leave the milk on the table.",
        "Keep the leftovers cold in the fridge.",
        "Refrigerate the plate and the apple and close the fridge.",
        "Save the food for later in the fridge, milk on the kitchen table.",
        "Put the remaining food away in the fridge.",
        "Store the plate and fruit in the fridge and set the milk out.",
    ),
)


def step_by_step_instruction(task: Task, variant: int) -> str:
    """The generated step-by-step instruction number ``variant`` (0-7) for ``task``."""
    return _step_by_step_instruction(HOUSE, task, variant)


INSTRUCTIONS: tuple[Instruction, ...] = build_instructions(
    HOUSE, TASKS, _ABSTRACT, ("train", "fine", "abstract")
)
N_INSTRUCTIONS = len(INSTRUCTIONS)
_BY_TASK_AND_KIND = by_task_and_kind(INSTRUCTIONS, TASKS, INSTRUCTION_KINDS)


def split_name(kind: str) -> str:
    """The canonical split name of ``kind`` ("fine-grained" is read as "fine")."""
    kind = KIND_ALIASES.get(kind, kind)
    if kind not in INSTRUCTION_KINDS:
        raise ValueError(f"unknown instruction split {kind!r}: use one of {INSTRUCTION_KINDS}")
    return kind


def instructions_for(task_id: int, kind: str) -> tuple[Instruction, ...]:
    """The instructions of split ``kind`` ("train", "fine" or "abstract") for one task."""
    return _BY_TASK_AND_KIND[(task_id, split_name(kind))]


__all__ = [
    "INSTRUCTIONS",
    "INSTRUCTION_KINDS",
    "KIND_ALIASES",
    "N_INSTRUCTIONS",
    "Instruction",
    "instructions_for",
    "split_name",
    "step_by_step_instruction",
]
