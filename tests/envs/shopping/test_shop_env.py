"""``rewardgym/ShopSession-v0`` on small hand-written sessions: dynamics, reward, info, options."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

import rewardgym  # noqa: F401
from rewardgym.envs.shopping.context import OMITTED_PAGE
from rewardgym.envs.shopping.parsing import format_output
from rewardgym.envs.shopping.schema import ShopAction


def _answer(truth: dict) -> str:
    return format_output("because", ShopAction(truth["type"], truth["name"], truth["text"]))


def test_teacher_forcing_and_reward(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    env = gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, split="all")
    obs, info = env.reset(options={"session": 2})
    assert info["session_id"] == "s02" and info["step"] == 0 and info["n_steps"] == 6
    assert "## Step 1 (current)" in obs["context"] and obs["history"] == ()
    # A wrong (unparseable) answer still advances to the human's next step.
    obs, reward, terminated, truncated, info = env.step("I don't know")
    assert reward == 0.0 and not terminated and not truncated
    assert info["truth"] == {
        "type": "type_and_submit",
        "name": "search_input",
        "text": "rain jacket",
    }
    assert info["prediction"]["error"] == "no JSON object found"
    assert obs["history"][0]["name"] == "search_input" and "## Step 2 (current)" in obs["context"]
    assert "I need a rain jacket." in obs["context"]  # earlier rationales are in the context
    total, steps = 0.0, 1
    while True:
        _, reward, terminated, _, info = env.step(
            _answer(info_truth := env.unwrapped._current.action.truth_dict())
        )  # type: ignore[attr-defined]
        assert info["truth"] == info_truth and info["exact_match"]
        total += float(reward)
        steps += 1
        if terminated:
            break
    assert steps == 6 and total == 5.0
    with pytest.raises(gym.error.ResetNeeded):
        env.unwrapped.step("x")


def test_latest_context_and_budget(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    env = gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, split="all", context="latest")
    env.reset(options={"session": 0})
    obs, *_ = env.step("x")
    assert "## Step 1" not in obs["context"] and "## Step 2 (current)" in obs["context"]
    budget = gym.make(
        "rewardgym/ShopSession-v0", data=jsonl_sessions, split="all", max_context_chars=700
    )
    budget.reset(options={"session": 2})
    for _ in range(3):
        obs, *_ = budget.step("x")
    assert len(obs["context"]) <= 700 and OMITTED_PAGE in obs["context"]
    assert obs["context"].index(OMITTED_PAGE) < obs["context"].index("(current)")


def test_seeded_choice_and_bad_options(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    env = gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, split="train")
    ids = [env.reset(seed=s)[1]["session_id"] for s in range(5)]
    assert ids == [env.reset(seed=s)[1]["session_id"] for s in range(5)]
    with pytest.raises(ValueError, match="options\\['session'\\]"):
        env.reset(options={"session": 10_000})
    with pytest.raises(ValueError, match="context must be"):
        gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, context="page")


def test_any_string_is_accepted(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    env = gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, split="all")
    env.reset(seed=0)
    for text in ["", "{", json.dumps([1, 2]), "\x00\uffff", "{" * 10_000]:
        _, reward, *_ = env.step(text)
        assert reward == 0.0


def test_budget_drops_old_steps_before_current_page(make_session) -> None:
    from rewardgym.envs.shopping.context import build_context
    from rewardgym.envs.shopping.loaders import _step_from_json

    steps = [_step_from_json(s, "mem", "x") for s in make_session("s", n_clicks=4)["steps"]]
    full = build_context(steps[:5], steps[5].page)
    cut = build_context(steps[:5], steps[5].page, max_chars=len(steps[5].page) + 300)
    assert len(cut) < len(full) and steps[5].page in cut and "earlier steps omitted" in cut
    tokens = build_context(steps[:5], steps[5].page, max_tokens=40)
    assert len(tokens.split()) <= 40
