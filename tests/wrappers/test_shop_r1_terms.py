"""Shop-R1's reward terms on hand-computed cases for every action type, ablation and edge case."""

from __future__ import annotations

import json
import math
from typing import Any, cast

import numpy as np
import pytest

from rewardgym.envs.shopping.parsing import parse_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers import (
    BinaryMatchReward,
    ShopR1Config,
    ShopR1Reward,
    action_reward,
    format_reward,
    reward_config,
    shop_r1_reward,
)
from rewardgym.wrappers.binary_match import BINARY_MATCH_CONFIG
from rewardgym.wrappers.shop_r1 import ABLATIONS, REWARDS, RewardTerms

CLICK = ShopAction("click", name="add to cart")
SUBMIT = ShopAction("type_and_submit", name="search box", text="blue running shoes")
TERMINATE = ShopAction("terminate")


def output(action: dict[str, Any] | None = None, rationale: str | None = "I want it.") -> str:
    obj: dict[str, Any] = {}
    if rationale is not None:
        obj["rationale"] = rationale
    if action is not None:
        obj["action"] = action
    return json.dumps(obj)


def terms(text: str, truth: ShopAction, config: ShopR1Config | None = None) -> dict[str, float]:
    return shop_r1_reward(text, truth, config=config or ShopR1Config()).to_info()


@pytest.mark.parametrize(
    ("name", "attribute"),
    [
        ("add to cart", 0.2 + 1000 * 1.0),  # exact
        ("ADD  to Cart!", 0.2 + 1000 * 1.0),  # same tokens after rouge-score's tokeniser
        ("add to cart now", 0.2 + 1000 * (2 * 0.75 / 1.75)),  # F = 0.857 >= 0.75
        ("cart", 0.2),  # F = 0.5 < 0.75: only the non-empty bonus
        ("", 0.0),  # empty: neither bonus nor ROUGE
        ("   ", 0.0),  # blank counts as empty
        ("!!!", 0.2),  # non-blank but no ROUGE token
    ],
)
def test_click(name: str, attribute: float) -> None:
    got = terms(output({"type": "click", "name": name}), CLICK)
    assert got["format"] == 0.5
    assert got["type"] == 0.3
    assert got["attribute"] == pytest.approx(attribute, abs=1e-9)
    assert got["value"] == 0.0
    assert got["total"] == pytest.approx(0.5 + 0.3 + attribute, abs=1e-9)


def test_rouge_threshold_both_sides_and_exactly_on_it() -> None:
    truth = ShopAction("click", name="a b c d e")
    # 3 of 5 reference tokens, all 3 predicted ones shared: P = 1, R = 0.6, F = 0.75 exactly.
    on = terms(output({"type": "click", "name": "a b c"}), truth)
    assert on["attribute"] == pytest.approx(0.2 + 750.0, abs=1e-9)
    # 3 of 4 predicted tokens shared: P = 0.75, R = 0.6, F = 0.667 < 0.75.
    below = terms(output({"type": "click", "name": "a b x d"}), truth)
    assert below["attribute"] == pytest.approx(0.2, abs=1e-12)
    # A threshold of 0 lets every score count at its raw value.
    loose = terms(
        output({"type": "click", "name": "a b x d"}), truth, ShopR1Config(rouge_threshold=0)
    )
    assert loose["attribute"] == pytest.approx(0.2 + 1000 * 2 * 0.45 / 1.35, abs=1e-9)


@pytest.mark.parametrize(
    ("name", "text", "attribute", "value"),
    [
        ("search box", "blue running shoes", 0.1 + 0.1, 0.1 + 1000.0),
        ("Search Box", "Blue running shoes, men", 0.2, 0.1 + 1000 * (2 * 0.75 / 1.75)),
        ("search", "blue running shoe", 0.1, 0.1),  # name F 0.667, text F 0.667: both below
        ("", "blue running shoes", 0.0, 0.1 + 1000.0),
        ("search box", "", 0.2, 0.0),
        ("search box", "  ", 0.2, 0.0),
    ],
)
def test_type_and_submit(name: str, text: str, attribute: float, value: float) -> None:
    got = terms(output({"type": "type_and_submit", "name": name, "text": text}), SUBMIT)
    assert (got["format"], got["type"]) == (0.5, 0.3)
    assert got["attribute"] == pytest.approx(attribute, abs=1e-9)
    assert got["value"] == pytest.approx(value, abs=1e-9)
    assert got["total"] == pytest.approx(0.8 + attribute + value, abs=1e-9)


def test_terminate_earns_the_type_alone() -> None:
    got = terms(output({"type": "terminate", "name": "anything", "text": "x"}), TERMINATE)
    assert (got["type"], got["attribute"], got["value"], got["total"]) == (0.3, 0.0, 0.0, 0.8)
    assert got["exact_match"] == 1.0


@pytest.mark.parametrize(
    ("predicted", "truth"),
    [
        ({"type": "click", "name": "search box"}, SUBMIT),
        ({"type": "type_and_submit", "name": "add to cart", "text": "x"}, CLICK),
        ({"type": "terminate"}, CLICK),
        ({"type": "click", "name": "add to cart"}, TERMINATE),
        ({"type": "scroll", "name": "add to cart"}, CLICK),
    ],
)
def test_wrong_type_pays_no_sub_reward(predicted: dict[str, Any], truth: ShopAction) -> None:
    got = terms(output(predicted), truth)
    assert (got["type"], got["attribute"], got["value"]) == (0.0, 0.0, 0.0)
    # An unknown action type ("scroll") is not the paper's format either (strict rule).
    valid = predicted["type"] in ("click", "type_and_submit", "terminate")
    assert got["total"] == (0.5 if valid else 0.0) and got["type_match"] == 0.0


def test_invalid_json_scores_zero() -> None:
    for text in ['{"rationale": "I want it", "action": {"type": "click"', "", "click add to cart"]:
        got = terms(text, CLICK)
        assert got["total"] == 0.0 and got["has_rationale"] == 0.0


def test_extra_keys_are_ignored() -> None:
    text = json.dumps(
        {
            "rationale": "ok",
            "confidence": 0.9,
            "action": {"type": "click", "name": "add to cart", "x": [1, 2]},
        }
    )
    assert terms(text, CLICK)["total"] == pytest.approx(0.5 + 0.3 + 0.2 + 1000, abs=1e-9)


def test_rationale_only_and_action_only_outputs() -> None:
    rationale_only = terms(output(None, "I want shoes."), CLICK)
    assert rationale_only["total"] == 0.0 and rationale_only["has_rationale"] == 1.0
    action_only = terms(output({"type": "terminate"}, None), TERMINATE)
    assert (action_only["format"], action_only["total"]) == (0.0, 0.3)


def test_rationale_term_uses_log_probs_only_when_there_is_a_rationale() -> None:
    vocab = 4
    with np.errstate(divide="ignore"):
        one_hot = np.log(np.eye(vocab)[:3])
    s = math.log(vocab) / vocab
    text = output({"type": "terminate"})
    with_logprobs = shop_r1_reward(text, TERMINATE, one_hot)
    assert with_logprobs.self_certainty == pytest.approx(s)
    assert with_logprobs.rationale == pytest.approx(0.005 * s)
    assert with_logprobs.total == pytest.approx(0.8 + 0.005 * s)
    assert not with_logprobs.rationale_missing
    per_token = shop_r1_reward(text, TERMINATE, rationale_token_certainty=[s, s, s])
    assert per_token.rationale == pytest.approx(with_logprobs.rationale)
    without = shop_r1_reward(text, TERMINATE)
    assert without.rationale == 0.0 and without.rationale_missing
    no_rationale = shop_r1_reward(output({"type": "terminate"}, None), TERMINATE, one_hot)
    assert no_rationale.rationale == 0.0 and not no_rationale.rationale_missing
    kang = shop_r1_reward(text, TERMINATE, one_hot, ShopR1Config(self_certainty_kind="kang"))
    # KL(U||p) of a one-hot row over 4 tokens, its three zeros clamped at log p = -100.
    assert kang.rationale == pytest.approx(0.005 * (3 * 100 / 4 - math.log(4)), rel=1e-9)


def test_ablations_are_one_config_each() -> None:
    exact = output({"type": "click", "name": "add to cart"})
    near = output({"type": "click", "name": "add to cart now"})
    assert set(ABLATIONS) == {"full", "no-format", "no-rationale", "no-dars", "binary-action"}
    assert terms(exact, CLICK, ShopR1Config.ablation("full"))["total"] == pytest.approx(1001.0)
    assert terms(exact, CLICK, ShopR1Config.ablation("no-format"))["total"] == pytest.approx(1000.5)
    assert ShopR1Config.ablation("no-rationale").alpha == 0.0
    # No DARS: the click name's ROUGE-L gets weight 1.
    assert terms(exact, CLICK, ShopR1Config.ablation("no-dars"))["total"] == pytest.approx(2.0)
    binary = ShopR1Config.ablation("binary-action")
    assert terms(exact, CLICK, binary)["total"] == pytest.approx(1.5)
    assert terms(near, CLICK, binary)["total"] == pytest.approx(0.5)
    baseline = ShopR1Config.binary_baseline()
    assert terms(exact, CLICK, baseline)["total"] == 1.0
    assert terms(near, CLICK, baseline)["total"] == 0.0
    with pytest.raises(ValueError, match="no-such"):
        ShopR1Config.ablation(cast(Any, "no-such"))
    base = ShopR1Config(dars=10.0)
    assert ShopR1Config.ablation("no-format", base).dars == 10.0


def test_one_registry_names_every_reward_and_lists_them_when_a_name_is_unknown() -> None:
    assert set(ABLATIONS) < set(REWARDS) and {"binary", "kang"} <= set(REWARDS)
    with pytest.raises(ValueError) as refused:
        reward_config("no-dar")
    message = str(refused.value)
    assert "'no-dar'" in message and all(name in message for name in REWARDS)
    for name in REWARDS:  # every name is a valid config; the ablations are the same values
        config = reward_config(name)
        assert isinstance(config, ShopR1Config)
        if name in ABLATIONS:
            assert ShopR1Config.ablation(cast(Any, name)) == config
    assert reward_config("full") == ShopR1Config()
    assert reward_config("kang") == ShopR1Config(self_certainty_kind="kang")
    # The binary baseline is a config of the same reward, and BinaryMatchReward that wrapper.
    binary = reward_config("binary")
    assert binary == ShopR1Config.binary_baseline() == BINARY_MATCH_CONFIG
    assert issubclass(BinaryMatchReward, ShopR1Reward)
    # A name changes only the fields it names on its base: a weight set there carries over.
    base = ShopR1Config(dars=10.0, alpha=0.01)
    assert reward_config("no-format", base) == ShopR1Config(dars=10.0, alpha=0.01, format_weight=0)
    assert reward_config("no-dars", base).dars == 1.0
    exact = output({"type": "click", "name": "add to cart"})
    assert terms(exact, CLICK, reward_config("full", base))["total"] == pytest.approx(11.0)
    assert ShopR1Reward.summed_terms == RewardTerms.SUMMED  # the wrapper declares its terms


def test_config_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="alpha"):
        ShopR1Config(alpha=-1.0)
    with pytest.raises(ValueError, match="dars"):
        ShopR1Config(dars=math.inf)
    with pytest.raises(ValueError, match="rouge_threshold"):
        ShopR1Config(rouge_threshold=1.5)
    with pytest.raises(ValueError, match="self_certainty_kind"):
        ShopR1Config(self_certainty_kind=cast(Any, "entropy"))


def test_pure_pieces_and_the_bound() -> None:
    parsed = parse_output(output({"type": "click", "name": "add to cart"}))
    assert format_reward(parsed) == 0.5
    assert format_reward(parsed, ShopR1Config(format_weight=0.0)) == 0.0
    assert action_reward(parsed.action, CLICK) == pytest.approx(
        {"type": 0.3, "attribute": 1000.2, "value": 0.0}
    )
    assert action_reward(None, CLICK) == {"type": 0.0, "attribute": 0.0, "value": 0.0}
    config = ShopR1Config()
    assert config.max_action_reward() == pytest.approx(0.3 + 0.1 + 0.1 + 0.1 + 1000)
    assert config.max_reward() == pytest.approx(0.5 + 0.005 / math.e + 1000.6)


def test_truth_may_be_the_info_dict() -> None:
    truth = {"type": "click", "name": "add to cart", "text": ""}
    exact = output({"type": "click", "name": "add to cart"})
    assert shop_r1_reward(exact, truth).total == pytest.approx(1001.0)
    assert shop_r1_reward(exact, truth).to_info() == shop_r1_reward(exact, CLICK).to_info()
    with pytest.raises(ValueError, match="'type'"):
        shop_r1_reward(exact, {"name": "x"})


def test_summed_terms_are_the_info_terms_that_add_up_to_the_total() -> None:
    terms = shop_r1_reward(output({"type": "click", "name": "add to car"}), CLICK, [[0.0, 1.0]])
    info = terms.to_info()
    assert RewardTerms.SUMMED == ("format", "rationale", "type", "attribute", "value")
    assert sum(info[name] for name in RewardTerms.SUMMED) == pytest.approx(info["total"])
    assert info["total"] == terms.total > 0.8
