"""SR, CGC and Plan on hand-made cases."""

from __future__ import annotations

import pytest

from rewardgym.envs.household import (
    EpisodeScore,
    goal_condition_completion,
    is_success,
    plan_match,
    score_episode,
    success_rate,
    summarize,
)


def test_success_needs_every_goal_condition() -> None:
    assert is_success([True, True])
    assert not is_success([True, False])
    assert not is_success([])


@pytest.mark.parametrize(
    ("flags", "expected"),
    [([True, False], 0.5), ([True, True, False], 2 / 3), ([False], 0.0), ([], 0.0), ([True], 1.0)],
)
def test_cgc_is_the_share_of_conditions_met(flags: list[bool], expected: float) -> None:
    assert goal_condition_completion(flags) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("actions", "expert", "expected"),
    [
        ([1, 2, 3], [1, 2, 3], 1.0),
        ([1, 9, 3], [1, 2, 3], 1 / 3),  # matching stops at the first difference
        ([9, 2, 3], [1, 2, 3], 0.0),
        ([1, 2], [1, 2, 3, 4], 0.5),
        ([1, 2, 3, 4, 5], [1, 2], 1.0),  # extra actions after the plan do not count against it
        (["find fridge"], ["find fridge", "open fridge"], 0.5),
        ([], [], 1.0),
    ],
)
def test_plan_is_the_matched_prefix_of_the_expert(
    actions: list, expert: list, expected: float
) -> None:
    assert plan_match(actions, expert) == pytest.approx(expected)


def test_scores_and_their_summary() -> None:
    a = score_episode([True, True], [1, 2], [1, 2])
    b = score_episode([True, False], [1, 5, 6], [1, 2, 3, 4])
    assert a == EpisodeScore(True, 1.0, 1.0)
    assert b == EpisodeScore(False, 0.5, 0.25)
    assert summarize([a, b]) == pytest.approx({"sr": 0.5, "cgc": 0.75, "plan": 0.625, "n": 2.0})
    assert summarize([])["n"] == 0.0
    assert success_rate([True, False, False, True]) == 0.5
