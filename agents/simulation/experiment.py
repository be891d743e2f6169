"""One counterfactual A/B experiment: a simulator and the ground-truth shopper each visit stores A and B with the same intents."""

from __future__ import annotations

from dataclasses import dataclass

from rewardgym.agents.evaluation.fidelity import FidelityReport, session_fidelity, summarize
from rewardgym.agents.simulation.ab import (
    EFFECTS,
    Effect,
    EffectComparison,
    ab_effects,
    compare_effect,
)
from rewardgym.agents.simulation.config import SimulationConfig
from rewardgym.agents.simulation.policies import ShopperPolicy, SimPolicy
from rewardgym.agents.simulation.visits import VisitRecord, run_visits
from rewardgym.envs.shopping.synthetic.config import StoreConfig


@dataclass(frozen=True)
class ABExperiment:
    """Both sides' visits to both stores, the effects each side shows, and their comparison."""

    policy: str
    variant_a: str
    variant_b: str
    simulated: tuple[list[VisitRecord], list[VisitRecord]]
    truth: tuple[list[VisitRecord], list[VisitRecord]]
    simulated_effects: dict[str, Effect]
    truth_effects: dict[str, Effect]
    comparisons: dict[str, EffectComparison]
    fidelity: tuple[FidelityReport, FidelityReport]
    """The simulator's visits against the ground truth's, in store A and in store B."""

    def summary(self) -> dict[str, object]:
        """A JSON-ready summary (no visits)."""
        return {
            "policy": self.policy,
            "store_a": self.variant_a,
            "store_b": self.variant_b,
            "visits": len(self.simulated[0]),
            "effects": {name: c.as_dict() for name, c in self.comparisons.items()},
            "fidelity_a": self.fidelity[0].row(),
            "fidelity_b": self.fidelity[1].row(),
        }


def visit_pair(
    policy: SimPolicy, store_a: StoreConfig, store_b: StoreConfig, config: SimulationConfig
) -> tuple[list[VisitRecord], list[VisitRecord]]:
    """``policy``'s visits to ``store_a`` and to ``store_b``, with the same intents."""
    return run_visits(policy, store_a, config), run_visits(policy, store_b, config)


def run_ab(
    policy: SimPolicy,
    *,
    store_a: StoreConfig,
    store_b: StoreConfig,
    config: SimulationConfig,
    names: tuple[str, str] = ("A", "B"),
    truth: tuple[list[VisitRecord], list[VisitRecord]] | None = None,
) -> ABExperiment:
    """Run (or reuse ``truth``) the ground-truth visits and ``policy``'s visits, then compare their effects."""
    truth = truth if truth is not None else visit_pair(ShopperPolicy(0), store_a, store_b, config)
    simulated = visit_pair(policy, store_a, store_b, config)
    boot = {"n_boot": config.n_boot, "seed": config.seed}
    sim_a, sim_b = ([summarize(r.session) for r in side] for side in simulated)
    tru_a, tru_b = ([summarize(r.session) for r in side] for side in truth)
    sim_effects = ab_effects(sim_a, sim_b, **boot)
    truth_effects = ab_effects(tru_a, tru_b, **boot)
    fidelity = tuple(
        session_fidelity([r.session for r in sim], [r.session for r in tru], paired=True, **boot)
        for sim, tru in zip(simulated, truth, strict=True)
    )
    return ABExperiment(
        policy=policy.name,
        variant_a=names[0],
        variant_b=names[1],
        simulated=simulated,
        truth=truth,
        simulated_effects=sim_effects,
        truth_effects=truth_effects,
        comparisons={e: compare_effect(sim_effects[e], truth_effects[e]) for e in EFFECTS},
        fidelity=(fidelity[0], fidelity[1]),
    )


def report_markdown(experiment: ABExperiment) -> str:
    """The experiment as a Markdown table: each effect for the simulator and the ground truth, with intervals."""
    lines = [
        f"# A/B: {experiment.variant_a} -> {experiment.variant_b}, policy {experiment.policy}",
        "",
        f"{len(experiment.simulated[0])} visits per store, the same intents on both sides; "
        "effects are B minus A with 95% paired-bootstrap intervals.",
        "",
        "| effect | simulator | ground truth | direction agrees | truth in sim CI | truth significant |",
        "|---|---|---|---|---|---|",
    ]
    for name, c in experiment.comparisons.items():
        sim, tru = c.simulated, c.truth
        lines.append(
            f"| {name} | {sim.value:+.3f} [{sim.ci[0]:+.3f}, {sim.ci[1]:+.3f}] "
            f"| {tru.value:+.3f} [{tru.ci[0]:+.3f}, {tru.ci[1]:+.3f}] "
            f"| {'yes' if c.direction_agrees else 'no'} | {'yes' if c.truth_in_ci else 'no'} "
            f"| {'yes' if c.truth_significant else 'no'} |"
        )
    fa, fb = experiment.fidelity
    lines += [
        "",
        f"Fidelity against the ground truth: AUC {fa.auc.value:.3f} in {experiment.variant_a}, "
        f"{fb.auc.value:.3f} in {experiment.variant_b} (0.5 = indistinguishable).",
        "",
    ]
    return "\n".join(lines)


__all__ = ["ABExperiment", "report_markdown", "run_ab", "visit_pair"]
