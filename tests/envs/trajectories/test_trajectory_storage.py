"""Arrow and Minari round trips, relabelling into a new data set, and the CLI."""

from __future__ import annotations

import os
from pathlib import Path

import minari
import numpy as np
import pytest

from rewardgym.cli import main
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.minari_io import load_minari, minari_load_dataset


def _same(a: TrajectoryDataset, b: TrajectoryDataset) -> None:
    assert len(a) == len(b) and a.action_names == b.action_names and a.env_id == b.env_id
    for x, y in zip(a, b, strict=True):
        assert (x.instruction, x.task_id, x.success, x.layout) == (
            y.instruction,
            y.task_id,
            y.success,
            y.layout,
        )
        for name in ("actions", "rewards", "terminations", "truncations", "executable", "expert"):
            assert np.array_equal(getattr(x, name), getattr(y, name)), name
        for key, column in x.observations.items():
            if key == "text":
                assert list(column) == list(y.observations[key])
            else:
                assert np.array_equal(np.asarray(column), np.asarray(y.observations[key])), key


def test_arrow_round_trip(small_dataset: TrajectoryDataset, tmp_path: Path) -> None:
    small_dataset.save(tmp_path / "set", minari=False)
    _same(small_dataset, TrajectoryDataset.from_dir(tmp_path / "set"))
    with pytest.raises(FileExistsError, match="overwrite"):
        small_dataset.save(tmp_path / "set")


def test_minari_round_trip(small_dataset: TrajectoryDataset, tmp_path: Path) -> None:
    subset = small_dataset.select(lambda ep: ep.episode_id < 12)
    out = subset.save(tmp_path / "household-v1")
    for loaded in (load_minari(out), minari_load_dataset(out)):
        assert isinstance(loaded, minari.MinariDataset)
        assert loaded.total_episodes == 12 and loaded.total_steps == subset.n_steps
        for ours, theirs in zip(subset, loaded.iterate_episodes(), strict=True):
            assert np.array_equal(ours.actions, theirs.actions)
            assert np.array_equal(ours.rewards, theirs.rewards)
            assert np.array_equal(ours.observations["visible"], theirs.observations["visible"])
            assert list(ours.observations["text"]) == list(theirs.observations["text"])
    assert "MINARI_DATASETS_PATH" not in os.environ or os.environ["MINARI_DATASETS_PATH"] != str(
        tmp_path
    )
    env = load_minari(out).recover_environment()
    assert env.unwrapped.spec.id == "rewardgym/Household-v1"


def test_babyai_images_survive_minari_losslessly(tmp_path: Path) -> None:
    config = CollectConfig(
        env="rewardgym/BabyAI-PickupLoc-Text-v0", episodes=2, expert="replan", sibling_fraction=0
    )
    data = collect_dataset(config)
    out = data.save(tmp_path / "babyai")
    first = next(load_minari(out).iterate_episodes())
    assert np.array_equal(first.observations["image"], data[0].observations["image"])


def test_relabelling_writes_a_new_set_and_leaves_the_input_alone(
    small_dataset: TrajectoryDataset, tmp_path: Path
) -> None:
    source = small_dataset.save(tmp_path / "sparse", minari=False)
    before = (source / "steps.arrow").read_bytes()
    loaded = TrajectoryDataset.from_dir(source)
    dense = loaded.with_rewards([np.linspace(0, 1, len(ep)) for ep in loaded], source="test")
    dense.save(tmp_path / "dense", minari=False)
    again = TrajectoryDataset.from_dir(tmp_path / "dense")
    assert again.info["reward_source"] == "test"
    assert np.allclose(again[0].rewards, np.linspace(0, 1, len(again[0])))
    assert (source / "steps.arrow").read_bytes() == before
    assert loaded[0].rewards.sum() in (0.0, 1.0)
    with pytest.raises(ValueError, match="one reward per transition"):
        loaded.with_rewards([np.zeros(1)] * len(loaded))


def test_missing_directory_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="rewardgym data collect"):
        TrajectoryDataset.from_dir(tmp_path)


def test_cli_collect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli-set"
    main(
        [
            "data",
            "collect",
            "--episodes",
            "12",
            "--out",
            str(out),
            "--env-kwargs",
            "layout",
            "shifted",
        ]
    )
    assert "success rate" in " ".join(capsys.readouterr().out.split())
    data = TrajectoryDataset.from_dir(out)
    assert len(data) == 12 and data.env_kwargs == {"layout": "shifted"}
    assert all(ep.layout == "shifted" for ep in data)
    assert load_minari(out).total_episodes == 12
    with pytest.raises(SystemExit, match="noise"):
        main(["data", "collect", "--out", str(out), "--noise", "2"])


def test_a_dense_column_travels_beside_the_success_reward(
    small_dataset: TrajectoryDataset, tmp_path: Path
) -> None:
    dense = small_dataset.with_dense_rewards(
        [np.linspace(-1, 1, len(ep)) for ep in small_dataset], source="test"
    )
    dense.save(tmp_path / "dense", minari=False)
    again = TrajectoryDataset.from_dir(tmp_path / "dense")
    assert again.info["dense_reward_source"] == "test"
    for ours, theirs in zip(small_dataset, again, strict=True):
        assert np.array_equal(ours.rewards, theirs.rewards)
        assert theirs.dense_rewards is not None
        assert np.allclose(theirs.dense_rewards, np.linspace(-1, 1, len(ours)))
    assert (
        TrajectoryDataset.from_dir(small_dataset.save(tmp_path / "sparse", minari=False))[
            0
        ].dense_rewards
        is None
    )
    with pytest.raises(ValueError, match="dense rewards"):
        small_dataset[0].with_dense_rewards([0.0])
