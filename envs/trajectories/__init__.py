"""Offline trajectory data sets for the embodied environments: collect, store, encode, replay."""

from __future__ import annotations

from rewardgym.embeddings import CachedEmbedder, load_minilm_encoder
from rewardgym.envs.trajectories.collect import collect_dataset, collect_episode, episode_seeds
from rewardgym.envs.trajectories.config import (
    HOUSEHOLD_DEFAULT_EPISODES,
    RANDOM_ACTION_MODES,
    CollectConfig,
)
from rewardgym.envs.trajectories.dataset import FieldSpec, TrajectoryDataset, schema_from_space
from rewardgym.envs.trajectories.encoding import ObservationEncoder
from rewardgym.envs.trajectories.episode import Episode
from rewardgym.envs.trajectories.minari_io import load_minari, minari_load_dataset

__all__ = [
    "HOUSEHOLD_DEFAULT_EPISODES",
    "RANDOM_ACTION_MODES",
    "CachedEmbedder",
    "CollectConfig",
    "Episode",
    "FieldSpec",
    "ObservationEncoder",
    "TrajectoryDataset",
    "collect_dataset",
    "collect_episode",
    "episode_seeds",
    "load_minari",
    "load_minilm_encoder",
    "minari_load_dataset",
    "schema_from_space",
]
