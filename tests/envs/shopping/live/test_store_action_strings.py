"""Every action string gets the same treatment in every shopping env: scored or refused, never raised.

Issue 24, item 4: ``ShopSession-v0`` scored a ``type_and_submit`` whose text held a lone
surrogate (``"\\ud800"``), while ``ShopStore-v0`` and both reward wrappers over it raised a
``UnicodeEncodeError`` from URL quoting.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.envs import SHOP_SESSION_ID, SHOP_STORE_ID
from rewardgym.wrappers import BinaryMatchReward, ShopR1Reward

WRAPPERS: dict[str, Callable[[gym.Env], gym.Env]] = {
    "ShopStore-v0": lambda env: env,
    "ShopR1Reward(ShopStore-v0)": ShopR1Reward,
    "BinaryMatchReward(ShopStore-v0)": BinaryMatchReward,
}


def outputs(text: str) -> list[str]:
    """Policy outputs that carry ``text`` in every slot the parser reads, plus ``text`` itself."""

    def dump(action: dict[str, Any], ascii_only: bool = True) -> str:
        return json.dumps({"rationale": text, "action": action}, ensure_ascii=ascii_only)

    search = {"type": "type_and_submit", "name": "search_input", "text": text}
    return [
        text,
        dump(search),
        dump(search, ascii_only=False),
        dump({"type": "type_and_submit", "name": text, "text": text}),
        dump({"type": "click", "name": text}),
        dump({"type": "terminate"}, ascii_only=False),
    ]


def step_every_output(env: gym.Env, text: str) -> None:
    for output in outputs(text):
        env.reset(options={"intent": 3})
        _, reward, _, _, info = env.step(output)
        assert isinstance(reward, float) and math.isfinite(reward), (output, reward)
        if "applied" in info and not info["applied"]:
            assert info["note"], output  # a refusal says why


@pytest.mark.parametrize("name", list(WRAPPERS))
def test_a_lone_surrogate_is_scored_or_refused_never_raised(name: str) -> None:
    env = WRAPPERS[name](gym.make(SHOP_STORE_ID))
    step_every_output(env, "\ud800")
    step_every_output(env, "lamp \udfff under $40")
    env.reset(options={"intent": 3})
    _, _, _, _, info = env.step(
        json.dumps(
            {
                "rationale": "x",
                "action": {
                    "type": "type_and_submit",
                    "name": "search_input",
                    "text": "desk lamp\ud800",
                },
            }
        )
    )
    assert not info["applied"] and "surrogate" in info["note"]


@pytest.mark.parametrize("name", list(WRAPPERS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=40))
def test_arbitrary_text_is_scored_or_refused_in_the_store(name: str, text: str) -> None:
    step_every_output(WRAPPERS[name](gym.make(SHOP_STORE_ID)), text)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=40))
def test_the_replay_env_scores_the_same_strings(text: str) -> None:
    env = ShopR1Reward(gym.make(SHOP_SESSION_ID))
    for output in outputs(text):
        env.reset(seed=0)
        _, reward, _, _, _ = env.step(output)
        assert math.isfinite(float(reward))
