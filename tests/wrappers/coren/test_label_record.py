"""A ``label coren`` output says how to train on it: its metadata records the composition.

Issue 30, item 2: training picked "composed" because every episode had a dense column, and
lambda had three owners. The labelled data set now records the ``RewardComposition`` it was
made for, the judge and the ensemble, and training reads them from there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rewardgym.agents.offline import BCSettings, OfflineConfig, train_offline
from rewardgym.agents.offline.training_reward import training_config, training_rewards
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.composition import (
    RewardComposition,
    compose_rewards,
    recorded_composition,
)


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``rewardgym label coren`` run from the command line with lambda = 0.25."""
    from rewardgym.cli import main

    root = tmp_path_factory.mktemp("label-record")
    collect_dataset(CollectConfig(episodes=6, seed=2)).save(root / "in", minari=False)
    main(
        [
            "label",
            "coren",
            "--dataset",
            str(root / "in"),
            "--out",
            str(root / "out"),
            "--judge",
            "embedding:hashing",
            "--n-prompts",
            "2",
            "--epochs",
            "5",
            "--composition.dense-weight",
            "0.25",
            "--no-minari",
        ]
    )
    return root / "out"


def test_the_label_output_records_its_composition_judge_and_ensemble(labelled: Path) -> None:
    data = TrajectoryDataset.from_dir(labelled)
    assert recorded_composition(data) == RewardComposition(dense_weight=0.25, success_weight=1.0)
    coren = data.info["coren"]
    assert coren["judge"] == "embedding:hashing" and coren["ablation"] == "CST"
    assert coren["ensemble"]["n_prompts"] == 2 and coren["ensemble"]["epochs"] == 5
    assert coren["ensemble"]["ablation"] == "CST" and coren["judge_calls"] > 0


def test_training_reads_the_recorded_composition(labelled: Path) -> None:
    data = TrajectoryDataset.from_dir(labelled)
    decided = training_config(data, OfflineConfig())
    assert (decided.reward, decided.dense_weight) == ("composed", 0.25)
    want = [compose_rewards(ep.rewards, ep.dense_rewards, RewardComposition(0.25)) for ep in data]
    for got, expected in zip(training_rewards(data, OfflineConfig()), want, strict=True):
        np.testing.assert_array_equal(got, expected)
    config = OfflineConfig(algorithm=BCSettings(), n_steps=2, batch_size=8, hidden_units=(8,))
    agent = train_offline(data, config, embedder=hashing_embedder(), progress=False)
    assert (agent.config.reward, agent.config.dense_weight) == ("composed", 0.25)
    # An explicit lambda overrides the record; an explicit reward keeps the recorded lambda.
    assert training_config(data, OfflineConfig(dense_weight=2.0)).dense_weight == 2.0
    dense_only = training_config(data, OfflineConfig(reward="dense"))
    assert dense_only.composition == RewardComposition(dense_weight=0.25, success_weight=0.0)
