"""The expert solves every task from every start, in both layouts, for every instruction split."""

from __future__ import annotations

import pytest

from rewardgym.envs.household import (
    INSTRUCTION_KINDS,
    LAYOUTS,
    TASKS,
    HouseholdEnv,
    World,
    action_id,
    plan,
)
from rewardgym.envs.household.v0.world import OBJECT_INDEX


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("kind", INSTRUCTION_KINDS)
def test_expert_solves_every_task(layout: str, kind: str) -> None:
    env = HouseholdEnv(layout=layout, instructions=kind)
    for task in TASKS:
        for start in range(4):
            options = {"task": task.id, "instruction": start, "room": start}
            _, info = env.reset(seed=start, options=options)
            assert not info["success"], f"{task.name} already holds at reset ({layout})"
            reference = env.reference_plan
            assert reference is not None and 0 < len(reference) <= 10
            actions = []
            terminated = False
            while not terminated:
                action = env.expert_action()
                assert action is not None, f"expert stuck on {task.name} ({layout})"
                _, reward, terminated, truncated, info = env.step(action)
                assert info["executable"], info["reason"]
                assert not truncated
                actions.append(action)
            assert reward == 1.0 and info["cgc"] == 1.0
            assert actions == reference


def test_key_objects_move_in_the_shifted_layout() -> None:
    default, shifted = World("default"), World("shifted")
    moved = [
        n
        for n in (
            "apple",
            "milk",
            "plate",
            "remote control",
            "book",
            "clothes",
            "towel",
            "toothbrush",
        )
        if default.location_of(OBJECT_INDEX[n]) != shifted.location_of(OBJECT_INDEX[n])
    ]
    assert len(moved) == 8
    assert (
        sum(default.obj_room[OBJECT_INDEX[n]] != shifted.obj_room[OBJECT_INDEX[n]] for n in moved)
        >= 5
    )


def test_expert_replans_after_a_perturbation() -> None:
    env = HouseholdEnv()
    env.reset(seed=0, options={"task": "put apple in fridge"})
    env.step(env.expert_action())
    env.step(action_id("walk to bathroom"))  # off course
    env.step(action_id("find towel"))
    env.step(action_id("grab towel"))  # hands now full
    terminated, steps = False, 0
    while not terminated:
        _, _, terminated, _, info = env.step(env.expert_action())
        assert info["executable"]
        steps += 1
    assert info["success"] and steps <= 10


def test_dead_end_gives_no_expert_action() -> None:
    env = HouseholdEnv()
    env.reset(seed=0, options={"task": "warm milk", "room": "living room"})
    assert env.expert_action() is not None
    for name in ("walk to kitchen", "find microwave", "switch on microwave"):
        assert env.step(action_id(name))[4]["executable"]
    assert env.expert_action() is None  # the running microwave can no longer be opened
    assert plan(env.world, env.task) is None


def test_reference_plan_is_the_plan_from_the_start() -> None:
    env = HouseholdEnv()
    env.reset(seed=3, options={"task": "do laundry"})
    reference = env.reference_plan
    env.step(action_id("walk to kitchen"))
    assert env.reference_plan == reference
    assert env.action_names[reference[-1]] == "switch on washing machine"
