"""Training an offline agent with its progress bar on, into a log, writes a few whole lines (issue 23.5)."""

from __future__ import annotations

import contextlib
import io

import pytest

from rewardgym.agents.offline import BCSettings, OfflineConfig, train_offline
from rewardgym.envs.trajectories import CollectConfig, collect_dataset


def test_the_training_bar_is_a_start_and_an_end_line(capsys: pytest.CaptureFixture[str]) -> None:
    data = collect_dataset(CollectConfig(episodes=6, noise=0.2))
    config = OfflineConfig(algorithm=BCSettings(), n_steps=40)
    with contextlib.redirect_stdout(io.StringIO()):  # d3rlpy's own notices go to stdout
        agent = train_offline(data, config, progress=True)
    err = capsys.readouterr().err  # captured: not a terminal
    lines = [line for line in err.splitlines() if line.startswith(agent.name)]
    assert "\r" not in err
    assert len(lines) == 2, err  # d3rlpy's bar redrew every 10 steps: one line each
    assert lines[0].startswith("DiscreteBC:   0%") and "40/40" in lines[-1]
