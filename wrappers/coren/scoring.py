"""COREN's one scoring function: what the judges said about a trajectory -> terms -> reward.

Offline labelling (``ensemble.score_trajectories``) and the online wrapper (``CorenReward``)
both gather the same answers into a ``TrajectoryAnswers`` and call ``trajectory_rewards``;
nothing else computes a COREN reward. The rules themselves are the pure functions of
``consistency.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rewardgym.wrappers.coren import consistency
from rewardgym.wrappers.coren.config import TERMS, CorenConfig


@dataclass
class TrajectoryAnswers:
    """The judge answers of one trajectory of ``T`` steps under ``N`` prompts.

    - ``votes`` ``(T, N)``: each prompt's rating of the logged action (NaN: abstained);
    - ``plan`` ``(T, N)``: each prompt's top-rated action at each observation (``H_n(tau)``,
      ``-1`` where it rated nothing); ``logged`` ``(T,)``: the actions taken;
    - ``similarities`` ``(T, N)``: how close each prompt's answer to the structural question
      of the QA pair retrieved for the step is to that pair's reference (NaN: no answer);
    - ``failed`` ``(T, N)``: whether the backward question about prompt ``n``'s plan that
      step ``t`` is checked against was answered no (the whole trajectory's plan offline,
      the plan so far online).
    """

    votes: np.ndarray
    plan: np.ndarray
    logged: np.ndarray
    similarities: np.ndarray
    failed: np.ndarray

    def __post_init__(self) -> None:
        """Check that every array has the trajectory's shape."""
        shape = np.shape(self.votes)
        for name in ("plan", "similarities", "failed"):
            if np.shape(getattr(self, name)) != shape:
                raise ValueError(
                    f"TrajectoryAnswers.{name} has shape {np.shape(getattr(self, name))}, "
                    f"votes {shape}: every per-prompt array is (T, N)"
                )
        if len(self.logged) != shape[0]:
            raise ValueError(
                f"TrajectoryAnswers.logged has {len(self.logged)} steps, not {shape[0]}"
            )

    @property
    def favourite(self) -> np.ndarray:
        """``(T, N)``: the logged action is prompt ``n``'s planned action at step ``t``."""
        return np.asarray(self.plan == np.asarray(self.logged)[:, None], dtype=bool)

    def prefix(self, steps: int) -> TrajectoryAnswers:
        """The answers of the first ``steps`` steps."""
        return TrajectoryAnswers(
            self.votes[:steps],
            self.plan[:steps],
            self.logged[:steps],
            self.similarities[:steps],
            self.failed[:steps],
        )


def coren_terms(answers: TrajectoryAnswers, similarity_threshold: float = 0.5) -> np.ndarray:
    """``(T, 3)``: the contextual, structural and temporal terms of every step."""
    votes = np.asarray(answers.votes, dtype=np.float64)
    gate = consistency.structural_gate(answers.similarities, similarity_threshold)
    return np.stack(
        [
            consistency.contextual(votes),
            consistency.structural(votes, gate),
            consistency.temporal(votes, answers.favourite, answers.failed),
        ],
        axis=1,
    ).reshape(len(votes), len(TERMS))


def combine_terms(
    terms: np.ndarray,
    votes: np.ndarray,
    config: CorenConfig,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """The reward of every step for ``config.ablation`` from ``(S, 3)`` terms and ``(S, N)`` votes.

    Orchestrated ablations need ``weights`` ``(S, len(config.terms))`` from Psi; without them
    the terms are weighted equally. One-term ablations return that term; ``average``,
    ``majority`` and ``single`` apply their fixed rule (an abstaining single prompt gives 0).
    """
    terms = np.asarray(terms, dtype=np.float64)
    if config.ablation == "average":
        return consistency.average_of_three(terms)
    if config.ablation == "majority":
        return consistency.majority_of_three(terms)
    if config.ablation == "single":
        return np.nan_to_num(np.asarray(votes, dtype=np.float64)[:, config.single_prompt_index])
    columns = [TERMS.index(t) for t in config.terms]
    if not config.uses_orchestrator:
        return terms[:, columns[0]]
    if weights is None:
        weights = np.full((len(terms), len(columns)), 1.0 / len(columns))
    return consistency.weighted_reward(terms[:, columns], weights)


def trajectory_rewards(
    answers: TrajectoryAnswers, config: CorenConfig, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The terms ``(T, 3)`` and dense rewards ``(T,)`` of one trajectory for ``config.ablation``."""
    terms = coren_terms(answers, config.similarity_threshold)
    return terms, combine_terms(terms, answers.votes, config, weights)


__all__ = ["TrajectoryAnswers", "combine_terms", "coren_terms", "trajectory_rewards"]
