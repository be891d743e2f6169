"""The compact context: what it keeps, the order it cuts in under a budget, and page compaction.

Issue 39, item 16: a token budget bounds the characters too; a page or a persona without spaces
counted as one word-count token, so 30M-character contexts passed ``max_context_tokens=200``.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

import rewardgym  # noqa: F401
from rewardgym.envs.shopping.compact import compact_page, page_change, page_names, page_title
from rewardgym.envs.shopping.context import (
    CONTEXT_MODES,
    KEEP_ACTIONS,
    MAX_CHARS_PER_TOKEN,
    approx_token_count,
    build_context,
)
from rewardgym.envs.shopping.loaders import _step_from_json
from rewardgym.envs.shopping.schema import ShopAction, ShopStep

PAGE = (
    '<html><body><header><input name="search_input" value="rain &amp; snow"/></header>'
    '<main><h1>Results for "jacket"</h1><script>var x = "<a name=hidden>";</script>'
    '<ul><li><a name="product_1_title">Trail Jacket</a> $49.99 4.5 stars</li>'
    "<li><a name='product_2_title'>City Coat</a> $89.99</li></ul>"
    '<button name="next_page">Next</button></main></body></html>'
)


def test_compact_page_keeps_names_labels_and_text_drops_markup() -> None:
    text = compact_page(PAGE)
    assert '[search_input value="rain & snow"]' in text
    assert "[product_1_title] Trail Jacket $49.99 4.5 stars" in text
    assert "[product_2_title] City Coat $89.99" in text
    assert "[next_page]" in text and "Next" not in text  # a label its name already says
    assert "<" not in text and "hidden" not in text
    assert page_names(PAGE) == ["search_input", "product_1_title", "product_2_title", "next_page"]
    assert page_title(PAGE) == 'Results for "jacket"'
    assert page_change(PAGE, PAGE).endswith("no new elements (+4 as before)")
    assert compact_page("<<<>>> <a name=") == "<<<>>> <a name="  # broken HTML never raises


@pytest.fixture
def steps(make_session) -> list:
    return [_step_from_json(s, "mem", "x") for s in make_session("s", n_clicks=6)["steps"]]


def test_compact_keeps_every_action_and_rationale_when_it_fits(steps: list) -> None:
    text = build_context(steps[:7], steps[7].page, mode="compact")
    for number, step in enumerate(steps[:7], start=1):
        assert f"Step {number} action:" in text and step.rationale in text
    assert "Step 8 (current) page:\n" in text and "[add_to_cart]" in text
    assert "<html>" not in text
    assert len(text) < len(build_context(steps[:7], steps[7].page, mode="session"))


def test_compact_cuts_in_the_documented_order(steps: list) -> None:
    history, page = steps[:7], steps[7].page
    full = approx_token_count(build_context(history, page, mode="compact"))
    seen = []
    for budget in range(full, 20, -4):
        text = build_context(history, page, mode="compact", max_tokens=budget)
        assert approx_token_count(text) <= budget
        seen.append(text)
        if "I need a rain jacket." not in text:
            break  # only the last resort (cutting the end) may lose the first rationale
        # Never cut: the first rationale, the last actions, the current page's element names.
        for number in range(8 - KEEP_ACTIONS, 8):
            assert f"Step {number} action:" in text
        assert "add_to_cart" in text.split("(current) page:")[1]
    # Page lines go before any rationale, and rationales before any action.
    first_no_pages = next(i for i, t in enumerate(seen) if "Step 2 page:" not in t)
    first_no_rationale = next(i for i, t in enumerate(seen) if "(0)." not in t)
    first_no_action = next(i for i, t in enumerate(seen) if "Step 1 action:" not in t)
    assert first_no_pages <= first_no_rationale <= first_no_action
    assert all("This one looks right (5)" in t for t in seen[:first_no_rationale])


def test_compact_is_an_env_option(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    env = gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, split="all", context="compact")
    obs, _ = env.reset(options={"session": 2})
    obs, *_ = env.step("x")
    assert "Step 1 rationale: I need a rain jacket." in obs["context"]
    assert "Step 2 (current) page:" in obs["context"] and env.observation_space.contains(obs)


@pytest.mark.parametrize("mode", CONTEXT_MODES)
def test_a_token_budget_caps_the_characters_of_text_without_spaces(mode: str) -> None:
    page = f"<html><body><p>{'x' * 1_000_000}</p><button name='buy'>Buy</button></body></html>"
    past = [ShopStep(page, ShopAction("click", "buy"), "I" * 100_000)]
    context = build_context(past, page, mode=mode, max_tokens=200, persona="p" * 1_000_000)
    assert len(context) <= 200 * MAX_CHARS_PER_TOKEN
    assert context.startswith("Shopper persona:\npppp")
    loose = build_context(past, page, mode=mode, max_tokens=10**6, persona="p" * 1_000_000)
    assert len(loose) > 10**6  # a budget that allows it keeps the text
