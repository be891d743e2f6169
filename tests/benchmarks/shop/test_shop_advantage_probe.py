"""The advantage probe on constructed groups: what it reports per action type, with certainty."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rewardgym.benchmarks.shop.advantage_probe import VARIANTS, group_advantages, score_groups
from rewardgym.envs.shopping.schema import ShopAction


def out(action: dict, rationale: str = "I look.") -> str:
    return json.dumps({"rationale": rationale, "action": action})


CLICK = ShopAction("click", "product_2_title")
SEARCH = ShopAction("type_and_submit", "search_input", "waterproof hiking boots women size 8")


def test_click_groups_follow_exact_match_and_typed_queries_do_not() -> None:
    clicks = [
        out({"type": "click", "name": "product_2_title"}),
        out({"type": "click", "name": "product_3_title"}),
        out({"type": "click", "name": "product_2_image"}),
        out({"type": "terminate"}),
    ]
    # Partial queries: ROUGE-L above the threshold pays DARS without an exact match.
    queries = [
        out({"type": "type_and_submit", "name": "search_input", "text": t})
        for t in (
            "waterproof hiking boots women size 8",
            "waterproof hiking boots women",
            "hiking boots women size 8 waterproof",
            "boots",
        )
    ]
    report = score_groups([clicks, queries], [CLICK, SEARCH])
    full = report["full (DARS 1000)"]
    assert full["click"]["corr_with_binary"] == pytest.approx(1.0, abs=1e-6)
    assert full["type_and_submit"]["corr_with_binary"] < 0.9
    assert full["click"]["best_is_exact"] == 100.0
    # The DARS-scaled name term carries nearly all of a click group's reward variance.
    assert full["click"]["term_share_attribute"] > 0.99 > full["click"]["term_share_type"]
    assert report["binary baseline"]["click"]["groups_with_signal"] == 100.0


def test_self_certainty_reaches_the_reward_and_can_break_ties() -> None:
    kang = {"full, Kang certainty": VARIANTS["full, Kang certainty"]}
    values = [[np.array([v]) for v in (1.0, 5.0, 9.0, 20.0)]]
    same_clicks = [out({"type": "click", "name": "product_2_title"})] * 4
    tied = score_groups([same_clicks], [CLICK], None, kang)["full, Kang certainty"]["click"]
    broken = score_groups([same_clicks], [CLICK], values, kang)["full, Kang certainty"]["click"]
    assert tied["groups_with_signal"] == 0.0 and broken["groups_with_signal"] == 100.0
    assert broken["term_share_rationale"] == pytest.approx(1.0)


def test_group_advantages_mark_groups_without_spread() -> None:
    advantages, spread = group_advantages(np.array([0.8, 0.8, 1000.8, 0.5]))
    assert spread and advantages.argmax() == 2 and abs(advantages.mean()) < 1e-9
    assert not group_advantages(np.full(8, 0.5))[1]
