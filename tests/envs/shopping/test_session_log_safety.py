"""Stores are written atomically and never over the user's files; the cache heals itself.

Issue 12, item 1 (``data shop --out DIR`` deleted what DIR held; ``--out .`` emptied the working
directory) and item 14 (killed conversions left ``.big-*`` folders forever; a damaged cache
entry failed with a bare ``ArrowInvalid``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rewardgym.atomic import TMP_PREFIX
from rewardgym.cli import main
from rewardgym.envs.shopping.loaders import load_jsonl
from rewardgym.envs.shopping.session_log import SessionLog, SessionLogError, write_session_log
from rewardgym.envs.shopping.session_sources import resolve_sessions
from rewardgym.outputs import OWNER_FILE


def _shop(*args: str) -> str | None:
    """The one line ``data shop`` refused with (exit status 2), or None when it ran."""
    import contextlib
    import io

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            main(["data", "shop", "--sessions", "5", *args])
    except SystemExit as stop:
        assert stop.code == 2, err.getvalue()
        lines = [line for line in err.getvalue().splitlines() if line.strip()]
        assert len(lines) == 1, lines
        return lines[0]
    return None


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_data_shop_never_deletes_what_out_holds(tmp_path: Path) -> None:
    mine = tmp_path / "v"
    mine.mkdir()
    (mine / "precious.txt").write_text("keep")
    for extra in ((), ("--overwrite",)):
        stop = _shop("--out", str(mine), *extra)
        assert stop is not None and "no rewardgym command wrote" in stop
        assert sorted(p.name for p in mine.iterdir()) == ["precious.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v"]  # no temporary left either


@pytest.mark.parametrize("out", [".", "..", "./"])
def test_data_shop_refuses_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str
) -> None:
    here = tmp_path / "work"
    here.mkdir()
    (here / "notes.txt").write_text("mine")
    monkeypatch.chdir(here)
    stop = _shop("--out", out)
    assert stop is not None and "current directory" in stop
    assert (here / "notes.txt").read_text() == "mine" and Path.cwd() == here
    # Even an empty working directory is refused: a swap would move it from under the shell.
    (here / "notes.txt").unlink()
    assert _shop("--out", ".") is not None and here.is_dir()


def test_data_shop_replaces_its_own_store_only_with_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "store"
    assert _shop("--out", str(out)) is None
    assert json.loads((out / OWNER_FILE).read_text())["kind"] == "shop-store"
    stop = _shop("--out", str(out), "--seed", "1")
    assert stop is not None and "overwrite" in stop
    assert _shop("--out", str(out), "--seed", "1", "--overwrite") is None
    assert len(SessionLog(out)) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store"]


def test_write_store_is_atomic_when_the_sessions_fail(jsonl_sessions: Path, tmp_path: Path) -> None:
    def sessions():  # type: ignore[no-untyped-def]
        yield from list(load_jsonl(jsonl_sessions))[:3]
        raise RuntimeError("killed halfway")

    with pytest.raises(RuntimeError, match="killed halfway"):
        write_session_log(sessions(), tmp_path / "out" / "s")
    assert list((tmp_path / "out").iterdir()) == []


def test_conversions_leave_no_temporary_folders(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    converted = rewardgym_home / "shop" / "converted"
    converted.mkdir(parents=True)
    # A conversion killed by this version, and a ``.big-*`` folder an older one left.
    stale = converted / f"{TMP_PREFIX}{_dead_pid()}-1-sessions-abc"
    stale.mkdir()
    (stale / "steps.arrow").write_bytes(b"half")
    legacy = converted / ".big-0123456789abcdef.k2j4h5g6"
    legacy.mkdir()
    (legacy / "steps.arrow").write_bytes(b"half")
    os.utime(legacy, (0, 0))
    log, _ = resolve_sessions(jsonl_sessions, "all")
    assert len(log) == 30
    assert [p.name for p in converted.iterdir()] == [log.path.name]


def test_a_damaged_cache_entry_is_rebuilt(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    log, _ = resolve_sessions(jsonl_sessions, "all")
    path = log.path
    del log
    (path / "steps.arrow").write_bytes(b"this is not an Arrow file")
    with pytest.raises(SessionLogError, match=str(path / "steps.arrow")):
        SessionLog(path)
    again, indices = resolve_sessions(jsonl_sessions, "all")
    assert again.path == path and len(indices) == 30
    assert again.session(0) == next(iter(load_jsonl(jsonl_sessions)))
    (path / "sessions.arrow").unlink()
    assert len(resolve_sessions(jsonl_sessions, "all")[0]) == 30
