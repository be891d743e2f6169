"""The three consistencies, the tie and all-abstain rules and the ablation rules on hand-made votes."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.wrappers.coren import consistency
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.coren.ensemble import combine_terms

nan = np.nan


def test_majority_vote_picks_the_mode_and_averages_ties() -> None:
    assert consistency.majority_vote([2, 2, 1, -1, 2]) == 2.0
    assert consistency.majority_vote([2, 1]) == 1.5
    assert consistency.majority_vote([-1, 1, nan]) == 0.0
    assert consistency.majority_vote([nan, nan]) == 0.0
    assert consistency.majority_vote([0.5, 0.5, 2.0]) == 0.5  # non-rubric values take the slow path


def test_vectorised_majority_matches_the_scalar_rule() -> None:
    rng = np.random.default_rng(0)
    votes = rng.integers(-2, 3, size=(200, 5)).astype(float)
    votes[rng.random(votes.shape) < 0.3] = nan
    expected = [consistency.majority_vote(row) for row in votes]
    assert np.allclose(consistency.majority_votes(votes), expected)


def test_contextual_is_the_per_step_majority_with_all_abstain_neutral() -> None:
    votes = np.array([[2, 2, 1, 1, 2], [nan, nan, nan, nan, nan], [-2, -2, 0, nan, nan]])
    assert consistency.contextual(votes).tolist() == [2.0, 0.0, -2.0]
    assert consistency.all_abstained(votes).tolist() == [False, True, False]


def test_structural_counts_only_prompts_whose_answer_passes_the_gate() -> None:
    votes = np.array([[2, 2, -1, -1, -1], [1, 1, 1, 2, 2]], dtype=float)
    sims = np.array([[0.9, 0.5, 0.2, 0.49, nan], [0.1, 0.1, 0.1, 0.1, 0.1]])
    gate = consistency.structural_gate(sims, 0.5)
    assert gate.tolist() == [[True, True, False, False, False], [False] * 5]
    # Step 0: only the two 2-votes pass (the -1 majority is gated out); step 1: nothing passes.
    assert consistency.structural(votes, gate).tolist() == [2.0, 0.0]


def test_argmax_steps_are_the_positive_maximum_of_a_prompt() -> None:
    assert consistency.argmax_steps(np.array([1, 2, nan, 2, 0])).tolist() == [1, 3]
    assert consistency.argmax_steps(np.array([0, -1, nan])).tolist() == []
    assert consistency.argmax_steps(np.array([nan, nan])).tolist() == []


def test_temporal_drops_votes_of_prompts_that_fail_backward_verification() -> None:
    votes = np.array([[2, 2, 1], [1, 2, 1], [2, 0, 1]], dtype=float)
    # Prompt 0 (argmax steps 0 and 2) fails; prompt 1 (steps 0, 1) passes; prompt 2 abstains.
    verified = [False, True, None]
    keep = consistency.temporal_keep(votes, verified)
    assert keep[:, 0].tolist() == [False, True, False]
    assert keep[:, 1:].all()
    assert consistency.temporal(votes, verified).tolist() == [1.5, 1.0, 0.5]
    with pytest.raises(ValueError, match="verification answers"):
        consistency.temporal(votes, [True])


def test_combine_terms_follows_every_ablation_rule() -> None:
    terms = np.array([[2.0, 1.0, -1.0], [0.0, 0.0, 1.0]])
    votes = np.array([[2, nan], [nan, 1]], dtype=float)
    assert combine_terms(terms, votes, CorenConfig(ablation="average")).tolist() == pytest.approx(
        [2 / 3, 1 / 3]
    )
    majority = combine_terms(terms, votes, CorenConfig(ablation="majority"))
    assert majority.tolist() == pytest.approx([2 / 3, 0.0])
    assert combine_terms(terms, votes, CorenConfig(ablation="T")).tolist() == [-1.0, 1.0]
    single = CorenConfig(ablation="single", n_prompts=2, single_prompt_index=0)
    assert combine_terms(terms, votes, single).tolist() == [2.0, 0.0]
    weights = np.array([[1.0, 0.0], [0.25, 0.75]])
    assert combine_terms(terms, votes, CorenConfig(ablation="CT"), weights).tolist() == [2.0, 0.75]
    assert combine_terms(terms, votes, CorenConfig(ablation="CST")).tolist() == pytest.approx(
        [2 / 3, 1 / 3]
    )


def test_majority_of_three_uses_the_tie_rule() -> None:
    terms = np.array([[2.0, 2.0, -1.0], [2.0, 1.0, -1.0]])
    assert consistency.majority_of_three(terms).tolist() == [2.0, pytest.approx(2 / 3)]


def test_config_rejects_bad_values_by_name() -> None:
    with pytest.raises(ValueError, match="ablation"):
        CorenConfig(ablation="CSTX")
    with pytest.raises(ValueError, match="single_prompt_index"):
        CorenConfig(n_prompts=3, single_prompt_index=3)
    assert CorenConfig(ablation="ST").terms == ("S", "T")
    assert not CorenConfig(ablation="S").uses_orchestrator
