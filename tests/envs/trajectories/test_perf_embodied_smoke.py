"""Tiny-budget smoke run of ``benchmarks/perf_embodied_envs.py``."""

from __future__ import annotations

from rewardgym.benchmarks.perf_embodied_envs import Args, run
from rewardgym.benchmarks.script_config import parse_config


def test_benchmark_runs_on_a_tiny_budget(capsys) -> None:
    args = parse_config(
        Args,
        [
            "--household-steps",
            "300",
            "--babyai-steps",
            "100",
            "--collect-episodes",
            "8",
            "--no-save",
        ],
    )
    figures = run(args)
    out = capsys.readouterr().out
    assert "Household / BabyAI-GoToLocal" in out and "collect 8 Household trajectories" in out
    assert figures["household_steps_per_s"] > 0 and figures["episodes"] == 8
