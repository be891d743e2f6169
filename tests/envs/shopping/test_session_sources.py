"""The default corpus cache and the ``rewardgym data shop`` command."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.cli import main
from rewardgym.envs.shopping import session_sources
from rewardgym.envs.shopping.session_log import SessionLog


def test_default_store_is_built_once(rewardgym_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = session_sources.default_session_log(sessions=12, seed=3)
    assert len(first) == 12 and str(first.path).startswith(str(rewardgym_home))

    def fail(*args: object, **kwargs: object) -> SessionLog:
        raise AssertionError("the cached store must be reused")

    monkeypatch.setattr(session_sources, "build_synthetic_log", fail)
    again = session_sources.default_session_log(sessions=12, seed=3)
    assert again.session_ids == first.session_ids


def test_data_shop_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["data", "shop", "--sessions", "25", "--out", str(tmp_path / "c")])
    output = " ".join(capsys.readouterr().out.split())
    assert "wrote 25 sessions" in output and "MiB on disk" in output
    store = SessionLog(tmp_path / "c")
    assert len(store) == 25 and store.session(0).steps[-1].action.type == "terminate"


def test_data_shop_rejects_bad_count(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--sessions must be positive"):
        main(["data", "shop", "--sessions", "0", "--out", str(tmp_path)])


def test_missing_data_path_is_clear(rewardgym_home: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        session_sources.resolve_sessions("/nonexistent/sessions.jsonl")
    with pytest.raises(ValueError, match=r"expected a \.jsonl or \.parquet"):
        session_sources.resolve_sessions(__file__)
