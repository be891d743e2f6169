"""Executability rules: an impossible action changes nothing and says why."""

from __future__ import annotations

import pytest

from rewardgym.envs.household import World, action_id, apply_action, executable_actions
from rewardgym.envs.household.v0.world import OBJECT_INDEX, ROOMS


def _world(room: str = "kitchen") -> World:
    return World("default", start_room=ROOMS.index(room))


def _do(world: World, *names: str) -> str:
    reason = ""
    for name in names:
        reason = apply_action(world, action_id(name))
        if reason:
            return reason
    return reason


@pytest.mark.parametrize(
    ("room", "setup", "action", "reason"),
    [
        ("kitchen", [], "walk to kitchen", "already in the kitchen"),
        ("kitchen", [], "find sofa", "cannot see the sofa"),
        ("kitchen", [], "find plate", "cannot see the plate"),  # shut in the cabinet
        ("kitchen", [], "grab milk", "not next to the milk"),
        ("kitchen", ["find milk", "grab milk"], "find milk", "already holding the milk"),
        (
            "kitchen",
            [
                "find milk",
                "grab milk",
                "find kitchen cabinet",
                "open kitchen cabinet",
                "find plate",
            ],
            "grab plate",
            "hands are full",
        ),
        ("kitchen", ["find milk", "grab milk", "find fridge"], "put in fridge", "is closed"),
        ("kitchen", [], "put on kitchen table", "not holding anything"),
        ("kitchen", ["find fridge"], "close fridge", "already closed"),
        ("kitchen", ["find microwave", "open microwave"], "switch on microwave", "close it"),
        ("kitchen", ["find microwave", "switch on microwave"], "open microwave", "switched on"),
        ("kitchen", ["find microwave", "switch on microwave"], "switch on microwave", "already on"),
        ("living room", ["find sofa", "sit on sofa"], "sit on sofa", "already sitting"),
        ("living room", [], "sit on sofa", "not next to the sofa"),
    ],
)
def test_impossible_actions_leave_the_world_unchanged(
    room: str, setup: list[str], action: str, reason: str
) -> None:
    world = _world(room)
    assert _do(world, *setup) == ""
    before = world.copy()
    got = apply_action(world, action_id(action))
    assert reason in got
    assert world == before


def test_grab_put_and_containers_move_objects() -> None:
    world = _world("kitchen")
    assert _do(world, "find milk", "grab milk", "find fridge", "open fridge", "put in fridge") == ""
    milk, fridge = OBJECT_INDEX["milk"], OBJECT_INDEX["fridge"]
    assert world.obj_parent[milk] == fridge and world.held == -1
    assert milk in world.visible_objects()
    assert _do(world, "close fridge") == ""
    assert milk not in world.visible_objects()


def test_walking_stands_up_and_forgets_what_was_near() -> None:
    world = _world("living room")
    assert _do(world, "find sofa", "sit on sofa", "walk to kitchen") == ""
    assert world.sitting == -1 and world.near == -1 and world.agent_room == 0


def test_grab_keeps_the_agent_by_the_container() -> None:
    world = _world("kitchen")
    assert (
        _do(world, "find kitchen cabinet", "open kitchen cabinet", "find plate", "grab plate") == ""
    )
    assert world.near == OBJECT_INDEX["kitchen cabinet"]
    assert _do(world, "close kitchen cabinet") == ""


def test_executable_actions_matches_apply_action() -> None:
    world = _world("bathroom")
    allowed = executable_actions(world)
    for action in range(58):
        assert (apply_action(world.copy(), action) == "") == (action in allowed)
    assert action_id("find towel") in allowed and action_id("walk to bathroom") not in allowed


def test_unknown_action_name_is_reported() -> None:
    with pytest.raises(ValueError, match="unknown household action"):
        action_id("fly")
