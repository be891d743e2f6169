"""What each step of a logged VirtualHome-v0 episode did to its goal, for the perfect judge.

The perfect judge (``rewardgym.wrappers.perfect_judge``) rates a step from facts the simulator
knows. Household-v1 measures progress by its searcher's remaining steps; VirtualHome-v0 has no
planner, so its distance is the number of goal conditions that do not hold yet (our goal check,
:mod:`rewardgym.envs.virtualhome.goals`): a step that meets a condition not met before in the
episode is progress, one that undoes a met condition a detour. The objects (and rooms) a step
"needs" are those the goal names and those the human's own program acts on (walking to the
room that holds the TV is needed, though no condition names the room). No VirtualHome action here is
irreversible and no goal becomes unreachable, so those facts are always false.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import gymnasium as gym

from rewardgym.envs import VIRTUALHOME_ID
from rewardgym.envs.household.v1.task_progress import StepFacts
from rewardgym.envs.trajectories.episode import Episode
from rewardgym.envs.virtualhome.env import VirtualHomeEnv

SEARCH_VERBS: frozenset[str] = frozenset({"FIND", "WALK", "RUN"})
"""The verbs that only look for something (COREN's "searching an object")."""


def episode_step_facts(episode: Episode, env: VirtualHomeEnv) -> list[StepFacts]:
    """Replay ``episode`` from its logged program in ``env`` and describe every step."""
    options = episode.extras.get("reset_options")
    if options is None:
        raise ValueError(
            f"episode {episode.episode_id} has no extras['reset_options'] naming its program; "
            "collect it again with `rewardgym data collect --env virtualhome`"
        )
    _, info = env.reset(options=options)
    needed = set(env.goal_objects()) | {
        c for i in env.expert_script() for c in env.actions[i].classes
    }
    distance = len(info["goal_flags"]) - sum(info["goal_flags"])
    best = distance
    done: set[int] = set()
    facts = []
    for raw in episode.actions:
        action = int(raw)
        chosen = env.actions[action]
        _, _, _, _, info = env.step(action)
        after = len(info["goal_flags"]) - sum(info["goal_flags"])
        executable = bool(info["executable"])
        facts.append(
            StepFacts(
                executable=executable,
                on_plan=False,
                distance_before=distance,
                distance_after=after,
                goal_gain=distance - after,
                irreversible=False,
                dead_end=False,
                touches_goal=bool(needed.intersection(chosen.classes)),
                searching=chosen.verb in SEARCH_VERBS,
                best_before=best,
                repeated=executable and action in done,
            )
        )
        if executable:
            done.add(action)
        distance, best = after, min(best, after)
    return facts


def with_envs(
    data: Iterable[Episode], env_kwargs: dict[str, Any]
) -> Iterator[tuple[Episode, VirtualHomeEnv]]:
    """Each episode with one VirtualHome-v0 env made with the data set's ``env_kwargs``."""
    env: Any = gym.make(VIRTUALHOME_ID, **env_kwargs).unwrapped
    for episode in data:
        yield episode, env


__all__ = ["SEARCH_VERBS", "episode_step_facts", "with_envs"]
