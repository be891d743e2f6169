"""Dense labels without a recorded composition are refused, naming the fields to set.

Issue 30, item 2: a data set whose dense column records no composition (made by hand, or by
an older rewardgym) must not be trained on a guessed reward.
"""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.agents.offline import OfflineConfig, train_offline
from rewardgym.agents.offline.training_reward import training_config, training_rewards
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.composition import (
    COMPOSITION_KEY,
    RewardComposition,
    compose_rewards,
    with_dense_labels,
)


@pytest.fixture(scope="module")
def unrecorded() -> TrajectoryDataset:
    data = collect_dataset(CollectConfig(episodes=3, seed=4))
    return data.with_dense_rewards([np.full(len(ep), 0.5) for ep in data], source="by hand")


def test_dense_labels_without_a_composition_are_refused_with_what_to_set(
    unrecorded: TrajectoryDataset,
) -> None:
    both = r"records no reward composition.*set OfflineConfig.reward and OfflineConfig.dense_weight"
    with pytest.raises(ValueError, match=both):
        training_config(unrecorded, OfflineConfig())
    with pytest.raises(ValueError, match=both):
        train_offline(unrecorded, OfflineConfig(n_steps=1), progress=False)
    with pytest.raises(ValueError, match=r"'by hand'.* set OfflineConfig.dense_weight \("):
        training_rewards(unrecorded, OfflineConfig(reward="composed"))
    with pytest.raises(ValueError, match=r"set OfflineConfig.reward \("):
        training_config(unrecorded, OfflineConfig(dense_weight=0.5))


def test_explicit_settings_or_a_recorded_composition_train(unrecorded: TrajectoryDataset) -> None:
    explicit = OfflineConfig(reward="composed", dense_weight=0.5)
    assert training_config(unrecorded, explicit) == explicit
    assert training_config(unrecorded, OfflineConfig(reward="success")).reward == "success"
    dense = [ep.dense_rewards for ep in unrecorded]
    recorded = with_dense_labels(
        unrecorded, dense, source="by hand", composition=RewardComposition(0.5)
    )
    assert unrecorded.info.get(COMPOSITION_KEY) is None  # the input is untouched
    for got, ep in zip(training_rewards(recorded, OfflineConfig()), recorded, strict=True):
        np.testing.assert_array_equal(
            got, compose_rewards(ep.rewards, ep.dense_rewards, RewardComposition(0.5))
        )


def test_an_undecided_config_has_no_composition() -> None:
    with pytest.raises(ValueError, match=r"training_config\(data, config\)"):
        _ = OfflineConfig(reward="composed").composition
    assert OfflineConfig(reward="success").composition == RewardComposition(dense_weight=0.0)
