"""Observation encodings, and the d3rlpy MDPDataset that ``agents/offline/mdp.py`` builds from them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from d3rlpy.dataset import MDPDataset

from rewardgym.agents.offline.mdp import to_mdp_dataset
from rewardgym.embeddings import MINILM_DIM, CachedEmbedder
from rewardgym.envs.household.v1 import HouseholdV1Env
from rewardgym.envs.trajectories import TrajectoryDataset
from rewardgym.envs.trajectories.encoding import ObservationEncoder


def test_structured_layout(small_dataset: TrajectoryDataset, fake_embedder: CachedEmbedder) -> None:
    encoder = ObservationEncoder.for_dataset(small_dataset, embedder=fake_embedder)
    names = [name for name, _ in encoder.layout]
    assert names == [
        "completed", "held", "last_action", "last_result", "near", "open", "room", "sitting",
        "switched_on", "visible", "instruction_embedding",
    ]  # fmt: skip
    assert encoder.size == 61 + 22 + 62 + 14 + 23 + 22 + 4 + 23 + 22 + 22 + 16
    ep = small_dataset[0]
    encoded = encoder.encode_episode(ep)
    assert encoded.shape == (len(ep) + 1, encoder.size) and encoded.dtype == np.float32
    layout = dict(encoder.layout)
    assert np.array_equal(encoded[:, layout["visible"]], ep.observations["visible"])
    assert np.array_equal(encoded[:, layout["room"]].argmax(1), ep.observations["room"])
    assert np.allclose(np.linalg.norm(encoded[:, layout["instruction_embedding"]], axis=1), 1.0)


def test_live_observations_encode_like_logged_ones(
    small_dataset: TrajectoryDataset, fake_embedder: CachedEmbedder
) -> None:
    encoder = ObservationEncoder.for_dataset(small_dataset, embedder=fake_embedder)
    env = HouseholdV1Env()
    ep = small_dataset[0]
    obs, info = env.reset(seed=ep.seed, options=ep.extras["reset_options"])
    assert np.array_equal(encoder.encode(obs, info["instruction"]), encoder.encode_episode(ep)[0])


def test_mdp_dataset_round_trip(
    small_dataset: TrajectoryDataset, fake_embedder: CachedEmbedder
) -> None:
    encoder = ObservationEncoder.for_dataset(small_dataset, embedder=fake_embedder)
    mdp = to_mdp_dataset(small_dataset, encoder)
    assert isinstance(mdp, MDPDataset)
    assert len(mdp.episodes) == len(small_dataset)
    assert mdp.transition_count == small_dataset.n_steps
    assert mdp.dataset_info.action_size == 61
    for ours, theirs in zip(small_dataset, mdp.episodes, strict=True):
        assert theirs.terminated == bool(ours.terminations[-1])
        assert np.array_equal(theirs.actions[: len(ours), 0], ours.actions)
        assert theirs.rewards.sum() == float(ours.success)


def test_text_encoding(small_dataset: TrajectoryDataset, fake_embedder: CachedEmbedder) -> None:
    subset = small_dataset.select(lambda ep: ep.episode_id < 5)
    mdp = to_mdp_dataset(
        subset, ObservationEncoder.for_dataset(subset, "text", None, fake_embedder)
    )
    assert mdp.episodes[0].observations.shape[1] == 16
    with pytest.raises(ValueError, match="unknown observation encoding"):
        ObservationEncoder.for_dataset(subset, "pixels", None, fake_embedder)


def test_minilm_embeds_offline_once_and_caches_on_disk(tmp_path: Path) -> None:
    texts = ["Put the apple in the fridge.", "Keep the apple cold.", "Turn the television on."]
    vectors = CachedEmbedder(cache_dir=tmp_path).embed(texts)
    assert vectors.shape == (3, MINILM_DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]  # same task, closer meaning

    def refuse(batch: list[str]) -> np.ndarray:
        raise AssertionError(f"re-embedded {batch}")

    cached = CachedEmbedder(refuse, cache_dir=tmp_path)
    assert np.allclose(cached.embed(texts[::-1]), vectors[::-1])
