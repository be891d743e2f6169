"""Instruction splits: 25 tasks x (5 train, 5 fine-grained, 5 abstract), held-out never in train."""

from __future__ import annotations

from rewardgym.envs.household import INSTRUCTION_KINDS, INSTRUCTIONS, TASKS, instructions_for
from rewardgym.envs.household.v0.observation import TEXT_CHARSET


def test_every_task_has_five_instructions_per_split() -> None:
    assert len(TASKS) == 25
    for task in TASKS:
        for kind in INSTRUCTION_KINDS:
            assert len(instructions_for(task.id, kind)) == 5
    held_out = [i for i in INSTRUCTIONS if i.kind != "train"]
    assert len(held_out) == 250


def test_instructions_are_unique_and_held_out_ones_never_train() -> None:
    texts = [i.text for i in INSTRUCTIONS]
    assert len(set(texts)) == len(texts)
    train = {i.text for i in INSTRUCTIONS if i.kind == "train"}
    assert not train & {i.text for i in INSTRUCTIONS if i.kind != "train"}
    assert [i.id for i in INSTRUCTIONS] == list(range(len(INSTRUCTIONS)))


def test_instructions_fit_the_text_space() -> None:
    charset = set(TEXT_CHARSET)
    for instruction in INSTRUCTIONS:
        assert set(instruction.text) <= charset, instruction.text
        assert instruction.text[0].isupper() and instruction.text.endswith((".", "?"))


def test_fine_grained_instructions_name_the_goal_objects() -> None:
    from rewardgym.envs.household.v0.world import OBJECT_NAMES

    for task in TASKS:
        names = {OBJECT_NAMES[p.obj] for p in task.goal}
        for instruction in instructions_for(task.id, "fine-grained"):
            assert all(name in instruction.text for name in names), instruction.text
