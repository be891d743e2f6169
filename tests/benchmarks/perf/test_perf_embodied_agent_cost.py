"""Tiny-budget smoke run of ``benchmarks/perf/embodied_agent_cost.py``."""

from __future__ import annotations

from rewardgym.benchmarks.perf.embodied_agent_cost import Config, run


def test_cost_script_runs_on_a_tiny_budget(capsys) -> None:
    args = Config(
        steps=4, episodes=12, splits=("fine",), instructions_per_task=1, tasks=(0,), warmup_steps=2
    )
    figures = run(args)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("per agent: old ") and " new/floor " in lines[-1]
    assert "old and new agents identical (weights and SR): True" in lines
    assert figures["identical"] == 1.0
    assert min(figures["old"], figures["new"], figures["floor"]) > 0
    assert figures["new_over_floor"] == figures["new"] / figures["floor"]
