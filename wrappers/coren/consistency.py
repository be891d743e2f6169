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
- **Temporal verification**: ``H_n`` is the set of steps at which prompt ``n`` gave its
  highest vote of the trajectory, if that vote is positive (else ``H_n`` is empty and there is
  nothing to verify). The backward question asks whether executing the actions of ``H_n`` in
  order achieves the instruction. A "no" drops prompt ``n``'s votes at ``H_n``; "yes" or no
  answer (abstention) keeps them. ``r^T`` is the majority of the votes left.
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


def argmax_steps(prompt_votes: np.ndarray) -> np.ndarray:
    """``H_n``: the steps holding the prompt's highest vote, if positive (else none)."""
    column = np.asarray(prompt_votes, dtype=np.float64)
    if column.size == 0 or np.isnan(column).all():
        return np.zeros(0, dtype=np.int64)
    best = np.nanmax(column)
    if best <= 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(column == best)


def temporal_keep(votes: np.ndarray, verified: Sequence[bool | None]) -> np.ndarray:
    """Which votes survive temporal verification, given each prompt's backward answer."""
    values = np.asarray(votes, dtype=np.float64)
    keep = ~np.isnan(values)
    for n, answer in enumerate(verified):
        if answer is False:
            keep[argmax_steps(values[:, n]), n] = False
    return keep


def temporal(votes: np.ndarray, verified: Sequence[bool | None]) -> np.ndarray:
    """``r^T``: the majority of the votes left after dropping those that failed verification."""
    values = np.asarray(votes, dtype=np.float64)
    if values.shape[1] != len(verified):
        raise ValueError(
            f"temporal: votes have {values.shape[1]} prompts but {len(verified)} verification "
            "answers were given; pass one per prompt"
        )
    kept = np.where(temporal_keep(values, verified), values, np.nan)
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
    "argmax_steps",
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
