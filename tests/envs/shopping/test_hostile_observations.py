"""Hostile data and outputs: observations stay in their space, outputs are parsed once and fast."""

from __future__ import annotations

import json
import time
from pathlib import Path

import gymnasium as gym
import pytest

import rewardgym  # noqa: F401
from rewardgym.envs.shopping import env as env_module
from rewardgym.envs.shopping import parsing
from rewardgym.envs.shopping.schema import ShopAction, ShopSession, ShopStep
from rewardgym.envs.shopping.session_log import write_session_log
from rewardgym.wrappers import BinaryMatchReward, ShopR1Reward
from rewardgym.wrappers import shop_r1 as shop_r1_module

SMALL = '<html><body><a name="go">Go</a></body></html>'


@pytest.fixture(scope="module")
def huge_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One session whose two first pages together exceed the 2**26-character Text bound."""
    big = "<p>" + "x" * (34 << 20) + "</p>"
    steps = (
        ShopStep(big, ShopAction("click", "n" * 70_000), "first"),
        ShopStep(big, ShopAction("click", "go"), "second"),
        ShopStep(SMALL, ShopAction("terminate"), "done"),
    )
    path = tmp_path_factory.mktemp("huge") / "store"
    write_session_log([ShopSession("huge", steps)], path)
    return path


@pytest.mark.parametrize("context", ["session", "compact", "latest"])
def test_huge_pages_keep_observations_inside_the_space(huge_store: Path, context: str) -> None:
    # Issue 12 item 12: two 50 MB pages gave a context above the Text space's 2**26 limit.
    env = gym.make("rewardgym/ShopSession-v0", data=huge_store, split="all", context=context)
    obs, _ = env.reset(options={"session": 0})
    assert env.observation_space.contains(obs)
    while True:
        obs, _, terminated, _, _ = env.step("")
        assert env.observation_space.contains(obs), {k: len(str(v)) for k, v in obs.items()}
        if terminated:
            break


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = parsing.parse_output

    def counted(text: str) -> parsing.ParsedOutput:
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(env_module, "parse_output", counted)
    monkeypatch.setattr(shop_r1_module, "parse_output", counted)
    return calls


@pytest.mark.parametrize("wrapper", [ShopR1Reward, BinaryMatchReward])
def test_env_and_wrapper_parse_each_output_once(
    jsonl_sessions: Path, rewardgym_home: Path, monkeypatch: pytest.MonkeyPatch, wrapper: type
) -> None:
    # Issue 12 item 13: the env and the wrapper both parsed every output.
    calls = _counting(monkeypatch)
    env = wrapper(gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, split="all"))
    env.reset(options={"session": 0})
    env.step('{"rationale": "r", "action": {"type": "terminate"}}')
    assert len(calls) == 1


def test_a_valid_output_of_any_length_is_scored(jsonl_sessions: Path, rewardgym_home: Path) -> None:
    # Issue 12 item 13: a valid output over 20,000 characters scored 0 ("no JSON object found").
    env = ShopR1Reward(gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, split="all"))
    _, info = env.reset(options={"session": 0})
    truth = {"type": "type_and_submit", "name": "search_input", "text": "rain jacket"}
    for length in (25_000, 1_000_000):
        env.reset(options={"session": 0})
        text = json.dumps({"rationale": "I " + "really " * (length // 7), "action": truth})
        assert len(text) > 20_000
        _, reward, *_, info = env.step("Here it is: " + text)
        assert info["prediction"]["error"] is None and info["exact_match"]
        assert info["reward_terms"]["format"] == 0.5 and reward == pytest.approx(1001.1)


HOSTILE = {
    "braces": "{" * 1_000_000,
    "nested": '{"a":[' * 200_000,
    "unterminated": '{"rationale": "' + "y" * 1_000_000,
    "fences": "```" * 300_000,
    "many objects": '{"a": 1} ' * 100_000,
    "rationale keys": '"rationale": "' * 70_000,
    "quote braces": '{"' * 500_000,
}


def test_hostile_megabyte_outputs_cost_milliseconds(
    jsonl_sessions: Path, rewardgym_home: Path
) -> None:
    env = ShopR1Reward(gym.make("rewardgym/ShopSession-v0", data=jsonl_sessions, split="all"))
    worst = 0.0
    for text in HOSTILE.values():
        env.reset(options={"session": 0})
        start = time.process_time()  # CPU time: another job on the cores does not inflate it
        _, reward, *_ = env.step(text)
        worst = max(worst, time.process_time() - start)
        assert reward == 0.0
    assert worst < 0.3  # was 0.6-0.8 s per step; about 0.01 s now
