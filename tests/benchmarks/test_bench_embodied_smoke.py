"""A tiny-budget run of ``rewardgym bench embodied``: every stage, files and row shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.benchmarks.embodied import run_bench_embodied
from rewardgym.benchmarks.embodied_config import PRESETS, EmbodiedBenchConfig


def test_tiny_bench_writes_tables_json_csv_and_plots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows name scheme and algorithm and hold SR/CGC/Plan per kind and layout; files exist."""
    monkeypatch.setenv("REWARDGYM_HOME", str(tmp_path / "home"))
    result = run_bench_embodied(
        "quick",
        tmp_path / "out",
        quiet=True,
        episodes=30,
        schemes=("sparse", "self-consistency", "C", "coren"),
        seeds=(0,),
        n_steps=10,
        instructions_per_task=1,
        latency_steps=3,
        judge_policy_instructions=0,
        n_prompts=2,
        workers=1,
    )
    out = tmp_path / "out"
    for name in ("results.json", "results.csv", "results.md", "sr_by_scheme.png", "latency.png"):
        assert (out / name).exists(), name
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert len(rows) == 4 * 3
    for row in rows:
        assert row["scheme"] and row["algorithm"] in {"DiscreteCQL", "DiscreteIQL", "DiscreteBC"}
        for kind in ("fine-grained", "abstract"):
            for layout in ("default", "shifted"):
                for metric in ("sr", "cgc", "plan"):
                    assert 0.0 <= row[f"{kind}/{layout}/{metric}"] <= 100.0
    shared = {(r["scheme"], r["algorithm"]): r["shared_with"] for r in rows}
    assert shared[("C", "DiscreteCQL")] == "self-consistency"
    assert shared[("coren", "DiscreteBC")] == "sparse"
    meta = result["meta"]
    assert meta["agents_trained"] == 2 * 3 + 1  # sparse, C, coren for CQL and IQL; BC once
    assert set(meta["sparse_vs_coren"]) == {"DiscreteCQL", "DiscreteIQL", "DiscreteBC"}
    assert meta["judge_policy"]["requests_per_action"] == 58 * 2
    assert "Default layout" in (out / "results.md").read_text()


def test_presets_and_config_errors() -> None:
    """Both presets exist; bad schemes or algorithms are refused by name."""
    assert set(PRESETS) == {"quick", "paper"}
    assert PRESETS["paper"].episodes == 8000
    with pytest.raises(ValueError, match="schemes"):
        EmbodiedBenchConfig(schemes=("dense",))
    with pytest.raises(ValueError, match="algorithms"):
        EmbodiedBenchConfig(algorithms=("sac",))
