"""Session fidelity metrics: the divergences, the session summary and the classifier two-sample test."""

from __future__ import annotations

import numpy as np
import pytest

from rewardgym.agents.evaluation.fidelity import (
    METRICS,
    classifier_auc,
    js_divergence,
    session_fidelity,
    summarize,
    type_shares,
    w1_from_histograms,
)
from rewardgym.envs.shopping.schema import ShopAction, ShopSession, ShopStep
from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig, generate_sessions


@pytest.fixture(scope="module")
def corpus() -> list[ShopSession]:
    return list(generate_sessions(SyntheticShopperConfig(sessions=800, seed=0)))


def test_js_divergence_bounds_and_symmetry() -> None:
    assert js_divergence(np.array([1, 2, 3]), np.array([2, 4, 6])) == pytest.approx(0.0)
    assert js_divergence(np.array([1, 0]), np.array([0, 1])) == pytest.approx(1.0)
    p, q = np.array([0.7, 0.2, 0.1]), np.array([0.1, 0.3, 0.6])
    assert js_divergence(p, q) == pytest.approx(js_divergence(q, p))
    assert 0 < js_divergence(p, q) < 1
    assert js_divergence(np.zeros(3), p) == 0.0


def test_w1_is_the_shift_between_histograms() -> None:
    a = np.array([0, 1, 2, 1, 0, 0, 0])
    b = np.array([0, 0, 0, 1, 2, 1, 0])
    assert w1_from_histograms(a, b) == pytest.approx(2.0)
    assert w1_from_histograms(a, a) == 0.0


def page(*names: str, extra: str = "") -> str:
    return "<html>" + "".join(f'<a name="{n}">x</a>' for n in names) + extra + "</html>"


def test_summary_counts_only_actions_whose_element_is_on_the_page() -> None:
    steps = (
        ShopStep(
            page("search_input"),
            ShopAction("type_and_submit", "search_input", "red coat"),
            meta={"page_type": "home"},
        ),
        ShopStep(
            page("product_1_title"),
            ShopAction("click", "add_to_cart"),
            meta={"page_type": "search_results"},
        ),
        ShopStep(
            page("place_order", extra="<p>Total: $42.50</p>"),
            ShopAction("click", "place_order"),
            meta={"page_type": "checkout"},
        ),
        ShopStep(page(), ShopAction("terminate"), meta={"page_type": "confirmation"}),
    )
    s = summarize(ShopSession("s", steps))
    assert s.length == 4 and s.types == (2, 1, 1) and s.queries == ("red coat",)
    assert not s.added, "add_to_cart was not on its page"
    assert s.purchased and s.order_value == 42.5
    assert s.transitions[-1] == ("confirmation", "end")
    assert s.transitions[0] == ("home", "search_results")


def test_same_distribution_is_near_the_floor_and_a_degenerate_one_is_far(
    corpus: list[ShopSession],
) -> None:
    same = session_fidelity(corpus[:400], corpus[400:], n_boot=50)
    assert set(same.metrics) == set(METRICS)
    assert 0.4 < same.auc.value < 0.6 and same.auc.ci[0] < 0.5 < same.auc.ci[1]
    assert same.metrics["action_type_js"].value < 0.002
    quitters = [ShopSession(s.session_id, (s.steps[-1],)) for s in corpus[400:]]
    far = session_fidelity(quitters, corpus[:400], n_boot=50)
    assert far.auc.value > 0.95
    for name in ("action_type_js", "length_w1", "add_to_cart_gap", "transition_js"):
        assert far.metrics[name].value > 10 * same.metrics[name].value, name
        lo, hi = far.metrics[name].ci
        assert lo <= hi
    assert far.simulated["mean_length"] == 1.0 and far.simulated["purchase_rate"] == 0.0
    row = far.row()
    assert row["auc_ci"] == list(far.auc.ci) and "simulated" in row


def test_type_shares_sum_to_one(corpus: list[ShopSession]) -> None:
    shares = type_shares(corpus)
    assert sum(shares.values()) == pytest.approx(1.0) and shares["click"] > 0.7


def test_paired_auc_keeps_pairs_in_one_fold() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(300, 4)) * 5
    noisy = base + rng.normal(size=base.shape) * 0.1
    unpaired = classifier_auc(base, noisy, n_boot=20)
    paired = classifier_auc(base, noisy, n_boot=20, paired=True)
    assert abs(paired.value - 0.5) < 0.07
    assert paired.value > unpaired.value
    shifted = classifier_auc(base + 5, noisy, n_boot=20, paired=True)
    assert shifted.value > 0.7
    with pytest.raises(ValueError, match="equal counts"):
        classifier_auc(base, noisy[:-1], paired=True)


def test_fidelity_needs_both_sides(corpus: list[ShopSession]) -> None:
    with pytest.raises(ValueError, match="both sides"):
        session_fidelity([], corpus)
