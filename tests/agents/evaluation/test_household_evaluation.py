"""Evaluation in the simulator and the judge-as-policy baseline, on small hand-checked cases."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rewardgym.agents.evaluation.household import (
    EvalConfig,
    RandomPolicy,
    episode_starts,
    evaluate_household,
    measure_latency,
)
from rewardgym.agents.judge_policy import JudgePolicy
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.household import ACTION_NAMES, action_id
from rewardgym.wrappers.judges import EmbeddingJudge


class ScriptedPolicy:
    """Always the same action, so the metrics can be worked out by hand."""

    def __init__(self, action: int) -> None:
        """Repeat ``action``."""
        self.action = action

    def act_batch(self, observations: Any, instructions: Any) -> np.ndarray:
        """``action`` for every observation."""
        return np.full(len(observations), self.action)


def test_episode_starts_cover_tasks_and_instructions() -> None:
    """Each task contributes ``instructions_per_task`` episodes, the same ones every time."""
    config = EvalConfig(instructions_per_task=3, tasks=(0, 5))
    starts = episode_starts(config, "default", "abstract")
    assert [(s["task"], s["instruction"]) for s in starts] == [
        (t, i) for t in (0, 5) for i in range(3)
    ]
    assert starts == episode_starts(config, "default", "abstract")


def test_metrics_in_percent_for_a_scripted_policy() -> None:
    """Task 13 (sit on the sofa) starts with 'walk to living room' in its plan; repeating it scores Plan > 0."""
    config = EvalConfig(tasks=(13,), layouts=("default",), kinds=("fine-grained",), max_steps=5)
    walk = action_id("walk to living room")
    result = evaluate_household(ScriptedPolicy(walk), config)["fine-grained/default"]
    assert result["sr"] == 0.0 and result["n"] == 5.0
    assert result["steps"] == 5.0 and result["repeats"] == 100.0
    assert 0.0 <= result["plan"] <= 100.0


def test_random_policy_and_latency() -> None:
    """Random play rarely succeeds; latency reports the number of timed decisions."""
    result = evaluate_household(
        RandomPolicy(58), EvalConfig(instructions_per_task=1, layouts=("default",))
    )
    assert set(result) == {"fine-grained/default", "abstract/default"}
    assert result["fine-grained/default"]["sr"] <= 10.0
    latency = measure_latency(RandomPolicy(58), steps=10)
    assert latency["n"] == 10.0 and 0.0 <= latency["median_ms"] <= latency["p90_ms"]


def test_judge_policy_rates_every_action_under_every_prompt() -> None:
    """The judge-as-policy asks (actions x prompts) ratings per step and returns valid actions."""
    policy = JudgePolicy(EmbeddingJudge(hashing_embedder()), n_prompts=2)
    import gymnasium as gym

    env = gym.make("rewardgym/Household-v0")
    obs, info = env.reset(seed=0)
    votes = policy.votes(obs, info["instruction"])
    assert votes.shape == (len(ACTION_NAMES), 2)
    action = policy.act_batch([obs], [info["instruction"]])
    assert 0 <= int(action[0]) < len(ACTION_NAMES)
    assert policy.requests == 2 * len(ACTION_NAMES) * 2


def test_eval_config_rejects_training_split() -> None:
    """Evaluating on the training instructions is refused."""
    with pytest.raises(ValueError, match="kinds"):
        EvalConfig(kinds=("train",))
