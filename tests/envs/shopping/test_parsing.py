"""Extraction of the rationale/action JSON object from raw LLM output."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from rewardgym.envs.shopping.parsing import extract_json_object, format_output, parse_output
from rewardgym.envs.shopping.schema import ShopAction

GOOD = '{"rationale": "I want it.", "action": {"type": "click", "name": "buy_now"}}'


def test_plain_object() -> None:
    parsed = parse_output(GOOD)
    assert parsed.has_format and parsed.error is None
    assert parsed.action == ShopAction("click", "buy_now")
    assert parsed.rationale == "I want it."


def test_code_fence_and_prose() -> None:
    text = f"Sure! Here is my answer:\n```json\n{GOOD}\n```\nHope it helps."
    assert parse_output(text).action == ShopAction("click", "buy_now")
    assert parse_output(f"Thinking... {GOOD} trailing words").action == ShopAction(
        "click", "buy_now"
    )


def test_prefers_object_with_action() -> None:
    text = '{"note": 1} then ' + GOOD
    assert extract_json_object(text) == json.loads(GOOD)


def test_failures_carry_reasons() -> None:
    assert parse_output("no json here").error == "no JSON object found"
    assert parse_output("[1, 2]").error == "no JSON object found"
    missing = parse_output('{"rationale": "only"}')
    assert missing.action is None and not missing.has_format and "action" in (missing.error or "")
    bad = parse_output('{"rationale": "r", "action": {"type": "fly"}}')
    assert bad.has_format and bad.action is None and "fly" in (bad.error or "")


def test_lenient_fields() -> None:
    parsed = parse_output('{"rationale": 3, "action": {"type": "TYPE_AND_SUBMIT", "name": 5}}')
    assert parsed.action == ShopAction("type_and_submit", "", "")
    assert parsed.rationale is None and parsed.has_format


def test_format_output_round_trip() -> None:
    action = ShopAction("type_and_submit", "search_input", "red shoes")
    parsed = parse_output(format_output("Looking for shoes.", action))
    assert parsed.action == action and parsed.rationale == "Looking for shoes."


def test_action_first_output_puts_the_action_first_and_parses_the_same() -> None:
    from rewardgym.wrappers.policy_output import rationale_char_span

    action = ShopAction("click", "add_to_cart_button")
    first = format_output("I want it.", action, action_first=True)
    assert (
        first
        == '{"action": {"type": "click", "name": "add_to_cart_button"}, "rationale": "I want it."}'
    )
    paper, parsed = parse_output(format_output("I want it.", action)), parse_output(first)
    assert (
        (parsed.action, parsed.rationale)
        == (paper.action, paper.rationale)
        == (action, "I want it.")
    )
    assert parsed.has_valid_format
    start, end = rationale_char_span(first, parsed) or (0, 0)
    assert first[start:end] == "I want it."  # the self-certainty term reads the same rationale


@given(st.text(max_size=300))
def test_never_raises(text: str) -> None:
    parsed = parse_output(text)
    assert (parsed.action is None) == (parsed.error is not None) or parsed.action is not None
