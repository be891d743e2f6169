"""Shop-R1 metrics against hand-computed values."""

from __future__ import annotations

import pytest

from rewardgym.envs.shopping.metrics import shop_metrics, type_f1
from rewardgym.envs.shopping.schema import ShopAction, actions_match

C = ShopAction("click", "buy_now")
T = ShopAction("type_and_submit", "search_input", "red shoes")
X = ShopAction("terminate")


def test_actions_match_normalises() -> None:
    assert actions_match(ShopAction("click", "  Buy_Now "), C)
    assert actions_match(ShopAction("type_and_submit", "search_input", "Red  Shoes"), T)
    assert not actions_match(ShopAction("type_and_submit", "search_input", "red shoe"), T)
    assert not actions_match(None, X)
    assert actions_match(ShopAction("terminate"), X)


def test_hand_computed_table() -> None:
    truths = [C, C, T, X]
    preds = [C, ShopAction("click", "other"), ShopAction("click", "x"), None]
    m = shop_metrics(preds, truths)
    assert m.exact_match == pytest.approx(25.0)
    assert m.type_accuracy == pytest.approx(50.0)
    # click: tp=2 fp=1 fn=0 -> F1 0.8; type: tp=0 fn=1 -> 0; terminate: fn=1 -> 0; macro = 0.8/3
    assert m.type_f1 == pytest.approx(100 * 0.8 / 3)
    assert m.per_type_exact == {"click": 50.0, "type_and_submit": 0.0, "terminate": 0.0}
    assert m.per_type_accuracy == {"click": 100.0, "type_and_submit": 0.0, "terminate": 0.0}
    assert m.predicted_type_share["click"] == pytest.approx(75.0)


def test_type_f1_perfect_and_absent_class() -> None:
    assert type_f1(["click", "terminate"], ["click", "terminate"]) == pytest.approx(100.0)


def test_length_mismatch() -> None:
    with pytest.raises(ValueError, match="2 predictions for 1"):
        shop_metrics([C, C], [C])
