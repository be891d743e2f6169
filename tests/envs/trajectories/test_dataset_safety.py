"""Data set saves are atomic, take relative paths, and never replace the user's files.

Issue 12, item 2 (a relative ``--out`` crashed the Minari copy: Minari's ``get_size`` doubles
relative paths) and item 9 (a killed save left 754 episode folders that ``load_minari``
reported as 0 episodes, and the rerun raised ``FileExistsError``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.cli import main
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset, minari_io
from rewardgym.envs.trajectories.minari_io import load_minari, minari_load_dataset
from rewardgym.outputs import OWNER_FILE


@pytest.fixture(scope="module")
def tiny() -> TrajectoryDataset:
    return collect_dataset(CollectConfig(episodes=4, seed=2))


def test_data_collect_with_a_relative_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    main(["data", "collect", "--out", "relds", "--episodes", "3"])
    assert load_minari("relds").total_episodes == 3
    assert minari_load_dataset("relds").total_episodes == 3
    assert len(TrajectoryDataset.from_dir(tmp_path / "relds")) == 3


def test_save_accepts_relative_and_dotted_paths(
    tiny: TrajectoryDataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    out = tiny.save("../b/./set")
    assert out == tmp_path / "b" / "set"
    assert load_minari(out).total_episodes == 4


def test_a_failing_save_leaves_nothing_and_the_rerun_needs_no_overwrite(
    tiny: TrajectoryDataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = minari_io.write_minari

    def dies_after_writing(dataset, root, dataset_id=None):  # type: ignore[no-untyped-def]
        real(dataset, root, dataset_id)
        raise KeyboardInterrupt("killed after the Minari copy")

    monkeypatch.setattr(minari_io, "write_minari", dies_after_writing)
    with pytest.raises(KeyboardInterrupt):
        tiny.save(tmp_path / "set")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    tiny.save(tmp_path / "set")
    assert load_minari(tmp_path / "set").total_episodes == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set"]


def test_a_partial_minari_copy_is_an_error_not_zero_episodes(
    tiny: TrajectoryDataset, tmp_path: Path
) -> None:
    out = tiny.save(tmp_path / "set")
    metadata = out / "data" / "metadata.json"
    meta = json.loads(metadata.read_text())
    meta["total_episodes"] = 0  # what a writer killed before its last metadata update leaves
    metadata.write_text(json.dumps(meta))
    for load in (load_minari, minari_load_dataset):
        with pytest.raises(ValueError, match="incomplete Minari data set"):
            load(out)
    meta["total_episodes"] = 4
    metadata.write_text(json.dumps(meta))
    (out / "data" / "3" / "metadata.json").unlink()  # an episode folder written halfway
    with pytest.raises(ValueError, match="3 complete"):
        load_minari(out)


def test_overwrite_never_replaces_a_directory_of_the_users(
    tiny: TrajectoryDataset, tmp_path: Path
) -> None:
    mine = tmp_path / "mine"
    (mine / "data").mkdir(parents=True)
    (mine / "data" / "mine.csv").write_text("k")
    for overwrite in (False, True):
        with pytest.raises(FileExistsError, match="no rewardgym command wrote"):
            tiny.save(mine, overwrite=overwrite)
    assert (mine / "data" / "mine.csv").read_text() == "k"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
    ours = tiny.save(tmp_path / "ours")
    assert json.loads((ours / OWNER_FILE).read_text())["kind"] == "trajectory-dataset"
    with pytest.raises(FileExistsError, match="overwrite"):
        tiny.save(ours)
    tiny.select(lambda ep: ep.episode_id < 2).save(ours, overwrite=True)
    assert len(TrajectoryDataset.from_dir(ours)) == 2 and load_minari(ours).total_episodes == 2


def test_cli_collect_refuses_a_user_directory_before_collecting(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("k")
    with pytest.raises(SystemExit, match="no rewardgym command wrote"):
        main(["data", "collect", "--out", str(mine), "--episodes", "2", "--overwrite"])
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_a_damaged_arrow_file_names_itself(tiny: TrajectoryDataset, tmp_path: Path) -> None:
    out = tiny.save(tmp_path / "set", minari=False)
    (out / "steps.arrow").write_bytes(b"garbage")
    with pytest.raises(ValueError, match=str(out / "steps.arrow")):
        TrajectoryDataset.from_dir(out)
