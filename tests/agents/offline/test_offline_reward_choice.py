"""The reward an offline agent learns from is an explicit, recorded part of ``OfflineConfig``.

Issue 20, item 2: ``train_offline`` on a ``label coren`` output read ``ep.rewards`` alone, so it
trained on the success flag and silently ignored the dense column.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rewardgym.agents.offline import (
    CQLSettings,
    OfflineAgent,
    OfflineConfig,
    train_offline,
)
from rewardgym.agents.offline import agent as agent_module
from rewardgym.agents.offline.agent import training_config, training_rewards
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.minari_io import load_minari, minari_dense_rewards
from rewardgym.wrappers.composition import RewardComposition, compose_rewards
from rewardgym.wrappers.coren import CorenConfig
from rewardgym.wrappers.coren.labelling import LabelConfig, label_dataset
from rewardgym.wrappers.judges import EmbeddingJudge

TINY = OfflineConfig(algorithm=CQLSettings(), n_steps=2, batch_size=8, hidden_units=(8,))


@pytest.fixture(scope="module")
def sparse() -> TrajectoryDataset:
    return collect_dataset(CollectConfig(episodes=4, seed=1))


@pytest.fixture(scope="module")
def labelled(sparse: TrajectoryDataset, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real ``label coren`` output (embedding judge on hashed words, two prompts)."""
    root = tmp_path_factory.mktemp("reward-choice")
    sparse.save(root / "in", minari=False)
    label_dataset(
        root / "in",
        root / "out",
        LabelConfig(coren=CorenConfig(n_prompts=2, epochs=5, batch_size=64), minari=True),
        judge=EmbeddingJudge(hashing_embedder()),
        progress=False,
    )
    return root / "out"


def _fit_rewards(
    monkeypatch: pytest.MonkeyPatch, data: TrajectoryDataset, config: OfflineConfig
) -> tuple[OfflineAgent, list[np.ndarray]]:
    """Train with ``config`` and return the agent and the MDPDataset's per-episode rewards."""
    seen: dict[str, Any] = {}
    fit = agent_module.fit_mdp

    def spy(mdp: Any, *args: Any, **kwargs: Any) -> OfflineAgent:
        seen["mdp"] = mdp
        return fit(mdp, *args, **kwargs)

    monkeypatch.setattr(agent_module, "fit_mdp", spy)
    agent = train_offline(data, config, embedder=hashing_embedder(), progress=False)
    return agent, [np.asarray(ep.rewards).reshape(-1) for ep in seen["mdp"].episodes]


def _mdp_view(data: TrajectoryDataset, rewards: list[np.ndarray]) -> list[np.ndarray]:
    """``rewards`` as ``to_mdp_dataset`` lays them out (a truncated episode gains a reward 0)."""
    return [
        r if bool(ep.terminations[-1]) else np.append(r, 0.0).astype(np.float32)
        for ep, r in zip(data, rewards, strict=True)
    ]


def test_a_label_coren_output_trains_on_the_composed_reward_by_default(
    labelled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = TrajectoryDataset.from_dir(labelled)
    dense = np.concatenate([ep.dense_rewards for ep in data if ep.dense_rewards is not None])
    assert np.any(dense != 0.0), "the labelling gave no signal to compose"
    agent, seen = _fit_rewards(monkeypatch, data, TINY)
    assert agent.config.reward == "composed" and agent.config.dense_weight == 1.0
    expected = [compose_rewards(ep.rewards, ep.dense_rewards, RewardComposition()) for ep in data]
    for got, want in zip(seen, _mdp_view(data, expected), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    success_only = np.concatenate(_mdp_view(data, [ep.rewards for ep in data]))
    assert not np.allclose(np.concatenate(seen), success_only)
    agent.save(tmp_path / "agent")
    meta = json.loads((tmp_path / "agent" / "agent.json").read_text(encoding="utf-8"))
    assert (meta["config"]["reward"], meta["config"]["dense_weight"]) == ("composed", 1.0)
    again = OfflineAgent.load(tmp_path / "agent", embedder=hashing_embedder())
    assert again.config == agent.config


@pytest.mark.parametrize(
    ("reward", "weight", "composition"),
    [
        ("success", 0.3, RewardComposition(dense_weight=0.0)),
        ("dense", 0.5, RewardComposition(dense_weight=0.5, success_weight=0.0)),
        ("composed", 0.3, RewardComposition(dense_weight=0.3)),
    ],
)
def test_each_explicit_choice_trains_on_its_reward(
    labelled: Path,
    monkeypatch: pytest.MonkeyPatch,
    reward: str,
    weight: float,
    composition: RewardComposition,
) -> None:
    data = TrajectoryDataset.from_dir(labelled)
    config = TINY.replace(reward=reward, dense_weight=weight)
    agent, seen = _fit_rewards(monkeypatch, data, config)
    assert agent.config == config
    expected = [compose_rewards(ep.rewards, ep.dense_rewards, composition) for ep in data]
    for got, want in zip(seen, _mdp_view(data, expected), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_data_set_without_dense_rewards_trains_on_the_success_flag(
    sparse: TrajectoryDataset,
) -> None:
    assert training_config(sparse, TINY).reward == "success"
    for got, ep in zip(training_rewards(sparse, TINY), sparse, strict=True):
        np.testing.assert_array_equal(got, ep.rewards)
    for reward in ("dense", "composed"):
        with pytest.raises(ValueError, match=r"needs a dense reward per step.*label coren"):
            training_config(sparse, TINY.replace(reward=reward))


def test_an_ambiguous_data_set_needs_an_explicit_choice(labelled: Path) -> None:
    data = TrajectoryDataset.from_dir(labelled)
    composed = data.with_rewards(training_rewards(data, TINY), source="composed by hand")
    with pytest.raises(ValueError, match="count the dense reward twice"):
        training_config(composed, TINY)
    assert training_config(composed, TINY.replace(reward="success")).reward == "success"
    mixed = TrajectoryDataset(
        [data[0], *collect_dataset(CollectConfig(episodes=1, seed=5)).episodes],
        data.env_id,
        data.env_kwargs,
        data.action_names,
        data.schema,
        data.info,
    )
    with pytest.raises(ValueError, match=r"1 of 2 episodes .* have no dense reward"):
        training_config(mixed, TINY)


def test_the_reward_fields_are_checked_and_round_trip() -> None:
    with pytest.raises(ValueError, match=r"OfflineConfig.reward='sparse'"):
        OfflineConfig(reward="sparse")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"OfflineConfig.dense_weight=-1"):
        OfflineConfig(dense_weight=-1.0)
    config = OfflineConfig(reward="dense", dense_weight=0.25)
    assert OfflineConfig.from_dict(json.loads(json.dumps(config.as_dict()))) == config
    legacy = {k: v for k, v in config.as_dict().items() if k not in ("reward", "dense_weight")}
    assert OfflineConfig.from_dict(legacy).reward is None  # an agent saved before the field


def test_the_minari_copy_of_a_label_coren_output_carries_the_dense_reward(
    labelled: Path,
) -> None:
    data = TrajectoryDataset.from_dir(labelled)
    copy = load_minari(labelled)
    assert copy.storage.metadata["rewardgym_rewards"]["dense_reward"]["source"] == "coren:CST"
    for ours, theirs in zip(data, copy.iterate_episodes(), strict=True):
        np.testing.assert_array_equal(minari_dense_rewards(theirs), ours.dense_rewards)
        np.testing.assert_array_equal(theirs.rewards, ours.rewards)
