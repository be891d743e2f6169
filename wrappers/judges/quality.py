"""How good a judge is, as pure functions: agreement with the expert, impossible actions, cost.

A user picks a judge from these figures (``rewardgym label coren`` and the embodied suite
print them per judge). They are computed on *probe states*, observations of held-out
trajectories at which the judge rates every candidate action:

- ``ratings``: ``(S, A)`` the judge's rating of action ``a`` at state ``s`` (the ensemble's
  contextual vote, the majority over prompts; NaN where every prompt abstained or the action
  was not asked);
- ``expert``: ``(S,)`` the index of the expert's next action at each state;
- ``executable``: ``(S, A)`` whether the simulator would execute the action there.

Figures (the keys of the ``judges`` table in ``results.json``):

- ``expert_next_top``: share of states whose expert next action is rated +2;
- ``expert_next_supportive``: share rated at least +1;
- ``greedy_agreement``: how often a policy that takes the judge's top-rated action (ties broken
  uniformly at random) takes the expert's: the mean over states of ``[expert in top] / |top|``;
- ``nonexec_minus2``: share of the non-executable (state, action) pairs rated -2;
- ``return_success_corr``: point-biserial correlation of held-out trajectories' normalised
  dense returns with their success flags;
- ``seconds_per_1k_steps`` and ``calls_per_1k_steps``: the labelling cost.

An abstention (NaN) counts as not meeting a threshold; a state without votes is never "top".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


def _rows(ratings: np.ndarray, index: np.ndarray) -> np.ndarray:
    values = np.asarray(ratings, dtype=np.float64)
    if values.ndim != 2 or len(index) != len(values):
        raise ValueError(
            f"ratings must be (S, A) with one expert action per state; got shape {values.shape} "
            f"and {len(index)} expert actions"
        )
    return values[np.arange(len(values)), np.asarray(index, dtype=np.int64)]


def expert_next_top(ratings: np.ndarray, expert: np.ndarray) -> float:
    """Share of states whose expert next action the judge rates +2."""
    chosen = _rows(ratings, expert)
    return float(np.mean(np.nan_to_num(chosen, nan=-np.inf) >= 2)) if chosen.size else float("nan")


def expert_next_supportive(ratings: np.ndarray, expert: np.ndarray) -> float:
    """Share of states whose expert next action the judge rates at least +1."""
    chosen = _rows(ratings, expert)
    return float(np.mean(np.nan_to_num(chosen, nan=-np.inf) >= 1)) if chosen.size else float("nan")


def greedy_agreement(
    ratings: np.ndarray, expert: np.ndarray, candidates: np.ndarray | None = None
) -> float:
    """Chance that the judge's top-rated candidate action (uniform among ties) is the expert's.

    ``candidates`` ``(S, A)`` limits the choice (default: every action that was rated).
    """
    values = np.asarray(ratings, dtype=np.float64)
    _rows(values, expert)
    if not len(values):
        return float("nan")
    allowed = ~np.isnan(values)
    if candidates is not None:
        allowed &= np.asarray(candidates, dtype=bool)
    scores = np.where(allowed, values, -np.inf)
    best = scores.max(axis=1, keepdims=True)
    top = allowed & (scores == best)
    hits = top[np.arange(len(values)), np.asarray(expert, dtype=np.int64)]
    return float(np.mean(np.where(hits, 1.0 / np.maximum(top.sum(axis=1), 1), 0.0)))


def nonexec_minus2(ratings: np.ndarray, executable: np.ndarray) -> float:
    """Share of the non-executable (state, action) pairs that were rated and rated -2."""
    values = np.asarray(ratings, dtype=np.float64)
    impossible = ~np.asarray(executable, dtype=bool) & ~np.isnan(values)
    if not impossible.any():
        return float("nan")
    return float(np.mean(values[impossible] <= -2))


def return_success_corr(returns: np.ndarray, success: np.ndarray) -> float:
    """Point-biserial correlation of returns with binary success flags (Pearson's r; NaN if constant)."""
    x = np.asarray(returns, dtype=np.float64)
    y = np.asarray(success, dtype=np.float64)
    if x.size < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def seconds_per_1k_steps(seconds: float, steps: int) -> float:
    """Labelling seconds per 1,000 logged steps."""
    return float(seconds) / steps * 1000 if steps else float("nan")


def calls_per_1k_steps(calls: int, steps: int) -> float:
    """Judge (backend) calls per 1,000 logged steps, after de-duplication and the cache."""
    return float(calls) / steps * 1000 if steps else float("nan")


@dataclass(frozen=True)
class JudgeQuality:
    """One row of the ``judges`` table (see the module docstring for each figure)."""

    expert_next_top: float
    expert_next_supportive: float
    greedy_agreement: float
    nonexec_minus2: float
    return_success_corr: float
    seconds_per_1k_steps: float
    calls_per_1k_steps: float
    probe_states: int
    labelled_steps: int

    def as_dict(self) -> dict[str, float | int]:
        """The row as plain JSON-ready data."""
        return asdict(self)


def judge_quality(
    *,
    ratings: np.ndarray,
    expert: np.ndarray,
    executable: np.ndarray,
    returns: np.ndarray,
    success: np.ndarray,
    seconds: float,
    calls: int,
    steps: int,
) -> JudgeQuality:
    """Every figure of the report from probe ratings, held-out returns and the labelling cost.

    ``greedy_agreement`` chooses among the executable actions (a policy need not consider
    the others; their ratings are scored by ``nonexec_minus2``).
    """
    return JudgeQuality(
        expert_next_top=expert_next_top(ratings, expert),
        expert_next_supportive=expert_next_supportive(ratings, expert),
        greedy_agreement=greedy_agreement(ratings, expert, executable),
        nonexec_minus2=nonexec_minus2(ratings, executable),
        return_success_corr=return_success_corr(returns, success),
        seconds_per_1k_steps=seconds_per_1k_steps(seconds, steps),
        calls_per_1k_steps=calls_per_1k_steps(calls, steps),
        probe_states=len(np.asarray(expert)),
        labelled_steps=int(steps),
    )


__all__ = [
    "JudgeQuality",
    "calls_per_1k_steps",
    "expert_next_supportive",
    "expert_next_top",
    "greedy_agreement",
    "judge_quality",
    "nonexec_minus2",
    "return_success_corr",
    "seconds_per_1k_steps",
]
