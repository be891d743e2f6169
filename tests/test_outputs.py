"""Output directories: a command's outputs are never the user's files, nor the working directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.atomic import absolute
from rewardgym.outputs import OWNER_FILE, atomic_output, prepare_output


def test_user_directory_is_never_replaced(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "precious.txt").write_text("keep")
    for overwrite in (False, True):
        with pytest.raises(FileExistsError, match="no rewardgym command wrote"):
            prepare_output(mine, "shop-store", overwrite=overwrite)
    assert (mine / "precious.txt").read_text() == "keep"


def test_own_output_needs_overwrite_and_kind(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with atomic_output(out, "shop-store") as tmp:
        (tmp / "data").write_text("1")
    assert json.loads((out / OWNER_FILE).read_text())["kind"] == "shop-store"
    with pytest.raises(FileExistsError, match="overwrite"):
        prepare_output(out, "shop-store", overwrite=False)
    with pytest.raises(FileExistsError, match="not 'dataset'"):
        prepare_output(out, "dataset", overwrite=True)
    with atomic_output(out, "shop-store", overwrite=True) as tmp:
        (tmp / "data").write_text("2")
    assert (out / "data").read_text() == "2"


def test_the_working_directory_and_its_parents_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "a" / "b"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    for target in (".", "./", "..", str(tmp_path)):
        with pytest.raises(FileExistsError, match="current directory"):
            prepare_output(target, "shop-store", overwrite=True)
    assert prepare_output("new", "shop-store", overwrite=False) == here / "new"


def test_relative_and_dotted_targets_become_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert absolute("x/../y/./z") == tmp_path / "y" / "z"
    with atomic_output("rel/out", "shop-store") as tmp:
        assert tmp.is_absolute() and tmp.parent == tmp_path / "rel"
    assert (tmp_path / "rel" / "out" / OWNER_FILE).is_file()


def test_a_target_filled_meanwhile_is_not_replaced(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(FileExistsError, match="no rewardgym command wrote"):  # noqa: SIM117
        with atomic_output(out, "shop-store") as tmp:
            (tmp / "data").write_text("new")
            out.mkdir()
            (out / "theirs.txt").write_text("user")  # someone wrote there while we worked
    assert [p.name for p in out.iterdir()] == ["theirs.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
