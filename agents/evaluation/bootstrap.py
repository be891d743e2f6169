"""Bootstrap weights shared by every suite, nested or crossed, and the paired differences drawn from them.

A suite's score is a mean over units (held-out episodes, test sessions) that are not
independent: episodes of one training seed share that seed's network, episodes of one task share
its difficulty. :func:`cluster_weights` resamples units nested in clusters (Davison and Hinkley
1997, sec. 3.8): draw the outermost clusters with replacement, as many as there are; within each
drawn cluster, draw its sub-clusters the same way; within each drawn innermost cluster, draw its
units. One draw is a vector of weights over the units, how often each was drawn, so that any mean
is ``weights @ values / weights.sum()``.

The embodied suites are not nested but crossed: every training seed plays the very same held-out
episodes, so an easy task is easy for every seed. :func:`crossed_draws` resamples the two
factors independently, the seeds on one side and the tasks, then the episodes of each drawn
task, on the other, shared by every seed: the unit (seed, episode) is drawn as often as its seed
times its episode. This is the pigeonhole bootstrap of a crossed random-effects design (Owen
2007, "The pigeonhole bootstrap", Annals of Applied Statistics 1(2); McCullagh 2000,
"Resampling and exchangeable arrays", Bernoulli 6(2); the generalizability-theory bootstrap of
Brennan, Harris and Hanson 1987): its variance covers the seed and the episode components
(slightly over-covering their interaction, Owen's Theorem 1), where a bootstrap nested within
seeds would divide the shared episode component by the number of seeds.

Every statistic of a table is computed from the same draws. A difference of two rows scored
on the very same units is then paired: each draw takes the same seeds, tasks and episodes from
both, so what the units share (an easy task, a lucky layout) cancels, and its interval is the
percentile interval of the per-draw difference (Efron and Tibshirani 1993, ch. 13). A difference
is real when that interval excludes 0, noise otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
"""The level of every interval of the suites."""


def cluster_weights(
    n_units: int,
    clusters: Sequence[Sequence[object] | np.ndarray] = (),
    *,
    samples: int,
    seed: int = 0,
) -> np.ndarray:
    """``(samples, n_units)`` bootstrap weights of units nested in ``clusters``.

    ``clusters`` holds one label per unit for each level, outermost first (for example the
    training seed, then the task); a label names a cluster within its parent only. Without
    clusters this is the ordinary bootstrap over the units.

    Example:
        >>> w = cluster_weights(4, [[0, 0, 1, 1]], samples=3, seed=1)
        >>> w.shape, bool((w.sum(axis=1) == 4).all())
        ((3, 4), True)
    """
    if n_units < 1:
        raise ValueError(f"cluster_weights: n_units={n_units}; give at least one unit")
    if samples < 1:
        raise ValueError(f"cluster_weights: samples={samples}; use >= 1")
    levels = [np.asarray(labels) for labels in clusters]
    for depth, labels in enumerate(levels):
        if len(labels) != n_units:
            raise ValueError(
                f"cluster_weights: level {depth} has {len(labels)} labels for {n_units} units; "
                "give one label per unit at every level"
            )
    rng = np.random.default_rng(seed)
    weights = np.zeros((samples, n_units))

    def draw(members: np.ndarray, depth: int, counts: np.ndarray | None) -> None:
        """Draw the children of a node drawn ``counts`` times per sample (None: the root, once)."""
        if depth == len(levels):
            groups = [members[i : i + 1] for i in range(len(members))]
        else:
            labels = levels[depth][members]
            groups = [members[labels == key] for key in dict.fromkeys(labels.tolist())]
        size = len(groups)
        uniform = np.full(size, 1.0 / size)
        if counts is None:
            drawn = rng.multinomial(size, uniform, size=samples)
        else:
            drawn = rng.multinomial(counts * size, uniform)
        if depth == len(levels):
            weights[:, members] = drawn
            return
        for k, group in enumerate(groups):
            draw(group, depth + 1, drawn[:, k])

    draw(np.arange(n_units), 0, None)
    return weights


@dataclass(frozen=True)
class CrossedDraws:
    """Bootstrap draws of a seeds x episodes design: seed counts and episode weights, crossed."""

    seeds: np.ndarray
    """``(samples, n_seeds)``: how often each training seed was drawn."""
    episodes: np.ndarray
    """``(samples, n_episodes)``: how often each episode was drawn, the same for every seed."""

    @property
    def samples(self) -> int:
        """The number of draws."""
        return int(self.seeds.shape[0])

    def means(self, values: np.ndarray) -> np.ndarray:
        """The mean of ``values`` (``(n_seeds, n_episodes)``, a seed's scores a row) in every draw.

        The unit (seed s, episode e) weighs ``seeds[:, s] * episodes[:, e]``; a paired
        difference is the means of the rows' difference, ``means(row - reference)``.
        """
        grid = np.asarray(values, dtype=np.float64)
        n_seeds, n_episodes = self.seeds.shape[1], self.episodes.shape[1]
        if grid.shape != (n_seeds, n_episodes):
            raise ValueError(
                f"CrossedDraws.means: values of shape {grid.shape}, draws of {n_seeds} seeds x "
                f"{n_episodes} episodes; give one row of episode scores per training seed"
            )
        total = np.einsum("bs,se,be->b", self.seeds, grid, self.episodes)
        return total / (self.seeds.sum(axis=1) * self.episodes.sum(axis=1))


def crossed_draws(
    n_seeds: int,
    n_episodes: int,
    tasks: Sequence[object] | np.ndarray | None = None,
    *,
    samples: int,
    seed: int = 0,
) -> CrossedDraws:
    """Crossed bootstrap draws: training seeds, and (shared by every seed) tasks, then episodes.

    ``tasks`` holds the task of every episode (episodes of one task need not be adjacent);
    without it the episodes are drawn directly. The episode weights are drawn first, from the
    ``seed`` stream alone, so that identical copies of one seed give exactly the one-seed draws.

    Example:
        >>> d = crossed_draws(3, 4, [0, 0, 1, 1], samples=5, seed=1)
        >>> d.seeds.shape, d.episodes.shape, bool((d.seeds.sum(axis=1) == 3).all())
        ((5, 3), (5, 4), True)
        >>> bool((d.means(np.ones((3, 4))) == 1.0).all())
        True
    """
    if n_seeds < 1:
        raise ValueError(f"crossed_draws: n_seeds={n_seeds}; give at least one training seed")
    labels = [] if tasks is None else [tasks]
    episodes = cluster_weights(n_episodes, labels, samples=samples, seed=seed)
    rng = np.random.default_rng([seed, 1])
    seeds = rng.multinomial(n_seeds, np.full(n_seeds, 1.0 / n_seeds), size=samples)
    return CrossedDraws(seeds.astype(np.float64), episodes)


def percentile_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> list[float]:
    """The ``[lo, hi]`` percentile interval of bootstrap ``values`` (NaN draws are left out)."""
    tail = 100.0 * (1.0 - confidence) / 2.0
    kept = np.asarray(values, dtype=np.float64)
    kept = kept[~np.isnan(kept)]
    if kept.size == 0:
        return [float("nan"), float("nan")]
    low, high = np.percentile(kept, [tail, 100.0 - tail])
    return [float(low), float(high)]


def is_real(interval: Sequence[float]) -> bool:
    """Whether a difference's interval excludes 0 (the difference is not sampling noise)."""
    return interval[0] > 0.0 or interval[1] < 0.0


def verdict(interval: Sequence[float]) -> str:
    """``real`` when a difference's interval excludes 0, else ``noise``."""
    return "real" if is_real(interval) else "noise"


def format_difference(point: float, interval: Sequence[float]) -> str:
    """A paired difference as a table cell: ``+3.4 [+1.9, +4.9] real``.

    Example:
        >>> format_difference(-1.25, [-3.0, 0.5])
        '-1.2 [-3.0, +0.5] noise'
    """
    low, high = interval
    return f"{point:+.1f} [{low:+.1f}, {high:+.1f}] {verdict(interval)}"


__all__ = [
    "CONFIDENCE",
    "CrossedDraws",
    "cluster_weights",
    "crossed_draws",
    "format_difference",
    "is_real",
    "percentile_interval",
    "verdict",
]
