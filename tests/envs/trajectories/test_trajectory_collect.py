"""COREN-faithful collection: seeded, sparse, train instructions only, scripts and siblings."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.envs.household.v1 import INSTRUCTIONS, TASKS, HouseholdV1Env
from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset


def test_collection_repeats_under_a_seed(small_dataset: TrajectoryDataset) -> None:
    again = collect_dataset(CollectConfig(episodes=10, seed=0))
    for a, b in zip(again, small_dataset, strict=False):
        assert (
            np.array_equal(a.actions, b.actions)
            and a.observations["text"] == b.observations["text"]
        )
    other = collect_dataset(CollectConfig(episodes=10, seed=1))
    assert any(not np.array_equal(a.actions, b.actions) for a, b in zip(again, other, strict=True))


def test_default_data_mixes_outcomes_and_sibling_demonstrations() -> None:
    data = collect_dataset(CollectConfig(episodes=500, seed=3))
    siblings = [ep for ep in data if ep.extras["sibling"]]
    own = [ep for ep in data if not ep.extras["sibling"]]
    print(f"success rate of 500 default episodes: {data.success_rate:.3f}")
    assert 0.05 <= data.success_rate <= 0.25
    assert 0.4 <= len(siblings) / len(data) <= 0.6
    assert not any(ep.success for ep in siblings)
    for ep in siblings[:20]:
        assert ep.extras["demonstrated_task"] == TASKS[ep.task_id].sibling
    assert any(not ep.expert.all() for ep in own) and any(ep.success for ep in own)


def test_the_script_is_never_replanned() -> None:
    """After a perturbation the expert carries on with its script, right or wrong."""
    config = CollectConfig(episodes=40, seed=2, sibling_fraction=0.0)
    env = HouseholdV1Env()
    for ep in collect_dataset(config):
        env.reset(seed=ep.seed, options=ep.extras["reset_options"])
        script = env.expert_script()
        assert [int(a) for a, e in zip(ep.actions, ep.expert, strict=True) if e] == script[
            : int(ep.expert.sum())
        ]


def test_clean_scripts_always_succeed_and_replanning_recovers() -> None:
    clean = collect_dataset(CollectConfig(episodes=25, noise=0.0, sibling_fraction=0.0))
    assert clean.success_rate == 1.0 and all(ep.expert.all() for ep in clean)
    scripted = collect_dataset(CollectConfig(episodes=50, noise=0.3, sibling_fraction=0.0))
    replanned = collect_dataset(
        CollectConfig(episodes=50, noise=0.3, expert="replan", sibling_fraction=0.0)
    )
    assert replanned.success_rate > scripted.success_rate


def test_only_the_success_flag_is_recorded(small_dataset: TrajectoryDataset) -> None:
    for ep in small_dataset:
        assert ep.rewards.sum() == float(ep.success)
        assert ep.rewards[:-1].sum() == 0.0
        assert ep.terminations[-1] != ep.truncations[-1]
        assert not ep.terminations[:-1].any() and not ep.truncations[:-1].any()
        assert len(ep.observations["text"]) == len(ep) + 1
        assert ep.dense_rewards is None


def test_training_data_never_holds_held_out_instructions(small_dataset: TrajectoryDataset) -> None:
    train = {i.text for i in INSTRUCTIONS if i.kind == "train"}
    assert {ep.instruction for ep in small_dataset} <= train
    assert all(ep.instruction_kind == "train" for ep in small_dataset)
    assert [ep.task_id for ep in small_dataset[:25]] == list(range(25))  # tasks dealt in turn
    with pytest.raises(ValueError, match="held-out"):
        CollectConfig(env_kwargs={"instructions": "abstract"})


def test_babyai_levels_collect_with_the_replanning_bot() -> None:
    config = CollectConfig(
        env="rewardgym/BabyAI-GoToLocal-Text-v0",
        episodes=3,
        noise=0.2,
        expert="replan",
        sibling_fraction=0.0,
    )
    data = collect_dataset(config)
    assert data.action_names[0] == "left"
    ep = data[0]
    assert ep.observations["image"].shape == (len(ep) + 1, 7, 7, 3)
    assert ep.instruction.startswith("go to")
    with pytest.raises(ValueError, match="replan"):  # BabyAI has no script to follow
        CollectConfig(env="rewardgym/BabyAI-GoToLocal-Text-v0", expert="script")


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="noise"):
        CollectConfig(noise=1.5)
    with pytest.raises(ValueError, match="random_actions"):
        CollectConfig(random_actions="sometimes")
    with pytest.raises(ValueError, match="sibling_fraction"):
        CollectConfig(expert="replan", sibling_fraction=0.5)
    with pytest.raises(ValueError, match="expert"):
        CollectConfig(expert="oracle")
