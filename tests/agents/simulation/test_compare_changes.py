"""A/B effects over many store changes, scored in the field's terms (alignment, correlations, error)."""

from __future__ import annotations

import pytest

from rewardgym.agents.evaluation.fidelity import SessionSummary
from rewardgym.agents.simulation.ab import FIELD_EFFECTS, compare_changes

N = 300


def summary(bought: bool, length: int, value: float) -> SessionSummary:
    return SessionSummary(
        length, (length - 1, 0, 1), (0,) * 13, (), (), bought, bought, value * bought
    )


def store(buy_share: float, length: int, value: float) -> list[SessionSummary]:
    """N visits of which the first ``buy_share`` buy an order of ``value`` in ``length`` steps."""
    return [summary(i < buy_share * N, length, value) for i in range(N)]


CHANGES = {  # buy share, length, order value: clear effects both ways, and one change of nothing
    "base": (0.40, 10, 60.0),
    "up": (0.20, 8, 70.0),
    "down": (0.60, 12, 50.0),
    "slight": (0.30, 9, 65.0),
    "none": (0.40, 10, 60.0),
}


def truth() -> dict[str, list[SessionSummary]]:
    return {name: store(*spec) for name, spec in CHANGES.items()}


def test_the_truth_against_itself_scores_full_alignment_and_correlation() -> None:
    changes = [c for c in CHANGES if c != "base"]
    per_change, scores = compare_changes(truth(), truth(), changes, n_boot=100)
    assert set(per_change) == set(changes) and set(scores) == set(FIELD_EFFECTS)
    conversion = scores["conversion"]
    assert (conversion.aligned, conversion.counted, conversion.changes) == (3, 3, 4)
    assert conversion.alignment.value == 1.0 and conversion.alignment.ci == (1.0, 1.0)
    assert conversion.pearson.value == pytest.approx(1.0)
    assert conversion.spearman.value == pytest.approx(1.0) and conversion.mae.value == 0.0
    assert per_change["none"]["conversion"].truth.value == 0.0


def test_an_always_terminate_simulator_scores_no_alignment() -> None:
    quitter = {name: [summary(False, 1, 0.0)] * N for name in CHANGES}
    changes = [c for c in CHANGES if c != "base"]
    _, scores = compare_changes(quitter, truth(), changes, n_boot=100)
    for effect in FIELD_EFFECTS:
        s = scores[effect]
        assert s.counted == 3 and s.aligned == 0, effect
        assert s.alignment.value == 0.0 and s.alignment.ci == (0.0, 0.0)
        assert s.pearson.value == 0.0 and s.spearman.value == 0.0
    assert scores["conversion"].mae.value == pytest.approx((0.2 + 0.2 + 0.1 + 0.0) / 4)


def test_a_simulator_with_the_wrong_direction_is_anticorrelated() -> None:
    reverse = {
        "base": store(0.40, 10, 60.0),
        "up": store(0.50, 11, 55.0),
        "down": store(0.30, 9, 65.0),
        "slight": store(0.45, 10, 62.0),
        "none": store(0.40, 10, 60.0),
    }
    changes = [c for c in CHANGES if c != "base"]
    _, scores = compare_changes(reverse, truth(), changes, n_boot=100)
    assert scores["conversion"].alignment.value == 0.0
    assert scores["conversion"].pearson.value < -0.9
    keep = {c: [False] * N for c in changes}
    _, unparsed = compare_changes(reverse, truth(), changes, keep=keep, n_boot=20)
    assert unparsed["conversion"].alignment.value == 0.0, "no completed pair predicts no effect"
    with pytest.raises(ValueError, match="at least one"):
        compare_changes(truth(), truth(), [])
