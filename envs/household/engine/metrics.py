"""COREN's evaluation metrics as pure functions over plain data: SR, CGC and Plan.

- SR (success rate): an episode succeeds when every goal predicate holds.
- CGC (goal-condition completion): the share of goal predicates that hold.
- Plan: the share of the expert's action sequence that the agent matched from the start.

Every function returns a fraction in [0, 1]; multiply by 100 for the paper's percentages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def is_success(goal_flags: Sequence[bool]) -> bool:
    """Whether every goal predicate holds (an empty goal is never a success)."""
    return len(goal_flags) > 0 and all(goal_flags)


def goal_condition_completion(goal_flags: Sequence[bool]) -> float:
    """The share of goal predicates that hold; 0.0 for an empty goal."""
    if not goal_flags:
        return 0.0
    return sum(bool(flag) for flag in goal_flags) / len(goal_flags)


def plan_match(actions: Sequence[int | str], expert_actions: Sequence[int | str]) -> float:
    """The share of ``expert_actions`` that ``actions`` reproduces position by position from the start.

    Matching stops at the first difference, so ``plan_match([a, x, c], [a, b, c]) == 1/3``.
    An empty expert sequence (the goal already held) counts as fully matched.
    """
    if not expert_actions:
        return 1.0
    matched = 0
    for mine, theirs in zip(actions, expert_actions, strict=False):
        if mine != theirs:
            break
        matched += 1
    return matched / len(expert_actions)


def success_rate(successes: Iterable[bool]) -> float:
    """The share of episodes that succeeded; 0.0 when there are none."""
    flags = [bool(s) for s in successes]
    return sum(flags) / len(flags) if flags else 0.0


@dataclass(frozen=True)
class EpisodeScore:
    """The three COREN metrics of one evaluated episode."""

    success: bool
    cgc: float
    plan: float


def score_episode(
    final_goal_flags: Sequence[bool],
    actions: Sequence[int | str],
    expert_actions: Sequence[int | str],
) -> EpisodeScore:
    """Score one episode from its final goal flags, its actions and the expert's reference plan."""
    return EpisodeScore(
        success=is_success(final_goal_flags),
        cgc=goal_condition_completion(final_goal_flags),
        plan=plan_match(actions, expert_actions),
    )


def summarize(scores: Iterable[EpisodeScore]) -> dict[str, float]:
    """Mean SR, CGC and Plan over episodes, as fractions, plus the episode count ``n``."""
    items = list(scores)
    n = len(items)
    if n == 0:
        return {"sr": 0.0, "cgc": 0.0, "plan": 0.0, "n": 0.0}
    return {
        "sr": sum(s.success for s in items) / n,
        "cgc": sum(s.cgc for s in items) / n,
        "plan": sum(s.plan for s in items) / n,
        "n": float(n),
    }


__all__ = [
    "EpisodeScore",
    "goal_condition_completion",
    "is_success",
    "plan_match",
    "score_episode",
    "success_rate",
    "summarize",
]
