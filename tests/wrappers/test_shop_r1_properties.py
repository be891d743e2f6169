"""Property tests: Shop-R1's reward never raises, is finite and stays within the config's bounds."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers import ShopR1Config, shop_r1_reward
from rewardgym.wrappers.shop_r1 import ABLATIONS, RewardTerms

WORDS = ["add", "to", "cart", "Blue", "shoes", "size", "10", "search", "box", "!", "é", ""]
phrase = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)
action_type = st.sampled_from(["click", "type_and_submit", "terminate", "Click", "scroll", ""])
json_scalar = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_value = st.recursive(
    json_scalar,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
action_dict = st.fixed_dictionaries(
    {"type": action_type},
    optional={"name": phrase | json_value, "text": phrase | json_value, "extra": json_value},
)
output_obj = st.fixed_dictionaries(
    {},
    optional={
        "rationale": st.text(max_size=30) | json_value,
        "action": action_dict | json_value,
        "other": json_value,
    },
)
truth_action = st.builds(
    lambda kind, name, text: ShopAction(kind, name=name or "x", text=text),
    st.sampled_from(["click", "type_and_submit", "terminate"]),
    phrase,
    phrase,
)
configs = st.sampled_from([ShopR1Config.ablation(name) for name in ABLATIONS])
configs = (
    configs
    | st.just(ShopR1Config.binary_baseline())
    | st.just(ShopR1Config(self_certainty_kind="kang", rouge_threshold=0.0))
)


def check_bounds(result: RewardTerms, config: ShopR1Config) -> None:
    info = result.to_info()
    assert all(isinstance(v, float) and math.isfinite(v) for v in info.values()), info
    parts = ("format", "rationale", "type", "attribute", "value")
    assert all(info[k] >= 0 for k in parts), info
    assert info["total"] == sum(info[k] for k in parts)
    assert 0.0 <= info["total"] <= config.max_reward()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), truth_action, configs)
def test_random_strings(text: str, truth: ShopAction, config: ShopR1Config) -> None:
    check_bounds(shop_r1_reward(text, truth, config=config), config)


@settings(max_examples=400, deadline=None)
@given(output_obj, truth_action, configs, st.sampled_from(["", "Sure! ", "```json\n"]))
def test_random_json(
    obj: dict[str, Any], truth: ShopAction, config: ShopR1Config, prefix: str
) -> None:
    text = prefix + json.dumps(obj)
    check_bounds(shop_r1_reward(text, truth, config=config), config)


@settings(max_examples=150, deadline=None)
@given(
    st.text(max_size=30),
    truth_action,
    configs,
    st.integers(0, 5),
    st.integers(1, 40),
    st.integers(0, 2**32 - 1),
)
def test_random_log_probs(
    rationale: str, truth: ShopAction, config: ShopR1Config, n: int, vocab: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=rng.uniform(0.1, 30.0), size=(n, vocab))
    logits[rng.random(logits.shape) < 0.2] = -np.inf
    logits[:, 0] = 0.0  # at least one finite entry per row
    text = json.dumps({"rationale": rationale, "action": truth.to_dict()})
    result = shop_r1_reward(text, truth, logits, config)
    check_bounds(result, config)
    assert result.exact_match and result.format == config.format_weight


@settings(max_examples=200, deadline=None)
@given(truth_action)
def test_copying_the_human_earns_the_most_for_its_type(truth: ShopAction) -> None:
    config = ShopR1Config()
    text = json.dumps({"rationale": "r", "action": truth.to_dict()})
    result = shop_r1_reward(text, truth)
    assert result.exact_match and result.type == config.type_weight
    if truth.type == "click" and any(c.isalnum() and c.isascii() for c in truth.name):
        assert result.attribute == config.click_name_bonus + config.dars
    if truth.type == "terminate":
        assert result.attribute == result.value == 0.0
