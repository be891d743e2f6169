"""The perfect judge: COREN's -2..+2 rubric from the simulator, on hand-made states and facts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rewardgym.agents.offline.agent import training_rewards
from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.envs.household.v1 import HouseholdV1Env, action_id
from rewardgym.envs.household.v1.task_progress import ProgressTracker, StepFacts, searcher_plan
from rewardgym.envs.trajectories import TrajectoryDataset, collect_dataset
from rewardgym.envs.trajectories.variants import variant_config
from rewardgym.wrappers.composition import RewardComposition, compose_rewards
from rewardgym.wrappers.perfect_judge import (
    PERFECT_JUDGE_SOURCE,
    perfect_judge_rating,
    perfect_judge_rewards,
)


def _facts(**changes: object) -> StepFacts:
    base = {
        "executable": True,
        "on_plan": False,
        "distance_before": 10,
        "distance_after": 10,
        "goal_gain": 0,
        "irreversible": False,
        "dead_end": False,
        "touches_goal": False,
        "searching": False,
        "best_before": 10,
        "repeated": False,
    }
    return StepFacts(**{**base, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "rating"),
    [
        ({"on_plan": True, "distance_after": 9}, 2),
        ({"distance_after": 8}, 2),  # closer than ever, though off the script
        ({"goal_gain": 1, "distance_after": 9}, 2),
        ({"distance_before": 12, "distance_after": 11}, 0),  # the way back from a detour
        ({"on_plan": True, "distance_before": 12, "distance_after": 11}, 0),
        ({"touches_goal": True}, 1),  # no change, on an object the goal needs
        ({"touches_goal": True, "repeated": True}, 0),  # ... but only the first time
        ({}, 0),  # no change, nothing relevant: neutral
        ({"searching": True}, -1),  # looking at something the goal does not need
        ({"distance_after": 11}, -1),  # a detour
        ({"goal_gain": -1, "touches_goal": True}, -1),  # undoing a met predicate
        ({"executable": False, "touches_goal": True}, -2),
        ({"dead_end": True, "distance_after": None}, -2),
        ({"irreversible": True, "touches_goal": True}, -2),  # a wasted appliance cycle
        ({"irreversible": True, "goal_gain": 1, "distance_after": 9}, 2),  # the loaded microwave
    ],
)
def test_each_rubric_level_comes_from_its_facts(changes: dict[str, object], rating: int) -> None:
    assert perfect_judge_rating(_facts(**changes)) == rating


def _warm_milk() -> HouseholdV1Env:
    env = HouseholdV1Env()
    env.reset(
        seed=0,
        options={
            "task": "warm the milk",
            "room": "kitchen",
            "placements": {"milk": "fridge", "plate": "kitchen table", "apple": "fridge"},
        },
    )
    return env


def _rate(tracker: ProgressTracker, name: str) -> int:
    return perfect_judge_rating(tracker.step(action_id(name)))


def test_hand_made_states_get_the_rubric_a_person_would_give() -> None:
    env = _warm_milk()
    tracker = ProgressTracker(env)
    plan = searcher_plan(env)
    assert plan and tracker.plan == plan
    assert _rate(tracker, env.action_names[plan[0]]) == 2  # the next step of the plan
    assert _rate(tracker, "grab book") == -2  # not executable: the book is not in view
    assert _rate(tracker, "walk to bathroom") == -1  # nothing the task needs is there
    assert _rate(tracker, "walk to kitchen") == 0  # the way back is not paid for
    tracker = ProgressTracker(_warm_milk())
    assert _rate(tracker, "find microwave") >= 1  # where the milk must go
    assert _rate(tracker, "switch on microwave") == -2  # empty: the only cycle is wasted
    assert tracker.env.failure  # and the goal is now out of reach


def test_the_searchers_own_episode_is_rated_plus_two_throughout() -> None:
    tracker = ProgressTracker(_warm_milk())
    ratings = []
    while tracker.plan:  # [] once the goal holds
        ratings.append(perfect_judge_rating(tracker.step(tracker.plan[0])))
    assert all(tracker.env.task.goal_flags(tracker.env.world))
    assert ratings and set(ratings) == {2}


def test_no_cycle_of_steps_earns_more_than_zero() -> None:
    """Going back and forth between rooms, or looking at goal objects again and again, never pays."""
    tracker = ProgressTracker(_warm_milk())
    tracker.step(action_id("find fridge"))  # first time: may be progress or supportive
    laps = [
        _rate(tracker, name)
        for _ in range(3)
        for name in ("walk to bathroom", "walk to kitchen", "find microwave", "find fridge")
    ]
    assert sum(laps[4:]) <= 0  # after the first lap, nothing new: the loop costs


def test_labelled_data_compose_with_the_success_flag_like_the_coren_rows() -> None:
    data = collect_dataset(variant_config("stitch", episodes=12, seed=1))
    dense = perfect_judge_rewards(data)
    assert [len(d) for d in dense] == [len(ep) for ep in data]
    values = np.concatenate(dense)
    assert set(np.unique(values).tolist()) <= {-2.0, -1.0, 0.0, 1.0, 2.0}
    for ep, d in zip(data, dense, strict=True):
        assert np.all(d[~ep.executable] == -2.0)
    labelled = data.with_dense_rewards(dense, source=PERFECT_JUDGE_SOURCE)
    config = OfflineConfig(reward="composed", dense_weight=0.5)
    for ep, got in zip(labelled, training_rewards(labelled, config), strict=True):
        want = compose_rewards(ep.rewards, ep.dense_rewards, RewardComposition(0.5))
        np.testing.assert_array_equal(got, want)


def test_bench_embodied_labels_the_perfect_judge_row_and_prints_its_variant(
    tmp_path: Path,
) -> None:
    from rewardgym.benchmarks.embodied.config import PRESETS, Row
    from rewardgym.benchmarks.embodied.suite import offline_config, prepare_data

    config = PRESETS["quick"].replace(
        collect=variant_config("stitch-siblings", episodes=6),
        rows=("cql/sparse", "cql/perfect-judge"),
    )
    assert "cql/perfect-judge" in PRESETS["quick"].rows
    datasets, meta = prepare_data(config, tmp_path, quiet=True)
    labelled = TrajectoryDataset.from_dir(datasets["perfect-judge"])
    assert labelled.info["dense_reward_source"] == PERFECT_JUDGE_SOURCE
    np.testing.assert_array_equal(
        np.concatenate([ep.dense_rewards for ep in labelled]),
        np.concatenate(perfect_judge_rewards(labelled)),
    )
    assert meta["data"]["variant"] == "stitch-siblings"
    assert {"mean_length", "stitchable_share", "failures_with_segment"} <= set(meta["data"])
    row = Row("cql", "perfect-judge")
    trained = offline_config(config, row, config.tuned_for(row), seed=0)
    assert trained.reward == "composed"  # success + lambda x rating, as the COREN rows
