"""``rewardgym/TrajectoryReplay-v0`` replays logged steps, with or without a data set given."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

import rewardgym  # noqa: F401
from rewardgym.envs.trajectories import TrajectoryDataset
from rewardgym.envs.trajectories.replay import default_replay_dir


def test_replay_returns_the_logged_steps(small_dataset: TrajectoryDataset, tmp_path: Path) -> None:
    small_dataset.save(tmp_path / "set", minari=False)
    env = gym.make("rewardgym/TrajectoryReplay-v0", dataset=str(tmp_path / "set"))
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(options={"episode": 4})
    ep = small_dataset[4]
    assert obs["text"] == ep.observations["text"][0] and info["instruction"] == ep.instruction
    rewards, done, t = [], False, 0
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(ep.actions[t]))
        assert info["action_matches"] and info["logged_action"] == ep.actions[t]
        assert np.array_equal(obs["visible"], ep.observations["visible"][t + 1])
        rewards.append(reward)
        done, t = terminated or truncated, t + 1
    assert t == len(ep) and sum(rewards) == float(ep.success)
    assert terminated == bool(ep.terminations[-1])


def test_replay_of_relabelled_rewards(small_dataset: TrajectoryDataset) -> None:
    dense = small_dataset.with_rewards([np.full(len(ep), 0.5) for ep in small_dataset])
    env = gym.make("rewardgym/TrajectoryReplay-v0", dataset=dense)
    env.reset(options={"episode": 0})
    assert env.step(0)[1] == 0.5


def test_bare_make_builds_and_caches_a_default_household_set() -> None:
    env = gym.make("rewardgym/TrajectoryReplay-v0")
    obs, info = env.reset(seed=0)
    assert "Instruction:" in obs["text"] and len(info["action_names"]) == 61
    stamp = (default_replay_dir() / "steps.arrow").stat().st_mtime_ns
    gym.make("rewardgym/TrajectoryReplay-v0")
    assert (default_replay_dir() / "steps.arrow").stat().st_mtime_ns == stamp
