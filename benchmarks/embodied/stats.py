"""95% intervals and paired differences over training seeds, tasks and held-out episodes.

A row's score varies with the training seed, with the tasks it is tested on and with the
episodes of each task. :class:`SplitResamples` holds every row's per-episode scores on one
split and one set of hierarchical bootstrap draws for them all
(``rewardgym.agents.evaluation.bootstrap.cluster_weights``): the training seeds with
replacement, then within each drawn seed the tasks, then within each drawn (seed, task) its
episodes. Every row plays the very same episodes (checked by their identities), and seed k of
one row is paired with seed k of another, so one draw picks the same units from every row: a
row's interval, its difference from a reference row and a position between two rows all come
from the same draws, and a difference's interval is paired.

:func:`seed_episode_interval` is the two-level bootstrap (seeds, then episodes) of one list of
scores, for scripts that score one row alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rewardgym.agents.evaluation.bootstrap import cluster_weights, percentile_interval

METRIC_FIELDS: dict[str, str] = {"sr": "success", "cgc": "cgc", "plan": "plan"}
"""Table metric -> the per-episode field of ``SplitResult.episodes()`` it averages."""


def _identities(name: str, split: str, per_seed: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    out = []
    for k, episodes in enumerate(per_seed):
        if "episode" not in episodes:
            raise ValueError(
                f"split {split!r}: row {name!r} seed #{k} has no episode identities ('episode'); "
                "score it with rewardgym.agents.evaluation.household.evaluate_household"
            )
        out.append([str(e) for e in episodes["episode"]])
    return out


@dataclass(frozen=True)
class SplitResamples:
    """Every row's per-episode scores (percent) on one split and one set of bootstrap draws."""

    split: str
    """The held-out (or validation) split."""
    scores: Mapping[str, Mapping[str, np.ndarray]]
    """Row name -> metric -> one score per unit (seed-major: seed 0's episodes, then seed 1's)."""
    weights: np.ndarray
    """``(draws, units)``: how often each (seed, episode) unit was drawn in each draw."""
    seeds: int
    """Training seeds per row."""

    @classmethod
    def build(
        cls,
        split: str,
        per_row: Mapping[str, Sequence[Mapping[str, Sequence[Any]]]],
        *,
        samples: int,
        seed: int = 0,
    ) -> SplitResamples:
        """The draws for ``per_row`` (row name -> one ``episodes()`` mapping per training seed).

        Raises ``ValueError`` naming the row, the seed and the first differing episode when a
        row did not play exactly the episodes of the first row, seed by seed.
        """
        if not per_row:
            raise ValueError(f"split {split!r}: no row to resample")
        names = list(per_row)
        first = _identities(names[0], split, per_row[names[0]])
        if not first or not first[0]:
            raise ValueError(f"split {split!r}: row {names[0]!r} has no scored episode")
        expected = first[0]
        for name in names:
            played = _identities(name, split, per_row[name])
            if len(played) != len(first):
                raise ValueError(
                    f"split {split!r}: row {name!r} has {len(played)} training seeds and row "
                    f"{names[0]!r} {len(first)}; paired differences need the same seeds per row"
                )
            for k, episodes in enumerate(played):
                if episodes != expected:
                    where = next(
                        (
                            i
                            for i, (a, b) in enumerate(zip(episodes, expected, strict=False))
                            if a != b
                        ),
                        min(len(episodes), len(expected)),
                    )
                    mine = episodes[where] if where < len(episodes) else "none"
                    theirs = expected[where] if where < len(expected) else "none"
                    raise ValueError(
                        f"split {split!r}: row {name!r} seed #{k} played other episodes than "
                        f"row {names[0]!r} seed #0 (episode {where}: {mine} vs {theirs}); every "
                        "row must be scored on the same EvalConfig for its differences to pair"
                    )
        n_seeds, n_episodes = len(first), len(expected)
        tasks = np.asarray(per_row[names[0]][0]["task"], dtype=np.float64)
        scores = {
            name: {
                metric: 100.0
                * np.concatenate(
                    [np.asarray(run[field], dtype=np.float64) for run in per_row[name]]
                )
                for metric, field in METRIC_FIELDS.items()
            }
            for name in names
        }
        labels = [np.repeat(np.arange(n_seeds), n_episodes), np.tile(tasks, n_seeds)]
        weights = cluster_weights(n_seeds * n_episodes, labels, samples=samples, seed=seed)
        return cls(split, scores, weights, n_seeds)

    def draws(self, row: str, metric: str) -> np.ndarray:
        """The row's mean ``metric`` in every draw."""
        return (self.weights @ self.scores[row][metric]) / self.weights.sum(axis=1)

    def mean(self, row: str, metric: str) -> float:
        """The row's mean ``metric`` over every seed and episode."""
        return float(np.mean(self.scores[row][metric]))

    def interval(self, row: str, metric: str) -> list[float]:
        """The 95% interval of the row's mean ``metric``."""
        return percentile_interval(self.draws(row, metric))

    def seed_std(self, row: str, metric: str) -> float:
        """The spread (population std) of the row's per-seed means."""
        return float(np.std(self.scores[row][metric].reshape(self.seeds, -1).mean(axis=1)))

    def difference(self, row: str, reference: str, metric: str) -> tuple[float, list[float]]:
        """``row`` minus ``reference`` (points of ``metric``) and its paired 95% interval.

        Identical rows give exactly 0 with a zero-width interval.
        """
        delta = self.scores[row][metric] - self.scores[reference][metric]
        values = (self.weights @ delta) / self.weights.sum(axis=1)
        return float(np.mean(delta)), percentile_interval(values)

    def position(
        self, row: str, low: str, high: str, metric: str = "sr"
    ) -> tuple[float, list[float]]:
        """Where ``row`` lands between ``low`` (0) and ``high`` (1), with its 95% interval.

        ``(row - low) / (high - low)`` in every draw; a draw (or the point) where ``high`` and
        ``low`` tie is undefined (NaN) and left out of the interval.
        """
        mine, lo, hi = (self.draws(name, metric) for name in (row, low, high))
        span = hi - lo
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(span != 0.0, (mine - lo) / np.where(span != 0.0, span, 1.0), np.nan)
        point_span = self.mean(high, metric) - self.mean(low, metric)
        point = (
            (self.mean(row, metric) - self.mean(low, metric)) / point_span
            if point_span
            else float("nan")
        )
        return point, percentile_interval(values)


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


__all__ = ["METRIC_FIELDS", "SplitResamples", "seed_episode_interval"]
