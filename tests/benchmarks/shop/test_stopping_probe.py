"""The stopping probe's figures from given type probabilities: shares, AUC and the stops by context."""

from __future__ import annotations

import pytest

from rewardgym.agents.llm.dataset import StepRow
from rewardgym.benchmarks.shop.stopping_probe import auc, render, summarise
from rewardgym.envs.shopping.schema import ShopAction

BUY = ShopAction("click", "place_order")
BACK = ShopAction("click", "back_to_results")
STOP = ShopAction("terminate")


def row(previous: ShopAction | None, truth: ShopAction) -> StepRow:
    return StepRow("prompt", "{}", 0, 0, truth=truth, previous=previous)


def probs(stop: float) -> dict[str, float]:
    return {"click": 1.0 - stop, "type_and_submit": 0.0, "terminate": stop}


def test_a_calibrated_model_unsure_of_give_ups_predicts_them_at_t1_but_not_greedily() -> None:
    rows = [
        row(BUY, STOP),  # after an order: sure
        row(BACK, STOP),  # a give-up: 0.3, never the argmax
        row(BACK, BACK),
        row(BACK, BACK),
        row(None, BACK),
    ]
    given = [probs(0.9), probs(0.3), probs(0.3), probs(0.3), probs(0.2)]
    lookup = [STOP, STOP, STOP, BACK, BACK]
    figures = summarise(rows, given, lookup)
    assert figures["truth_share"] == pytest.approx(40.0)
    assert figures["mean_p_terminate"] == pytest.approx(40.0)  # calibrated: sampling at T 1
    assert figures["argmax_share"] == pytest.approx(20.0)  # greedy stops only after the order
    assert figures["auc"] == pytest.approx((1.0 + 0.5 * 2 / 3 + 1 / 3) / 2)
    back = figures["by_context"]["back"]
    assert (back["steps"], back["stops"]) == (3, 1)
    assert back["stop_rate"] == pytest.approx(100 / 3)
    assert back["mean_p_at_stops"] == pytest.approx(30.0) and back["argmax_at_stops"] == 0.0
    assert back["lookup_at_stops"] == 100.0
    assert figures["by_context"]["start"]["mean_p_at_stops"] is None
    assert list(figures["by_context"])[:2] == ["back", "buy"]  # by stops, then name
    table = render(figures)
    assert "| back | 3 | 1 | 33.3% | 30.0% | 30.0% | 0.0% | 100.0% |" in table
    assert "| start | 1 | 0 | 0.0% | 20.0% | - | - | - |" in table


def test_auc_counts_ties_half_and_is_undefined_without_both_classes() -> None:
    assert auc([0.9, 0.5], [0.5, 0.1]) == pytest.approx((1 + 1 + 0.5 + 1) / 4)
    assert auc([], [0.1]) != auc([], [0.1])  # NaN
