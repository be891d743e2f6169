"""Counterfactual A/B effects, and the rules by which a simulator's effect agrees with the ground truth's.

The same intents visit store A and store B, so an effect is a paired difference (B minus A)
whose 95% interval resamples intents. Pure functions over
:class:`~rewardgym.agents.evaluation.fidelity.SessionSummary` lists.

Agreement (:func:`agreement`) can fail, and is earned only by evidence:

* where the ground truth's effect is significant (its interval excludes 0), the simulator
  agrees when its effect has the same sign and is measured as an effect: its own interval
  excludes 0 or holds the truth's effect (a flat simulator whose tight interval sits at 0
  does not earn the direction by a rounding of its sign);
* where it is not, the simulator agrees only by predicting no effect (its own interval holds
  0) with an interval that holds the ground truth's effect;
* a visit that failed (an output that did not parse) is no evidence: a simulator's effect is
  measured on the intents whose visits to both stores completed (``keep``), and with none it
  has no effect (NaN) and agrees with nothing.

Each comparison also carries the effect-size error (simulator minus ground truth) with a 95%
interval from the same resampled intents on both sides (:func:`compare_ab`).

Over many store changes, :func:`compare_changes` adds the field's scores per effect
(:mod:`~rewardgym.agents.evaluation.effect_metrics`: directional alignment, Pearson and
Spearman correlation, mean absolute error), their intervals resampling the same intents for
every change.

Example:
    >>> from rewardgym.agents.evaluation.fidelity import SessionSummary
    >>> def s(bought): return SessionSummary(5, (4, 0, 1), (0,) * 13, (), (), bought, bought, 50.0 * bought)
    >>> effect = ab_effects([s(True), s(False)] * 10, [s(False), s(False)] * 10, n_boot=50)
    >>> effect["conversion"].value
    -0.5
    >>> agreement(effect["conversion"], effect["conversion"])
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rewardgym.agents.evaluation.effect_metrics import FieldScores, field_scores
from rewardgym.agents.evaluation.fidelity import Estimate, SessionSummary

EFFECTS: tuple[str, ...] = ("conversion", "add_to_cart", "basket_value", "session_length")
"""Effects measured: purchase rate and add-to-cart rate (fractions), mean order value of buyers ($), mean steps."""
FIELD_EFFECTS: tuple[str, ...] = ("conversion", "basket_value", "session_length")
"""Effects scored over all store changes in the field's terms (:func:`compare_changes`)."""

_NAN_CI = (math.nan, math.nan)


@dataclass(frozen=True)
class Effect:
    """A B-minus-A difference with its 95% paired-bootstrap interval, and the two means."""

    value: float
    ci: tuple[float, float]
    a: float
    b: float


def _columns(summaries: Sequence[SessionSummary]) -> np.ndarray:
    return np.array(
        [(s.purchased, s.added, s.order_value, s.length) for s in summaries], dtype=float
    ).reshape(len(summaries), 4)


def _means(columns: np.ndarray, idx: np.ndarray) -> np.ndarray:
    if not idx.size:
        return np.full(len(EFFECTS), math.nan)
    rows = columns[idx]
    bought = rows[:, 0] > 0
    basket = float(rows[bought, 2].mean()) if bought.any() else math.nan
    return np.array([rows[:, 0].mean(), rows[:, 1].mean(), basket, rows[:, 3].mean()])


def _picks(n: int, n_boot: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(n, size=n) for _ in range(n_boot)]


def _interval(draws: np.ndarray) -> tuple[float, float]:
    finite = draws[np.isfinite(draws)]
    if not finite.size:
        return _NAN_CI
    lo, hi = np.percentile(finite, [2.5, 97.5])
    return float(lo), float(hi)


def _paired(
    a: Sequence[SessionSummary],
    b: Sequence[SessionSummary],
    keep: Sequence[bool] | None,
    picks: Sequence[np.ndarray],
) -> tuple[dict[str, Effect], np.ndarray]:
    """Every effect on the kept pairs, and its bootstrap draws ``[n_boot, len(EFFECTS)]``."""
    if len(a) != len(b) or not a:
        raise ValueError(
            f"ab_effects needs the same non-zero number of paired visits (got {len(a)} and {len(b)})"
        )
    mask = np.ones(len(a), dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    if mask.shape != (len(a),):
        raise ValueError(f"keep must hold one flag per pair ({len(a)}), got {mask.shape[0]}")
    ca, cb = _columns(a), _columns(b)
    kept = np.flatnonzero(mask)
    mean_a, mean_b = _means(ca, kept), _means(cb, kept)
    draws = np.array(
        [_means(cb, p[mask[p]]) - _means(ca, p[mask[p]]) for p in picks], dtype=float
    ).reshape(len(picks), len(EFFECTS))
    out = {
        name: Effect(
            float(mean_b[j] - mean_a[j]), _interval(draws[:, j]), float(mean_a[j]), float(mean_b[j])
        )
        for j, name in enumerate(EFFECTS)
    }
    return out, draws


def ab_effects(
    a: Sequence[SessionSummary],
    b: Sequence[SessionSummary],
    *,
    n_boot: int = 500,
    seed: int = 0,
    keep: Sequence[bool] | None = None,
) -> dict[str, Effect]:
    """Every effect of :data:`EFFECTS` from paired visits (``a[i]`` and ``b[i]`` share an intent).

    Only the pairs whose ``keep`` flag is set count (all by default); the bootstrap resamples
    every intent and averages the kept ones it drew. The basket value is the mean order total
    of the visits that bought; an effect with nothing to average is NaN.
    """
    return _paired(a, b, keep, _picks(len(a), n_boot, seed))[0]


def json_number(x: float) -> float | None:
    """``x``, or None when it is NaN or infinite (JSON has no NaN)."""
    return float(x) if math.isfinite(x) else None


def _sign(x: float) -> int:
    return 0 if x == 0 or not math.isfinite(x) else (1 if x > 0 else -1)


def significant(effect: Effect) -> bool:
    """Whether the effect's 95% interval excludes 0 (False when it is undefined)."""
    lo, hi = effect.ci
    return bool(lo > 0 or hi < 0)


def holds(effect: Effect, x: float) -> bool:
    """Whether ``x`` lies in the effect's 95% interval (False when either is undefined)."""
    lo, hi = effect.ci
    return bool(lo <= x <= hi)


def agreement(simulated: Effect, truth: Effect) -> bool:
    """Whether ``simulated`` predicts ``truth``: its sign where the truth's effect is significant, else no effect.

    Where the ground truth's interval excludes 0, the simulator must have the same sign, and
    its interval must exclude 0 or hold the truth's effect; where it holds 0, the simulator must predict no effect (its interval holding 0) with an
    interval that holds the truth's effect. An undefined simulated effect agrees with nothing.
    """
    if not all(math.isfinite(x) for x in (simulated.value, *simulated.ci)):
        return False
    if significant(truth):
        measured = significant(simulated) or holds(simulated, truth.value)
        return measured and _sign(simulated.value) == _sign(truth.value)
    return not significant(simulated) and holds(simulated, truth.value)


@dataclass(frozen=True)
class EffectComparison:
    """How a simulator's effect compares with the ground-truth shopper's for one store change."""

    simulated: Effect
    truth: Effect
    error: Estimate
    """Simulated minus ground-truth effect, with its 95% interval (the same intents resampled on both sides)."""
    agrees: bool
    """The verdict of :func:`agreement`."""
    direction_agrees: bool
    """Same sign (a zero effect agrees only with a zero effect); a coin toss where the truth is not significant."""
    truth_in_ci: bool
    """The ground-truth effect lies inside the simulator's interval."""
    truth_significant: bool
    """The ground-truth interval excludes 0."""
    size_ratio: float
    """Simulated over ground-truth effect (NaN when the truth is 0)."""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        sim, truth = self.simulated, self.truth
        return {
            "effect": json_number(sim.value),
            "effect_ci": [json_number(x) for x in sim.ci],
            "truth_effect": json_number(truth.value),
            "truth_effect_ci": [json_number(x) for x in truth.ci],
            "agrees": self.agrees,
            "error": json_number(self.error.value),
            "error_ci": [json_number(x) for x in self.error.ci],
            "direction_agrees": self.direction_agrees,
            "truth_in_ci": self.truth_in_ci,
            "truth_significant": self.truth_significant,
            "size_ratio": json_number(self.size_ratio),
            "simulated_a": json_number(sim.a),
            "simulated_b": json_number(sim.b),
            "truth_a": json_number(truth.a),
            "truth_b": json_number(truth.b),
        }


def compare_effect(
    simulated: Effect, truth: Effect, error_ci: tuple[float, float] = _NAN_CI
) -> EffectComparison:
    """Whether ``simulated`` predicts the direction and size of ``truth`` (``error_ci``: the error's interval)."""
    ratio = (
        simulated.value / truth.value if truth.value and math.isfinite(truth.value) else math.nan
    )
    return EffectComparison(
        simulated=simulated,
        truth=truth,
        error=Estimate(simulated.value - truth.value, error_ci),
        agrees=agreement(simulated, truth),
        direction_agrees=_sign(simulated.value) == _sign(truth.value),
        truth_in_ci=holds(simulated, truth.value),
        truth_significant=significant(truth),
        size_ratio=float(ratio),
    )


def compare_ab(
    simulated: tuple[Sequence[SessionSummary], Sequence[SessionSummary]],
    truth: tuple[Sequence[SessionSummary], Sequence[SessionSummary]],
    *,
    keep: Sequence[bool] | None = None,
    n_boot: int = 500,
    seed: int = 0,
) -> dict[str, EffectComparison]:
    """Each effect of the simulator's visits (A, B) against the ground truth's on the same intents.

    The simulator's effects count only its ``keep`` pairs (the intents whose visits both
    completed); the ground truth's count every intent. Both sides resample the same intents,
    so the effect-size error's interval is paired too.
    """
    return _compare(simulated, truth, keep, _picks(len(truth[0]), n_boot, seed))[0]


def _compare(
    simulated: tuple[Sequence[SessionSummary], Sequence[SessionSummary]],
    truth: tuple[Sequence[SessionSummary], Sequence[SessionSummary]],
    keep: Sequence[bool] | None,
    picks: Sequence[np.ndarray],
) -> tuple[dict[str, EffectComparison], np.ndarray, np.ndarray]:
    """:func:`compare_ab` on the resamples ``picks``, with both sides' draws ``[n_boot, len(EFFECTS)]``."""
    if len(simulated[0]) != len(truth[0]):
        raise ValueError(
            f"compare_ab needs the simulator's and the truth's visits of the same intents "
            f"(got {len(simulated[0])} and {len(truth[0])})"
        )
    sim, sim_draws = _paired(simulated[0], simulated[1], keep, picks)
    tru, tru_draws = _paired(truth[0], truth[1], None, picks)
    errors = sim_draws - tru_draws
    comparisons = {
        name: compare_effect(sim[name], tru[name], _interval(errors[:, j]))
        for j, name in enumerate(EFFECTS)
    }
    return comparisons, sim_draws, tru_draws


def compare_changes(
    simulated: Mapping[str, Sequence[SessionSummary]],
    truth: Mapping[str, Sequence[SessionSummary]],
    changes: Sequence[str],
    *,
    base: str = "base",
    keep: Mapping[str, Sequence[bool]] | None = None,
    n_boot: int = 500,
    seed: int = 0,
) -> tuple[dict[str, dict[str, EffectComparison]], dict[str, FieldScores]]:
    """Each store change's :func:`compare_ab` against ``base``, and the field's scores of every effect in :data:`FIELD_EFFECTS`.

    ``simulated`` and ``truth`` map store names to the visits of the same intents, in one
    order; ``keep[change]`` flags the intents whose simulated visits to ``base`` and
    ``change`` both completed. One set of resampled intents serves every change, so the
    scores' intervals resample intents jointly across the changes.
    """
    if not changes:
        raise ValueError("compare_changes needs at least one store change")
    n = len(truth[base])
    picks = _picks(n, n_boot, seed)
    per_change: dict[str, dict[str, EffectComparison]] = {}
    sim_draws, tru_draws = [], []
    for change in changes:
        comparisons, s, t = _compare(
            (simulated[base], simulated[change]),
            (truth[base], truth[change]),
            None if keep is None else keep[change],
            picks,
        )
        per_change[change] = comparisons
        sim_draws.append(s)
        tru_draws.append(t)
    sims, trus = np.stack(sim_draws, axis=2), np.stack(tru_draws, axis=2)
    scores = {}
    for name in FIELD_EFFECTS:
        j = EFFECTS.index(name)
        rows = [per_change[c][name] for c in changes]
        scores[name] = field_scores(
            np.array([r.simulated.value for r in rows]),
            np.array([r.truth.value for r in rows]),
            np.array([r.truth_significant for r in rows]),
            sims[:, j, :],
            trus[:, j, :],
        )
    return per_change, scores


__all__ = [
    "EFFECTS",
    "FIELD_EFFECTS",
    "Effect",
    "EffectComparison",
    "ab_effects",
    "agreement",
    "compare_ab",
    "compare_changes",
    "compare_effect",
    "holds",
    "json_number",
    "significant",
]
