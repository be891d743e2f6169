"""``benchmarks/shop/breakdown.py``: a sweep's models and the lookup by target kind, on validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardgym.agents.evaluation.shopping import StepRecord
from rewardgym.agents.llm.dataset import StepRow
from rewardgym.benchmarks.shop.breakdown import (
    Config,
    by_kind,
    render_typed,
    run_breakdown,
    target_kind,
    typed_queries,
)
from rewardgym.benchmarks.shop.sweep import Config as SweepConfig
from rewardgym.benchmarks.shop.sweep import run_sweep
from rewardgym.envs.shopping.schema import ShopAction


def test_target_kinds_group_names_by_shape() -> None:
    assert target_kind(ShopAction("click", "product_12_title")) == "product_N_title"
    assert target_kind(ShopAction("click", "option_color_white")) == "option_*"
    assert target_kind(ShopAction("click", "filter_price_under_30")) == "filter_*"
    assert target_kind(ShopAction("click", "add_to_cart")) == "add_to_cart"
    assert target_kind(ShopAction("type_and_submit", "search_input", "lamp")) == "type_and_submit"
    assert target_kind(ShopAction("terminate")) == "terminate"


def test_by_kind_counts_hits_of_each_gold_kind_and_predictions_of_each_kind() -> None:
    cart, back = ShopAction("click", "add_to_cart"), ShopAction("click", "back_to_results")
    records = [
        StepRecord(0, 0, cart, cart),
        StepRecord(0, 1, cart, back),
        StepRecord(0, 2, back, back),
        StepRecord(0, 3, ShopAction("terminate"), None),
    ]
    table = by_kind(records)
    assert table["add_to_cart"] == {"steps": 2, "exact": 50.0, "predicted": 1}
    assert table["back_to_results"] == {"steps": 1, "exact": 100.0, "predicted": 2}
    assert table["terminate"] == {"steps": 1, "exact": 0.0, "predicted": 0}


def test_typed_queries_say_what_the_typed_texts_get_wrong_by_kind() -> None:
    search = (
        'Step 1 action: {"type": "type_and_submit", "name": "search_input", "text": "red lamp"}'
    )

    def step(prompt: str, truth: ShopAction, predicted: ShopAction | None, at: int):
        return StepRow(prompt, "", 0, at, truth), StepRecord(0, at, truth, predicted)

    def typed(name: str, text: str) -> ShopAction:
        return ShopAction("type_and_submit", name, text)

    pairs = [
        step("home", typed("search_input", "red lamp"), typed("search_input", "blue lamp"), 0),
        step("home", typed("search_input", "oak desk"), ShopAction("click", "nav_home"), 0),
        step(search, typed("search_input", "red lamp"), typed("search_input", "Red Lamp"), 2),
        step("pay", typed("promo_code_input", "SAVE10"), typed("search_input", "SAVE10"), 5),
        step("x", ShopAction("click", "a"), typed("search_input", "lamp"), 1),  # not typed gold
    ]
    table = typed_queries([r for r, _ in pairs], [r for _, r in pairs])
    assert list(table) == ["first search", "search again", "promo code"]
    first = table["first search"]
    assert first["steps"] == 2 and first["typed"] == 50.0 and first["right_field"] == 50.0
    assert first["exact_text"] == 0.0 and first["gold_words"] == pytest.approx(25.0)
    assert first["gold_in_prompt"] == 0.0  # "home" shows none of the gold words
    again = table["search again"]  # the earlier query is in the prompt: copyable
    assert again["exact_text"] == 100.0 and again["gold_in_prompt"] == 100.0
    promo = table["promo code"]  # the right text in the wrong field is no match
    assert promo["typed"] == 100.0 and promo["right_field"] == 0.0 and promo["exact_text"] == 0.0
    assert "| base | promo code | 1 |" in render_typed({"base": table})


def test_a_sweeps_models_and_lookup_are_broken_down_on_its_validation_steps(
    tmp_path: Path,
) -> None:
    toy = "sft.max_examples=16,default_model.tokenizer_sessions=8"
    sweep = tmp_path / "sweep"
    saved = run_sweep(
        SweepConfig(
            preset="tiny",
            candidates=(),
            extra=(f"base:{toy}",),
            validation_sessions=2,
            temperatures=(0.6,),
            bootstrap_samples=20,
            out=sweep,
        ),
        progress=False,
    )
    with pytest.raises(ValueError, match="not in"):
        run_breakdown(Config(sweep=sweep, candidates=("nope",), out=tmp_path / "bad"))
    assert not (tmp_path / "bad").exists()  # refused before any work
    result = run_breakdown(
        Config(sweep=sweep, candidates=("base",), temperature=0.6, out=tmp_path / "out")
    )
    (lookup_name, lookup), (name, model) = result["columns"].items()
    assert lookup_name.startswith("lookup (") and name == "base"
    steps = saved["rows"][0]["n"]
    for column, row in ((lookup, saved["lookup"][0]), (model, saved["rows"][0])):
        assert sum(k["steps"] for k in column.values()) == steps  # the sweep's steps, all of them
        hits = sum(k["steps"] * k["exact"] / 100 for k in column.values())
        assert hits == pytest.approx(row["exact_match"] * steps / 100)  # the sweep's own score
    written = json.loads((tmp_path / "out" / "breakdown.json").read_text())
    assert written["columns"] == result["columns"] and written["meta"]["smoke_test"] is True
    page = (tmp_path / "out" / "breakdown.md").read_text()
    assert "| target kind | gold steps |" in page and "## Typed queries" in page
    assert set(written["typed"]) == {"base"}
    # The sensitivity probe reads the same model on validation product pages.
    from rewardgym.benchmarks.shop.sensitivity_probe import Config as ProbeConfig
    from rewardgym.benchmarks.shop.sensitivity_probe import main as probe

    model_dir = next(sweep.rglob("sft/model"))
    figures = probe(
        ProbeConfig(model=model_dir, preset="tiny", validation_sessions=6, out=tmp_path / "p.json")
    )
    assert figures["steps"] >= 1
    for previous in figures["by_previous"].values():
        assert 0.0 <= sum(previous["p"].values()) <= 1.0 + 1e-6
    assert json.loads((tmp_path / "p.json").read_text())["gate"]["threshold"] == 0.5
    # The stopping probe reads it on every validation step.
    from rewardgym.benchmarks.shop.stopping_probe import Config as StopConfig
    from rewardgym.benchmarks.shop.stopping_probe import run_probe

    stops = run_probe(
        StopConfig(model=model_dir, preset="tiny", validation_sessions=6, out=tmp_path / "stop")
    )
    by_context = stops["by_context"].values()
    assert sum(c["steps"] for c in by_context) == stops["steps"]
    assert sum(c["stops"] for c in by_context) == stops["stops"] >= 1  # every session ends
    assert sum(stops["type_shares_t1"].values()) == pytest.approx(100.0)
    assert 0.0 <= stops["argmax_share"] <= 100.0 and 0.0 <= stops["auc"] <= 1.0
    assert all("lookup_at_stops" in c for c in by_context if c["stops"])
    assert json.loads((tmp_path / "stop" / "stopping.json").read_text())["meta"]["smoke_test"]
    assert (tmp_path / "stop" / "stopping.md").read_text() == stops["markdown"]
