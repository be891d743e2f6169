"""A learned improvement: offline agents trained on expert-heavy data beat random play."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rewardgym.agents.evaluation.household import EvalConfig, RandomPolicy, evaluate_household
from rewardgym.agents.offline import (
    IQLSettings,
    OfflineAgent,
    OfflineConfig,
    algorithm_settings,
    train_offline,
)
from rewardgym.embeddings import hashing_embedder
from rewardgym.envs.trajectories import CollectConfig, collect_dataset

TASKS = (3, 13, 14)  # Household-v0: turn on the TV, relax on the sofa, go to bed
V0 = "rewardgym/Household-v0"


@pytest.fixture(scope="module")
def data():  # type: ignore[no-untyped-def]
    """90 lightly perturbed (replanning) expert trajectories on three short v0 tasks."""
    config = CollectConfig(
        env=V0,
        episodes=90,
        noise=0.3,
        expert="replan",
        sibling_fraction=0.0,
        env_kwargs={"tasks": list(TASKS)},
    )
    return collect_dataset(config)


@pytest.mark.parametrize("algorithm", ["iql", "cql", "bc"])
def test_agent_beats_random_on_held_out_instructions(data, algorithm: str) -> None:  # type: ignore[no-untyped-def]
    """Each algorithm reaches a held-out SR far above random (which scores 0 here)."""
    settings = algorithm_settings(algorithm, **({"alpha": 4.0} if algorithm == "cql" else {}))
    config = OfflineConfig(
        algorithm=settings, n_steps=300, batch_size=32, learning_rate=1e-3, hidden_units=(64,)
    )
    agent = train_offline(data, config, embedder=hashing_embedder(), progress=False)
    evaluation = EvalConfig(env_id=V0, tasks=TASKS, splits=("fine",), max_steps=20)
    random_sr = evaluate_household(RandomPolicy(58), evaluation)["fine"].percent()["sr"]
    agent_sr = evaluate_household(agent, evaluation)["fine"].percent()["sr"]
    assert random_sr <= 10.0
    assert agent_sr >= 50.0, f"{agent.name} reached only {agent_sr:.0f}% SR"


def test_agent_save_load_acts_the_same(data, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """An ``OfflineAgent`` written to a directory acts identically after ``load``."""
    embedder = hashing_embedder()
    agent = train_offline(
        data,
        OfflineConfig(algorithm=IQLSettings(), n_steps=20, hidden_units=(16,)),
        embedder,
        False,
    )
    agent.save(tmp_path / "agent")
    loaded = OfflineAgent.load(tmp_path / "agent", embedder=embedder)
    episode = data[0]
    observations = [episode.observation(t) for t in range(len(episode) + 1)]
    instructions = [episode.instruction] * len(observations)
    np.testing.assert_array_equal(
        loaded.act_batch(observations, instructions), agent.act_batch(observations, instructions)
    )
    assert loaded.config == agent.config
