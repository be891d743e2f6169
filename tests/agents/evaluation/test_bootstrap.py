"""Cluster bootstrap weights and paired-difference helpers shared by every suite (issue 31)."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.agents.evaluation.bootstrap import (
    cluster_weights,
    format_difference,
    is_real,
    percentile_interval,
    verdict,
)


def test_without_clusters_it_is_the_ordinary_bootstrap_draw_for_draw() -> None:
    """The shop suite's session bootstrap keeps its numbers: the same multinomial draws."""
    expected = np.random.default_rng(3).multinomial(40, np.full(40, 1 / 40), size=200)
    assert np.array_equal(cluster_weights(40, samples=200, seed=3), expected)


def test_nested_draws_take_whole_clusters_of_units() -> None:
    seeds = np.repeat([0, 1, 2], 10)  # 3 seeds x 2 tasks x 5 episodes
    tasks = np.tile(np.repeat([0, 1], 5), 3)
    weights = cluster_weights(30, [seeds, tasks], samples=500, seed=0)
    assert weights.shape == (500, 30) and (weights.sum(axis=1) == 30).all()
    per_seed = weights.reshape(500, 3, 10).sum(axis=2)
    assert (per_seed % 10 == 0).all()  # a seed is drawn whole, 0, 1, 2 or 3 times
    per_cell = weights.reshape(500, 3, 2, 5).sum(axis=3)
    assert (per_cell % 5 == 0).all()  # so is a (seed, task)
    assert (per_seed == 0).any() and (per_seed == 30).any()  # seeds do get dropped and repeated


def test_labels_must_cover_every_unit() -> None:
    with pytest.raises(ValueError, match="level 0 has 3 labels for 4 units"):
        cluster_weights(4, [[0, 0, 1]], samples=2)
    with pytest.raises(ValueError, match="at least one unit"):
        cluster_weights(0, samples=2)


def test_intervals_verdicts_and_cells() -> None:
    assert percentile_interval(np.array([np.nan, 1.0, 1.0])) == [1.0, 1.0]
    assert all(np.isnan(percentile_interval(np.array([np.nan]))))
    assert is_real([0.5, 2.0]) and is_real([-2.0, -0.1]) and not is_real([-0.1, 2.0])
    assert verdict([0.0, 0.0]) == "noise"  # identical rows are never a difference
    assert format_difference(3.44, [1.9, 4.91]) == "+3.4 [+1.9, +4.9] real"
