"""The perfect judge on VirtualHome-v0: steps rated by the goal conditions they meet."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.perfect_judge import perfect_judge_rewards


@pytest.fixture(scope="module")
def data() -> TrajectoryDataset:
    return collect_dataset(CollectConfig(env="virtualhome", episodes=12, seed=0))


def test_the_perfect_judge_rates_refused_steps_minus_two_and_goal_steps_plus_two(
    data: TrajectoryDataset,
) -> None:
    rewards = perfect_judge_rewards(data)
    assert [len(r) for r in rewards] == [len(ep) for ep in data]
    for episode, rating in zip(data, rewards, strict=True):
        assert np.all(rating[~episode.executable] == -2.0)
        assert set(rating.tolist()) <= {-2.0, -1.0, 0.0, 1.0, 2.0}
        if episode.success:  # the step that met the last condition is progress
            assert rating[-1] == 2.0
    expert = np.concatenate([r[ep.expert] for ep, r in zip(data, rewards, strict=True)])
    perturbed = np.concatenate([r[~ep.expert] for ep, r in zip(data, rewards, strict=True)])
    assert expert.mean() > 0.5 > perturbed.mean()


def test_an_episode_without_its_program_is_refused(data: TrajectoryDataset) -> None:
    first = data.select(lambda ep: ep is data[0])
    bare = TrajectoryDataset(
        [replace(data[0], extras={})],
        first.env_id,
        first.env_kwargs,
        first.action_names,
        first.schema,
    )
    with pytest.raises(ValueError, match="reset_options"):
        perfect_judge_rewards(bare)
