"""The shared services: atomic writes survive a failing body, outputs are never the user's files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rewardgym.runtime import (
    OLD_PREFIX,
    OWNER_FILE,
    TMP_PREFIX,
    absolute,
    atomic_output,
    atomic_path,
    clean_stale_temps,
    prepare_output,
    write_atomic,
)


def test_atomic_file_replaces_in_one_step(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    write_atomic(target, "old")
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_failing_body_leaves_the_old_state(tmp_path: Path) -> None:
    target = tmp_path / "d"
    target.mkdir()
    (target / "keep").write_text("1")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.mkdir()
        (tmp / "half").write_text("x")
        raise RuntimeError("killed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]
    assert (target / "keep").read_text() == "1"


def test_directory_is_swapped_whole(tmp_path: Path) -> None:
    target = tmp_path / "d"
    for value in ("1", "2"):
        with atomic_path(target) as tmp:
            tmp.mkdir()
            (tmp / "v").write_text(value)
    assert (target / "v").read_text() == "2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


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


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(proc.stdout)


def test_stale_temps_of_dead_writers_are_cleaned(tmp_path: Path) -> None:
    dead = _dead_pid()
    stale = tmp_path / f"{TMP_PREFIX}{dead}-1-out"
    stale.mkdir()
    live = tmp_path / f"{TMP_PREFIX}{os.getpid()}-1-out"
    live.mkdir()
    user = tmp_path / "rgtmp-not-ours"
    user.mkdir()
    assert clean_stale_temps(tmp_path) == [stale]
    assert live.exists() and user.exists()


def test_old_directory_without_replacement_is_restored(tmp_path: Path) -> None:
    # A kill between the two renames of a directory swap leaves only the old copy aside.
    old = tmp_path / f"{OLD_PREFIX}{_dead_pid()}-1-out"
    old.mkdir()
    (old / "v").write_text("old")
    clean_stale_temps(tmp_path)
    assert (tmp_path / "out" / "v").read_text() == "old"


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
