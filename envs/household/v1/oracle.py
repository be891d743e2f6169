"""The oracle's dense reward for Household-v1: potential-based shaping on goal-predicate progress.

The potential of a state is the summed progress of the task's goal predicates, each in
[0, 1] by stages that any competent agent passes through, whatever the hidden placements:

- ``inside(x, c)`` / ``on(x, s)``: x seen (1/4), x held (2/4), held next to the target
  (3/4), in place (1);
- ``held(x)``: x seen (1/3), standing next to x (2/3), held (1);
- ``switched_on(d)`` and ``sitting(f)``: next to it (1/2), done (1);
- ``closed(c)`` and ``open(c)``: 0 or 1.

A state from which the goal is unreachable (after an irreversible wrong step) has potential
``FAILURE_POTENTIAL``. The dense reward of a step is the shaping
``gamma * phi(s') - phi(s)`` (``rewardgym.wrappers.composition.potential_shaping``, Ng et al.
1999), so it leaves the optimal policy unchanged, pays each stage as it is reached and
charges a dead end at once. Stages depend only on what the agent has seen, so a search step
that finds nothing is neutral rather than punished in hindsight. The oracle reads the
simulator's goal and state, which no judge sees: it is the reference that shows how much a
good dense reward adds.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

import numpy as np

from rewardgym.envs.household.v1.env import HouseholdV1Env
from rewardgym.envs.household.v1.tasks import Predicate, Task
from rewardgym.envs.household.v1.world import OBJECTS, World
from rewardgym.wrappers.composition import potential_shaping

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset
    from rewardgym.envs.trajectories.episode import Episode

FAILURE_POTENTIAL = -1.0
"""The potential of a state from which the goal can no longer be reached."""


def predicate_progress(pred: Predicate, world: World, seen: Collection[int]) -> float:
    """How far ``pred`` has come in ``world``, in [0, 1], given the objects seen so far."""
    if pred.holds(world):
        return 1.0
    kind, obj = pred.kind, pred.obj
    if kind in ("inside", "on"):
        if world.held != obj:
            return 0.25 if obj in seen else 0.0
        target = pred.target
        ready = world.near == target and (not OBJECTS[target].lidded or world.is_open[target])
        return 0.75 if ready else 0.5
    if kind == "held":
        if world.near == obj:
            return 2 / 3
        return 1 / 3 if obj in seen else 0.0
    if kind in ("switched_on", "sitting"):
        return 0.5 if world.near == obj else 0.0
    return 0.0


def goal_potential(task: Task, world: World, seen: Collection[int], reachable: bool) -> float:
    """The potential of a state: summed predicate progress, or ``FAILURE_POTENTIAL``."""
    if not reachable:
        return FAILURE_POTENTIAL
    return float(sum(predicate_progress(p, world, seen) for p in task.goal))


def state_potential(env: HouseholdV1Env) -> float:
    """The potential of ``env``'s current state."""
    return goal_potential(env.task, env.world, env.seen, not env.failure)


def episode_potentials(episode: Episode, env: HouseholdV1Env) -> np.ndarray:
    """The ``T + 1`` potentials of a logged Household-v1 episode, by replaying it in ``env``."""
    options = episode.extras.get("reset_options")
    if options is None:
        raise ValueError(
            f"episode {episode.episode_id} has no extras['reset_options'], so its hidden "
            "placements cannot be rebuilt; collect it again with rewardgym.envs.trajectories"
        )
    env.reset(seed=episode.seed, options=options)
    values = [state_potential(env)]
    for action in episode.actions.tolist():
        env.step(int(action))
        values.append(state_potential(env))
    return np.asarray(values, dtype=np.float64)


def oracle_dense_rewards(
    data: TrajectoryDataset | Sequence[Episode], gamma: float
) -> list[np.ndarray]:
    """The oracle's per-step dense reward of every episode (potential-based shaping)."""
    envs: dict[str, HouseholdV1Env] = {}
    out = []
    for episode in data:
        layout = episode.layout or "default"
        env = envs.setdefault(layout, HouseholdV1Env(layout=layout))
        out.append(potential_shaping(episode_potentials(episode, env), gamma))
    return out


__all__ = [
    "FAILURE_POTENTIAL",
    "episode_potentials",
    "goal_potential",
    "oracle_dense_rewards",
    "predicate_progress",
    "state_potential",
]
