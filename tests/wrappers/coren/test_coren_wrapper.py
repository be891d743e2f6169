"""``CorenReward`` online: its doctest, the reward contract, and the same rewards as labelling."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import rewardgym  # noqa: F401  (registers the envs)
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.contract import check_reward_wrapper
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.wrappers.coren import CorenConfig, CorenReward, build_qa_bank
from rewardgym.wrappers.coren.labelling import LabelConfig, label_dataset
from rewardgym.wrappers.judges import EmbeddingJudge

ENV = "rewardgym/Household-v1"


def test_wrapper_passes_the_reward_wrapper_contract() -> None:
    embedder = hashing_embedder()
    env = CorenReward(
        gym.make(ENV),
        EmbeddingJudge(embedder),
        config=CorenConfig(qa_pairs=10),
    )
    check_reward_wrapper(env, [0, 9, 26, 13, 47, 3, 60 % 58])
    _, _, _, _, info = env.step(4)
    assert len(info["coren"]["votes"]) == 5 and len(info["coren"]["plan"]) == 5
    assert info["coren"]["weights"] is None  # no orchestrator: equal weights, none reported
    with pytest.raises(ValueError, match="not an integer action id"):
        env.step("3")


@pytest.mark.parametrize("ablation", ["CST", "average", "T"])
def test_online_rewards_equal_offline_labelling_on_a_recorded_trajectory(
    tmp_path: Path, ablation: str
) -> None:
    """One scoring function: a recorded episode replayed through the wrapper earns its labels."""
    embedder = hashing_embedder()
    source = collect_dataset(CollectConfig(episodes=12, seed=1, noise=0.5))
    source.save(tmp_path / "in", minari=False)
    bank = build_qa_bank(ENV, embedder, n_pairs=15, exclude_seeds=[ep.seed for ep in source])
    bank.to_jsonl(tmp_path / "qa.jsonl")
    config = CorenConfig(epochs=10, ablation=ablation, temporal_scope="prefix")
    label_dataset(
        tmp_path / "in",
        tmp_path / "out",
        LabelConfig(coren=config, qa=tmp_path / "qa.jsonl", minari=False),
        judge=EmbeddingJudge(embedder),
        progress=False,
    )
    labelled = TrajectoryDataset.from_dir(tmp_path / "out")
    orchestrator = tmp_path / "out" / "coren" / "orchestrator.pt"
    env = CorenReward(
        gym.make(ENV),
        EmbeddingJudge(embedder),
        orchestrator=orchestrator if orchestrator.exists() else None,
        config=config,
        qa=bank,
    )
    checked = 0
    for episode in labelled:
        env.reset(seed=episode.seed, options={"task": episode.task_id})
        online = []
        for action in episode.actions.tolist():
            _, reward, _, _, info = env.step(action)
            online.append(float(reward))
            if config.uses_orchestrator:
                assert set(info["coren"]["weights"]) == {"C", "S", "T"}
        expected = episode.rewards + episode.dense_rewards  # success + lambda * dense, lambda = 1
        assert np.allclose(online, expected, atol=1e-6), episode.episode_id
        checked += len(online)
    assert checked == labelled.n_steps
    assert len(np.unique(np.concatenate([ep.dense_rewards for ep in labelled]))) > 2  # not vacuous


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (61, "out of range"),
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
        gym.make(ENV),
        EmbeddingJudge(hashing_embedder()),
        config=CorenConfig(ablation="average", qa_pairs=8),
    )
    env.reset(seed=0)
    with pytest.raises(ValueError, match=words):
        env.step(action)
    _, _, _, _, info = env.step(np.int64(0))  # numpy integers are integers
    assert "reward_terms" in info
