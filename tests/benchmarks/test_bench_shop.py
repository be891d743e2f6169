"""``bench shop``: the row names, the tables, and a tiny-budget end-to-end smoke run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from rewardgym.benchmarks.shop import methods, run_bench_shop
from rewardgym.benchmarks.shop_config import preset
from rewardgym.benchmarks.shop_report import aggregate, render_tables

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def test_rows_carry_the_public_method_names() -> None:
    names = [m.method for m in methods(preset("quick"))]
    for name in ("zero-shot", "rl-binary", "sft", "sft+rl-binary", "shop-r1"):
        assert name in names
    for ablation in ("no-sft", "no-format", "no-rationale", "no-dars", "binary-action"):
        assert f"shop-r1/{ablation}" in names
    assert "shop-r1/latest-context" in names
    assert {"shop-r1/temp-0.2", "shop-r1/temp-1"} <= set(names)


def test_aggregate_and_tables_show_mean_and_std() -> None:
    runs = [
        {"method": "sft", "seed": s, "exact_match": v, "type_accuracy": 50.0, "type_f1": 40.0}
        for s, v in ((0, 10.0), (1, 20.0))
    ] + [{"method": "shop-r1", "seed": 0, "exact_match": 30.0, "type_accuracy": 60.0}]
    rows = aggregate(runs, ["sft", "shop-r1"])
    assert rows[0]["exact_match"] == pytest.approx(15.0)
    assert rows[0]["exact_match_std"] == pytest.approx(7.0710678)
    tables = render_tables(rows)
    assert "### Table 2" in tables and "15.00 ± 7.07" in tables and "| shop-r1 | 30.00" in tables


def test_run_bench_shop_smoke(tmp_path: Path) -> None:
    os.environ["REWARDGYM_HOME"] = str(tmp_path / "home")
    from rewardgym.envs.shopping.data import build_synthetic_store
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    store = build_synthetic_store(
        tmp_path / "store", config=SyntheticShopperConfig(sessions=40, seed=5)
    ).path
    only = ["zero-shot", "sft", "shop-r1", "shop-r1/temp-1"]
    rows = run_bench_shop("tiny", tmp_path / "out", data=store, only=only, progress=False)
    assert [r["method"] for r in rows] == only
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [r["method"] for r in saved["rows"]] == only
    for row in saved["rows"]:
        for key in ("exact_match", "type_accuracy", "type_f1", "exact_click", "type_acc_terminate"):
            assert 0.0 <= row[key] <= 100.0
    assert saved["meta"]["preset"] == "tiny" and saved["meta"]["wall_seconds"] > 0
    for name in ("results.csv", "results.md", "results.png"):
        assert (tmp_path / "out" / name).stat().st_size > 0
    assert "Table 2" in (tmp_path / "out" / "results.md").read_text()


def test_group_advantages_divide_the_reward_scale_away() -> None:
    from rewardgym.benchmarks.shop_advantage_probe import group_advantages

    rewards = np.array([0.8, 0.8, 1000.8, 0.5])
    scaled, spread = group_advantages(rewards * 1000.0)
    plain, _ = group_advantages(rewards)
    assert spread and np.allclose(scaled, plain, atol=1e-3)
    assert not group_advantages(np.full(8, 0.5))[1]
