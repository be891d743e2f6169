"""Every registered ``rewardgym/*`` id keeps the environment contract (``rewardgym.envs.contract``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import pytest

import rewardgym  # noqa: F401
from rewardgym import wrappers
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs import rewardgym_ids
from rewardgym.envs.contract import check_environment, check_reward_wrapper
from rewardgym.wrappers import BinaryMatchReward, CorenReward, OracleProgressReward, ShopR1Reward
from rewardgym.wrappers.coren import CorenConfig
from rewardgym.wrappers.judges import EmbeddingJudge

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


SHOP_ANSWERS = ["", "{", '{"rationale": "r", "action": {"type": "terminate"}}'] * 5
HOUSEHOLD_ACTIONS = list(range(0, 61, 7))


def _coren(env: gym.Env) -> gym.Env:
    judge = EmbeddingJudge(hashing_embedder())
    return CorenReward(env, judge, config=CorenConfig(ablation="average", qa_pairs=6))


# Every reward wrapper the package exports, with an env it wraps and actions to step it with.
WRAPPER_CASES: dict[str, tuple[Callable[[gym.Env], gym.Env], str, list[Any]]] = {
    "ShopR1Reward": (ShopR1Reward, "rewardgym/ShopSession-v0", SHOP_ANSWERS),
    "BinaryMatchReward": (BinaryMatchReward, "rewardgym/ShopSession-v0", SHOP_ANSWERS),
    "CorenReward": (_coren, "rewardgym/Household-v1", HOUSEHOLD_ACTIONS),
    "OracleProgressReward": (OracleProgressReward, "rewardgym/Household-v1", HOUSEHOLD_ACTIONS),
}


def test_every_exported_wrapper_has_a_contract_case() -> None:
    exported = {
        name
        for name in wrappers.__all__
        if isinstance(getattr(wrappers, name), type)
        and issubclass(getattr(wrappers, name), gym.Wrapper)
    }
    assert exported == set(WRAPPER_CASES)


@pytest.mark.parametrize("name", sorted(WRAPPER_CASES))
def test_reward_wrapper_contract_and_spec_rebuild(name: str) -> None:
    """``check_reward_wrapper`` passes, and ``env.spec`` records the wrapper so make rebuilds it."""
    wrap, env_id, actions = WRAPPER_CASES[name]
    env = wrap(gym.make(env_id))
    check_reward_wrapper(env, actions)
    assert env.spec is not None
    recorded = [w.name for w in env.spec.additional_wrappers]
    assert recorded[-1] == name, recorded
    rebuilt = gym.make(env.spec)
    assert type(rebuilt).__name__ == name
    first, second = (e.reset(seed=3)[0] for e in (env, rebuilt))
    if isinstance(first, dict):
        assert first.keys() == second.keys()
    check_reward_wrapper(rebuilt, actions[:4])


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
