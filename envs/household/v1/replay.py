"""Replaying logged Household-v1 episodes in the simulator: one env per layout, reset as logged."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from rewardgym.envs.household.v1.env import HouseholdV1Env

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.episode import Episode


def reset_as_logged(episode: Episode, env: HouseholdV1Env) -> None:
    """Reset ``env`` to the episode's first state (its seed and recorded reset options)."""
    options = episode.extras.get("reset_options")
    if options is None:
        raise ValueError(
            f"episode {episode.episode_id} has no extras['reset_options'], so its hidden "
            "placements cannot be rebuilt; collect it again with rewardgym.envs.trajectories"
        )
    env.reset(seed=episode.seed, options=options)


def with_envs(data: Iterable[Episode]) -> Iterator[tuple[Episode, HouseholdV1Env]]:
    """Each episode with an env of its layout (one env per layout, reused across episodes)."""
    envs: dict[str, HouseholdV1Env] = {}
    for episode in data:
        layout = episode.layout or "default"
        yield episode, envs.setdefault(layout, HouseholdV1Env(layout=layout))


__all__ = ["reset_as_logged", "with_envs"]
