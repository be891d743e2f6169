"""One canonical form of names and texts: exact match and the reward's ROUGE-L agree on it."""

from __future__ import annotations

import json

import pytest

from rewardgym.envs.shopping.canonical import (
    canonical_text,
    canonical_tokens,
    same_text,
    similar_text,
    token_rouge_l,
)
from rewardgym.envs.shopping.schema import ShopAction, actions_match
from rewardgym.wrappers.shop_r1 import shop_r1_reward


@pytest.mark.parametrize(
    ("variant", "truth"),
    [
        ("PRODUCT-3-TITLE", "product_3_title"),
        ("Product 3 Title", "product_3_title"),
        ("  product_3_title\n", "product_3_title"),
        ("product__3__title!", "product_3_title"),
        ("Red  Shoes!", "red shoes"),
        ("red\tshoes", "red shoes"),
        ("RED, SHOES.", "red shoes"),
    ],
)
def test_case_punctuation_and_whitespace_variants_are_the_same(variant: str, truth: str) -> None:
    assert same_text(variant, truth) and canonical_text(variant) == canonical_text(truth)
    assert token_rouge_l(variant, truth) == 1.0


@pytest.mark.parametrize(
    ("a", "b"),
    [("product_3_title", "product_4_title"), ("red shoes", "red shoe"), ("日本", "中国")],
)
def test_different_names_stay_different(a: str, b: str) -> None:
    assert not same_text(a, b)


def test_values_without_tokens_match_only_themselves() -> None:
    assert canonical_tokens("---") == () and same_text("---", " --- ")
    assert not same_text("---", "") and not same_text("!!!", "???")


def test_metric_and_reward_agree_on_every_variant() -> None:
    truth = ShopAction("click", "product_3_title")
    for variant in ("PRODUCT-3-TITLE", "Product 3 Title", "product.3.title"):
        output = json.dumps({"rationale": "r", "action": {"type": "click", "name": variant}})
        terms = shop_r1_reward(output, truth)
        assert actions_match(ShopAction("click", variant), truth)
        assert terms.exact_match and terms.total == pytest.approx(1001.0)
    near = json.dumps({"rationale": "r", "action": {"type": "click", "name": "product 3"}})
    assert not shop_r1_reward(near, truth).exact_match


def test_similar_text_is_rouge_at_the_reward_threshold() -> None:
    assert similar_text("waterproof hiking boots women", "women waterproof hiking boots")
    assert similar_text("red running shoes", "red running shoes size 10")  # F = 0.75
    assert not similar_text("red shoes", "red running shoes size 10")
    assert similar_text("buy red running shoes", "buy blue running shoes")
    assert not similar_text("jacket", "rain jacket women")
