"""95% intervals over training seeds and evaluation episodes: a two-level (cluster) bootstrap.

A row's score varies with the training seed and with the episodes it is tested on. The
interval resamples both, as a hierarchical bootstrap does: draw the seeds with replacement,
then, within each drawn seed, its episodes with replacement, and take the mean; the 2.5th and
97.5th percentiles of that mean over ``resamples`` draws are the interval. With one seed it
reduces to the ordinary bootstrap over episodes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def seed_episode_interval(
    per_seed: Sequence[Sequence[float] | np.ndarray],
    *,
    resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """The bootstrap interval of the mean of ``per_seed`` (one list of episode scores per seed).

    Example:
        >>> lo, hi = seed_episode_interval([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
        >>> 0.0 <= lo <= 0.625 <= hi <= 1.0
        True
    """
    groups = [np.asarray(g, dtype=np.float64) for g in per_seed if len(g)]
    if not groups:
        raise ValueError("seed_episode_interval needs at least one seed with episodes")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level={level}: use a probability in (0, 1)")
    rng = np.random.default_rng(seed)
    n_seeds = len(groups)
    sizes = np.array([len(g) for g in groups])
    means = np.empty(resamples)
    for r in range(resamples):
        picked = rng.integers(n_seeds, size=n_seeds)
        total, count = 0.0, 0
        for s in picked:
            draw = groups[s][rng.integers(sizes[s], size=sizes[s])]
            total += float(draw.sum())
            count += int(sizes[s])
        means[r] = total / count
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)


def intervals_overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether two ``[low, high]`` intervals share a point."""
    return not (a[1] < b[0] or b[1] < a[0])


__all__ = ["intervals_overlap", "seed_episode_interval"]
