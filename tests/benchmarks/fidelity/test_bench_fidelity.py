"""``rewardgym bench fidelity`` at a tiny size: both tables, intervals, plots, and output ownership."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from rewardgym.agents.evaluation.effect_metrics import paired_difference
from rewardgym.agents.evaluation.fidelity import summarize
from rewardgym.agents.simulation import ContextOptions
from rewardgym.agents.simulation.ab import compare_changes
from rewardgym.agents.simulation.experiment import completed_pairs
from rewardgym.agents.simulation.policies import ShopperPolicy
from rewardgym.agents.simulation.visits import visit_stores
from rewardgym.benchmarks.fidelity import models
from rewardgym.benchmarks.fidelity.config import FidelityBenchConfig, preset
from rewardgym.benchmarks.fidelity.report import agreement_summary, render_tables
from rewardgym.benchmarks.fidelity.suite import Suite, run_bench_fidelity
from rewardgym.benchmarks.repro import table_digests
from rewardgym.cli import main


def test_bench_fidelity_writes_fidelity_and_ab_tables(tmp_path: Path) -> None:
    config = FidelityBenchConfig(
        name="test",
        visits=40,
        llm_visits=10,
        variants=("price-up-20", "half-results"),
        noise_seeds=(1,),
        baselines=("always-terminate",),
        shop_rows=(),
        live_grpo=False,
        n_boot=30,
    )
    out = tmp_path / "fid"
    results = run_bench_fidelity(config, out, progress=False)
    on_disk = json.loads((out / "results.json").read_text())
    assert on_disk["fidelity"] == results["fidelity"]
    assert on_disk["meta"]["table_digests"] == table_digests((out / "results.md").read_text())
    policies = [r["policy"] for r in on_disk["fidelity"]]
    assert policies == ["shopper/seed1", "baseline/always-terminate"]
    floor, quitter = on_disk["fidelity"]
    assert floor["auc"] < quitter["auc"] and quitter["auc"] > 0.9
    assert len(floor["auc_ci"]) == 2 and floor["exact_match"] > quitter["exact_match"]
    ab = on_disk["ab"]
    assert len(ab) == 4 and {r["variant"] for r in ab} == {"price-up-20", "half-results"}
    for row in ab:
        for key in (
            "conversion_effect",
            "conversion_effect_ci",
            "truth_conversion_effect",
            "direction_agrees",
        ):
            assert key in row
    for row in (r for r in ab if r["policy"] == "baseline/always-terminate"):
        assert row["conversion_effect"] == 0.0 and row["parse_rate"] == 1.0
        assert row["direction_agrees"] == (row["truth_conversion_effect"] == 0.0)
        # It predicts no effect (interval [0, 0]): right only where the truth is exactly 0.
        assert row["agrees"] == (
            not row["truth_significant"] and row["truth_conversion_effect"] == 0.0
        )
        assert row["conversion_error"] == pytest.approx(-row["truth_conversion_effect"])
        lo, hi = row["conversion_error_ci"]
        assert lo <= row["conversion_error"] <= hi
    assert floor["parse_rate"] == quitter["parse_rate"] == 1.0
    field = on_disk["field"]
    assert [(r["policy"], r["effect"]) for r in field] == [
        (p, e) for p in policies for e in ("conversion", "basket_value", "session_length")
    ]
    for row in (r for r in field if r["policy"] == "baseline/always-terminate"):
        assert row["aligned"] == 0 and row["changes"] == 2
        assert row["alignment"] in (0.0, None)  # None: no change with a significant truth
        assert row["pearson"] is None, "two changes give no correlation"
    assert (out / "fidelity.png").stat().st_size > 0 and (out / "ab.png").stat().st_size > 0
    tables = (out / "results.md").read_text()
    assert "## A/B" in tables and "error (sim - truth)" in tables and "| parsed |" in tables
    assert "## A/B in the field's terms" in tables and "Noise floor, 95% interval" in tables
    with pytest.raises(FileExistsError):
        run_bench_fidelity(config, out, progress=False)


def test_presets_parse_on_the_command_line(tmp_path: Path) -> None:
    assert preset("quick").visits >= preset("tiny").visits
    with pytest.raises(SystemExit):
        main(["bench", "fidelity", "--preset", "huge"])
    with pytest.raises(ValueError, match="llm_visits"):
        FidelityBenchConfig(visits=10, llm_visits=20)


class Mute:
    """A simulator whose outputs never parse."""

    name = "mute"
    context = ContextOptions()

    def start(self, slot, env) -> None:
        pass

    def act(self, slots, observations):
        return ["I would rather not say."] * len(observations)


def test_a_simulator_that_never_parses_agrees_on_no_variant() -> None:
    config = dataclasses.replace(preset("tiny"), shop_rows=(), baselines=(), noise_seeds=())
    suite = Suite(config, progress=False)
    suite.ground_truth()
    suite.score(Mute(), "test", config.visits)
    (row,) = suite.fidelity
    assert row["parse_rate"] == 0.0 and row["unparsed_rate"] == 1.0
    assert len(suite.ab) == len(config.variants)
    for ab in suite.ab:
        assert ab["parse_rate"] == 0.0 and ab["pairs"] == 0 and ab["conversion_effect"] is None
        assert not ab["agrees"] and ab["conversion_error"] is None
        assert not any(ab[f"{e}_agrees"] for e in ("basket_value", "session_length", "add_to_cart"))
    assert agreement_summary(suite.ab).startswith(f"agrees on 0/{len(config.variants)} variants")
    assert "mute: agrees on 0/2 variants" in render_tables(suite.fidelity, suite.ab)


def test_the_noise_floor_and_baselines_are_scored_again_on_the_learned_rows_intents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43: the learned rows visit the first llm_visits intents; the floor and baselines are scored on those too."""
    config = dataclasses.replace(preset("tiny"), baselines=("frequency",))
    stand_in = ShopperPolicy(3)  # a learned row without the training: any simulator will do
    stand_in.name = "llm/stand-in"
    monkeypatch.setattr(models, "learned_simulators", lambda *args, **kwargs: [stand_in])
    results = run_bench_fidelity(config, tmp_path / "fid", progress=False)
    k, effects = config.llm_visits, ("conversion", "basket_value", "session_length")
    again = results["field_learned_intents"]
    scored = ("shopper/seed1", "baseline/frequency")
    assert [(r["policy"], r["effect"], r["visits"]) for r in again] == [
        (p, e, k) for p in scored for e in effects
    ]
    assert {r["visits"] for r in results["field"] if r["policy"] in scored} == {config.visits}
    assert {r["visits"] for r in results["field"] if r["policy"] == "llm/stand-in"} == {k}
    # The same figures computed directly on the first k intents' visits.
    suite = Suite(config, progress=False)
    first_k = suite.simulation(k)
    truth = visit_stores(ShopperPolicy(0), suite.stores, first_k)
    floor = visit_stores(ShopperPolicy(1), suite.stores, first_k)
    keep = {v: completed_pairs(floor["base"], floor[v]) for v in config.variants}
    _, scores = compare_changes(
        {name: [summarize(r.session) for r in rs] for name, rs in floor.items()},
        {name: [summarize(r.session) for r in rs] for name, rs in truth.items()},
        config.variants,
        keep=keep,
        n_boot=config.n_boot,
        seed=config.seed,
    )
    for row in (r for r in again if r["policy"] == "shopper/seed1"):
        direct = scores[row["effect"]].as_dict()
        assert {key: row[key] for key in direct} == direct
    # Learned minus floor, paired: the stand-in's scores on the same intents and resamples.
    mine = visit_stores(stand_in, suite.stores, first_k)
    _, stand_in_scores = compare_changes(
        {name: [summarize(r.session) for r in rs] for name, rs in mine.items()},
        {name: [summarize(r.session) for r in rs] for name, rs in truth.items()},
        config.variants,
        keep={v: completed_pairs(mine["base"], mine[v]) for v in config.variants},
        n_boot=config.n_boot,
        seed=config.seed,
    )
    paired = results["learned_minus_floor"]
    assert [(r["policy"], r["floor"], r["effect"]) for r in paired] == [
        ("llm/stand-in", "shopper/seed1", e) for e in effects
    ]
    for row in paired:
        for metric in ("alignment", "pearson", "spearman", "mae"):
            direct = paired_difference(
                stand_in_scores[row["effect"]], scores[row["effect"]], metric
            )
            assert row[metric] == pytest.approx(direct.value, nan_ok=True)
            assert row[f"{metric}_ci"] == pytest.approx(list(direct.ci), nan_ok=True)
    main = next(r for r in results["field"] if r["policy"] == "shopper/seed1")
    assert main["mae_ci"] != again[0]["mae_ci"], "24 intents and 6 give other intervals"
    tables = (tmp_path / "fid" / "results.md").read_text()
    heading = (
        f"## A/B in the field's terms on the learned rows' intents: the first {k} of every store"
    )
    before, section = tables.split(heading)
    for policy in (*scored, "llm/stand-in"):
        assert f"| {policy} | {k} | conversion |" in section
    assert f"| shopper/seed1 | {config.visits} | conversion |" in before
    assert f"- shopper/seed1, conversion, {k} visits:" in section
    assert f"## Learned minus noise floor, paired: the field's scores on the first {k}" in section
    assert "| llm/stand-in | shopper/seed1 | conversion |" in section
    fidelity = {r["policy"]: r for r in results["fidelity"]}
    assert (
        fidelity["llm/stand-in"]["ended_rate"] == 1.0 - fidelity["llm/stand-in"]["truncated_rate"]
    )
    assert "| parsed | ended |" in tables
