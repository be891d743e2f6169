"""BabyAI levels from minigrid with a text observation, and minigrid's ``BabyAIBot`` as expert."""

from __future__ import annotations

from rewardgym.envs.babyai.describe import DIRECTIONS, describe, describe_view
from rewardgym.envs.babyai.text_env import ACTION_NAMES, BabyAITextEnv

__all__ = ["ACTION_NAMES", "DIRECTIONS", "BabyAITextEnv", "describe", "describe_view"]
