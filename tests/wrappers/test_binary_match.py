"""The binary exact-match reward: 1 only when type, name and text match the human's in canonical form."""

from __future__ import annotations

import json

import pytest

from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers import binary_match_reward
from rewardgym.wrappers.binary_match import BINARY_MATCH_CONFIG

SUBMIT = ShopAction("type_and_submit", name="search box", text="yoga mat")


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ({"type": "type_and_submit", "name": "search box", "text": "yoga mat"}, 1.0),
        ({"type": "type_and_submit", "name": " Search  Box ", "text": "YOGA mat"}, 1.0),
        ({"type": "type_and_submit", "name": "search box", "text": "yoga mats"}, 0.0),
        ({"type": "type_and_submit", "name": "search-box", "text": "yoga mat"}, 1.0),
        ({"type": "type_and_submit", "name": "SEARCH_BOX", "text": "yoga, mat!"}, 1.0),
        ({"type": "type_and_submit", "name": "searchbox", "text": "yoga mat"}, 0.0),
        ({"type": "click", "name": "search box"}, 0.0),
    ],
)
def test_exact_match_only(action: dict[str, str], expected: float) -> None:
    text = json.dumps({"rationale": "r", "action": action})
    terms = binary_match_reward(text, SUBMIT).to_info()
    assert terms["total"] == terms["type"] == terms["exact_match"] == expected
    assert terms["format"] == terms["rationale"] == terms["attribute"] == terms["value"] == 0.0


def test_format_is_not_rewarded_and_truth_may_be_a_dict() -> None:
    assert binary_match_reward("{}", SUBMIT).total == 0.0
    action_only = json.dumps({"action": {"type": "terminate"}})
    assert binary_match_reward(action_only, {"type": "terminate"}).total == 1.0
    assert BINARY_MATCH_CONFIG.max_reward() == 1.0
