"""Smoke test of the Shop-R1 reward benchmark on a tiny budget."""

from __future__ import annotations

import pytest

from rewardgym.benchmarks.perf.shop_r1_reward import Config, run


def test_tiny_run_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    figures = run(Config(pairs=300, repeats=1, profile_rows=3))
    out = capsys.readouterr().out
    assert "(a)" in out and "(b)" in out and "(c)" in out and "parse_output" in out
    assert figures["rouge_max_diff"] <= 1e-9 and figures["reward_max_diff"] <= 1e-9
    assert figures["rouge_uncached_max_diff"] <= 1e-9
    assert all(figures[k] > 0 for k in ("rouge_speedup", "reward_speedup"))
