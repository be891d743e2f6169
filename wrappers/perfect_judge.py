"""The simulator as a perfect COREN judge: every step rated on COREN's -2..+2 rubric.

COREN (arXiv 2411.17135) has an LLM ensemble rate each action: 2 the next correct action,
1 supportive, 0 neutral, -1 searching an irrelevant object, -2 not executable. The perfect
judge gives the same rubric from the simulator's facts
(``rewardgym.envs.household.v1.task_progress.StepFacts``), so a data set it labels is COREN's
ceiling in this setting: the ``cql/perfect-judge`` row of ``bench embodied`` composes it with
the success flag exactly as the COREN rows are composed (``compose_rewards`` with the row's
lambda; the rating is on the rubric's own scale, as COREN's dense rewards are). Unlike the
oracle's potential-based shaping it changes which actions look best step by step: a detour
costs -1 and is not paid back by coming back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from rewardgym.envs.household.v1.task_progress import StepFacts, episode_step_facts

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset
    from rewardgym.envs.trajectories.episode import Episode

PERFECT_JUDGE_SOURCE = "perfect judge: the simulator on COREN's -2..+2 rubric"
"""The ``dense_reward_source`` of a data set labelled by :func:`perfect_judge_rewards`."""


def perfect_judge_rating(facts: StepFacts) -> int:
    """COREN's rubric score of one step from the simulator's facts.

    - ``-2``: not executable, made the goal unreachable, or an irreversible action that was
      not progress (a wasted appliance cycle, something thrown away);
    - ``+2``: progress: the goal closer than ever before in the episode (the next step of the
      searcher's plan from every state on its way, a goal predicate met);
    - ``-1``: a detour (more steps left, a met predicate undone), or a search step (walk,
      find) for nothing the goal needs that changes nothing (searching an irrelevant object);
    - ``+1``: supportive: no step lost, on an object the goal needs, done for the first time;
    - ``0``: neutral: anything else, including the way back from one's own detour.

    Why the way back is 0 and "supportive" is first-time only: with COREN's discount of 0.99,
    a rating that paid +2 for returning after a -1 detour, or +1 for every harmless look at a
    goal object, would make going round in circles worth more than finishing (measured: CQL
    on such a rating looped until the time limit). Under these rules no cycle of steps earns
    more than 0.

    Example:
        >>> from rewardgym.envs.household.v1.task_progress import StepFacts
        >>> step = StepFacts(True, True, 5, 4, 0, False, False, True, best_before=5)
        >>> perfect_judge_rating(step)
        2
    """
    before, after = facts.distance_before, facts.distance_after
    best = before if facts.best_before is None else facts.best_before
    progress = after is not None and (best is None or after < best)
    if not facts.executable or facts.dead_end or (facts.irreversible and not progress):
        return -2
    if progress:
        return 2
    if before is None or after is None or after > before or facts.goal_gain < 0:
        return -1
    if after < before:
        return 0
    if facts.touches_goal:
        return 0 if facts.repeated else 1
    return -1 if facts.searching else 0


def perfect_judge_rewards(data: TrajectoryDataset | Sequence[Episode]) -> list[np.ndarray]:
    """The perfect judge's rating of every step of every episode (float32).

    Household-v1 episodes (and plain episode lists) are replayed in Household-v1, a
    VirtualHome-v0 data set in VirtualHome-v0 with its own env settings, where progress is the
    goal conditions met (``rewardgym.envs.virtualhome.progress``).
    """
    from rewardgym.envs import VIRTUALHOME_ID

    if getattr(data, "env_id", None) == VIRTUALHOME_ID:
        from rewardgym.envs.virtualhome import progress

        pairs = progress.with_envs(data, dict(getattr(data, "env_kwargs", {})))
        return [
            np.asarray(
                [perfect_judge_rating(f) for f in progress.episode_step_facts(ep, env)], np.float32
            )
            for ep, env in pairs
        ]
    from rewardgym.envs.household.v1.replay import with_envs

    return [
        np.asarray([perfect_judge_rating(f) for f in episode_step_facts(ep, env)], np.float32)
        for ep, env in with_envs(data)
    ]


__all__ = ["PERFECT_JUDGE_SOURCE", "perfect_judge_rating", "perfect_judge_rewards"]
