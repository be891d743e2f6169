"""Household-v1: contract, action set, drawn hidden placements, dead ends, experts, fields."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401
from rewardgym.envs.contract import check_environment
from rewardgym.envs.household.v1 import (
    ACTIONS,
    BEHAVIOURS,
    FIELDS,
    INSTRUCTIONS,
    KEY_OBJECTS,
    N_ACTIONS,
    OBJECT_NAMES,
    REASONS,
    TASKS,
    HouseholdV1Env,
    action_id,
    instructions_for,
)


def _run(env: HouseholdV1Env, names: list[str]) -> dict:
    info: dict = {}
    for name in names:
        _, _, _, _, info = env.step(action_id(name))
    return info


@pytest.mark.parametrize("layout", ["default", "shifted"])
def test_contract_in_both_layouts(layout: str) -> None:
    check_environment(lambda: gym.make("rewardgym/Household-v1", layout=layout))


def test_action_set_has_eight_behaviours_and_sixty_one_actions() -> None:
    env = gym.make("rewardgym/Household-v1")
    assert env.action_space == gym.spaces.Discrete(61) and N_ACTIONS == 61
    assert {a.behaviour for a in ACTIONS} == set(BEHAVIOURS) and len(BEHAVIOURS) == 8
    counts = {b: sum(a.behaviour == b for a in ACTIONS) for b in BEHAVIOURS}
    assert counts == {
        "find": 26,
        "grab": 7,
        "open": 5,
        "close": 5,
        "sit": 2,
        "put": 6,
        "put in": 6,
        "switch on": 4,
    }
    _, info = env.reset(seed=0)
    assert info["action_names"] == env.unwrapped.action_names


def test_every_task_has_three_to_five_predicates_and_a_sibling_over_shared_objects() -> None:
    for task in TASKS:
        assert 3 <= len(task.goal) <= 5
        sibling = TASKS[task.sibling]
        assert sibling.id != task.id and task.objects & sibling.objects


def test_instruction_splits_hold_five_each_and_never_share_a_string() -> None:
    for task in TASKS:
        for kind in ("train", "fine", "abstract"):
            assert len(instructions_for(task.id, kind)) == 5
    train = {i.text for i in INSTRUCTIONS if i.kind == "train"}
    held_out = {i.text for i in INSTRUCTIONS if i.kind != "train"}
    assert not train & held_out and len(held_out) == 250
    assert instructions_for(0, "fine-grained") == instructions_for(0, "fine")


def test_placements_are_drawn_per_episode_and_closed_containers_hide_them() -> None:
    env = HouseholdV1Env()
    places = set()
    for seed in range(40):
        env.reset(seed=seed)
        places.add(tuple(env.placements.values()))
    assert len(places) > 10
    obs, _ = env.reset(
        seed=0, options={"task": 0, "room": "kitchen", "placements": {"apple": "fridge"}}
    )
    apple = OBJECT_NAMES.index("apple")
    assert obs["visible"][apple] == 0
    _run(env, ["find fridge", "open fridge"])
    obs = env._observe()
    assert obs["visible"][apple] == 1 and obs["open"][OBJECT_NAMES.index("fridge")] == 1
    with pytest.raises(ValueError, match="plausible"):
        env.reset(seed=0, options={"placements": {"apple": "bed"}})


def test_throwing_a_needed_object_away_ends_the_episode_as_a_failure() -> None:
    env = HouseholdV1Env()
    env.reset(
        seed=0,
        options={
            "task": "snack in front of the tv",
            "room": "kitchen",
            "placements": {"apple": "kitchen counter"},
        },
    )
    info = _run(env, ["find apple", "grab apple", "find trash can"])
    assert not info["failure"]
    _, reward, terminated, truncated, info = env.step(action_id("put in trash can"))
    assert terminated and not truncated and reward == 0.0 and not info["success"]
    assert "put in trash can" in info["failure"]


def test_switching_an_appliance_on_before_loading_it_is_a_dead_end() -> None:
    env = HouseholdV1Env()
    env.reset(seed=0, options={"task": "warm the milk", "room": "kitchen"})
    info = _run(env, ["find microwave"])
    _, _, terminated, _, info = env.step(action_id("switch on microwave"))
    assert terminated and info["failure"]
    assert env.goal_distance() is None


def test_a_broken_rule_is_reported_in_info_and_in_the_observation_fields() -> None:
    env = HouseholdV1Env()
    env.reset(seed=0, options={"room": "kitchen"})
    obs, _, _, _, info = env.step(action_id("grab book"))
    assert not info["executable"] and info["reason_code"] == obs["last_result"] > 0
    assert obs["last_action"] == action_id("grab book") + 1
    assert info["reason"] in obs["text"] and REASONS[info["reason_code"]]
    assert set(FIELDS) == set(env.observation_space.spaces)


def test_the_expert_script_solves_every_task_and_averages_at_least_fifteen_steps() -> None:
    env = HouseholdV1Env()
    lengths = []
    for seed in range(200):
        env.reset(seed=seed, options={"task": seed % len(TASKS)})
        script = env.expert_script()
        lengths.append(len(script))
        for action in script:
            _, _, terminated, _, info = env.step(action)
        assert info["success"] and terminated
    print(f"mean expert script over 200 episodes: {np.mean(lengths):.1f} steps")
    assert np.mean(lengths) >= 15.0 and max(lengths) <= 40


def test_a_random_executable_policy_almost_never_succeeds() -> None:
    env = HouseholdV1Env()
    rng = np.random.default_rng(0)
    wins = 0
    for seed in range(300):
        env.reset(seed=seed)
        done = False
        while not done:
            choices = env.executable_actions()
            _, _, terminated, truncated, info = env.step(int(rng.choice(choices)))
            done = terminated or truncated
        wins += info["success"]
    print(f"random executable policy: {wins}/300 successes")
    assert wins / 300 < 0.02


def test_replay_options_rebuild_the_first_state_exactly() -> None:
    env = HouseholdV1Env(layout="shifted")
    obs, _ = env.reset(seed=5)
    options = env.replay_options()
    world = env.world.copy()
    env.step(0)
    again, _ = env.reset(seed=99, options=options)
    assert env.world == world and again["text"] == obs["text"]
    assert set(options["placements"]) == set(KEY_OBJECTS)
