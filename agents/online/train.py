"""Online agents: Stable-Baselines3 PPO and DQN on Household or BabyAI-text, sparse or dense reward.

The env stack is ``gym.make(env_id)`` -> ``CorenReward`` (``reward="coren"``) or
``OracleProgressReward`` (``reward="oracle"``, Household-v1 only), both composing the success
flag with their dense term as ``success + dense_weight * dense`` (the function offline training
uses), -> ``EmbeddingObservation`` -> SB3. ``OnlineAgent`` acts
on raw observations through the same encoder, so ``rewardgym.agents.evaluation.household`` scores it
exactly like an offline agent.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import gymnasium as gym
import numpy as np

from rewardgym.agents.online.observation import EmbeddingObservation
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, SEED, check_fields
from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs import HOUSEHOLD_ID
from rewardgym.wrappers.composition import RewardComposition

ONLINE_ALGORITHMS: tuple[str, ...] = ("ppo", "dqn")
REWARDS: tuple[str, ...] = ("sparse", "coren", "oracle")


@dataclass(frozen=True)
class OnlineConfig:
    """One online training run (SB3 defaults except where noted)."""

    env_id: str = HOUSEHOLD_ID
    """Registered id: rewardgym/Household-v1 (or -v0) or a rewardgym/BabyAI-*-Text-v0 level."""
    algorithm: str = "ppo"
    """"ppo" or "dqn" (Stable-Baselines3)."""
    reward: str = "sparse"
    """"sparse" (the env's success reward), "coren" (``CorenReward`` with the embedding judge) or
    "oracle" (``OracleProgressReward``, Household-v1)."""
    coren_ablation: str = "average"
    """COREN ablation of the online reward (orchestrated ones need ``orchestrator``)."""
    orchestrator: str | None = None
    """Path of an orchestrator saved by ``rewardgym label coren`` (``OUT/coren/orchestrator.pt``)."""
    dense_weight: Annotated[float, NON_NEGATIVE] = RewardComposition.dense_weight
    """lambda: the weight of the dense term beside the success flag ("coren", "oracle")."""
    timesteps: Annotated[int, AT_LEAST_1] = 20_000
    """Environment steps of training."""
    encoding: str = "structured"
    """Observation encoding: "structured" or "text"."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments of ``gym.make`` (for Household: tasks, layout, max_steps)."""
    seed: Annotated[int, SEED] = 0
    """Seed of the env and the policy."""

    def __post_init__(self) -> None:
        """Reject unknown algorithms, rewards and step counts, naming the field."""
        check_fields(self)
        if self.algorithm not in ONLINE_ALGORITHMS:
            raise ValueError(f"OnlineConfig.algorithm={self.algorithm!r}: use {ONLINE_ALGORITHMS}")
        if self.reward not in REWARDS:
            raise ValueError(f"OnlineConfig.reward={self.reward!r}: use one of {REWARDS}")
        if self.timesteps < 1:
            raise ValueError(f"OnlineConfig.timesteps={self.timesteps}: use at least 1")


def make_online_env(
    config: OnlineConfig, embedder: CachedEmbedder | None = None
) -> EmbeddingObservation:
    """The wrapped training env of ``config``: raw env, optional ``CorenReward``, encoder."""
    env: gym.Env[Any, Any] = gym.make(config.env_id, **config.env_kwargs)
    composition = RewardComposition(dense_weight=config.dense_weight)
    if config.reward == "oracle":
        from rewardgym.wrappers.oracle import OracleProgressReward

        env = OracleProgressReward(env, composition)
    if config.reward == "coren":
        from rewardgym.wrappers.coren import CorenConfig, CorenReward
        from rewardgym.wrappers.judges import EmbeddingJudge

        judge = EmbeddingJudge(embedder) if embedder is not None else EmbeddingJudge()
        env = CorenReward(
            env,
            judge,
            orchestrator=config.orchestrator,
            config=CorenConfig(ablation=config.coren_ablation),
            composition=composition,
        )
    return EmbeddingObservation(env, config.encoding, embedder)


class OnlineAgent:
    """A trained SB3 model plus the observation encoder of its env."""

    def __init__(self, model: Any, env: EmbeddingObservation, config: OnlineConfig) -> None:
        """Pair ``model`` with the wrapper whose encoder made its inputs."""
        self.model = model
        self.env = env
        self.config = config
        self.train_seconds = 0.0

    def act_batch(
        self, observations: Sequence[dict[str, Any]], instructions: Sequence[str]
    ) -> np.ndarray:
        """Deterministic actions for a batch of raw observations with their instructions."""
        columns = {key: [obs[key] for obs in observations] for key in observations[0]}
        x = self.env.encoder.encode_batch(columns, instructions).astype(np.float32)
        actions, _ = self.model.predict(x, deterministic=True)
        return np.asarray(actions, dtype=np.int64).reshape(-1)


def train_online(
    config: OnlineConfig | None = None,
    embedder: CachedEmbedder | None = None,
    progress: bool = False,
) -> OnlineAgent:
    """Train ``config``'s SB3 algorithm online and return the agent.

    Example:
        >>> agent = train_online(OnlineConfig(timesteps=64))  # doctest: +SKIP
    """
    import torch
    from stable_baselines3 import DQN, PPO

    config = config or OnlineConfig()
    env = make_online_env(config, embedder)
    env.reset(seed=config.seed)
    env.action_space.seed(config.seed)
    torch.manual_seed(config.seed)
    if config.algorithm == "ppo":
        rollout = max(64, min(256, config.timesteps))
        model: Any = PPO(
            "MlpPolicy",
            env,
            seed=config.seed,
            n_steps=rollout,
            batch_size=64,
            verbose=0,
            device="cpu",
        )
    else:
        model = DQN(
            "MlpPolicy",
            env,
            seed=config.seed,
            learning_starts=min(1000, config.timesteps // 2),
            target_update_interval=250,
            verbose=0,
            device="cpu",
        )
    start = time.perf_counter()
    model.learn(total_timesteps=config.timesteps, progress_bar=progress)
    agent = OnlineAgent(model, env, config)
    agent.train_seconds = time.perf_counter() - start
    return agent


def success_rate(agent: OnlineAgent, episodes: int = 20, seed: int = 1000) -> float:
    """The share of ``episodes`` fresh episodes (any registered env) the agent finishes successfully."""
    env = gym.make(agent.config.env_id, **agent.config.env_kwargs)
    wins = 0
    for i in range(episodes):
        from rewardgym.agents.online.observation import instruction_of

        obs, info = env.reset(seed=seed + i)
        instruction = instruction_of(env, info)
        done, reward = False, 0.0
        while not done:
            action = int(agent.act_batch([obs], [instruction])[0])
            obs, r, terminated, truncated, info = env.step(action)
            reward, done = float(r), terminated or truncated
        wins += bool(info.get("success", reward > 0))
    env.close()
    return wins / episodes


__all__ = [
    "ONLINE_ALGORITHMS",
    "REWARDS",
    "OnlineAgent",
    "OnlineConfig",
    "make_online_env",
    "success_rate",
    "train_online",
]
