"""Flat observation encodings of the embodied observations, for offline and online agents.

Two encodings, one vector per observation:

- ``"structured"`` (default, fast): every array field of the observation in the space's
  (sorted) key order, multi-hot and ``Box`` fields flattened as they are and ``Discrete``
  fields one-hot, then the MiniLM embedding of the episode's instruction (one embedding
  per unique instruction, cached). The ``task`` and ``instruction`` id fields are left out
  so that a policy must read the instruction, which is what held-out instructions test.
  For ``rewardgym/Household-v0`` that is ``completed`` (58) ``held`` (21) ``near`` (22)
  ``open`` (21) ``room`` (4) ``sitting`` (22) ``switched_on`` (21) ``visible`` (21) and the
  instruction (384): 574 floats. ``ObservationEncoder.layout`` gives the slices.
- ``"text"``: the MiniLM embedding of the full text observation (384 floats), computed once
  per unique text and cached on disk.

The same ``ObservationEncoder`` encodes live observations (``encode``) so a policy trained
on the data set can act in the simulator. The d3rlpy ``MDPDataset`` of a data set is built by
:func:`rewardgym.agents.offline.mdp.to_mdp_dataset` (``envs/`` does not import d3rlpy).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from rewardgym.embeddings import CachedEmbedder
from rewardgym.envs.trajectories.episode import Episode

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset

ENCODINGS: tuple[str, ...] = ("structured", "text")
DEFAULT_EXCLUDE: tuple[str, ...] = ("task", "instruction")


class ObservationEncoder:
    """Maps a ``Dict`` observation (plus its instruction) to one float32 vector."""

    def __init__(
        self,
        observation_space: gym.spaces.Dict,
        kind: str = "structured",
        embedder: CachedEmbedder | None = None,
        exclude: Sequence[str] = DEFAULT_EXCLUDE,
    ) -> None:
        """Encode observations of ``observation_space`` as ``kind``, embedding with ``embedder``."""
        if kind not in ENCODINGS:
            raise ValueError(f"unknown observation encoding {kind!r}: use one of {ENCODINGS}")
        self.kind = kind
        self.embedder = embedder or CachedEmbedder()
        self._fields: list[tuple[str, int, int]] = []  # name, width, one-hot size (0: as is)
        for name, space in observation_space.spaces.items():
            if name in exclude or isinstance(space, gym.spaces.Text):
                continue
            if isinstance(space, gym.spaces.Discrete):
                self._fields.append((name, int(space.n), int(space.n)))
            elif isinstance(
                space, gym.spaces.Box | gym.spaces.MultiBinary | gym.spaces.MultiDiscrete
            ):
                self._fields.append((name, int(np.prod(space.shape)), 0))
            else:
                raise TypeError(f"observation field {name!r} with space {space} cannot be encoded")
        if kind == "text" and "text" not in observation_space.spaces:
            raise ValueError("the 'text' encoding needs a 'text' field in the observation space")

    @classmethod
    def for_dataset(
        cls,
        dataset: TrajectoryDataset,
        kind: str = "structured",
        cache_dir: str | Path | None = None,
        embedder: CachedEmbedder | None = None,
    ) -> ObservationEncoder:
        """An encoder for the observations of ``dataset``'s env."""
        env = dataset.make_env()
        space = env.observation_space
        env.close()
        if not isinstance(space, gym.spaces.Dict):
            raise TypeError(f"{dataset.env_id} has a non-Dict observation space {space}")
        return cls(space, kind, embedder or CachedEmbedder(cache_dir=cache_dir))

    @property
    def layout(self) -> list[tuple[str, slice]]:
        """Which slice of the vector each field occupies, in order."""
        if self.kind == "text":
            return [("text_embedding", slice(0, self.embedder.dim))]
        out, start = [], 0
        for name, width, _ in self._fields:
            out.append((name, slice(start, start + width)))
            start += width
        out.append(("instruction_embedding", slice(start, start + self.embedder.dim)))
        return out

    @property
    def size(self) -> int:
        """The length of an encoded observation."""
        return self.layout[-1][1].stop

    def encode_batch(self, observations: dict[str, Any], instructions: Sequence[str]) -> np.ndarray:
        """Encode ``N`` observations given as per-field columns, with one instruction per row."""
        if self.kind == "text":
            return self.embedder.embed(list(observations["text"]))
        n = len(instructions)
        parts = []
        for name, width, onehot in self._fields:
            column = np.asarray(observations[name])
            if onehot:
                block = np.zeros((n, onehot), dtype=np.float32)
                block[np.arange(n), column.reshape(n).astype(np.int64)] = 1.0
            else:
                block = column.reshape(n, width).astype(np.float32)
            parts.append(block)
        parts.append(self.embedder.embed(list(instructions)))
        return np.concatenate(parts, axis=1)

    def encode(self, observation: dict[str, Any], instruction: str) -> np.ndarray:
        """Encode one live observation (from ``env.step``) given the episode's instruction."""
        columns = {key: [value] for key, value in observation.items()}
        return self.encode_batch(columns, [instruction])[0]

    def encode_episode(self, episode: Episode) -> np.ndarray:
        """Encode all ``T + 1`` observations of ``episode``."""
        n = len(episode) + 1
        return self.encode_batch(episode.observations, [episode.instruction] * n)


__all__ = ["DEFAULT_EXCLUDE", "ENCODINGS", "ObservationEncoder"]
