"""The crossed bootstrap of seeds x episodes: its draws, its width against the nested one, its coverage (issue 47)."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.agents.evaluation.bootstrap import (
    cluster_weights,
    crossed_draws,
    percentile_interval,
)

TASKS = np.repeat(np.arange(10), 4)  # 10 tasks x 4 episodes, every seed plays all 40


def _nested_interval(grid: np.ndarray, tasks: np.ndarray, samples: int) -> list[float]:
    """The old scheme: seeds, then tasks within each drawn seed, then episodes."""
    n_seeds, n_episodes = grid.shape
    labels = [np.repeat(np.arange(n_seeds), n_episodes), np.tile(tasks, n_seeds)]
    weights = cluster_weights(grid.size, labels, samples=samples, seed=0)
    return percentile_interval(weights @ grid.ravel() / weights.sum(axis=1))


def test_a_draw_weighs_each_unit_by_its_seed_times_its_episode() -> None:
    draws = crossed_draws(3, 40, TASKS, samples=200, seed=4)
    grid = np.random.default_rng(0).random((3, 40))
    full = (draws.seeds[:, :, None] * draws.episodes[:, None, :]).reshape(200, -1)
    assert np.allclose(draws.means(grid), full @ grid.ravel() / full.sum(axis=1))
    per_task = draws.episodes.reshape(200, 10, 4).sum(axis=2)  # TASKS: 4 in a row each
    assert (per_task % 4 == 0).all()  # a task is drawn whole, the same for every seed
    assert (draws.seeds == 0).any() and (draws.seeds >= 2).any()
    with pytest.raises(ValueError, match="2 seeds x 40 episodes"):
        crossed_draws(2, 40, TASKS, samples=2).means(grid)
    with pytest.raises(ValueError, match="at least one training seed"):
        crossed_draws(0, 40, TASKS, samples=2)


def test_a_row_minus_itself_is_exactly_zero_in_every_draw() -> None:
    grid = np.random.default_rng(1).random((5, 40))
    draws = crossed_draws(5, 40, TASKS, samples=500, seed=0)
    assert (draws.means(grid - grid) == 0.0).all()


def test_identical_seeds_give_the_one_seed_interval_sqrt_seeds_wider_than_nested() -> None:
    """Copies of one seed carry one seed's information: crossed says so, nested does not.

    With S identical seeds the crossed mean ignores the seed draw, so it is the one-seed
    bootstrap draw for draw; nested resamples the episodes of each drawn seed independently,
    as if there were S x E independent episodes, so its spread is about 1/sqrt(S) of it.
    """
    rng = np.random.default_rng(2)
    rates = np.repeat(rng.uniform(0.0, 0.9, 10), 4)
    one = (rng.random(40) < rates).astype(float)
    copies = np.tile(one, (4, 1))
    crossed = crossed_draws(4, 40, TASKS, samples=4000, seed=0).means(copies)
    alone = crossed_draws(1, 40, TASKS, samples=4000, seed=0).means(one[None, :])
    assert np.allclose(crossed, alone, rtol=0, atol=1e-12)
    low, high = percentile_interval(crossed)
    nested_low, nested_high = _nested_interval(copies, TASKS, 4000)
    assert low <= nested_low and nested_high <= high
    assert (high - low) / (nested_high - nested_low) == pytest.approx(2.0, abs=0.3)


def test_coverage_on_a_simulated_crossed_design_is_near_95_and_nested_falls_short() -> None:
    """200 data sets of 8 seeds x 16 tasks x 4 episodes with seed, task, episode and noise effects.

    The true mean is 0; the crossed interval covers it about 95% of the time, the nested one,
    which divides the shared task and episode variance by the seeds, clearly less.
    """
    seeds, tasks, per_task, samples = 8, 16, 4, 400
    labels = np.repeat(np.arange(tasks), per_task)
    episodes = tasks * per_task
    rng = np.random.default_rng(0)
    crossed_hits = nested_hits = 0
    for r in range(200):
        grid = (
            rng.normal(0.0, 1.0, seeds)[:, None]
            + rng.normal(0.0, 1.5, tasks)[labels][None, :]
            + rng.normal(0.0, 1.0, episodes)[None, :]
            + rng.normal(0.0, 1.0, (seeds, episodes))
        )
        draws = crossed_draws(seeds, episodes, labels, samples=samples, seed=r)
        low, high = percentile_interval(draws.means(grid))
        crossed_hits += low <= 0.0 <= high
        low, high = _nested_interval(grid, labels, samples)
        nested_hits += low <= 0.0 <= high
    assert 0.90 <= crossed_hits / 200 <= 0.99
    assert nested_hits / 200 <= crossed_hits / 200 - 0.08
