"""Counterfactual A/B effects, their comparison, visits, and ``rewardgym simulate ab``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rewardgym.agents.evaluation.fidelity import SessionSummary
from rewardgym.agents.simulation import (
    ShopperPolicy,
    SimulationConfig,
    ab_effects,
    compare_effect,
    resolve_policy,
    run_visits,
)
from rewardgym.agents.simulation.ab import Effect, agreement, compare_ab, holds, significant
from rewardgym.agents.simulation.experiment import run_ab
from rewardgym.cli import main
from rewardgym.envs.shopping.synthetic import StoreConfig, store_variant


def summary(bought: bool, length: int = 8, value: float = 60.0) -> SessionSummary:
    return SessionSummary(length, (7, 0, 1), (0,) * 13, (), (), bought, bought, value * bought)


def test_paired_effects_and_their_intervals() -> None:
    a = [summary(i % 2 == 0, 8) for i in range(200)]
    b = [summary(i % 4 == 0, 10, 80.0) for i in range(200)]
    effects = ab_effects(a, b, n_boot=200)
    assert effects["conversion"].value == pytest.approx(-0.25)
    assert effects["basket_value"].value == pytest.approx(20.0)
    assert effects["session_length"].value == pytest.approx(2.0)
    lo, hi = effects["conversion"].ci
    assert lo <= -0.25 <= hi and hi < 0
    assert effects["session_length"].ci == pytest.approx((2.0, 2.0))
    nobody = ab_effects(a, [summary(False)] * 200, n_boot=20)
    assert math.isnan(nobody["basket_value"].value)
    with pytest.raises(ValueError, match="paired"):
        ab_effects(a, b[:-1])


def test_compare_effect_reads_direction_size_and_significance() -> None:
    truth = Effect(-0.05, (-0.07, -0.03), 0.4, 0.35)
    agree = compare_effect(Effect(-0.04, (-0.06, -0.02), 0.3, 0.26), truth, (0.0, 0.03))
    assert agree.agrees and agree.direction_agrees and agree.truth_in_ci and agree.truth_significant
    assert agree.size_ratio == pytest.approx(0.8)
    assert agree.error.value == pytest.approx(0.01) and agree.error.ci == (0.0, 0.03)
    wrong = compare_effect(Effect(0.02, (0.0, 0.04), 0.3, 0.32), truth)
    assert not wrong.agrees and not wrong.direction_agrees and not wrong.truth_in_ci
    null = compare_effect(Effect(0.0, (0.0, 0.0), 0.0, 0.0), Effect(0.01, (-0.01, 0.03), 0, 0))
    assert not null.direction_agrees and not null.truth_significant
    assert not null.agrees, "a point interval at 0 does not hold a truth of +0.01"
    assert compare_effect(truth, truth).as_dict()["size_ratio"] == 1.0


@pytest.mark.parametrize(
    ("simulated", "truth", "agrees"),
    [
        # The truth's effect is significant: the same sign, measured as an effect (the
        # simulator's interval excludes 0 or holds the truth's effect).
        ((-0.02, -0.09, 0.05), (-0.05, -0.07, -0.03), True),
        ((-0.03, -0.04, -0.02), (-0.08, -0.10, -0.06), True),
        ((0.01, -0.02, 0.04), (-0.05, -0.07, -0.03), False),
        ((0.0, 0.0, 0.0), (-0.05, -0.07, -0.03), False),
        ((-0.001, -0.007, 0.005), (-0.05, -0.069, -0.033), False),  # flat: sign by rounding
        # It is not: only a no-effect interval holding the truth's effect agrees.
        ((0.01, -0.03, 0.05), (0.02, -0.01, 0.05), True),
        ((0.01, -0.03, 0.015), (0.02, -0.01, 0.05), False),
        ((0.06, 0.04, 0.08), (0.02, -0.01, 0.05), False),
        ((0.0, 0.0, 0.0), (0.0, -0.04, 0.04), True),
        ((0.0, 0.0, 0.0), (0.01, -0.04, 0.04), False),
        # An effect the simulator could not measure agrees with nothing.
        ((math.nan, math.nan, math.nan), (0.0, -0.04, 0.04), False),
        ((math.nan, math.nan, math.nan), (-0.05, -0.07, -0.03), False),
    ],
)
def test_agreement_rules_on_plain_numbers(
    simulated: tuple[float, float, float], truth: tuple[float, float, float], agrees: bool
) -> None:
    sim = Effect(simulated[0], (simulated[1], simulated[2]), 0.0, 0.0)
    tru = Effect(truth[0], (truth[1], truth[2]), 0.0, 0.0)
    assert agreement(sim, tru) is agrees
    assert significant(tru) is (truth[1] > 0 or truth[2] < 0)
    assert holds(sim, 0.0) is (simulated[1] <= 0.0 <= simulated[2])


def test_compare_ab_counts_only_completed_pairs_and_bounds_the_error() -> None:
    truth_a = [summary(i % 2 == 0) for i in range(200)]
    truth_b = [summary(i % 4 == 0) for i in range(200)]
    same = compare_ab((truth_a, truth_b), (truth_a, truth_b), n_boot=200)
    conversion = same["conversion"]
    assert conversion.agrees and conversion.simulated == conversion.truth
    assert conversion.error.value == 0.0 and conversion.error.ci == (0.0, 0.0)
    # A simulator whose B visits all buy, but only its first 100 intents completed.
    sim_b = [summary(True) for _ in range(200)]
    keep = [i < 100 for i in range(200)]
    off = compare_ab((truth_a, sim_b), (truth_a, truth_b), keep=keep, n_boot=200)["conversion"]
    assert off.simulated.value == pytest.approx(0.5) and off.truth.value == pytest.approx(-0.25)
    assert off.error.value == pytest.approx(0.75)
    lo, hi = off.error.ci
    assert 0.6 < lo < 0.75 < hi < 0.9
    assert not off.agrees
    failed = compare_ab((truth_a, truth_b), (truth_a, truth_b), keep=[False] * 200, n_boot=50)
    for c in failed.values():
        assert math.isnan(c.simulated.value) and math.isnan(c.error.value) and not c.agrees
    with pytest.raises(ValueError, match="same intents"):
        compare_ab((truth_a, truth_b), (truth_a[:10], truth_b[:10]))
    with pytest.raises(ValueError, match="one flag per pair"):
        compare_ab((truth_a, truth_b), (truth_a, truth_b), keep=[True])


def test_the_ground_truth_shopper_agrees_with_itself_and_a_price_rise_costs_sales() -> None:
    config = SimulationConfig(visits=400, n_boot=100)
    experiment = run_ab(
        ShopperPolicy(0), store_a=StoreConfig(), store_b=store_variant("price-up-20"), config=config
    )
    for c in experiment.comparisons.values():
        assert c.simulated == c.truth
    conversion = experiment.truth_effects["conversion"]
    assert conversion.value < 0 and conversion.ci[1] < 0
    assert experiment.truth_effects["basket_value"].value > 0
    assert 0.4 < experiment.fidelity[0].auc.value < 0.6


def test_twin_shoppers_and_baselines_visit_the_store() -> None:
    config = SimulationConfig(visits=6, batch_size=4)
    for name in ("shopper:2", "random", "always-terminate", "first-element"):
        records = run_visits(resolve_policy(name), StoreConfig(), config)
        assert [r.intent for r in records] == list(config.intents())
        assert all(r.session.steps for r in records), name
    quitters = run_visits(resolve_policy("always-terminate"), StoreConfig(), config)
    assert all(r.agent_steps == 1 and len(r.session.steps) == 2 for r in quitters)
    with pytest.raises(ValueError, match="unknown policy"):
        resolve_policy("no-such-policy")
    with pytest.raises(ValueError, match="seed"):
        resolve_policy("shopper:x")


def test_simulate_ab_command_writes_its_report_and_guards_the_output(tmp_path: Path) -> None:
    out = tmp_path / "ab"
    args = ["simulate", "ab", "--policy", "random", "--store-b", "half-results"]
    args += ["--visits", "12", "--n-boot", "20", "--out", str(out)]
    main(args)
    results = json.loads((out / "results.json").read_text())
    assert results["policy"] == "baseline/random" and results["visits"] == 12
    assert set(results["effects"]) == {
        "conversion",
        "add_to_cart",
        "basket_value",
        "session_length",
    }
    assert results["stores"]["half-results"]["results_per_page"] == 2
    lines = (out / "visits_sim_b.jsonl").read_text().splitlines()
    assert len(lines) == 12 and json.loads(lines[0])["steps"]
    assert (out / "report.md").read_text().startswith("# A/B: base -> half-results")
    with pytest.raises(SystemExit) as refused:  # the CLI's one line and exit status 2
        main(args)
    assert refused.value.code == 2
    main([*args, "--overwrite"])
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(SystemExit):
        main([*args[:-1], str(mine)])
    assert (mine / "notes.txt").read_text() == "keep"


class Mute:
    """A simulator whose outputs never parse."""

    name = "mute"

    def __init__(self) -> None:
        from rewardgym.agents.simulation.config import ContextOptions

        self.context = ContextOptions()

    def start(self, slot, env) -> None:
        pass

    def act(self, slots, observations):
        return ["..."] * len(observations)


class Lost(Mute):
    """A simulator whose actions parse but name nothing on any page."""

    name = "lost"

    def act(self, slots, observations):
        return [
            '{"rationale": "Hm.", "action": {"type": "click", "name": "no_such_button"}}'
        ] * len(observations)


def test_a_visit_ends_as_failed_at_an_output_that_does_not_parse() -> None:
    records = run_visits(Mute(), StoreConfig(), SimulationConfig(visits=3))
    assert all(r.failed and not r.truncated and r.agent_steps == r.unparsed == 1 for r in records)
    assert all(len(r.session.steps) == 1 for r in records), "only the given first step is logged"
    idle = run_visits(
        Mute(), StoreConfig(), SimulationConfig(visits=3, max_idle_steps=4, end_on_unparsed=False)
    )
    assert all(r.truncated and not r.failed and r.agent_steps == r.unparsed == 4 for r in idle)


def test_a_visit_that_does_nothing_ends_after_the_idle_limit() -> None:
    records = run_visits(Lost(), StoreConfig(), SimulationConfig(visits=3, max_idle_steps=4))
    assert all(r.truncated and not r.failed for r in records)
    assert all(r.agent_steps == r.not_applied == 4 and r.unparsed == 0 for r in records)


@pytest.mark.parametrize("spec", ["shopper:0", "shopper:3", "first-element"])
def test_visits_stepped_together_equal_visits_one_at_a_time(
    spec: str, one_at_a_time, visit_tuple
) -> None:
    from rewardgym.agents.simulation import visit_stores

    stores = {"base": StoreConfig(), "half": store_variant("half-results")}
    config = SimulationConfig(visits=7, batch_size=5, opening="first_step")
    together = visit_stores(resolve_policy(spec), stores, config)
    reference = one_at_a_time(resolve_policy(spec), stores, config)
    for name in stores:
        assert [visit_tuple(r) for r in together[name]] == reference[name], f"{spec} in {name}"
