"""A trajectory data set as a d3rlpy ``MDPDataset``: the offline agents' input, with encoded observations."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from d3rlpy.dataset import MDPDataset

    from rewardgym.envs.trajectories.dataset import TrajectoryDataset
    from rewardgym.envs.trajectories.encoding import ObservationEncoder


def to_mdp_dataset(dataset: TrajectoryDataset, encoder: ObservationEncoder) -> MDPDataset:
    """A d3rlpy ``MDPDataset`` of ``dataset`` with observations encoded by ``encoder``.

    A terminated episode contributes its ``T`` transitions with ``terminals`` set on the
    last; a truncated one also contributes its final observation (dummy action 0, reward 0)
    with ``timeouts`` set, so that d3rlpy keeps all ``T`` transitions and bootstraps from it.
    """
    from d3rlpy.constants import ActionSpace
    from d3rlpy.dataset import MDPDataset

    from rewardgym.agents.offline.logs import quiet_d3rlpy_logs

    quiet_d3rlpy_logs()  # MDPDataset logs its signatures at info level, in colour
    if not len(dataset):
        raise ValueError("the data set has no episodes to convert")
    if encoder.kind == "text":
        # One batched pass over every unique text, instead of one call per episode.
        encoder.embedder.embed([t for ep in dataset for t in ep.observations["text"]])
    observations, actions, rewards, terminals, timeouts = [], [], [], [], []
    for ep in dataset:
        encoded = encoder.encode_episode(ep)
        terminated = bool(ep.terminations[-1])
        keep = len(ep) if terminated else len(ep) + 1
        observations.append(encoded[:keep])
        acts = np.asarray(ep.actions, dtype=np.int64)
        rews = np.asarray(ep.rewards, dtype=np.float32)
        if not terminated:
            acts, rews = np.append(acts, 0), np.append(rews, 0.0).astype(np.float32)
        actions.append(acts)
        rewards.append(rews)
        term, tout = np.zeros(keep, dtype=np.float32), np.zeros(keep, dtype=np.float32)
        (term if terminated else tout)[-1] = 1.0
        terminals.append(term)
        timeouts.append(tout)
    return MDPDataset(
        observations=np.concatenate(observations).astype(np.float32),
        actions=np.concatenate(actions).reshape(-1, 1),
        rewards=np.concatenate(rewards).reshape(-1, 1),
        terminals=np.concatenate(terminals),
        timeouts=np.concatenate(timeouts),
        action_space=ActionSpace.DISCRETE,
        action_size=len(dataset.action_names),
    )


__all__ = ["to_mdp_dataset"]
