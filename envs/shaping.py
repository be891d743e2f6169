"""Potential-based reward shaping (Ng, Harada and Russell, ICML 1999), the pure maths an env's oracle needs.

It lives in ``envs/`` because ``envs/household/v1/oracle.py`` turns its goal-progress potential
into per-step rewards and envs import nothing from ``wrappers/``; the reward room re-exports it
as ``rewardgym.wrappers.composition.potential_shaping``, its public name.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def potential_shaping(potentials: np.ndarray | Sequence[float], gamma: float) -> np.ndarray:
    """The shaping rewards ``gamma * phi[t + 1] - phi[t]`` of ``T + 1`` potentials (``T`` values).

    With a potential ``phi`` over states, ``F_t = gamma * phi(s_{t+1}) - phi(s_t)`` leaves the
    optimal policy unchanged while telling every step how much closer it got.

    Example:
        >>> potential_shaping([-3.0, -2.0, 0.0], gamma=1.0).tolist()
        [1.0, 2.0]
    """
    phi = np.asarray(potentials, dtype=np.float64)
    if phi.ndim != 1 or len(phi) < 1:
        raise ValueError(f"potentials must be a 1-D array of T + 1 values, got shape {phi.shape}")
    if not 0.0 < gamma <= 1.0:
        raise ValueError(f"gamma={gamma}: use a discount in (0, 1]")
    return np.asarray(gamma * phi[1:] - phi[:-1], dtype=np.float32)


__all__ = ["potential_shaping"]
