"""How well a simulator's A/B effects over many store changes match the ground truth's, in the field's terms.

Published shopper-simulator studies score a simulator over a set of A/B tests by the share of
tests whose effect it gets the direction of (SimGym, arXiv 2605.19219: 77% of 50 real tests;
SimAB, arXiv 2603.01024: 67% of 47) and by the correlation of simulated with real effects
(SimGym: Pearson r = 0.55). These are pure functions over plain arrays, one entry per store
change (a simulator's effect and the ground truth's):

* :func:`directional_alignment`: the share of the counted changes (those whose true effect is
  significant) where the simulated effect has the true effect's sign. A simulator that
  predicts no effect (exactly 0, or undefined: no visit pair completed, no order to average)
  is not aligned, so a simulator that always terminates scores 0;
* :func:`pearson` and :func:`spearman`: the correlation of simulated with true effects over
  all changes. A simulator whose effects do not vary across changes ranks no change above
  another: its correlation is 0 by definition (Pearson's r is undefined there);
* :func:`mean_absolute_error`: the mean absolute difference of simulated and true effects.

An undefined simulated effect counts as a predicted 0 throughout; a change whose true effect
is undefined is left out. :func:`field_scores` adds 95% percentile intervals from bootstrap
draws of both sides' effects that resample the same intents for every change (the
significant set stays the one the full sample gives).

Example:
    >>> import numpy as np
    >>> truth = np.array([-0.05, 0.02, -0.03, 0.0])
    >>> directional_alignment(np.array([-0.04, -0.01, -0.02, 0.01]), truth, truth != 0)
    0.6666666666666666
    >>> directional_alignment(np.zeros(4), truth, truth != 0)
    0.0
    >>> round(pearson(2 * truth, truth), 6), spearman(np.zeros(4), truth)
    (1.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from rewardgym.agents.evaluation.fidelity import Estimate

FIELD_METRICS: tuple[str, ...] = ("alignment", "pearson", "spearman", "mae")
"""The scores of :func:`field_scores`, in table order."""


def predicted(effects: np.ndarray) -> np.ndarray:
    """``effects`` as predictions: an undefined (NaN) effect predicts no effect (0)."""
    values = np.asarray(effects, dtype=float)
    return np.where(np.isfinite(values), values, 0.0)


def _defined(simulated: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The changes whose true effect is defined, with the simulated effects as predictions."""
    truth = np.asarray(truth, dtype=float)
    simulated = np.asarray(simulated, dtype=float)
    if simulated.shape != truth.shape or truth.ndim != 1:
        raise ValueError(
            "simulated and true effects must be 1-D arrays of one entry per store change "
            f"(got shapes {simulated.shape} and {truth.shape})"
        )
    keep = np.isfinite(truth)
    return predicted(simulated)[keep], truth[keep]


def directional_alignment(simulated: np.ndarray, truth: np.ndarray, counted: np.ndarray) -> float:
    """Share of the ``counted`` changes whose simulated effect has the true effect's nonzero sign; NaN when none is counted.

    A simulated effect of exactly 0, or an undefined one, is not aligned: it predicts no effect.
    """
    sim, tru = np.asarray(simulated, dtype=float), np.asarray(truth, dtype=float)
    mask = np.asarray(counted, dtype=bool)
    if not (sim.shape == tru.shape == mask.shape and tru.ndim == 1):
        raise ValueError(
            "directional_alignment needs one simulated effect, true effect and counted flag per "
            f"change (got shapes {sim.shape}, {tru.shape} and {mask.shape})"
        )
    mask = mask & np.isfinite(tru) & (tru != 0)
    if not mask.any():
        return math.nan
    aligned = np.sign(predicted(sim[mask])) == np.sign(tru[mask])
    return float(aligned.mean())


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of paired values: 0 when either side is constant, NaN with fewer than 3 pairs."""
    if len(x) < 3:
        return math.nan
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    dx, dy = x - x.mean(), y - y.mean()
    scale = math.sqrt(float((dx * dx).sum()) * float((dy * dy).sum()))
    return float(np.clip((dx * dy).sum() / scale, -1.0, 1.0))


def pearson(simulated: np.ndarray, truth: np.ndarray) -> float:
    """Pearson correlation of simulated with true effects over the changes (0 for a constant simulator)."""
    return _correlation(*_defined(simulated, truth))


def _ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks (ties share the mean of their positions)."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x), dtype=float)
    values = x[order]
    start = 0
    for end in range(1, len(x) + 1):
        if end == len(x) or values[end] != values[start]:
            ranks[order[start:end]] = (start + end - 1) / 2
            start = end
    return ranks


def spearman(simulated: np.ndarray, truth: np.ndarray) -> float:
    """Spearman rank correlation of simulated with true effects (0 for a constant simulator)."""
    sim, tru = _defined(simulated, truth)
    return _correlation(_ranks(sim), _ranks(tru))


def mean_absolute_error(simulated: np.ndarray, truth: np.ndarray) -> float:
    """Mean absolute difference of simulated and true effects over the changes whose true effect is defined."""
    sim, tru = _defined(simulated, truth)
    return float(np.abs(sim - tru).mean()) if len(tru) else math.nan


@dataclass(frozen=True)
class FieldScores:
    """A simulator's effects over a set of store changes, scored against the ground truth's, with 95% intervals."""

    alignment: Estimate
    """Directional alignment over the changes whose true effect is significant."""
    aligned: int
    """Of those changes, how many the simulator gets the direction of (on the full sample)."""
    counted: int
    """How many changes have a significant true effect."""
    pearson: Estimate
    spearman: Estimate
    mae: Estimate
    """Mean absolute effect error, in the effect's own unit."""
    changes: int
    """Store changes scored."""
    draws: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    """Each score's bootstrap draws (NaN where undefined), one per resample of the intents, for
    :func:`paired_difference`; not written to JSON."""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields (NaN as None)."""
        out: dict[str, object] = {
            "aligned": self.aligned,
            "counted": self.counted,
            "changes": self.changes,
        }
        for name in FIELD_METRICS:
            estimate: Estimate = getattr(self, name)
            out[name] = _json(estimate.value)
            out[f"{name}_ci"] = [_json(x) for x in estimate.ci]
        return out


def _json(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _estimate(point: float, draws: list[float]) -> Estimate:
    finite = np.array([d for d in draws if math.isfinite(d)])
    if not math.isfinite(point) or not finite.size:
        return Estimate(point, (math.nan, math.nan))
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return Estimate(point, (float(lo), float(hi)))


def field_scores(
    simulated: np.ndarray,
    truth: np.ndarray,
    significant: np.ndarray,
    simulated_draws: np.ndarray,
    truth_draws: np.ndarray,
) -> FieldScores:
    """Every score of the module docstring, from the effects (one per change) and their bootstrap draws ``[n_boot, changes]``.

    Row ``b`` of both draw arrays must come from the same resampled intents; ``significant``
    flags the changes whose true effect's interval excludes 0 on the full sample.
    """
    sim, tru = np.asarray(simulated, dtype=float), np.asarray(truth, dtype=float)
    counted = np.asarray(significant, dtype=bool)
    sim_draws, tru_draws = np.asarray(simulated_draws, float), np.asarray(truth_draws, float)
    if sim_draws.shape != tru_draws.shape or sim_draws.shape[1:] != tru.shape:
        raise ValueError(
            "field_scores needs draws of shape [n_boot, changes] on both sides "
            f"(got {sim_draws.shape} and {tru_draws.shape} for {tru.shape[0]} changes)"
        )
    metrics = {
        "alignment": lambda s, t: directional_alignment(s, t, counted),
        "pearson": pearson,
        "spearman": spearman,
        "mae": mean_absolute_error,
    }
    draws = {
        name: np.array([f(s, t) for s, t in zip(sim_draws, tru_draws, strict=True)], dtype=float)
        for name, f in metrics.items()
    }
    estimates = {name: _estimate(f(sim, tru), draws[name].tolist()) for name, f in metrics.items()}
    mask = counted & np.isfinite(tru) & (tru != 0)
    aligned = int((np.sign(predicted(sim[mask])) == np.sign(tru[mask])).sum())
    return FieldScores(
        alignment=estimates["alignment"],
        aligned=aligned,
        counted=int(mask.sum()),
        pearson=estimates["pearson"],
        spearman=estimates["spearman"],
        mae=estimates["mae"],
        changes=len(tru),
        draws=draws,
    )


def paired_difference(first: FieldScores, second: FieldScores, metric: str) -> Estimate:
    """``first``'s score minus ``second``'s with a paired 95% percentile interval.

    Both must come from the same resamples of the same intents (:func:`field_scores` over the
    same visits, bootstrap size and seed), so draw ``b`` of each is the same resample and their
    difference is one draw of the paired difference (resamples where either score is undefined
    are left out), as in the paired bootstrap of Efron and Tibshirani (1993), ch. 16.

    Example:
        >>> from rewardgym.agents.evaluation.fidelity import Estimate
        >>> def scores(value, draws):
        ...     est = Estimate(value, (min(draws), max(draws)))
        ...     return FieldScores(est, 0, 0, est, est, est, 1, {"pearson": np.array(draws)})
        >>> paired_difference(scores(0.5, [0.4, 0.5, 0.6]), scores(0.2, [0.1, 0.2, 0.3]), "pearson").value
        0.3
    """
    if metric not in FIELD_METRICS:
        raise ValueError(
            f"paired_difference: unknown score {metric!r}; choose from {FIELD_METRICS}"
        )
    a, b = first.draws.get(metric), second.draws.get(metric)
    if a is None or b is None or a.shape != b.shape:
        raise ValueError(
            "paired_difference needs both scores' draws from the same resamples (same visits, "
            f"bootstrap size and seed); got {None if a is None else a.shape} and "
            f"{None if b is None else b.shape}"
        )
    point = getattr(first, metric).value - getattr(second, metric).value
    return _estimate(point, (a - b).tolist())


__all__ = [
    "FIELD_METRICS",
    "FieldScores",
    "directional_alignment",
    "field_scores",
    "mean_absolute_error",
    "paired_difference",
    "pearson",
    "predicted",
    "spearman",
]
