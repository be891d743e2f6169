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
from rewardgym.envs.household.v1 import ACTION_NAMES, HouseholdV1Env, action_id
from rewardgym.wrappers.judges import EmbeddingJudge


class ScriptedPolicy:
    """Always the same action, so the metrics can be worked out by hand."""

    def __init__(self, action: int) -> None:
        """Repeat ``action``."""
        self.action = action

    def act_batch(self, observations: Any, instructions: Any) -> np.ndarray:
        """``action`` for every observation."""
        return np.full(len(observations), self.action)


def test_episode_starts_cover_tasks_instructions_and_repeats() -> None:
    """Each task contributes instructions x repeats episodes, the same ones every time."""
    config = EvalConfig(instructions_per_task=3, episodes_per_instruction=2, tasks=(0, 5))
    starts = episode_starts(config, "abstract")
    assert [(o["task"], o["instruction"]) for _, o in starts] == [
        (t, i) for t in (0, 5) for i in range(3) for _ in range(2)
    ]
    assert starts == episode_starts(config, "abstract")
    assert len({seed for seed, _ in starts}) == len(starts)
    assert episode_starts(config, "validation") != starts


def test_metrics_in_percent_for_a_scripted_policy() -> None:
    """Repeating one action never succeeds, and the traces show the repetition."""
    config = EvalConfig(tasks=(13,), splits=("fine",), max_steps=5)
    result = evaluate_household(ScriptedPolicy(action_id("walk to bedroom")), config)["fine"]
    summary = result.percent()
    assert summary["sr"] == 0.0 and summary["n"] == 5.0
    assert summary["steps"] == 5.0 and summary["repeats"] == 100.0
    assert result.episodes()["success"] == [0.0] * 5 and result.tasks == [13] * 5


class Lockstep:
    """Plays a fixed action list per episode, in the order the evaluation started them."""

    def __init__(self, scripts: list[list[int]]) -> None:
        """Replay ``scripts``; an episode leaves the batch when its script (and goal) ends."""
        self.scripts = [list(s) for s in scripts]

    def act_batch(self, observations: Any, instructions: Any) -> np.ndarray:
        """The next action of every episode still running."""
        alive = [i for i, s in enumerate(self.scripts) if s]
        assert len(alive) == len(observations)
        return np.array([self.scripts[i].pop(0) for i in alive])


@pytest.mark.parametrize("split", ["fine", "shifted-abstract", "validation"])
def test_the_expert_script_scores_full_marks(split: str) -> None:
    """Replaying each episode's reference plan gives SR = CGC = Plan = 100."""
    config = EvalConfig(tasks=(0, 7, 21), instructions_per_task=2, splits=(split,))
    scripts = []
    for seed, options in episode_starts(config, split):
        env = HouseholdV1Env(layout="shifted" if split.startswith("shifted") else "default")
        env.reset(seed=seed, options=options)
        scripts.append(env.expert_script())
    summary = evaluate_household(Lockstep(scripts), config)[split].percent()
    assert (summary["sr"], summary["cgc"], summary["plan"]) == (100.0, 100.0, 100.0)


def test_random_policy_and_latency() -> None:
    """Random play does not succeed on Household-v1; latency counts the timed decisions."""
    result = evaluate_household(RandomPolicy(61), EvalConfig(instructions_per_task=1))
    assert set(result) == {"fine", "abstract", "shifted-fine", "shifted-abstract"}
    assert result["fine"].percent()["sr"] <= 4.0
    latency = measure_latency(RandomPolicy(61), steps=10)
    assert latency["n"] == 10.0 and 0.0 <= latency["median_ms"] <= latency["p90_ms"]


def test_judge_policy_rates_every_action_under_every_prompt() -> None:
    """The judge-as-policy asks (actions x prompts) ratings per step and returns valid actions."""
    policy = JudgePolicy(
        EmbeddingJudge(hashing_embedder()),
        n_prompts=2,
        env_id="rewardgym/Household-v1",
        action_names=ACTION_NAMES,
    )
    env = HouseholdV1Env()
    obs, info = env.reset(seed=0)
    votes = policy.votes(obs, info["instruction"])
    assert votes.shape == (len(ACTION_NAMES), 2)
    action = policy.act_batch([obs], [info["instruction"]])
    assert 0 <= int(action[0]) < len(ACTION_NAMES)
    assert policy.requests == 2 * len(ACTION_NAMES) * 2


def test_eval_config_rejects_unknown_splits() -> None:
    """A split the suite does not have is refused by name."""
    with pytest.raises(ValueError, match="splits"):
        EvalConfig(splits=("train",))
