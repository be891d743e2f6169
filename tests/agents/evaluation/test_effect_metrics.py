"""The field's A/B scores: directional alignment, Pearson and Spearman correlation, mean absolute effect error."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from rewardgym.agents.evaluation.effect_metrics import (
    directional_alignment,
    field_scores,
    mean_absolute_error,
    paired_difference,
    pearson,
    spearman,
)


def constructed(n_changes: int = 20, aligned: int = 14, significant: int = 16, seed: int = 0):
    """True effects whose first ``significant`` entries are significant, and a simulator aligned on exactly ``aligned`` of those."""
    rng = np.random.default_rng(seed)
    truth = rng.choice([-1.0, 1.0], n_changes) * rng.uniform(0.01, 0.08, n_changes)
    counted = np.arange(n_changes) < significant
    sim = np.abs(rng.normal(0.03, 0.01, n_changes)) * np.sign(truth)
    sim[aligned:significant] *= -1  # the wrong direction on the rest of the significant ones
    return sim, truth, counted


def test_alignment_recovers_a_known_share() -> None:
    sim, truth, counted = constructed(aligned=14, significant=16)
    assert directional_alignment(sim, truth, counted) == pytest.approx(14 / 16)
    # Changes that are not significant do not count, whatever the simulator says there.
    flipped = sim.copy()
    flipped[16:] *= -1
    assert directional_alignment(flipped, truth, counted) == pytest.approx(14 / 16)
    assert math.isnan(directional_alignment(sim, truth, np.zeros(20, dtype=bool)))
    with pytest.raises(ValueError, match="one simulated effect"):
        directional_alignment(sim[:-1], truth, counted)


def test_no_predicted_effect_is_not_aligned() -> None:
    _, truth, counted = constructed()
    quitter = np.zeros_like(truth)  # an always-terminate simulator: no effect anywhere
    assert directional_alignment(quitter, truth, counted) == 0.0
    assert directional_alignment(np.full_like(truth, np.nan), truth, counted) == 0.0
    assert pearson(quitter, truth) == 0.0 and spearman(quitter, truth) == 0.0
    assert mean_absolute_error(quitter, truth) == pytest.approx(np.abs(truth).mean())


def test_correlations_recover_known_values() -> None:
    rng = np.random.default_rng(3)
    truth = rng.normal(0, 0.03, 20)
    assert pearson(0.5 * truth + 0.01, truth) == pytest.approx(1.0)
    assert pearson(-truth, truth) == pytest.approx(-1.0)
    noisy = truth + rng.normal(0, 0.03, 20)
    assert pearson(noisy, truth) == pytest.approx(stats.pearsonr(noisy, truth).statistic)
    monotone = np.exp(truth * 50)  # a nonlinear but order-keeping simulator
    assert spearman(monotone, truth) == pytest.approx(1.0) and pearson(monotone, truth) < 1.0
    tied = np.round(noisy, 2)
    assert spearman(tied, truth) == pytest.approx(stats.spearmanr(tied, truth).statistic)
    # An undefined true effect leaves its change out; an undefined simulated one predicts 0.
    truth_gap = truth.copy()
    truth_gap[0] = np.nan
    assert pearson(noisy, truth_gap) == pytest.approx(pearson(noisy[1:], truth[1:]))
    sim_gap = noisy.copy()
    sim_gap[0] = np.nan
    with_zero = noisy.copy()
    with_zero[0] = 0.0
    assert pearson(sim_gap, truth) == pytest.approx(pearson(with_zero, truth))
    assert math.isnan(pearson(truth[:2], truth[:2])), "two changes give no correlation"


def test_field_scores_put_each_score_inside_its_interval() -> None:
    sim, truth, counted = constructed(aligned=12, significant=16)
    rng = np.random.default_rng(1)
    sim_draws = sim + rng.normal(0, 0.004, (300, 20))
    truth_draws = truth + rng.normal(0, 0.004, (300, 20))
    scores = field_scores(sim, truth, counted, sim_draws, truth_draws)
    assert scores.alignment.value == pytest.approx(0.75)
    assert (scores.aligned, scores.counted, scores.changes) == (12, 16, 20)
    for estimate in (scores.alignment, scores.pearson, scores.spearman, scores.mae):
        lo, hi = estimate.ci
        assert lo <= estimate.value <= hi
    assert scores.pearson.value == pytest.approx(pearson(sim, truth))
    exact = field_scores(sim, truth, counted, np.tile(sim, (50, 1)), np.tile(truth, (50, 1)))
    assert exact.pearson.ci == pytest.approx((exact.pearson.value,) * 2)
    row = scores.as_dict()
    assert row["counted"] == 16 and len(row["alignment_ci"]) == 2
    with pytest.raises(ValueError, match="n_boot, changes"):
        field_scores(sim, truth, counted, sim_draws[:, :3], truth_draws)


def test_a_paired_difference_cancels_the_resampling_noise_both_rows_share() -> None:
    """Two simulators scored on the same resamples: the truth's noise is common to both, so the
    paired interval of their difference is narrower than either row's own interval."""
    sim, truth, counted = constructed(aligned=12, significant=16)
    rng = np.random.default_rng(2)
    truth_draws = truth + rng.normal(0, 0.02, (400, 20))  # the shared, dominant noise
    better = field_scores(sim, truth, counted, np.tile(sim, (400, 1)), truth_draws)
    worse_sim = sim + rng.normal(0, 0.03, 20)
    worse = field_scores(worse_sim, truth, counted, np.tile(worse_sim, (400, 1)), truth_draws)
    diff = paired_difference(better, worse, "pearson")
    assert diff.value == pytest.approx(better.pearson.value - worse.pearson.value)
    assert diff.ci[0] <= diff.value <= diff.ci[1]
    assert diff.ci[1] - diff.ci[0] < better.pearson.ci[1] - better.pearson.ci[0]
    same = paired_difference(better, better, "mae")
    assert (same.value, *same.ci) == (0.0, 0.0, 0.0)
    fewer = field_scores(sim, truth, counted, np.tile(sim, (50, 1)), truth_draws[:50])
    with pytest.raises(ValueError, match="same resamples"):
        paired_difference(better, fewer, "pearson")
    with pytest.raises(ValueError, match="unknown score 'auc'"):
        paired_difference(better, worse, "auc")
