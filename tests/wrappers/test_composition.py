"""The one reward composition (success + lambda * dense) and potential-based shaping."""

from __future__ import annotations

import ast
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rewardgym
from rewardgym.envs.contract import check_reward_wrapper
from rewardgym.wrappers.composition import (
    COMPOSITION_KEY,
    RewardComposition,
    compose_rewards,
    potential_shaping,
    recorded_composition,
    with_dense_labels,
)
from rewardgym.wrappers.oracle import OracleProgressReward

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=20), st.floats(0, 10))
def test_composition_is_success_plus_scaled_dense(pairs: list, weight: float) -> None:
    success = np.array([p[0] for p in pairs])
    dense = np.array([p[1] for p in pairs])
    out = compose_rewards(success, dense, RewardComposition(dense_weight=weight))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, success + weight * dense, rtol=1e-5, atol=1e-4)


def test_zero_weight_keeps_the_success_flag_and_nan_votes_count_as_zero() -> None:
    success = np.array([0.0, 0.0, 1.0])
    assert compose_rewards(success, [3.0, -2.0, 1.0], RewardComposition(0.0)).tolist() == [
        0.0,
        0.0,
        1.0,
    ]
    assert compose_rewards(0.0, np.nan, RewardComposition(2.0)).tolist() == 0.0
    with pytest.raises(ValueError, match="dense_weight"):
        RewardComposition(dense_weight=-1.0)


@given(st.lists(finite, min_size=2, max_size=30), st.floats(0.5, 1.0))
def test_shaping_telescopes_to_the_potential_difference(phi: list, gamma: float) -> None:
    """sum_t gamma^t F_t = gamma^T phi_T - phi_0: why shaping cannot change the best policy."""
    shaped = potential_shaping(phi, gamma).astype(np.float64)
    discounts = gamma ** np.arange(len(shaped))
    expected = gamma ** len(shaped) * phi[-1] - phi[0]
    assert np.isclose(float(discounts @ shaped), expected, atol=1e-3)


def test_shaping_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError, match="gamma"):
        potential_shaping([0.0, 1.0], gamma=0.0)
    with pytest.raises(ValueError, match="1-D"):
        potential_shaping(np.zeros((2, 2)), gamma=0.9)


def test_oracle_wrapper_keeps_the_contract_and_records_its_arguments() -> None:
    env = OracleProgressReward(gym.make("rewardgym/Household-v1"), RewardComposition(0.5))
    check_reward_wrapper(env, list(range(0, 61, 3)) * 2)
    assert env.spec is not None
    assert env.spec.additional_wrappers[-1].kwargs["composition"] == RewardComposition(0.5)


def test_oracle_wrapper_pays_the_expert_and_charges_a_dead_end() -> None:
    env = OracleProgressReward(gym.make("rewardgym/Household-v1"))
    env.reset(seed=0, options={"task": "snack in front of the tv", "room": "kitchen"})
    script = env.unwrapped.expert_script()  # type: ignore[attr-defined]
    rewards = [float(env.step(a)[1]) for a in script]
    assert all(r > 0 for r in rewards) and rewards[-1] > 1.0
    env.reset(
        seed=0,
        options={
            "task": "snack in front of the tv",
            "room": "kitchen",
            "placements": {"apple": "kitchen counter"},
        },
    )
    for name in ("find apple", "grab apple", "find trash can"):
        env.step(env.unwrapped.action_names.index(name))  # type: ignore[attr-defined]
    _, reward, terminated, _, _ = env.step(
        env.unwrapped.action_names.index("put in trash can")  # type: ignore[attr-defined]
    )
    assert terminated and float(reward) < -1.0


def test_a_labelled_data_set_round_trips_its_composition(tmp_path: Path) -> None:
    from rewardgym.envs.trajectories import CollectConfig, TrajectoryDataset, collect_dataset

    data = collect_dataset(CollectConfig(episodes=2, seed=0))
    dense = [np.full(len(ep), 0.5) for ep in data]
    composition = RewardComposition(dense_weight=0.3, success_weight=0.0)
    labelled = with_dense_labels(data, dense, source="test", composition=composition)
    assert recorded_composition(data) is None
    labelled.save(tmp_path / "labelled", minari=False)
    again = TrajectoryDataset.from_dir(tmp_path / "labelled")
    assert recorded_composition(again) == composition
    assert again.info[COMPOSITION_KEY] == {"dense_weight": 0.3, "success_weight": 0.0}
    for bad in ({"dense_weight": "high"}, {"lambda": 1.0}, [1.0], {"dense_weight": -1.0}):
        again.info[COMPOSITION_KEY] = bad
        with pytest.raises(ValueError, match=r"info\['reward_composition'\].*label the data set"):
            recorded_composition(again)


def test_lambda_has_one_default_source() -> None:
    """Only RewardComposition writes lambda's default; other configs refer to it or leave it unset."""
    from rewardgym.agents.offline.config import OfflineConfig
    from rewardgym.agents.online.train import OnlineConfig
    from rewardgym.benchmarks.embodied.config import Tuned
    from rewardgym.wrappers.coren.label_config import LabelConfig

    assert OfflineConfig().dense_weight is None  # the data set's recorded lambda
    assert Tuned("cql", "coren").dense_weight is None  # an explicit override only
    assert OnlineConfig().dense_weight == RewardComposition().dense_weight
    assert LabelConfig().composition == RewardComposition()
    root = Path(rewardgym.__file__).resolve().parent
    owners = []
    for path in sorted(root.rglob("*.py")):
        if {"tests", ".venv", "build"} & set(path.relative_to(root).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                if (
                    isinstance(item, ast.AnnAssign)
                    and isinstance(item.target, ast.Name)
                    and item.target.id == "dense_weight"
                    and isinstance(item.value, ast.Constant)
                    and item.value.value is not None
                ):
                    owners.append(f"{path.relative_to(root)}:{node.name}")
    assert owners == ["wrappers/composition.py:RewardComposition"]
