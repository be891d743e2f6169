"""d3rlpy's warnings carry no raw colour codes when the output is not a terminal (issue 23.5)."""

from __future__ import annotations

import pytest

from rewardgym.agents.offline.agent import quiet_d3rlpy_logs


def test_d3rlpy_warnings_are_plain_text_in_a_log(capsys: pytest.CaptureFixture[str]) -> None:
    quiet_d3rlpy_logs()
    from d3rlpy.logging import LOG

    LOG.warning("fit finished", epochs=3)
    LOG.info("progress detail")
    out = capsys.readouterr().out
    assert "fit finished" in out and "epochs=3" in out
    assert "\x1b[" not in out  # no ANSI escape sequences
    assert "progress detail" not in out  # warnings and above only


def test_the_warning_our_own_build_causes_is_dropped_and_others_stay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    quiet_d3rlpy_logs()
    quiet_d3rlpy_logs()  # twice (every worker process calls it): the filter is not doubled
    from d3rlpy.logging import LOG

    LOG.warning("Skip building models since they're already built.")
    LOG.warning("something else went wrong")
    out = capsys.readouterr().out
    assert "Skip building models" not in out
    assert out.count("something else went wrong") == 1


def test_a_worker_log_holds_no_gym_notice_and_no_signature_lines() -> None:
    """A fresh interpreter converting a data set and fitting prints neither gym's import notice
    nor d3rlpy's info lines (each suite worker is such an interpreter)."""
    import subprocess
    import sys

    code = (
        "from rewardgym.agents.offline import OfflineConfig, train_offline\n"
        "from rewardgym.envs.trajectories import CollectConfig, collect_dataset\n"
        "data = collect_dataset(CollectConfig(env='rewardgym/Household-v1', episodes=4))\n"
        "train_offline(data, OfflineConfig(n_steps=2, batch_size=4), progress=False)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    log = done.stdout + done.stderr
    assert "Gym has been unmaintained" not in log
    assert "Signatures have been automatically determined" not in log
    assert "\x1b[" not in log
