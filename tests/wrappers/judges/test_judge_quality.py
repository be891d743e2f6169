"""The judge-quality figures on small hand-made rating tables."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.wrappers.judges.quality import (
    calls_per_1k_steps,
    expert_next_supportive,
    expert_next_top,
    greedy_agreement,
    judge_quality,
    nonexec_minus2,
    return_success_corr,
    seconds_per_1k_steps,
)

NAN = np.nan
# Three states, four actions; the expert's next action is 0, 1 and 2.
RATINGS = np.array(
    [
        [2, 2, -1, -2],  # expert rated 2 but tied with action 1
        [0, 1, -2, -2],  # expert rated 1 and alone on top
        [2, 0, NAN, -1],  # expert abstained; action 0 on top
    ]
)
EXPERT = np.array([0, 1, 2])
EXECUTABLE = np.array(
    [
        [True, True, True, False],
        [True, True, False, False],
        [True, True, True, False],
    ]
)


def test_expert_shares_count_abstentions_as_misses() -> None:
    assert expert_next_top(RATINGS, EXPERT) == pytest.approx(1 / 3)
    assert expert_next_supportive(RATINGS, EXPERT) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="one expert action per state"):
        expert_next_top(RATINGS, EXPERT[:2])


def test_greedy_agreement_breaks_ties_uniformly_and_respects_candidates() -> None:
    assert greedy_agreement(RATINGS, EXPERT) == pytest.approx((0.5 + 1 + 0) / 3)
    only_expert = np.eye(4, dtype=bool)[EXPERT]
    # With the expert's action the only candidate, the judge always agrees (unless it abstained).
    assert greedy_agreement(RATINGS, EXPERT, only_expert) == pytest.approx(2 / 3)
    flat = np.ones((2, 5))
    assert greedy_agreement(flat, np.array([0, 3])) == pytest.approx(1 / 5)


def test_nonexec_share_and_correlation_and_cost() -> None:
    # Non-executable and rated: (0,3)=-2, (1,2)=-2, (1,3)=-2, (2,3)=-1.
    assert nonexec_minus2(RATINGS, EXECUTABLE) == pytest.approx(3 / 4)
    assert np.isnan(nonexec_minus2(RATINGS, np.ones_like(EXECUTABLE)))
    assert return_success_corr(np.array([0.1, 0.2, 0.9, 1.0]), np.array([0, 0, 1, 1])) > 0.9
    assert np.isnan(return_success_corr(np.array([1.0, 2.0]), np.array([1, 1])))
    assert seconds_per_1k_steps(3.0, 1500) == pytest.approx(2.0)
    assert calls_per_1k_steps(4500, 1500) == pytest.approx(3000.0)


def test_judge_quality_row_has_the_public_names() -> None:
    row = judge_quality(
        ratings=RATINGS,
        expert=EXPERT,
        executable=EXECUTABLE,
        returns=np.array([0.0, 1.0]),
        success=np.array([0, 1]),
        seconds=1.0,
        calls=10,
        steps=100,
    ).as_dict()
    for name in (
        "expert_next_top",
        "expert_next_supportive",
        "greedy_agreement",
        "nonexec_minus2",
        "return_success_corr",
        "seconds_per_1k_steps",
    ):
        assert isinstance(row[name], float)
    assert row["greedy_agreement"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert row["probe_states"] == 3 and row["labelled_steps"] == 100
