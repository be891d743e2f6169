"""The oracle's potential: the searcher's remaining steps, from what the agent has seen."""

from __future__ import annotations

import numpy as np

from rewardgym.envs.household.v1 import HouseholdV1Env, action_id
from rewardgym.envs.household.v1.oracle import (
    FAILURE_DISTANCE,
    ORACLE_SCALE,
    episode_potentials,
    oracle_dense_rewards,
    potential,
)
from rewardgym.envs.trajectories import CollectConfig, collect_dataset


def test_the_expert_script_brings_the_goal_one_step_closer_each_step() -> None:
    env = HouseholdV1Env()
    for seed in range(50):
        env.reset(seed=seed)
        script = env.expert_script()
        assert env.search_distance() == len(script)
        for i, action in enumerate(script):
            env.step(action)
            assert env.search_distance() == len(script) - i - 1


def test_a_search_that_finds_nothing_is_progress_not_hindsight() -> None:
    """Opening the fridge when the apple is elsewhere costs nothing against the searcher."""
    env = HouseholdV1Env()
    env.reset(
        seed=0,
        options={
            "task": "snack in front of the tv",
            "room": "kitchen",
            "placements": {"apple": "coffee table", "milk": "kitchen counter"},
        },
    )
    before = env.search_distance()
    assert before is not None
    env.step(action_id("find fridge"))
    env.step(action_id("open fridge"))
    after = env.search_distance()
    assert after is not None and after <= before


def test_potentials_of_a_logged_episode_replay_its_states() -> None:
    data = collect_dataset(CollectConfig(episodes=30, seed=4))
    dense = oracle_dense_rewards(data, gamma=0.99)
    env = HouseholdV1Env()
    for ep, rewards in zip(data, dense, strict=True):
        phi = episode_potentials(ep, env)
        assert len(phi) == len(ep) + 1 and len(rewards) == len(ep)
        np.testing.assert_allclose(rewards, 0.99 * phi[1:] - phi[:-1], atol=1e-6)
        if ep.success:
            assert phi[-1] == 0.0
        elif ep.terminations[-1]:
            assert phi[-1] == potential(None) == -FAILURE_DISTANCE / ORACLE_SCALE
    failed = [
        r for ep, r in zip(data, dense, strict=True) if ep.terminations[-1] and not ep.success
    ]
    assert failed and all(r[-1] < -1.0 for r in failed)
