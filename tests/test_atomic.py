"""Atomic writes: a failing body leaves the old state, and killed writers' leftovers are cleaned."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rewardgym.atomic import (
    OLD_PREFIX,
    TMP_PREFIX,
    atomic_path,
    clean_stale_temps,
    remove_tree,
    write_atomic,
    write_json_atomic,
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


@pytest.mark.parametrize("pid", ["²", "①", "٣", "9" * 200, "-1"])
def test_names_with_no_ascii_pid_are_left_alone(tmp_path: Path, pid: str) -> None:
    # str.isdigit() takes '²' and '①', which int() refuses; 200 digits overflow os.kill; none of these is a name atomic.py makes, so none is touched.
    odd = tmp_path / f"{TMP_PREFIX}{pid}-1-x"
    odd.mkdir()
    with atomic_path(tmp_path / "out.txt") as tmp:
        tmp.write_text("written")
    assert clean_stale_temps(tmp_path) == []
    assert odd.is_dir() and (tmp_path / "out.txt").read_text() == "written"


def test_old_directory_without_replacement_is_restored(tmp_path: Path) -> None:
    # A kill between the two renames of a directory swap leaves only the old copy aside.
    old = tmp_path / f"{OLD_PREFIX}{_dead_pid()}-1-out"
    old.mkdir()
    (old / "v").write_text("old")
    clean_stale_temps(tmp_path)
    assert (tmp_path / "out" / "v").read_text() == "old"


def test_remove_tree_takes_the_directory_away_and_leaves_no_sibling(tmp_path: Path) -> None:

    tree = tmp_path / "trainer"
    (tree / "checkpoint-1").mkdir(parents=True)
    (tree / "checkpoint-1" / "weights.bin").write_bytes(b"x")
    (tmp_path / "kept.txt").write_text("mine")
    remove_tree(tree)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]


def test_a_path_in_a_json_payload_is_written_as_its_text(tmp_path: Path) -> None:
    """A config's path fields (``--shop-run``, ``--out``) once failed a whole run at its last write."""
    import json

    target = write_json_atomic(tmp_path / "r.json", {"config": {"shop_run": tmp_path / "shop"}})
    assert json.loads(target.read_text())["config"]["shop_run"] == str(tmp_path / "shop")
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        write_json_atomic(tmp_path / "s.json", {"rows": {1, 2}})
    assert not (tmp_path / "s.json").exists()
