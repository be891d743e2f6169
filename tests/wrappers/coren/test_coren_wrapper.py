"""``CorenReward`` online: its doctest, every term in ``info``, and a trained orchestrator."""

from __future__ import annotations

import doctest
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.agents.labelling.coren import label_dataset
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, collect_dataset
from rewardgym.wrappers.coren import CorenConfig, CorenReward
from rewardgym.wrappers.coren import wrapper as wrapper_module
from rewardgym.wrappers.judges import EmbeddingJudge


def test_wrapper_doctest() -> None:
    result = doctest.testmod(wrapper_module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_wrapper_applies_a_trained_orchestrator_online(tmp_path: Path) -> None:
    collect_dataset(CollectConfig(episodes=10, seed=1)).save(tmp_path / "in", minari=False)
    embedder = hashing_embedder()
    config = CorenConfig(epochs=10)
    label_dataset(
        tmp_path / "in",
        tmp_path / "out",
        EmbeddingJudge(embedder),
        config,
        progress=False,
        minari=False,
    )
    env = CorenReward(
        gym.make("rewardgym/Household-v1"),
        EmbeddingJudge(embedder),
        orchestrator=tmp_path / "out" / "coren" / "orchestrator.pt",
        config=config,
    )
    env.reset(seed=0)
    rewards = []
    for _ in range(6):
        action = env.unwrapped.expert_action()  # type: ignore[attr-defined]
        _, reward, terminated, truncated, info = env.step(action if action is not None else 0)
        terms = info["reward_terms"]
        assert set(terms["weights"]) == {"C", "S", "T"}
        assert np.isclose(sum(terms["weights"].values()), 1.0)
        expected = sum(
            terms["weights"][k] * terms[n]
            for k, n in zip("CST", ("contextual", "structural", "temporal"), strict=True)
        )
        assert np.isclose(float(reward), terms["env"] + expected, atol=1e-6)
        assert float(reward) == terms["total"]
        assert len(terms["votes"]) == 5
        rewards.append(float(reward))
        if terminated or truncated:
            break
    assert max(rewards) > 0.0  # the expert's actions earn a positive reward somewhere


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (58, "out of range"),
        (-1, "out of range"),
        (1.7, "not an integer"),
        ("3", "not an integer"),
        (True, "not an integer"),
        (np.float32(2.0), "not an integer"),
    ],
)
def test_wrapper_rejects_bad_actions_like_the_env(action: object, words: str) -> None:
    """Issue 12, item 15: no IndexError for 58, no silent coercion of 1.7, "3" or True."""
    env = CorenReward(
        gym.make("rewardgym/Household-v0"),
        EmbeddingJudge(hashing_embedder()),
        config=CorenConfig(ablation="average"),
    )
    env.reset(seed=0)
    with pytest.raises(ValueError, match=words):
        env.step(action)
    _, _, _, _, info = env.step(np.int64(0))  # numpy integers are integers
    assert "reward_terms" in info
