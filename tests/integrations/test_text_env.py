"""Every rewardgym id works as text: its observation is text, its info JSON, a text action steps it."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from rewardgym.envs import rewardgym_ids
from rewardgym.errors import BadAction
from rewardgym.integrations.text_env import (
    action_names,
    json_safe,
    make_text_env,
    observation_text,
    text_action,
)

TERMINATE = '{"rationale": "I am done.", "action": {"type": "terminate"}}'


@pytest.mark.parametrize("env_id", rewardgym_ids())
def test_every_env_steps_from_text(env_id: str) -> None:
    env = make_text_env(env_id)
    obs, info = env.reset(seed=0)
    assert observation_text(obs).strip()
    json.dumps(json_safe(info), allow_nan=False)
    discrete = isinstance(env.action_space, gym.spaces.Discrete)
    text = "0" if discrete else TERMINATE
    obs, *_, info = env.step(text_action(env, text))
    assert isinstance(observation_text(obs), str)
    json.dumps(json_safe(info), allow_nan=False)
    if discrete:
        names = action_names(env)
        assert text_action(env, f"  {names[-1].upper()} ") == len(names) - 1
        with pytest.raises(BadAction, match="out of range"):
            text_action(env, str(len(names)))
        with pytest.raises(BadAction, match="neither an index"):
            text_action(env, "dance")
    with pytest.raises(BadAction, match="not text"):
        text_action(env, 3)


@pytest.mark.parametrize("text", ["²", "①", "٣", "3²", "9" * 4400])
def test_an_index_is_ascii_digits_only(text: str) -> None:
    # str.isdigit() takes each of these; int() refuses the first two, reads '٣' as 3, and refuses
    # 4,300 digits or more: each is a clean refusal, never a ValueError of int().
    env = make_text_env("rewardgym/Household-v1")
    with pytest.raises(BadAction, match="out of range" if text[0] == "9" else "neither an index"):
        text_action(env, text)
    assert text_action(env, " 007 ") == 7
