"""Reference rows: the synthetic shopper's own argmax and one fresh draw, scored like every other row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.agents.baselines.shopper_reference import (
    REFERENCE_ROWS,
    reference_records,
    synthetic_index,
)
from rewardgym.agents.evaluation.shopping import protocol_metrics
from rewardgym.benchmarks.shop.config import preset
from rewardgym.benchmarks.shop.suite import run_bench_shop
from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig, make_session

FIXTURE = SyntheticShopperConfig(sessions=30, seed=5)


def test_argmax_is_at_least_one_fresh_draw_and_both_are_percentages() -> None:
    sessions = [make_session(FIXTURE, i) for i in range(30)]
    found = reference_records(sessions, list(range(30)), FIXTURE, resamples=60)
    steps = sum(len(s.steps) for s in sessions)
    assert len(found.argmax) == len(found.resample) == steps
    argmax = protocol_metrics(found.argmax, "natural").exact_match
    resample = protocol_metrics(found.resample, "natural").exact_match
    assert 0.0 <= resample <= argmax <= 100.0 and argmax > 30.0
    # The records are the logged steps themselves: the truth is the log's action.
    assert [r.truth for r in found.argmax[: len(sessions[0].steps)]] == [
        step.action for step in sessions[0].steps
    ]
    # Seeded: the same call draws the same actions.
    again = reference_records(sessions[:3], [0, 1, 2], FIXTURE, resamples=60)
    assert again.argmax == found.argmax[: len(again.argmax)]


def test_a_corpus_of_other_settings_is_refused_naming_the_session() -> None:
    session = make_session(FIXTURE, 4)
    with pytest.raises(ValueError, match="session syn-000005 step 0"):
        reference_records([session], [0], SyntheticShopperConfig(seed=6), resamples=2)
    with pytest.raises(ValueError, match="'opera-17' is not a synthetic"):
        synthetic_index("opera-17")


def test_a_tiny_run_on_the_embedded_corpus_prints_the_reference_rows(tmp_path: Path) -> None:
    config = preset("tiny").replace(reference_resamples=40)
    only = ["baseline/frequency", "sft", "shop-r1"]
    results = run_bench_shop(config, tmp_path / "out", only=only, progress=False)
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    rows = {r["method"]: r for r in saved["rows"]}
    frequency = rows["baseline/frequency"]
    for name in REFERENCE_ROWS:
        row = rows[name]
        assert row["n_steps"] == frequency["n_steps"]  # the baselines' test steps
        lo, hi = row["exact_match_ci"]
        assert 0.0 <= lo <= row["exact_match"] <= hi <= 100.0
    assert "diff_vs_sft" in rows["shop-r1"] and len(rows["shop-r1"]["diff_vs_sft_ci"]) == 2
    markdown = results["markdown"]
    assert "| reference/shopper-argmax |" in markdown and "the ceiling of exact match" in markdown
