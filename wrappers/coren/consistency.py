"""COREN's three consistencies as pure functions over plain arrays (arXiv 2411.17135, Sec. 3).

Votes of one trajectory form a ``(T, N)`` float array: step ``t``, prompt ``n``, a rubric
integer in -2..2, or NaN where the prompt abstained (its answer did not parse or never came).

Conventions, the same everywhere:

- **Majority vote**: the most frequent value among the non-abstaining votes. **Ties** between
  several most frequent values give their mean (so a 2/1 tie gives 1.5 and a -1/1 tie gives 0):
  symmetric, and never more extreme than the tied votes.
- **All abstain**: when no vote is left at a step, the term is 0.0 (the rubric's neutral);
  the step is counted as abstained by the labelling report.
- **Structural gate**: a prompt's vote counts only where the cosine similarity of its answer
  to "which visible objects are relevant to the task?" with the retrieved reference answer
  is ``>= threshold`` (0.5); a NaN similarity (no answer) fails the gate.
- **Temporal verification** (the paper's ``H_n(tau)``): at every observation of the
  trajectory, prompt ``n``'s plan holds the action it rates highest among the candidates
  (``argmax_actions``). The backward question asks whether executing that plan, in order,
  achieves the instruction. A "no" drops prompt ``n``'s votes for those actions, i.e. its
  vote at every step whose logged action is the planned one; "yes" or no answer
  (abstention) keeps them. ``r^T`` is the majority of the votes left.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def majority_vote(votes: Sequence[float] | np.ndarray) -> float:
    """The majority of the non-NaN ``votes``; ties give the mean of the tied values; none gives 0.0."""
    values = np.asarray(votes, dtype=np.float64)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return 0.0
    uniques, counts = np.unique(values, return_counts=True)
    tied = uniques[counts == counts.max()]
    return float(tied.mean())


_LEVELS = np.arange(-2.0, 3.0)


def majority_votes(votes: np.ndarray) -> np.ndarray:
    """``majority_vote`` of every row of a ``(T, N)`` vote array, shape ``(T,)``."""
    values = np.asarray(votes, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"majority_votes: expected a (T, N) array, got shape {values.shape}")
    if np.isin(values[~np.isnan(values)], _LEVELS).all():
        # Rubric integers: count each level at once instead of one np.unique per row.
        counts = (values[:, :, None] == _LEVELS).sum(axis=1)
        top = counts.max(axis=1, keepdims=True)
        tied = (counts == top) & (top > 0)
        return (tied * _LEVELS).sum(axis=1) / np.maximum(tied.sum(axis=1), 1)
    return np.array([majority_vote(row) for row in values])


def all_abstained(votes: np.ndarray) -> np.ndarray:
    """Which rows of a ``(T, N)`` vote array have no vote at all."""
    missing: np.ndarray = np.isnan(np.asarray(votes, dtype=np.float64))
    return np.asarray(missing.all(axis=1), dtype=bool)


def contextual(votes: np.ndarray) -> np.ndarray:
    """``r^C``: the majority vote over prompts at every step."""
    return majority_votes(votes)


def structural_gate(similarities: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """Which prompts pass the structural check: answer-to-reference similarity ``>= threshold``."""
    sims = np.asarray(similarities, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.asarray(np.where(np.isnan(sims), False, sims >= threshold), dtype=bool)


def structural(votes: np.ndarray, gate: np.ndarray) -> np.ndarray:
    """``r^S``: the majority of the votes whose prompt passed the structural gate at that step."""
    kept = np.where(np.asarray(gate, dtype=bool), np.asarray(votes, dtype=np.float64), np.nan)
    return majority_votes(kept)


def argmax_actions(ratings: np.ndarray, logged: np.ndarray) -> np.ndarray:
    """``H_n(tau)``: prompt ``n``'s top-rated action at every observation of a trajectory.

    ``ratings`` is ``(T, A, N)``: prompt ``n``'s rating of candidate action ``a`` at step ``t``
    (NaN where the action was not a candidate or the prompt abstained); ``logged`` ``(T,)`` is
    the action taken. A tie goes to the logged action, then to the lowest action id, so the
    plan is well defined; ``-1`` where prompt ``n`` rated nothing at that step.
    """
    values = np.asarray(ratings, dtype=np.float64)
    if values.ndim != 3 or len(values) != len(logged):
        raise ValueError(
            f"argmax_actions: expected (T, A, N) ratings and T logged actions, got "
            f"{values.shape} and {len(logged)}"
        )
    filled = np.where(np.isnan(values), -np.inf, values)
    best = filled.max(axis=1)
    plan = filled.argmax(axis=1)
    steps = np.arange(len(values))
    logged_ids = np.asarray(logged, dtype=np.int64)
    tied = filled[steps, logged_ids, :] == best
    plan = np.where(tied, logged_ids[:, None], plan)
    return np.where(np.isinf(best), -1, plan).astype(np.int64)


def temporal_keep(votes: np.ndarray, favourite: np.ndarray, failed: np.ndarray) -> np.ndarray:
    """Which votes survive temporal verification (all ``(T, N)``).

    A vote is dropped when the logged action is prompt ``n``'s planned action at that step
    (``favourite``) and the backward question about prompt ``n``'s plan was answered no
    (``failed``); abstentions are never kept.
    """
    values = np.asarray(votes, dtype=np.float64)
    drop = np.asarray(favourite, dtype=bool) & np.asarray(failed, dtype=bool)
    return np.asarray(~np.isnan(values) & ~drop, dtype=bool)


def temporal(votes: np.ndarray, favourite: np.ndarray, failed: np.ndarray) -> np.ndarray:
    """``r^T``: the majority of the votes left after temporal verification."""
    values = np.asarray(votes, dtype=np.float64)
    if np.shape(favourite) != values.shape or np.shape(failed) != values.shape:
        raise ValueError(
            f"temporal: votes {values.shape}, favourite {np.shape(favourite)} and failed "
            f"{np.shape(failed)} must all be (T, N)"
        )
    kept = np.where(temporal_keep(values, favourite, failed), values, np.nan)
    return majority_votes(kept)


def average_of_three(terms: np.ndarray) -> np.ndarray:
    """The ``average`` ablation: the mean of ``(r^C, r^S, r^T)`` at every step."""
    return np.asarray(terms, dtype=np.float64).mean(axis=1)


def majority_of_three(terms: np.ndarray) -> np.ndarray:
    """The ``majority`` ablation: the majority vote of ``(r^C, r^S, r^T)`` at every step."""
    return majority_votes(terms)


def weighted_reward(terms: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``r_hat = <r, w>`` at every step: terms and weights both of shape ``(T, K)``."""
    return (np.asarray(terms, dtype=np.float64) * np.asarray(weights, dtype=np.float64)).sum(axis=1)


__all__ = [
    "all_abstained",
    "argmax_actions",
    "average_of_three",
    "contextual",
    "majority_of_three",
    "majority_vote",
    "majority_votes",
    "structural",
    "structural_gate",
    "temporal",
    "temporal_keep",
    "weighted_reward",
]
