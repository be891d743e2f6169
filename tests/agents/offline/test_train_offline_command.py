"""``rewardgym train offline``: options build the OfflineConfig, the agent it saves loads and records its reward.

Issue 30, item 3: a user with a (labelled) data set trains an agent without writing Python.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rewardgym.agents.offline import BCSettings, CQLSettings, IQLSettings, OfflineConfig
from rewardgym.agents.offline.agent import META_FILE, OfflineAgent
from rewardgym.agents.offline.commands import TrainOffline
from rewardgym.cli import build, main
from rewardgym.envs.trajectories import CollectConfig, collect_dataset
from rewardgym.wrappers.composition import RewardComposition, with_dense_labels


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small data set with dense labels that record COREN's composition at lambda 0.25."""
    data = collect_dataset(CollectConfig(episodes=12, seed=3))
    dense = [np.linspace(0.0, 1.0, len(ep)) for ep in data]
    path = tmp_path_factory.mktemp("train") / "labelled"
    with_dense_labels(data, dense, source="test", composition=RewardComposition(0.25)).save(path)
    return path


def test_options_choose_the_algorithm_and_keep_offline_configs_defaults() -> None:
    plain = build(["train", "offline", "--dataset", "d", "--out", "o"])
    assert isinstance(plain, TrainOffline)
    assert plain.offline_config() == OfflineConfig()  # every default from OfflineConfig
    iql = build(
        [
            "train",
            "offline",
            "--dataset",
            "d",
            "--out",
            "o",
            "--n-steps",
            "7",
            "--reward",
            "success",
            "algorithm:iql",
            "--algorithm.weight-temp",
            "2",
        ]
    )
    assert iql.offline_config() == OfflineConfig(
        algorithm=IQLSettings(weight_temp=2.0), n_steps=7, reward="success"
    )
    bc = build(["train", "offline", "--dataset", "d", "--out", "o", "algorithm:bc"])
    assert isinstance(bc.offline_config().algorithm, BCSettings)
    assert isinstance(plain.offline_config().algorithm, CQLSettings)


def test_a_labelled_data_set_trains_on_its_recorded_composition(
    labelled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "agent"
    main(
        [
            "train",
            "offline",
            "--dataset",
            str(labelled),
            "--out",
            str(out),
            "--n-steps",
            "3",
            "--batch-size",
            "16",
        ]
    )
    said = capsys.readouterr().out
    assert "DiscreteCQL trained 3 steps on 12 episodes" in said and "composed" in said
    recorded = json.loads((out / META_FILE).read_text())["config"]
    assert (recorded["reward"], recorded["dense_weight"]) == ("composed", 0.25)
    agent = OfflineAgent.load(out)
    assert agent.config.dense_weight == 0.25 and agent.env_id == "rewardgym/Household-v1"


def test_an_explicit_reward_wins_and_the_output_is_never_replaced_unasked(
    labelled: Path, tmp_path: Path
) -> None:
    out = tmp_path / "agent"
    argv = [
        "train",
        "offline",
        "--dataset",
        str(labelled),
        "--out",
        str(out),
        "--n-steps",
        "2",
        "--batch-size",
        "16",
        "--reward",
        "success",
        "algorithm:bc",
    ]
    main(argv)
    assert json.loads((out / META_FILE).read_text())["config"]["reward"] == "success"
    before = (out / META_FILE).read_bytes()
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and (out / META_FILE).read_bytes() == before
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(SystemExit) as stop:
        main([*argv[:4], "--out", str(mine), "--overwrite", *argv[6:]])
    assert stop.value.code == 2 and (mine / "notes.txt").read_text() == "keep"
