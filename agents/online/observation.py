"""``EmbeddingObservation``: a text-world ``Dict`` observation as one float vector for SB3.

Stable-Baselines3 policies read ``Box`` observations; this wrapper encodes each observation
with the same ``ObservationEncoder`` as the offline data sets (the structured encoding with a
cached MiniLM instruction embedding by default, or the MiniLM embedding of the full text), so
online and offline agents see identical inputs.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs.trajectories.encoding import ObservationEncoder


def instruction_of(env: gym.Env[Any, Any], info: dict[str, Any]) -> str:
    """The episode's instruction: ``info["instruction"]`` (Household) or the BabyAI mission."""
    text = info.get("instruction")
    if text:
        return str(text)
    mission = getattr(env.unwrapped, "mission", None)
    if mission is None:
        raise ValueError(
            f"{type(env.unwrapped).__name__} gives no instruction: reset info has no "
            "'instruction' and the env has no 'mission'"
        )
    return str(mission)


class EmbeddingObservation(gym.ObservationWrapper[np.ndarray, Any, Any]):
    """Encode every ``Dict`` observation as a float32 vector (``Box``) with an ``ObservationEncoder``.

    Example:
        >>> import gymnasium as gym, numpy as np
        >>> import rewardgym
        >>> from rewardgym.envs.trajectories import CachedEmbedder
        >>> fake = CachedEmbedder(lambda t: np.ones((len(t), 8)), name="ones", persist=False)
        >>> env = EmbeddingObservation(gym.make("rewardgym/Household-v0"), embedder=fake)
        >>> env.reset(seed=0)[0].shape
        (198,)
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        kind: str = "structured",
        embedder: CachedEmbedder | None = None,
    ) -> None:
        """Wrap ``env`` (a ``Dict`` observation space) with encoding ``kind``."""
        super().__init__(env)
        space = env.observation_space
        if not isinstance(space, spaces.Dict):
            raise TypeError(f"EmbeddingObservation needs a Dict observation space, got {space}")
        self.encoder = ObservationEncoder(space, kind, embedder)
        self.observation_space = spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32)
        self.instruction = ""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the env and remember the episode's instruction."""
        obs, info = self.env.reset(seed=seed, options=options)
        self.instruction = instruction_of(self.env, info)
        return self.observation(obs), info

    def observation(self, observation: Any) -> np.ndarray:
        """The encoded vector of one raw observation."""
        return self.encoder.encode(observation, self.instruction).astype(np.float32)


__all__ = ["EmbeddingObservation", "instruction_of"]
