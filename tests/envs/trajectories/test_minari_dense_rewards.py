"""The Minari copy of a relabelled data set carries its dense reward (issue 20, item 2).

Before, its ``rewards`` were the success flag and the dense column was absent, so a Minari
reader could not get COREN's labels at all.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rewardgym.envs.trajectories import TrajectoryDataset
from rewardgym.envs.trajectories.minari_io import (
    DENSE_INFO_KEY,
    load_minari,
    minari_dense_rewards,
    minari_load_dataset,
)


def test_dense_rewards_round_trip_through_minari(
    small_dataset: TrajectoryDataset, tmp_path: Path
) -> None:
    subset = small_dataset.select(lambda ep: ep.episode_id < 5)
    rng = np.random.default_rng(0)
    dense = [rng.normal(size=len(ep)).astype(np.float32) for ep in subset]
    dense[1][0] = np.nan  # an abstention stays an abstention
    out = subset.with_dense_rewards(dense, source="coren:CST").save(tmp_path / "labelled")
    for loaded in (load_minari(out), minari_load_dataset(out)):
        meta = loaded.storage.metadata["rewardgym_rewards"]
        assert meta["dense_reward"]["source"] == "coren:CST"
        assert meta["dense_reward"]["infos_key"] == DENSE_INFO_KEY
        for ours, want, theirs in zip(subset, dense, loaded.iterate_episodes(), strict=True):
            np.testing.assert_array_equal(theirs.rewards, ours.rewards)  # still the success flag
            assert len(theirs.infos[DENSE_INFO_KEY]) == len(ours) + 1
            assert np.isnan(theirs.infos[DENSE_INFO_KEY][0])  # the reset's entry
            np.testing.assert_array_equal(minari_dense_rewards(theirs), want)
            np.testing.assert_array_equal(theirs.infos[DENSE_INFO_KEY][1:], want)


def test_an_unlabelled_copy_has_no_dense_infos(
    small_dataset: TrajectoryDataset, tmp_path: Path
) -> None:
    out = small_dataset.select(lambda ep: ep.episode_id < 2).save(tmp_path / "sparse")
    loaded = load_minari(out)
    assert "dense_reward" not in loaded.storage.metadata["rewardgym_rewards"]
    assert all(minari_dense_rewards(ep) is None for ep in loaded.iterate_episodes())
