"""Shopping settings outside their meaning are refused where they enter, naming the value and the range.

Issue 24, item 9: ``data shop --start-time nan`` wrote NaN timestamps that the loader then
rejected; ``--products-per-category 100000000`` ran until killed; ``max_context_chars=-1`` meant
no limit and ``0`` an empty context.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import gymnasium as gym
import pytest

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.agents.llm.config import PromptConfig
from rewardgym.agents.simulation.config import ContextOptions
from rewardgym.cli import main
from rewardgym.envs import SHOP_SESSION_ID, SHOP_STORE_ID
from rewardgym.envs.shopping.context import build_context
from rewardgym.envs.shopping.synthetic import StoreConfig, SyntheticShopperConfig
from rewardgym.envs.shopping.synthetic.config import MAX_PRODUCTS_PER_CATEGORY


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_start_time_must_be_finite(value: float, tmp_path: Path) -> None:
    with pytest.raises(
        ValueError, match=r"SyntheticShopperConfig\.start_time=.*: must be a finite number"
    ):
        SyntheticShopperConfig(start_time=value)
    with pytest.raises((SystemExit, ValueError)):
        main(
            [
                "data",
                "shop",
                "--sessions",
                "2",
                "--start-time",
                str(value),
                "--out",
                str(tmp_path / "s"),
            ]
        )
    assert not (tmp_path / "s").exists()


def test_catalogue_size_is_bounded_and_refused_at_once() -> None:
    start = time.perf_counter()
    for make in (SyntheticShopperConfig, StoreConfig):
        with pytest.raises(
            ValueError, match=r"\.products_per_category=100000000: must be in \[1, 10000\]"
        ):
            make(products_per_category=100_000_000)
        with pytest.raises(ValueError, match=r"products_per_category <= 10,000 \(got 41 and 40\)"):
            make(results_per_page=41)
    assert time.perf_counter() - start < 1.0
    assert (
        StoreConfig(products_per_category=MAX_PRODUCTS_PER_CATEGORY).products_per_category == 10_000
    )


@pytest.mark.parametrize("field", ["free_shipping_over", "shipping_fee"])
def test_store_money_must_be_finite(field: str) -> None:
    with pytest.raises(ValueError, match="finite and >= 0"):
        StoreConfig(**{field: math.nan})


BAD_BUDGETS = [-1, 0, 1.5, True, "100"]


@pytest.mark.parametrize("value", BAD_BUDGETS)
@pytest.mark.parametrize("name", ["max_context_chars", "max_context_tokens"])
def test_context_budgets_are_positive_or_none(name: str, value: object) -> None:
    message = rf"{name}={value!r}: use a positive integer, or None for no limit"
    for env_id in (SHOP_SESSION_ID, SHOP_STORE_ID):
        with pytest.raises(ValueError, match=message):
            gym.make(env_id, **{name: value})
    with pytest.raises(ValueError, match=message):
        ContextOptions(**{name: value})  # type: ignore[arg-type]
    budget = {"max_chars" if name == "max_context_chars" else "max_tokens": value}
    with pytest.raises(ValueError, match=message):
        build_context([], "<html></html>", **budget)  # type: ignore[arg-type]
    if name == "max_context_chars":  # PromptConfig's declared range speaks first (rewardgym.bounds)
        with pytest.raises(ValueError, match=rf"{name}={value!r}: (must be|use a positive)"):
            PromptConfig(max_context_chars=value)  # type: ignore[arg-type]


def test_none_is_no_limit_and_one_is_the_smallest_budget() -> None:
    env = gym.make(SHOP_STORE_ID, max_context_chars=None, max_context_tokens=None)
    assert len(env.reset(options={"intent": 1})[0]["context"]) > 100
    env = gym.make(SHOP_STORE_ID, max_context_chars=1)
    assert len(env.reset(options={"intent": 1})[0]["context"]) == 1
