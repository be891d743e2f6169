"""Every registered ``rewardgym/*`` id: Gymnasium's checker, seeded determinism, pickling."""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence

import rewardgym  # noqa: F401
from rewardgym.envs import rewardgym_ids

IDS = rewardgym_ids()
ROLLOUT_STEPS = 25


def test_every_family_is_registered() -> None:
    assert "rewardgym/ShopSession-v0" in IDS
    assert "rewardgym/Household-v0" in IDS
    assert "rewardgym/TrajectoryReplay-v0" in IDS
    assert any(i.startswith("rewardgym/BabyAI-") for i in IDS)
    for env_id in IDS:
        assert isinstance(gym.spec(env_id).entry_point, str), "Minari needs string entry points"


def _rollout(env: gym.Env, seed: int) -> list:
    obs, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    trace = [obs]
    for _ in range(ROLLOUT_STEPS):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        trace.append((obs, reward, terminated, truncated))
        if terminated or truncated:
            obs, _ = env.reset()
            trace.append(obs)
    return trace


@pytest.mark.parametrize("env_id", IDS)
def test_check_env(env_id: str) -> None:
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_seeded_determinism(env_id: str) -> None:
    first, second = gym.make(env_id), gym.make(env_id)
    assert data_equivalence(_rollout(first, 7), _rollout(second, 7))
    first.close()
    second.close()


@pytest.mark.parametrize("env_id", IDS)
def test_pickle_round_trip(env_id: str) -> None:
    env = gym.make(env_id)
    env.reset(seed=3)
    clone = pickle.loads(pickle.dumps(env))
    assert data_equivalence(_rollout(env, 11), _rollout(clone, 11))
    env.close()
    clone.close()
