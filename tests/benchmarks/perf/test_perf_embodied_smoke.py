"""Tiny-budget smoke run of ``benchmarks/perf/embodied_envs.py``."""

from __future__ import annotations

from rewardgym.benchmarks.perf.embodied_envs import Config, run


def test_benchmark_runs_on_a_tiny_budget(capsys) -> None:
    args = Config(household_steps=300, babyai_steps=100, collect_episodes=8, save=False)
    figures = run(args)
    out = capsys.readouterr().out
    assert "Household / BabyAI-GoToLocal" in out and "collect 8 Household trajectories" in out
    assert figures["household_steps_per_s"] > 0 and figures["episodes"] == 8
