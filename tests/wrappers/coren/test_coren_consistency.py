"""The three consistencies, the tie and all-abstain rules and the ablation rules on hand-made votes."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.wrappers.coren import consistency
from rewardgym.wrappers.coren.config import CorenConfig
from rewardgym.wrappers.coren.scoring import combine_terms

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


def test_argmax_actions_prefer_the_logged_action_on_ties_and_mark_empty_steps() -> None:
    # Two steps, three candidate actions, two prompts: ratings[t, a, n].
    ratings = np.array(
        [
            [[1, nan], [2, nan], [2, nan]],  # prompt 0: actions 1 and 2 tie; prompt 1 rated none
            [[-1, 0], [nan, 0], [-2, -1]],  # negative tops count too; prompt 1 ties 0 and 1
        ],
        dtype=float,
    )
    assert consistency.argmax_actions(ratings, np.array([2, 1])).tolist() == [[2, -1], [0, 1]]
    assert consistency.argmax_actions(ratings, np.array([0, 2])).tolist() == [[1, -1], [0, 0]]
    with pytest.raises(ValueError, match="T logged actions"):
        consistency.argmax_actions(ratings, np.array([0]))


def test_temporal_drops_only_the_planned_votes_of_prompts_answered_no() -> None:
    votes = np.array([[2, 2, 1], [1, 2, 1], [2, 0, 1]], dtype=float)
    favourite = np.array([[True, True, True], [False, True, False], [True, False, True]])
    # Prompt 0 was answered no, prompt 1 yes, prompt 2 abstained (never failed).
    failed = np.array([[True, False, False]] * 3)
    keep = consistency.temporal_keep(votes, favourite, failed)
    assert keep[:, 0].tolist() == [False, True, False]
    assert keep[:, 1:].all()
    assert consistency.temporal(votes, favourite, failed).tolist() == [1.5, 1.0, 0.5]
    with pytest.raises(ValueError, match=r"\(T, N\)"):
        consistency.temporal(votes, favourite[:2], failed)


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
