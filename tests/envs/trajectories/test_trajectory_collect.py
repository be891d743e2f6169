"""Perturbed-expert collection: seeded, sparse, train instructions only, a mix of outcomes."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.envs.household import INSTRUCTIONS
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset


def test_collection_repeats_under_a_seed(small_dataset: TrajectoryDataset) -> None:
    again = collect_dataset(CollectConfig(episodes=10, seed=0))
    for a, b in zip(again, small_dataset, strict=False):
        assert (
            np.array_equal(a.actions, b.actions)
            and a.observations["text"] == b.observations["text"]
        )
    other = collect_dataset(CollectConfig(episodes=10, seed=1))
    assert any(not np.array_equal(a.actions, b.actions) for a, b in zip(again, other, strict=True))


def test_perturbed_data_mixes_success_and_failure(small_dataset: TrajectoryDataset) -> None:
    rate = small_dataset.success_rate
    print(f"success rate of 60 perturbed Household episodes: {rate:.3f}")
    assert 0.4 <= rate <= 0.95
    assert any(not ep.expert.all() for ep in small_dataset)
    clean = collect_dataset(CollectConfig(episodes=25, seed=0, noise=0.0))
    assert clean.success_rate == 1.0 and all(ep.expert.all() for ep in clean)


def test_only_the_success_flag_is_recorded(small_dataset: TrajectoryDataset) -> None:
    for ep in small_dataset:
        assert ep.rewards.sum() == float(ep.success)
        assert ep.rewards[:-1].sum() == 0.0
        assert ep.terminations[-1] == ep.success and ep.truncations[-1] == (not ep.success)
        assert not ep.terminations[:-1].any() and not ep.truncations[:-1].any()
        assert len(ep.observations["text"]) == len(ep) + 1


def test_training_data_never_holds_held_out_instructions(small_dataset: TrajectoryDataset) -> None:
    train = {i.text for i in INSTRUCTIONS if i.kind == "train"}
    assert {ep.instruction for ep in small_dataset} <= train
    assert all(ep.instruction_kind == "train" for ep in small_dataset)
    assert [ep.task_id for ep in small_dataset[:25]] == list(range(25))  # tasks dealt in turn
    with pytest.raises(ValueError, match="held-out"):
        CollectConfig(env_kwargs={"instructions": "abstract"})


def test_babyai_levels_collect_too() -> None:
    data = collect_dataset(
        CollectConfig(env="rewardgym/BabyAI-GoToLocal-Text-v0", episodes=3, noise=0.2)
    )
    assert data.action_names[0] == "left"
    ep = data[0]
    assert ep.observations["image"].shape == (len(ep) + 1, 7, 7, 3)
    assert ep.instruction.startswith("go to")


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="noise"):
        CollectConfig(noise=1.5)
    with pytest.raises(ValueError, match="random_actions"):
        CollectConfig(random_actions="sometimes")
