"""One reward composition for offline data and online envs: success flag plus a scaled dense term.

COREN trains on ``r_t = f_s * 1[t = T] + lambda * r_hat_t``: the trajectory's success flag on
its last step, plus a dense per-step reward ``r_hat`` (a judge ensemble's, or the oracle's
shaping) scaled by ``lambda``. The success flag is never dropped. Data sets keep the two parts
as separate columns (``Episode.rewards`` is the success reward, ``Episode.dense_rewards`` the
dense one), so the composition and its scale are chosen when an agent is trained; online
wrappers call the same function at every step.

``potential_shaping`` is the oracle's dense term (Ng, Harada and Russell, ICML 1999): with a
potential ``phi`` over states, ``F_t = gamma * phi(s_{t+1}) - phi(s_t)`` leaves the optimal
policy unchanged while telling every step how much closer it got. Its maths live one room down,
in ``rewardgym.envs.shaping`` (the Household-v1 oracle in ``envs/`` needs them, and envs import
nothing from wrappers); this module re-exports them under their public name.

A labelled data set is a contract: ``with_dense_labels`` writes the dense column together with
the composition it was made for (``info["reward_composition"]`` in the data set's metadata), and
offline training reads it back with ``recorded_composition`` instead of guessing. lambda's
default lives in one place, ``RewardComposition.dense_weight``; a run that wants another scale
sets it explicitly (``OfflineConfig.dense_weight``, a tuned suite row) and records what it used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np

from rewardgym.bounds import NON_NEGATIVE, check_fields
from rewardgym.envs.shaping import potential_shaping

if TYPE_CHECKING:
    from rewardgym.envs.trajectories.dataset import TrajectoryDataset

COMPOSITION_KEY = "reward_composition"
"""The key of a labelled data set's ``info`` (its metadata) that records its composition."""


@dataclass(frozen=True)
class RewardComposition:
    """How the success reward and a dense reward combine into the reward an agent learns from."""

    dense_weight: Annotated[float, NON_NEGATIVE] = 1.0
    """lambda, the scale of the dense term (chosen per reward scheme on validation)."""
    success_weight: Annotated[float, NON_NEGATIVE] = 1.0
    """The weight of the success flag (1: COREN's f_s)."""

    def __post_init__(self) -> None:
        """Reject negative weights, naming the field."""
        check_fields(self)
        for name in ("dense_weight", "success_weight"):
            if getattr(self, name) < 0:
                raise ValueError(f"RewardComposition.{name}={getattr(self, name)}: use >= 0")

    def as_dict(self) -> dict[str, float]:
        """The weights as JSON-ready data (what a labelled data set records)."""
        return asdict(self)


def compose_rewards(
    success: np.ndarray | Sequence[float] | float,
    dense: np.ndarray | Sequence[float] | float,
    composition: RewardComposition,
) -> np.ndarray:
    """``success_weight * success + dense_weight * dense``, elementwise, as float32.

    ``success`` is the per-step success reward (1.0 on the step that reaches the goal, else 0);
    ``dense`` the per-step dense reward (NaN, an abstention, counts as 0).

    Example:
        >>> compose_rewards([0.0, 0.0, 1.0], [0.5, -1.0, 2.0], RewardComposition(0.1)).tolist()
        [0.05000000074505806, -0.10000000149011612, 1.2000000476837158]
    """
    s = np.asarray(success, dtype=np.float64)
    d = np.nan_to_num(np.asarray(dense, dtype=np.float64), nan=0.0)
    out = composition.success_weight * s + composition.dense_weight * d
    return np.asarray(out, dtype=np.float32)


def with_dense_labels(
    data: TrajectoryDataset,
    dense: Sequence[np.ndarray | Sequence[float]],
    *,
    source: str,
    composition: RewardComposition,
) -> TrajectoryDataset:
    """``data`` with a dense reward column and the composition it was made for, recorded.

    The input is untouched. ``source`` says where the dense reward came from
    (``info["dense_reward_source"]``); ``composition`` is written to
    ``info["reward_composition"]``, which offline training reads back.

    Example:
        >>> from rewardgym.envs.trajectories import CollectConfig, collect_dataset
        >>> data = collect_dataset(CollectConfig(episodes=1))
        >>> labelled = with_dense_labels(
        ...     data, [[0.5] * len(data[0])], source="demo", composition=RewardComposition(0.1)
        ... )
        >>> recorded_composition(labelled)
        RewardComposition(dense_weight=0.1, success_weight=1.0)
    """
    labelled = data.with_dense_rewards(dense, source=source)
    labelled.info[COMPOSITION_KEY] = composition.as_dict()
    return labelled


def recorded_composition(data: TrajectoryDataset) -> RewardComposition | None:
    """The composition ``data``'s metadata records (``None``: it records none).

    A record that is not a mapping of the two weights is refused, naming the field and what
    to do, never read as a guess.
    """
    record = data.info.get(COMPOSITION_KEY)
    if record is None:
        return None
    names = {f.name for f in fields(RewardComposition)}
    where = f"the {data.env_id} data set's info[{COMPOSITION_KEY!r}]={record!r}"
    if not isinstance(record, Mapping) or not set(record) <= names:
        raise ValueError(
            f"{where}: expected a mapping of {sorted(names)}; label the data set again "
            "(`rewardgym label coren`) or record one with with_dense_labels"
        )
    values: dict[str, Any] = dict(record)
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{where}: {name} must be a number; label the data set again")
    try:
        return RewardComposition(**values)
    except ValueError as err:
        raise ValueError(f"{where}: {err}; label the data set again") from err


__all__ = [
    "COMPOSITION_KEY",
    "RewardComposition",
    "compose_rewards",
    "potential_shaping",
    "recorded_composition",
    "with_dense_labels",
]
