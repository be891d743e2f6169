"""Online agents: SB3 PPO and DQN on the text worlds through an embedding observation wrapper."""

from __future__ import annotations

from rewardgym.agents.online.observation import EmbeddingObservation, instruction_of
from rewardgym.agents.online.train import (
    ONLINE_ALGORITHMS,
    REWARDS,
    OnlineAgent,
    OnlineConfig,
    make_online_env,
    success_rate,
    train_online,
)

__all__ = [
    "ONLINE_ALGORITHMS",
    "REWARDS",
    "EmbeddingObservation",
    "OnlineAgent",
    "OnlineConfig",
    "instruction_of",
    "make_online_env",
    "success_rate",
    "train_online",
]
