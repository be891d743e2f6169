"""``rewardgym bench fidelity`` at a tiny size: both tables, intervals, plots, and output ownership."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.benchmarks.fidelity import run_bench_fidelity
from rewardgym.benchmarks.fidelity_config import FidelityBenchConfig, preset
from rewardgym.cli import main


def test_bench_fidelity_writes_fidelity_and_ab_tables(tmp_path: Path) -> None:
    config = FidelityBenchConfig(
        name="test",
        visits=40,
        llm_visits=10,
        variants=("price-up-20", "half-results"),
        noise_seeds=(1,),
        baselines=("always-terminate",),
        shop_rows=(),
        live_grpo=False,
        n_boot=30,
    )
    out = tmp_path / "fid"
    results = run_bench_fidelity(config, out, progress=False)
    on_disk = json.loads((out / "results.json").read_text())
    assert on_disk["fidelity"] == results["fidelity"]
    policies = [r["policy"] for r in on_disk["fidelity"]]
    assert policies == ["shopper/seed1", "baseline/always-terminate"]
    floor, quitter = on_disk["fidelity"]
    assert floor["auc"] < quitter["auc"] and quitter["auc"] > 0.9
    assert len(floor["auc_ci"]) == 2 and floor["exact_match"] > quitter["exact_match"]
    ab = on_disk["ab"]
    assert len(ab) == 4 and {r["variant"] for r in ab} == {"price-up-20", "half-results"}
    for row in ab:
        for key in (
            "conversion_effect",
            "conversion_effect_ci",
            "truth_conversion_effect",
            "direction_agrees",
        ):
            assert key in row
    for row in (r for r in ab if r["policy"] == "baseline/always-terminate"):
        assert row["conversion_effect"] == 0.0
        assert row["direction_agrees"] == (row["truth_conversion_effect"] == 0.0)
    assert (out / "fidelity.png").stat().st_size > 0 and (out / "ab.png").stat().st_size > 0
    assert "## A/B" in (out / "results.md").read_text()
    with pytest.raises(FileExistsError):
        run_bench_fidelity(config, out, progress=False)


def test_presets_parse_on_the_command_line(tmp_path: Path) -> None:
    assert preset("quick").visits >= preset("tiny").visits
    with pytest.raises(SystemExit):
        main(["bench", "fidelity", "--preset", "huge"])
    with pytest.raises(ValueError, match="llm_visits"):
        FidelityBenchConfig(visits=10, llm_visits=20)
