"""Household-v0 stays exactly as it was: a seeded rollout and the instruction texts are pinned."""

from __future__ import annotations

import hashlib

import gymnasium as gym
import numpy as np

import rewardgym  # noqa: F401
from rewardgym.envs.household import INSTRUCTIONS


def test_a_seeded_v0_rollout_reproduces_its_recorded_digest() -> None:
    """200 steps mixing the expert and random actions hash to the value recorded before v1."""
    env = gym.make("rewardgym/Household-v0")
    digest = hashlib.sha256()
    env.reset(seed=123)
    env.action_space.seed(123)
    total, successes = 0.0, 0
    for t in range(200):
        action = env.unwrapped.expert_action() if t % 3 else int(env.action_space.sample())
        if action is None:
            action = int(env.action_space.sample())
        obs, reward, terminated, truncated, info = env.step(action)
        digest.update(obs["text"].encode())
        digest.update(np.asarray(obs["completed"]).tobytes())
        total += float(reward)
        if terminated or truncated:
            successes += info["success"]
            env.reset()
    assert (total, successes) == (21.0, 21)
    assert digest.hexdigest() == "9f5e1a7ee139db261a2b4414a7a73eae5f554a3525efdfc42d771f872fc43891"


def test_v0_instruction_texts_are_unchanged() -> None:
    """The 375 instructions hash to the value recorded before v1's shared clause builder."""
    text = "\n".join(f"{i.id}|{i.task_id}|{i.kind}|{i.text}" for i in INSTRUCTIONS)
    assert (
        hashlib.sha256(text.encode()).hexdigest()
        == "b8bc7232ba5a72279653ca359f2d1ad1238e6e0e1ad4f89e3b582041237ef7db"
    )
