"""The Household env's contract: spaces, info, partial observability, seeding, options."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence

import rewardgym  # noqa: F401
from rewardgym.envs.household import ACTION_NAMES, HouseholdEnv, action_id
from rewardgym.envs.household.v0.world import OBJECT_INDEX


def _act(env: gym.Env, name: str) -> dict:
    _, _, _, _, info = env.step(action_id(name))
    return info


def test_checker_and_action_set() -> None:
    env = gym.make("rewardgym/Household-v0")
    check_env(env.unwrapped, skip_render_check=True)
    assert env.action_space == gym.spaces.Discrete(58)
    _, info = env.reset(seed=0)
    assert info["action_names"] == env.unwrapped.action_names == ACTION_NAMES
    assert len(set(ACTION_NAMES)) == 58
    assert {"task_id", "goal", "instruction", "instruction_kind", "success", "cgc"} <= set(info)


def test_every_step_reports_success_cgc_and_executability() -> None:
    env = gym.make("rewardgym/Household-v0")
    env.reset(seed=1)
    env.action_space.seed(1)
    for _ in range(30):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        assert {"success", "cgc", "executable", "reason", "action_name"} <= set(info)
        assert reward == (1.0 if info["success"] else 0.0)
        assert info["executable"] == (info["reason"] == "")
        if terminated or truncated:
            env.reset()


def test_objects_in_a_closed_container_are_hidden_until_it_opens() -> None:
    env = HouseholdEnv()
    obs, _ = env.reset(seed=0, options={"task": "take a plate"})
    env.world.agent_room = 0  # the kitchen
    _act(env, "find kitchen cabinet")
    plate = OBJECT_INDEX["plate"]
    obs = env._observe()
    assert obs["visible"][plate] == 0 and "plate" not in obs["text"].split("You see:")[1]
    _act(env, "open kitchen cabinet")
    obs = env._observe()
    assert obs["visible"][plate] == 1
    assert "plate (in the kitchen cabinet)" in obs["text"]
    assert obs["open"][OBJECT_INDEX["kitchen cabinet"]] == 1


def test_success_terminates_with_reward_one_and_truncation_at_the_limit() -> None:
    env = HouseholdEnv(max_steps=20)
    env.reset(seed=0, options={"task": "turn on tv"})
    total, terminated = 0.0, False
    while not terminated:
        _, reward, terminated, truncated, info = env.step(env.expert_action())
        total += float(reward)
        assert not truncated
    assert total == 1.0 and info["success"] and info["cgc"] == 1.0
    env = HouseholdEnv(max_steps=3)
    env.reset(seed=0)
    results = [env.step(action_id("walk to kitchen"))[2:4] for _ in range(3)]
    assert results[-1] == (False, True) and results[0] == (False, False)


def test_reset_options_choose_task_and_instruction() -> None:
    env = HouseholdEnv(instructions="abstract")
    obs, info = env.reset(seed=0, options={"task": "watch tv", "instruction": 4})
    assert info["task_name"] == "watch tv" and info["instruction_kind"] == "abstract"
    assert obs["task"] == 2 and info["instruction"] in obs["text"]
    with pytest.raises(ValueError, match="out of range"):
        env.reset(options={"task": 0, "instruction": 5})
    with pytest.raises(ValueError, match="unknown household task"):
        env.reset(options={"task": "fly to the moon"})
    with pytest.raises(ValueError, match="unknown room"):
        env.reset(options={"room": "attic"})
    assert env.reset(options={"room": "bathroom"})[0]["room"] == 3


def test_bad_arguments_say_what_to_use() -> None:
    with pytest.raises(ValueError, match="unknown layout"):
        HouseholdEnv(layout="upside-down")
    with pytest.raises(ValueError, match="instruction split"):
        HouseholdEnv(instructions="test")
    env = HouseholdEnv()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(58)


def test_seeded_rollouts_and_pickles_repeat() -> None:
    def rollout(env: gym.Env) -> list:
        trace = [env.reset(seed=5)[0]]
        env.action_space.seed(5)
        for _ in range(40):
            obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            trace.append((obs, reward))
            if terminated or truncated:
                trace.append(env.reset()[0])
        return trace

    env = gym.make("rewardgym/Household-v0", layout="shifted")
    assert data_equivalence(
        rollout(env), rollout(gym.make("rewardgym/Household-v0", layout="shifted"))
    )
    clone = pickle.loads(pickle.dumps(env))
    assert data_equivalence(rollout(env), rollout(clone))


def test_task_subset_and_render() -> None:
    env = HouseholdEnv(tasks=["store milk", 3], render_mode="ansi")
    seen = {env.reset(seed=s)[1]["task_id"] for s in range(20)}
    assert seen == {11, 3}
    assert env.render().startswith("Instruction: ")


def test_step_is_fast() -> None:
    env = HouseholdEnv()
    env.reset(seed=0)
    actions = np.random.default_rng(0).integers(58, size=2000)
    import time

    start = time.perf_counter()
    for a in actions:
        _, _, terminated, truncated, _ = env.step(int(a))
        if terminated or truncated:
            env.reset()
    per_step = (time.perf_counter() - start) / len(actions)
    assert per_step < 1e-3, f"{per_step * 1e6:.0f} us per step"
