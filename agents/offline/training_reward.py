"""The reward an offline agent trains on, read from the data set's own record, never guessed.

A data set holds the success flag (``Episode.rewards``) and, once labelled, a dense column beside
it (``Episode.dense_rewards``). A labeller (``rewardgym label coren``, the oracle's shaping, the
perfect judge) records the composition the labels were made for in the data set's metadata
(``info["reward_composition"]``, ``rewardgym.wrappers.composition.with_dense_labels``).
``training_config`` decides the reward of a run once: what ``OfflineConfig`` sets explicitly
wins, what it leaves unset comes from that record, and a data set with dense labels but no
record is refused with the fields to set. ``composed_rewards`` then applies the decided
composition; ``training_rewards`` does both for callers that only want the arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rewardgym.agents.offline.config import OfflineConfig
from rewardgym.errors import UserError
from rewardgym.wrappers.composition import COMPOSITION_KEY, compose_rewards, recorded_composition

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset

SUCCESS_REWARD_SOURCE = "success flag"
"""``info["reward_source"]`` of a collected data set: its ``rewards`` are the success flag."""


def training_config(data: TrajectoryDataset, config: OfflineConfig) -> OfflineConfig:
    """``config`` with ``reward`` (and, for a dense reward, ``dense_weight``) decided for ``data``.

    An explicit choice is checked against the data; an unset one is read from the composition
    ``data`` records: "composed" (or "dense" where the record weighs the success flag 0) with
    the record's lambda when every episode has a dense column, "success" when none has. It
    refuses, naming what to set, a data set whose dense labels record no composition (unless
    ``reward`` and ``dense_weight`` are both set), one where only some episodes have a dense
    column, and one whose ``rewards`` no longer hold the success flag
    (``TrajectoryDataset.with_rewards`` replaced them, e.g. with an already composed reward)
    while a dense column is there too, since composing again would count it twice. Each
    refusal is a :class:`~rewardgym.errors.UserError` (a ``ValueError``): the command prints
    it as one line, before its ``--out`` is claimed.
    """
    missing = [ep.episode_id for ep in data if ep.dense_rewards is None]
    has_dense = len(data) > 0 and not missing
    dense_source = data.info.get("dense_reward_source", "unknown")
    if config.reward in ("dense", "composed") and missing:
        raise UserError(
            f"OfflineConfig.reward={config.reward!r} needs a dense reward per step, but episodes "
            f"{missing[:5]} of the {data.env_id} data set have none ({len(missing)} of "
            f"{len(data)}); label it first (`rewardgym label coren`, or with_dense_labels with "
            "the oracle's shaping) or train with reward='success'"
        )
    if config.reward == "success":
        return config
    if config.reward is None:
        if missing and len(missing) < len(data):
            raise UserError(
                f"{len(missing)} of {len(data)} episodes of the {data.env_id} data set have no "
                f"dense reward (e.g. {missing[:5]}); set OfflineConfig.reward: 'success' ignores "
                "the dense column, 'dense' or 'composed' need one in every episode"
            )
        if not has_dense:
            return config.replace(reward="success")
        source = data.info.get("reward_source", SUCCESS_REWARD_SOURCE)
        if source != SUCCESS_REWARD_SOURCE:
            raise UserError(
                f"the {data.env_id} data set's rewards were replaced ({source!r}) and it also has "
                f"a dense column ({dense_source!r}): composing them would count the dense reward "
                "twice; set OfflineConfig.reward ('success' trains on the rewards as they are, "
                "'composed' with dense_weight composes them with the dense column)"
            )
    if config.reward is not None and config.dense_weight is not None:
        return config
    recorded = recorded_composition(data)
    if recorded is None:
        unset = [
            f"OfflineConfig.{name}"
            for name in ("reward", "dense_weight")
            if getattr(config, name) is None
        ]
        raise UserError(
            f"the {data.env_id} data set has dense labels ({dense_source!r}) but records no "
            f"reward composition (info[{COMPOSITION_KEY!r}] in its metadata), so the reward to "
            f"train on would be a guess: set {' and '.join(unset)} (reward 'composed' or "
            "'dense', dense_weight = lambda), or label it with `rewardgym label coren` or "
            "rewardgym.wrappers.composition.with_dense_labels, which record the composition"
        )
    reward = config.reward
    if reward is None:
        if recorded.success_weight not in (0.0, 1.0):
            raise UserError(
                f"the {data.env_id} data set records success_weight={recorded.success_weight}; "
                "OfflineConfig trains on the success flag at weight 1 ('composed') or 0 "
                "('dense'): set OfflineConfig.reward and OfflineConfig.dense_weight"
            )
        reward = "composed" if recorded.success_weight else "dense"
    weight = recorded.dense_weight if config.dense_weight is None else config.dense_weight
    return config.replace(reward=reward, dense_weight=weight)


def composed_rewards(data: TrajectoryDataset, config: OfflineConfig) -> list[np.ndarray]:
    """The per-step reward of every episode of ``data`` under an already decided ``config``.

    ``config`` is ``training_config``'s answer; this only applies ``config.composition``.
    """
    if config.reward == "success":
        return [np.asarray(ep.rewards, dtype=np.float32) for ep in data]
    composition = config.composition  # refuses a config whose reward is not decided
    out = []
    for ep in data:
        if ep.dense_rewards is None:
            raise ValueError(
                f"episode {ep.episode_id} of the {data.env_id} data set has no dense reward: "
                "decide the reward with training_config(data, config) first"
            )
        with np.errstate(over="ignore"):
            rewards = compose_rewards(ep.rewards, ep.dense_rewards, composition)
        if not np.isfinite(rewards).all():
            raise UserError(
                f"OfflineConfig.dense_weight={config.dense_weight}: the composed reward of "
                f"episode {ep.episode_id} is not finite; use a smaller --dense-weight"
            )
        out.append(rewards)
    return out


def training_rewards(data: TrajectoryDataset, config: OfflineConfig) -> list[np.ndarray]:
    """The per-step reward of every episode of ``data`` that ``config`` trains on.

    Example:
        >>> from rewardgym.envs.trajectories import CollectConfig, collect_dataset
        >>> from rewardgym.wrappers.composition import RewardComposition, with_dense_labels
        >>> data = collect_dataset(CollectConfig(episodes=1))
        >>> labelled = with_dense_labels(
        ...     data, [[0.5] * len(data[0])], source="demo", composition=RewardComposition(0.1)
        ... )
        >>> rewards = training_rewards(labelled, OfflineConfig())[0]
        >>> float(rewards[0])  # success 0 + the recorded 0.1 * 0.5 on a step that is not the last
        0.05000000074505806
    """
    return composed_rewards(data, training_config(data, config))


__all__ = [
    "SUCCESS_REWARD_SOURCE",
    "composed_rewards",
    "training_config",
    "training_rewards",
]
