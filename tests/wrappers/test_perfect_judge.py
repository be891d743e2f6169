"""The perfect judge: COREN's -2..+2 rubric from the simulator, on hand-made states and facts."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.agents.offline.agent import training_rewards
from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.envs.household.v1 import HouseholdV1Env, action_id
from rewardgym.envs.household.v1.progress import StepFacts, searcher_plan, step_facts
from rewardgym.envs.trajectories import collect_dataset
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
    }
    return StepFacts(**{**base, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "rating"),
    [
        ({"on_plan": True, "distance_after": 9}, 2),
        ({"distance_after": 8}, 2),  # fewer steps left, though off the script
        ({"goal_gain": 1}, 2),
        ({"touches_goal": True}, 1),  # no change, on an object the goal needs
        ({}, 0),  # no change, nothing relevant: neutral
        ({"searching": True}, -1),  # looking at something the goal does not need
        ({"distance_after": 11}, -1),  # a detour
        ({"goal_gain": -1, "touches_goal": True}, -1),  # undoing a met predicate
        ({"executable": False, "touches_goal": True}, -2),
        ({"dead_end": True, "distance_after": None}, -2),
        ({"irreversible": True, "touches_goal": True}, -2),  # a wasted appliance cycle
        ({"irreversible": True, "goal_gain": 1}, 2),  # switching on the loaded microwave
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


def _rate(env: HouseholdV1Env, name: str) -> int:
    facts, _ = step_facts(env, action_id(name), searcher_plan(env))
    return perfect_judge_rating(facts)


def test_hand_made_states_get_the_rubric_a_person_would_give() -> None:
    env = _warm_milk()
    plan = searcher_plan(env)
    assert plan
    assert _rate(env, env.action_names[plan[0]]) == 2  # the next step of the plan
    assert _rate(env, "grab book") == -2  # not executable: the book is not in view
    assert _rate(env, "walk to bathroom") == -1  # nothing the task needs is there
    env = _warm_milk()
    assert _rate(env, "find microwave") >= 1  # the microwave is where the milk must go
    assert _rate(env, "switch on microwave") == -2  # empty: the only cycle is wasted
    assert env.failure  # and the goal is now out of reach


def test_the_searchers_own_episode_is_rated_plus_two_throughout() -> None:
    env = _warm_milk()
    ratings = []
    while plan := searcher_plan(env):  # [] once the goal holds
        facts, _ = step_facts(env, plan[0], plan)
        ratings.append(perfect_judge_rating(facts))
    assert all(env.task.goal_flags(env.world))
    assert ratings and set(ratings) == {2}


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
