"""Counterfactual A/B effects: what a store change does to conversion, basket value and session length.

The same intents visit store A and store B, so an effect is a paired difference (B minus A)
whose 95% interval resamples intents. A simulator predicts a change well when its effect has
the ground-truth shopper's sign and size. Pure functions over
:class:`~rewardgym.agents.evaluation.fidelity.SessionSummary` lists.

Example:
    >>> from rewardgym.agents.evaluation.fidelity import SessionSummary
    >>> def s(bought): return SessionSummary(5, (4, 0, 1), (0,) * 13, (), (), bought, bought, 50.0 * bought)
    >>> effect = ab_effects([s(True), s(False)] * 10, [s(False), s(False)] * 10, n_boot=50)
    >>> effect["conversion"].value
    -0.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rewardgym.agents.evaluation.fidelity import SessionSummary

EFFECTS: tuple[str, ...] = ("conversion", "add_to_cart", "basket_value", "session_length")
"""Effects measured: purchase rate and add-to-cart rate (fractions), mean order value of buyers ($), mean steps."""


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
    rows = columns[idx]
    bought = rows[:, 0] > 0
    basket = float(rows[bought, 2].mean()) if bought.any() else math.nan
    return np.array([rows[:, 0].mean(), rows[:, 1].mean(), basket, rows[:, 3].mean()])


def ab_effects(
    a: Sequence[SessionSummary],
    b: Sequence[SessionSummary],
    *,
    n_boot: int = 500,
    seed: int = 0,
) -> dict[str, Effect]:
    """Every effect of :data:`EFFECTS` from paired visits (``a[i]`` and ``b[i]`` share an intent).

    The basket value is the mean order total of the visits that bought (NaN when none did).
    """
    if len(a) != len(b) or not a:
        raise ValueError(
            f"ab_effects needs the same non-zero number of paired visits (got {len(a)} and {len(b)})"
        )
    ca, cb = _columns(a), _columns(b)
    idx = np.arange(len(a))
    mean_a, mean_b = _means(ca, idx), _means(cb, idx)
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        pick = rng.integers(len(a), size=len(a))
        boots.append(_means(cb, pick) - _means(ca, pick))
    draws = np.array(boots).reshape(n_boot, len(EFFECTS))
    out = {}
    for j, name in enumerate(EFFECTS):
        column = draws[:, j][np.isfinite(draws[:, j])]
        lo, hi = np.percentile(column, [2.5, 97.5]) if column.size else (math.nan, math.nan)
        out[name] = Effect(
            float(mean_b[j] - mean_a[j]), (float(lo), float(hi)), float(mean_a[j]), float(mean_b[j])
        )
    return out


def json_number(x: float) -> float | None:
    """``x``, or None when it is NaN or infinite (JSON has no NaN)."""
    return float(x) if math.isfinite(x) else None


def _sign(x: float) -> int:
    return 0 if x == 0 or not math.isfinite(x) else (1 if x > 0 else -1)


@dataclass(frozen=True)
class EffectComparison:
    """How a simulator's effect compares with the ground-truth shopper's for one store change."""

    simulated: Effect
    truth: Effect
    direction_agrees: bool
    """Same sign (a zero effect agrees only with a zero effect)."""
    truth_in_ci: bool
    """The ground-truth effect lies inside the simulator's interval."""
    truth_significant: bool
    """The ground-truth interval excludes 0 (otherwise direction agreement is a coin toss)."""
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
            "direction_agrees": self.direction_agrees,
            "truth_in_ci": self.truth_in_ci,
            "truth_significant": self.truth_significant,
            "size_ratio": json_number(self.size_ratio),
            "simulated_a": json_number(sim.a),
            "simulated_b": json_number(sim.b),
            "truth_a": json_number(truth.a),
            "truth_b": json_number(truth.b),
        }


def compare_effect(simulated: Effect, truth: Effect) -> EffectComparison:
    """Whether ``simulated`` predicts the direction and size of ``truth``."""
    lo, hi = simulated.ci
    tlo, thi = truth.ci
    ratio = (
        simulated.value / truth.value if truth.value and math.isfinite(truth.value) else math.nan
    )
    return EffectComparison(
        simulated=simulated,
        truth=truth,
        direction_agrees=_sign(simulated.value) == _sign(truth.value),
        truth_in_ci=bool(lo <= truth.value <= hi),
        truth_significant=bool(tlo > 0 or thi < 0),
        size_ratio=float(ratio),
    )


__all__ = [
    "EFFECTS",
    "Effect",
    "EffectComparison",
    "ab_effects",
    "compare_effect",
    "json_number",
]
