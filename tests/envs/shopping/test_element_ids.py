"""The ``element_ids`` option: ids in the context, ``"name": "[i]"`` resolved before scoring and reward."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

import rewardgym  # noqa: F401
from rewardgym.envs.shopping.compact import compact_page, page_elements
from rewardgym.envs.shopping.context import build_context
from rewardgym.envs.shopping.element_ids import resolve_ids, with_ids
from rewardgym.envs.shopping.parsing import format_output, parse_output
from rewardgym.envs.shopping.schema import ShopAction
from rewardgym.wrappers import ShopR1Reward

PAGE_RESULTS = (  # the results page of the shared sessions (conftest.py)
    '<html><body><input name="search_input"/><a name="product_1_title">Trail Jacket</a>'
    '<a name="product_2_title">City Coat</a></body></html>'
)
CLICK_2 = '{"rationale": "r", "action": {"type": "click", "name": "[2]"}}'


def test_compact_context_lists_every_element_with_its_id() -> None:
    page = (
        PAGE_RESULTS + '<script><a name="hidden"></a></script><a name="product_1_title">again</a>'
    )
    assert page_elements(page) == ("search_input", "product_1_title", "product_2_title")
    text = compact_page(page, ids=True)
    assert "[1] search_input" in text and "[2] product_1_title Trail Jacket" in text
    assert "[3] product_2_title City Coat" in text and "[2] product_1_title again" in text
    assert "hidden" not in text and "[product_1_title]" not in text
    assert compact_page(page) == compact_page(page, ids=False)  # off: the paper's format
    assert "[product_1_title] Trail Jacket" in compact_page(page)


def test_every_context_mode_lists_the_ids_and_the_tightest_budget_keeps_them() -> None:
    latest = build_context([], PAGE_RESULTS, mode="latest", element_ids=True)
    assert "### Elements\n[1] search_input [2] product_1_title [3] product_2_title\n" in latest
    assert "### Elements" not in build_context([], PAGE_RESULTS, mode="latest")
    tight = build_context([], PAGE_RESULTS, mode="compact", max_tokens=22, element_ids=True)
    assert "elements: [1] search_input [2] product_1_title [3] product_2_title" in tight


def test_resolution_is_pure_and_leaves_names_and_terminate_alone() -> None:
    elements = page_elements(PAGE_RESULTS)
    resolved = resolve_ids(parse_output(CLICK_2), elements)
    assert resolved.action == ShopAction("click", "product_1_title")
    assert resolved.source == CLICK_2 and resolved.error is None
    named = parse_output(
        '{"rationale": "r", "action": {"type": "click", "name": "product_2_title"}}'
    )
    assert resolve_ids(named, elements) is named
    stop = parse_output('{"rationale": "r", "action": {"type": "terminate"}}')
    assert resolve_ids(stop, elements) is stop
    for bad in ("[0]", "[4]", "[99999]"):
        out = resolve_ids(parse_output(CLICK_2.replace("[2]", bad)), elements)
        assert out.action is None and f"element id {bad}" in str(out.error)
    assert with_ids(ShopAction("click", "product_2_title"), elements).name == "[3]"
    assert with_ids(ShopAction("click", "not_on_page"), elements).name == "not_on_page"


def _env(jsonl: Path, ids: bool = True, wrapped: bool = False) -> gym.Env:
    env = gym.make(
        "rewardgym/ShopSession-v0", data=jsonl, split="all", context="compact", element_ids=ids
    )
    return ShopR1Reward(env) if wrapped else env


def _step_to(env: gym.Env, step: int) -> None:
    env.reset(options={"session": 1})
    for _ in range(step):
        env.step("")


@pytest.mark.parametrize("wrapped", [False, True], ids=["exact-match", "shop-r1"])
def test_an_id_scores_and_rewards_exactly_as_the_name(jsonl_sessions: Path, wrapped: bool) -> None:
    by_id, by_name = _env(jsonl_sessions, wrapped=wrapped), _env(jsonl_sessions, wrapped=wrapped)
    # Step 1 of session 1 is the results page: [2] is the human's product_1_title, [3] is not.
    for output_id, name in (("[2]", "product_1_title"), ("[3]", "product_2_title")):
        _step_to(by_id, 1)
        _step_to(by_name, 1)
        _, reward_id, *_, info_id = by_id.step(CLICK_2.replace("[2]", output_id))
        _, reward_name, *_, info_name = by_name.step(CLICK_2.replace("[2]", name))
        assert reward_id == reward_name
        assert info_id["exact_match"] == info_name["exact_match"] == (name == "product_1_title")
        assert info_id["prediction"] == info_name["prediction"]
        assert info_id["prediction"]["action"]["name"] == name
        assert info_id.get("reward_terms") == info_name.get("reward_terms")
        assert not wrapped or info_id["reward_terms"]["format"] == 0.5


def test_an_unknown_id_is_an_invalid_action_and_ids_off_take_it_literally(
    jsonl_sessions: Path,
) -> None:
    env = _env(jsonl_sessions, wrapped=True)
    _step_to(env, 1)
    _, reward, terminated, _, info = env.step(CLICK_2.replace("[2]", "[7]"))
    assert not terminated and info["exact_match"] is False
    assert info["prediction"]["action"] is None
    assert "element id [7] is not on the page" in info["prediction"]["error"]
    assert info["reward_terms"]["type"] == 0.0 and reward == info["reward_terms"]["total"]
    plain = _env(jsonl_sessions, ids=False)
    _step_to(plain, 1)
    *_, info = plain.step(CLICK_2)
    assert info["prediction"]["action"]["name"] == "[2]" and not info["exact_match"]
    assert "[1] search_input" not in plain.reset(options={"session": 1})[0]["context"]


def test_logged_sessions_round_trip_through_ids() -> None:
    """On the default corpus every logged action, written with ids, scores as the human's own."""
    env = gym.make("rewardgym/ShopSession-v0", context="compact", element_ids=True)
    steps = by_id = 0
    for session in range(4):
        obs, _ = env.reset(options={"session": session})
        while True:
            truth = env.unwrapped._current.action  # type: ignore[attr-defined]
            elements = page_elements(obs["page"])
            written = with_ids(truth, elements)
            if written.name != truth.name:
                by_id += 1
                assert f"{written.name} {truth.name}" in obs["context"]
            obs, reward, terminated, _, info = env.step(format_output("r", written))
            assert reward == 1.0 and info["prediction"]["action"] == truth.truth_dict()
            steps += 1
            if terminated:
                break
    assert by_id >= steps // 2  # most logged actions name an element of their page


def test_the_live_store_acts_on_a_resolved_id() -> None:
    env = gym.make("rewardgym/ShopStore-v0", context="compact", element_ids=True)
    obs, _ = env.reset(options={"intent": 4})
    for _ in range(3):
        truth = parse_output(env.unwrapped.truth_output()).action  # type: ignore[attr-defined]
        assert truth is not None and truth.type != "terminate"
        written = with_ids(truth, page_elements(obs["page"]))
        assert written.name.startswith("[") and written.name in obs["context"]
        obs, reward, _, _, info = env.step(format_output("r", written))
        assert reward == 1.0 and info["applied"]
        assert info["prediction"]["action"] == truth.truth_dict()
    *_, info = env.step(CLICK_2.replace("[2]", "[999]"))
    assert not info["applied"] and "element id [999]" in info["note"]
