"""Online agents: the embedding observation wrapper and SB3 PPO/DQN with sparse or COREN reward."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.agents.evaluation.household import EvalConfig, evaluate_household
from rewardgym.agents.online import (
    EmbeddingObservation,
    OnlineConfig,
    make_online_env,
    success_rate,
    train_online,
)
from rewardgym.embeddings import hashing_embedder


@pytest.mark.parametrize("env_id", ["rewardgym/Household-v1", "rewardgym/BabyAI-GoToLocal-Text-v0"])
def test_embedding_observation_is_a_box_the_encoder_fills(env_id: str) -> None:
    """Observations become float32 vectors inside the wrapper's Box, with the instruction embedded."""
    env = EmbeddingObservation(gym.make(env_id), embedder=hashing_embedder())
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    assert env.instruction
    obs, *_ = env.step(env.action_space.sample())
    assert obs.shape == env.observation_space.shape


def test_coren_reward_reaches_the_agent_env() -> None:
    """With ``reward="coren"`` the step reward is the judge ensemble's, with its terms in info."""
    config = OnlineConfig(reward="coren", env_kwargs={"tasks": [3]})
    env = make_online_env(config, hashing_embedder())
    env.reset(seed=0)
    _, reward, _, _, info = env.step(int(env.unwrapped.expert_action()))
    assert set(info["reward_terms"]) >= {"contextual", "structural", "temporal", "total"}
    assert -2.0 <= float(reward) <= 3.0


def test_oracle_reward_is_the_success_flag_plus_scaled_shaping() -> None:
    """With ``reward="oracle"`` the expert's steps earn shaping; lambda scales only the dense part."""
    totals = {}
    for weight in (1.0, 3.0):
        config = OnlineConfig(reward="oracle", dense_weight=weight, env_kwargs={"tasks": [3]})
        env = make_online_env(config, hashing_embedder())
        env.reset(seed=0)
        total, success = 0.0, 0.0
        for action in env.unwrapped.expert_script():
            _, reward, terminated, _, info = env.step(action)
            terms = info["reward_terms"]
            assert float(reward) == terms["total"]
            assert np.isclose(terms["total"], terms["success"] + weight * terms["dense"], atol=1e-6)
            total += float(reward)
            success += terms["success"]
        assert terminated and success == 1.0
        totals[weight] = total
    assert totals[3.0] - 1.0 == pytest.approx(3.0 * (totals[1.0] - 1.0), abs=1e-4)


@pytest.mark.parametrize(
    "config",
    [
        OnlineConfig(algorithm="ppo", timesteps=64, env_kwargs={"tasks": [3]}),
        OnlineConfig(algorithm="dqn", reward="coren", timesteps=64, env_kwargs={"tasks": [3]}),
    ],
    ids=["ppo-sparse", "dqn-coren"],
)
def test_train_online_smoke(config: OnlineConfig) -> None:
    """A tiny SB3 run trains, acts on raw observations and is scored like an offline agent."""
    agent = train_online(config, embedder=hashing_embedder())
    result = evaluate_household(agent, EvalConfig(tasks=(3,), splits=("fine",)))
    assert 0.0 <= result["fine"].percent()["sr"] <= 100.0
    assert 0.0 <= success_rate(agent, episodes=2) <= 1.0


def test_online_config_rejects_unknown_names() -> None:
    """Unknown algorithms and rewards fail at construction, naming the field."""
    with pytest.raises(ValueError, match="algorithm"):
        OnlineConfig(algorithm="a2c")
    with pytest.raises(ValueError, match="reward"):
        OnlineConfig(reward="dense")
