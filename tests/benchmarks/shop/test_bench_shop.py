"""``bench shop``: the row names, the tables with intervals, and a tiny-budget end-to-end run."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import gymnasium as gym
import pytest

from rewardgym.agents.evaluation.shopping import StepRecord
from rewardgym.benchmarks.repro import table_digests
from rewardgym.benchmarks.shop.config import PRESETS, preset
from rewardgym.benchmarks.shop.report import build_rows, render_tables
from rewardgym.benchmarks.shop.rows import methods
from rewardgym.benchmarks.shop.suite import run_bench_shop, wrapper_for
from rewardgym.cli import build
from rewardgym.envs import SHOP_SESSION_ID
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers import ShopR1Config, ShopR1Reward

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def test_rows_carry_the_public_method_names() -> None:
    names = [m.method for m in methods(preset("quick"))]
    for name in ("zero-shot", "rl-binary", "sft", "sft+rl-binary", "shop-r1"):
        assert name in names
    for ablation in ("no-sft", "no-format", "no-rationale", "no-dars", "binary-action"):
        assert f"shop-r1/{ablation}" in names
    assert {"shop-r1/gdpo", "shop-r1/kang", "shop-r1/latest-context"} <= set(names)
    temps = {f"shop-r1/temp-{t:g}" for t in preset("quick").temperatures}
    assert "shop-r1/temp-1" in temps and temps <= set(names)
    assert set(PRESETS) == {"demo", "tiny", "quick", "cpu", "smol", "paper"}
    demo = preset("demo")  # the rows make demo shows: the lookup, SFT and Shop-R1
    assert demo.rows is not None and {"baseline/frequency", "sft", "shop-r1"} <= set(demo.rows)
    assert preset("smol").model == "smollm2-135m" and preset("quick").seeds == (0, 1)


def _first_click(session: int) -> tuple[int, ShopAction]:
    """The index and the human's action of the first click of a session of the embedded corpus."""
    env = gym.make(SHOP_SESSION_ID)
    env.reset(options={"session": session})
    for step in range(100):
        _, _, done, _, info = env.step("")
        if info["truth"]["type"] == "click":
            return step, ShopAction("click", info["truth"]["name"])
        assert not done, f"session {session} has no click"
    raise AssertionError("no click in 100 steps")


def _row_reward(config_rows: dict, row: str, session: int = 0) -> float:
    """What the GRPO reward of ``row`` pays an exact copy (no log-probs) of the first click."""
    step, click = _first_click(session)
    env = wrapper_for(config_rows[row])(gym.make(SHOP_SESSION_ID))
    env.reset(options={"session": session})
    for _ in range(step):
        env.step("")
    return float(env.step(format_output("I want it.", click))[1])


def test_a_preset_sets_a_shop_r1_weight_and_it_reaches_each_rows_reward() -> None:
    paper = {m.method: m for m in methods(preset("tiny"))}
    config = preset("tiny").replace(reward=ShopR1Config(dars=10.0))
    rows = {m.method: m for m in methods(config)}
    for name in ("shop-r1", "shop-r1/no-format", "shop-r1/gdpo", "shop-r1/kang", "rl-binary"):
        assert rows[name].reward == dataclasses.replace(paper[name].reward, dars=10.0), name
    assert rows["shop-r1/no-dars"].reward == paper["shop-r1/no-dars"].reward  # it sets dars itself
    assert rows["shop-r1/kang"].reward.self_certainty_kind == "kang"
    assert rows["sft"].reward is None and rows["shop-r1/temp-1"].reward is None
    # The weight reaches the wrapper GRPO steps: format 0.5 + type 0.3 + name 0.2 + DARS x 1.
    assert _row_reward(paper, "shop-r1") == pytest.approx(1001.0)
    assert _row_reward(rows, "shop-r1") == pytest.approx(11.0)
    assert _row_reward(rows, "shop-r1/no-dars") == pytest.approx(2.0)
    assert _row_reward(rows, "rl-binary") == pytest.approx(1.0)
    factory = wrapper_for(rows["shop-r1"])
    assert isinstance(factory(gym.make(SHOP_SESSION_ID)), ShopR1Reward)
    with pytest.raises(ValueError, match="'sft' trains no GRPO"):
        wrapper_for(rows["sft"])
    # ... and from the command line, over a preset's values.
    command = build(
        ["bench", "shop", "--preset", "tiny", "--reward.dars", "10", "--reward.alpha", "0"]
    )
    assert command.config.reward == ShopR1Config(dars=10.0, alpha=0.0)
    assert command.config.grpo == preset("tiny").grpo


def test_rows_pool_runs_and_tables_show_intervals() -> None:
    click, term = ShopAction("click", "a"), ShopAction("terminate")
    run = [
        StepRecord(s, j, t, t if j < 2 - s % 3 else None)  # 2, 1 or 0 right by session
        for s in range(30)
        for j, t in enumerate((click, term))
    ]
    rows = build_rows({"sft": [run, run]}, [], ["sft", "shop-r1"], "natural", samples=200)
    assert [r["method"] for r in rows] == ["sft"]
    row = rows[0]
    assert row["exact_match"] == pytest.approx(50.0) and row["n_steps"] == 60 and row["runs"] == 2
    lo, hi = row["exact_match_ci"]
    assert lo < 50.0 < hi and row["exact_match_std"] == 0.0
    tables = render_tables(rows, "natural")
    assert "### Table 2" in tables and f"50.0 [{lo:.1f}, {hi:.1f}]" in tables


def test_run_bench_shop_smoke(tmp_path: Path) -> None:
    os.environ["REWARDGYM_HOME"] = str(tmp_path / "home")
    from rewardgym.envs.shopping.session_sources import build_synthetic_log
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    store = build_synthetic_log(
        tmp_path / "store", config=SyntheticShopperConfig(sessions=40, seed=5)
    ).path
    only = [
        "baseline/frequency",
        "zero-shot",
        "sft",
        "shop-r1",
        "shop-r1/gdpo",
        "sft/persona",
        "shop-r1/temp-1",
    ]
    config = preset("tiny").replace(baselines=True, reward=ShopR1Config(dars=10.0))
    results = run_bench_shop(config, tmp_path / "out", data=store, only=only, progress=False)
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    names = [r["method"] for r in saved["rows"]]
    assert names[:4] == [
        "baseline/frequency",
        "baseline/random",
        "baseline/always-terminate",
        "baseline/first-element",
    ]
    # Every main model row (zero-shot aside) is scored a second time decoding constrained, and
    # that row reaches results.json and Table 2 right after its free twin.
    assert names[4:] == [
        "zero-shot",
        "sft",
        "sft/constrained",
        "shop-r1",
        "shop-r1/constrained",
        *only[4:],
    ]
    constrained = {r["method"]: r for r in saved["rows"] if r["method"].endswith("/constrained")}
    assert all(row["parse_rate"] == 100.0 for row in constrained.values())
    # The claims' other pairs: each constrained row against its own model decoded free, and
    # the learned rows against the lookup, with the values paired_difference gives.
    pairs = {(p["row"], p["minus"]): p for p in saved["paired"]}
    assert set(pairs) == {
        ("shop-r1", "baseline/frequency"),
        ("sft", "baseline/frequency"),
        ("sft/constrained", "sft"),
        ("shop-r1/constrained", "shop-r1"),
    }
    lo, hi = pairs[("sft", "baseline/frequency")]["ci"]
    assert lo <= pairs[("sft", "baseline/frequency")]["diff"] <= hi
    assert "sft/constrained minus sft " in (tmp_path / "out" / "results.md").read_text()
    for row in saved["rows"]:
        for key in ("exact_match", "type_accuracy", "type_f1", "exact_click", "type_acc_terminate"):
            assert 0.0 <= row[key] <= 100.0
        lo, hi = row["exact_match_ci"]
        assert lo <= row["exact_match"] <= hi and row["n_steps"] > 0
    assert set(saved["protocol_rows"]) == {"natural", "paper"}
    coverage = saved["prompt_coverage"]
    for key in (
        "target_in_prompt",
        "previous_action_in_prompt",
        "first_rationale_in_prompt",
        "completion_fits",
    ):
        assert 0.0 <= coverage[key] <= 1.0
    assert saved["meta"]["preset"] == "tiny" and saved["meta"]["wall_seconds"] > 0
    markdown = (tmp_path / "out" / "results.md").read_text()
    assert saved["meta"]["table_digests"] == table_digests(markdown)  # issue 31: repro digests
    assert saved["temperature_choice"]["chosen"] == 0.6
    assert all(len(losses) >= 2 for losses in saved["sft_losses"].values())  # first and last step
    for name in ("results.csv", "results.md", "results.png", "reward_terms.png"):
        assert (tmp_path / "out" / name).stat().st_size > 0
    text = (tmp_path / "out" / "results.md").read_text()
    assert "Table 2" in text and "Protocol: paper" in text and "baseline/frequency" in text
    assert results["rows"] == saved["rows"]
    # sft/persona trains its own cold start on prompts that open with the shopper's persona.
    assert {"sft/seed0/compact", "sft/seed0/compact-persona"} <= set(saved["sft_losses"])
    assert (tmp_path / "out" / "models" / "seed0" / "sft-compact-persona" / "model").is_dir()
    # Predicted action-type shares beside the truth's: every row on test, sft on validation.
    kinds = ("click", "type_and_submit", "terminate")
    for row in saved["rows"]:
        assert sum(row[f"truth_share_{t}"] for t in kinds) == pytest.approx(100.0)
        assert sum(row[f"predicted_share_{t}"] for t in kinds) <= 100.0 + 1e-9
    chosen = saved["temperature_choice"]["type_shares"]["0.6"]
    assert sum(chosen["truth"].values()) == pytest.approx(100.0)
    assert "### Table 3b: predicted action-type shares beside the truth's" in text
    assert "Predicted action-type shares of sft (seed 0) on validation" in text
    table2 = text.split("### Table 2")[1].split("### Table 3")[0]
    assert "| sft/persona |" in table2
    assert "| sft/constrained |" in table2 and "| shop-r1/constrained |" in table2
    # Every weight of each model row's reward, the preset's DARS included (issue 30.1).
    weights = {f.name for f in dataclasses.fields(ShopR1Config)}
    rewards = saved["rewards"]
    assert set(rewards) == set(only[1:])
    for row in ("shop-r1", "shop-r1/gdpo", "shop-r1/temp-1"):  # temp-1 scores shop-r1's model
        assert set(rewards[row]) == weights and rewards[row]["dars"] == 10.0
        assert ShopR1Config(**rewards[row]) == config.reward
    assert rewards["zero-shot"] is rewards["sft"] is rewards["sft/persona"] is None
    assert saved["meta"]["config"]["reward"] == rewards["shop-r1"]
