"""The statistics a labelling run reports: the held-out split, point-biserial correlation, cold cost.

Pure functions over arrays, shared by orchestrator fitting (``dense_labels``), the judge probe
(``judging``) and the report (``label_report``).
"""

from __future__ import annotations

import numpy as np


def cold_cost(call_seconds: float, calls: int) -> float | None:
    """Seconds per 1,000 backend calls (``None`` without calls: the cache answered everything).

    Example:
        >>> cold_cost(4.5, 1500), cold_cost(0.0, 0)
        (3.0, None)
    """
    return call_seconds / calls * 1000 if calls else None


def split_episodes(n: int, holdout_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Train and held-out episode indices: a seeded permutation cut at ``holdout_fraction``."""
    order = np.random.default_rng(seed).permutation(n)
    cut = round(n * holdout_fraction)
    if holdout_fraction > 0 and n > 1:
        cut = min(max(cut, 1), n - 1)
    return np.sort(order[cut:]), np.sort(order[:cut])


def point_biserial(values: np.ndarray, flags: np.ndarray) -> float:
    """The point-biserial correlation of ``values`` with binary ``flags`` (Pearson's r; NaN if constant)."""
    x = np.asarray(values, dtype=np.float64)
    y = np.asarray(flags, dtype=np.float64)
    if x.size < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


__all__ = ["cold_cost", "point_biserial", "split_episodes"]
