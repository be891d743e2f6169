"""The Shop-R1 reward stays within its documented bounds and pays format only for the paper's format."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers import PolicyOutput, ShopR1Config
from rewardgym.wrappers.self_certainty import LOGPROB_FLOOR, token_self_certainty
from rewardgym.wrappers.shop_r1 import shop_r1_reward

CLICK = ShopAction("click", "add_to_cart")
EXACT = json.dumps({"rationale": "I want it.", "action": {"type": "click", "name": "add_to_cart"}})


@pytest.mark.parametrize(
    "values", [[1e6], [1e308, 1e308], [0.1, math.inf], [math.nan], [-0.1], [0.5]]
)
def test_out_of_range_certainties_are_refused_not_paid(values: list[float]) -> None:
    # Issue 12 item 10: [1e6] used to give 5000.5 and [1e308, 1e308] inf.
    with pytest.raises(ValueError, match="self-certainty"):
        shop_r1_reward(EXACT, CLICK, rationale_token_certainty=values)


@pytest.mark.parametrize("kind", ["paper", "kang"])
def test_total_never_exceeds_max_reward_for_valid_certainties(kind: str) -> None:
    config = ShopR1Config(self_certainty_kind=kind)  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    logits = rng.normal(scale=40.0, size=(6, 50))
    logits[:, 0] = 1e4  # near one-hot rows: the largest certainty each kind can reach
    values = token_self_certainty(logits, kind)  # type: ignore[arg-type]
    terms = shop_r1_reward(EXACT, CLICK, config=config, rationale_token_certainty=values)
    bound = 1 / math.e if kind == "paper" else -LOGPROB_FLOOR
    assert 0 < terms.self_certainty <= bound and terms.total <= config.max_reward()


def test_certainty_bound_depends_on_the_kind() -> None:
    kang = ShopR1Config(self_certainty_kind="kang")
    terms = shop_r1_reward(EXACT, CLICK, config=kang, rationale_token_certainty=[20.0, 30.0])
    assert terms.self_certainty == pytest.approx(25.0)
    assert terms.rationale == pytest.approx(0.005 * 25.0)
    with pytest.raises(ValueError, match="kang"):
        shop_r1_reward(EXACT, CLICK, config=kang, rationale_token_certainty=[150.0])


@pytest.mark.parametrize(
    ("output", "strict", "lenient"),
    [
        (EXACT, 0.5, 0.5),
        ('{"rationale": 1, "action": 2}', 0.0, 0.5),
        ('{"rationale": "r", "action": {"type": "scroll"}}', 0.0, 0.5),
        ('{"rationale": "r", "action": "click"}', 0.0, 0.5),
        ('{"rationale": null, "action": {"type": "terminate"}}', 0.0, 0.5),
        ('{"action": {"type": "terminate"}}', 0.0, 0.0),
        ('{"rationale": "r", "action": {"type": "terminate"}}', 0.5, 0.5),
    ],
)
def test_format_reward_strict_by_default_lenient_as_an_option(
    output: str, strict: float, lenient: float
) -> None:
    assert shop_r1_reward(output, CLICK).format == strict
    assert (
        shop_r1_reward(output, CLICK, config=ShopR1Config(format_rule="lenient")).format == lenient
    )


def test_format_rule_is_validated() -> None:
    with pytest.raises(ValueError, match="format_rule"):
        ShopR1Config(format_rule="loose")  # type: ignore[arg-type]


def test_policy_output_certainty_is_validated_through_the_wrapper_path() -> None:
    output = PolicyOutput(EXACT, rationale_token_certainty=[1e6])
    with pytest.raises(ValueError, match="self-certainty"):
        shop_r1_reward(
            output.text, CLICK, rationale_token_certainty=output.rationale_token_certainty
        )
