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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

import numpy as np

from rewardgym.bounds import NON_NEGATIVE, check_fields
from rewardgym.envs.shaping import potential_shaping


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


__all__ = ["RewardComposition", "compose_rewards", "potential_shaping"]
