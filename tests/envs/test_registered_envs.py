"""Every registered ``rewardgym/*`` id keeps the environment contract (``rewardgym.envs.contract``)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import rewardgym  # noqa: F401
from rewardgym.envs import rewardgym_ids
from rewardgym.envs.contract import check_environment, check_reward_wrapper
from rewardgym.wrappers import BinaryMatchReward, ShopR1Reward

IDS = rewardgym_ids()


def test_every_family_is_registered() -> None:
    assert "rewardgym/ShopSession-v0" in IDS
    assert "rewardgym/Household-v0" in IDS
    assert "rewardgym/TrajectoryReplay-v0" in IDS
    assert any(i.startswith("rewardgym/BabyAI-") for i in IDS)
    for env_id in IDS:
        assert isinstance(gym.spec(env_id).entry_point, str), "Minari needs string entry points"


@pytest.mark.parametrize("env_id", IDS)
def test_environment_contract(env_id: str) -> None:
    check_environment(lambda: gym.make(env_id))


@pytest.mark.parametrize("wrapper", [ShopR1Reward, BinaryMatchReward])
def test_reward_wrapper_contract(wrapper: type[gym.Wrapper]) -> None:
    answers = ["", "{", '{"rationale": "r", "action": {"type": "terminate"}}'] * 5
    check_reward_wrapper(wrapper(gym.make("rewardgym/ShopSession-v0")), answers)


def test_contract_catches_a_nondeterministic_env() -> None:
    class Flaky(gym.Env):
        observation_space = gym.spaces.Discrete(1000)
        action_space = gym.spaces.Discrete(2)
        calls = 0

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            Flaky.calls += 1
            return Flaky.calls % 1000, {}

        def step(self, action):
            return 0, 0.0, False, False, {}

    with pytest.raises(AssertionError, match="diverged"):
        check_environment(Flaky)
