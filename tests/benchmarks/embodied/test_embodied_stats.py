"""The crossed bootstrap interval over training seeds and the evaluation episodes they all play."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.benchmarks.embodied.stats import seed_episode_interval


def test_the_interval_covers_the_mean_and_narrows_with_more_episodes() -> None:
    rng = np.random.default_rng(0)
    small = [rng.random(20) < 0.5 for _ in range(3)]
    large = [rng.random(400) < 0.5 for _ in range(3)]
    lo_s, hi_s = seed_episode_interval(small, resamples=500)
    lo_l, hi_l = seed_episode_interval(large, resamples=500)
    assert lo_s <= np.mean(np.concatenate(small)) <= hi_s
    assert hi_l - lo_l < hi_s - lo_s


def test_disagreeing_seeds_widen_the_interval() -> None:
    """Seeds at 0% and 100% give a wide interval even with many episodes each."""
    agree = [np.full(200, 0.5) for _ in range(3)]
    disagree = [np.zeros(200), np.ones(200), np.full(200, 0.5)]
    lo_a, hi_a = seed_episode_interval(agree, resamples=500)
    lo_d, hi_d = seed_episode_interval(disagree, resamples=500)
    assert hi_a - lo_a == 0.0 and hi_d - lo_d > 0.3


def test_the_task_level_widens_the_interval_where_tasks_differ() -> None:
    """Task 0 always succeeds, task 1 never: drawing tasks, not only episodes, shows it."""
    scores = [np.repeat([1.0, 0.0], 20) for _ in range(3)]
    tasks = [0.0] * 20 + [1.0] * 20
    lo_e, hi_e = seed_episode_interval(scores, resamples=500)
    lo_t, hi_t = seed_episode_interval(scores, tasks=tasks, resamples=500)
    assert (hi_t - lo_t) > (hi_e - lo_e) + 0.3 and lo_t == 0.0 and hi_t == 1.0


def test_constant_scores_and_errors() -> None:
    assert seed_episode_interval([[1.0, 1.0], [1.0, 1.0]]) == (1.0, 1.0)
    with pytest.raises(ValueError, match="at least one"):
        seed_episode_interval([[]])
    with pytest.raises(ValueError, match=r"scored \[1, 2\] episodes.*same episodes"):
        seed_episode_interval([[1.0, 1.0], [1.0]])
