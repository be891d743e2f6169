"""The oracle's dense reward for Household-v1: potential-based shaping on goal progress.

The potential of a state is minus the number of steps the expert still needs to satisfy every
goal predicate from it, divided by ``ORACLE_SCALE``: the length of the searcher's script
(``rewardgym.envs.household.v1.planner.search_script``) from the current world, knowing what the
agent has seen and where it has looked, so a search step that finds nothing is progress, not a
mistake seen in hindsight. A state from which the goal is unreachable (after an irreversible
wrong step) counts as ``FAILURE_DISTANCE`` steps away. The dense reward of a step is the shaping
``gamma * phi(s') - phi(s)`` (``rewardgym.envs.shaping.potential_shaping``, re-exported as
``rewardgym.wrappers.composition.potential_shaping``; Ng et al. 1999): it leaves the optimal
policy unchanged, pays about ``1 / scale`` for each step the expert would take, charges about as
much for a step away, and a dead end at once. The oracle reads the
simulator's hidden state, which no judge sees: it is the reference that shows how much a good
dense reward adds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from rewardgym.envs.household.v1.env import HouseholdV1Env
from rewardgym.envs.household.v1.replay import reset_as_logged, with_envs
from rewardgym.envs.shaping import potential_shaping

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset
    from rewardgym.envs.trajectories.episode import Episode

ORACLE_SCALE = 10.0
"""Expert steps per unit of potential."""
FAILURE_DISTANCE = 30
"""How many steps away an unreachable goal counts (more than any expert script)."""


def potential(distance: int | None, scale: float = ORACLE_SCALE) -> float:
    """The potential of a state ``distance`` expert steps from the goal (``None``: unreachable)."""
    steps = FAILURE_DISTANCE if distance is None else min(distance, FAILURE_DISTANCE)
    return -steps / scale


def state_potential(env: HouseholdV1Env) -> float:
    """The potential of ``env``'s current state."""
    return potential(env.search_distance())


def episode_potentials(episode: Episode, env: HouseholdV1Env) -> np.ndarray:
    """The ``T + 1`` potentials of a logged Household-v1 episode, by replaying it in ``env``."""
    reset_as_logged(episode, env)
    values = [state_potential(env)]
    for action in episode.actions.tolist():
        env.step(int(action))
        values.append(state_potential(env))
    return np.asarray(values, dtype=np.float64)


def oracle_dense_rewards(
    data: TrajectoryDataset | Sequence[Episode], gamma: float
) -> list[np.ndarray]:
    """The oracle's per-step dense reward of every episode (potential-based shaping)."""
    return [potential_shaping(episode_potentials(ep, env), gamma) for ep, env in with_envs(data)]


__all__ = [
    "FAILURE_DISTANCE",
    "ORACLE_SCALE",
    "episode_potentials",
    "oracle_dense_rewards",
    "potential",
    "state_potential",
]
