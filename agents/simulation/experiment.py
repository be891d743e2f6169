"""One counterfactual A/B experiment: a simulator and the ground-truth shopper each visit stores A and B with the same intents."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rewardgym.agents.evaluation.fidelity import FidelityReport, session_fidelity, summarize
from rewardgym.agents.simulation.ab import Effect, EffectComparison, compare_ab
from rewardgym.agents.simulation.config import SimulationConfig
from rewardgym.agents.simulation.policies import LLMSimPolicy, ShopperPolicy, SimPolicy
from rewardgym.agents.simulation.visits import VisitRecord, visit_stores
from rewardgym.envs.shopping.synthetic.config import StoreConfig
from rewardgym.markdown_text import heading


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
    parse_rate: float
    """Share of intents whose simulated visits to both stores completed (every output parsed)."""
    served: tuple[int, int] | None = None
    """A served simulator's requests in this experiment and how many got no answer (each read
    as an unparsed output); None for a simulator that is not served."""

    def summary(self) -> dict[str, object]:
        """A JSON-ready summary (no visits)."""
        return {
            "policy": self.policy,
            "store_a": self.variant_a,
            "store_b": self.variant_b,
            "visits": len(self.simulated[0]),
            "parse_rate": self.parse_rate,
            **(
                {"served_requests": self.served[0], "served_unanswered": self.served[1]}
                if self.served is not None
                else {}
            ),
            "agrees": sum(c.agrees for c in self.comparisons.values()),
            "effects": {name: c.as_dict() for name, c in self.comparisons.items()},
            "fidelity_a": self.fidelity[0].row(),
            "fidelity_b": self.fidelity[1].row(),
        }


def visit_pair(
    policy: SimPolicy, store_a: StoreConfig, store_b: StoreConfig, config: SimulationConfig
) -> tuple[list[VisitRecord], list[VisitRecord]]:
    """``policy``'s visits to ``store_a`` and to ``store_b``, with the same intents, stepped together."""
    both = visit_stores(policy, {"a": store_a, "b": store_b}, config)
    return both["a"], both["b"]


def completed_pairs(a: Sequence[VisitRecord], b: Sequence[VisitRecord]) -> list[bool]:
    """For each intent, whether its visits to both stores completed (no output failed to parse)."""
    return [not (x.failed or y.failed) for x, y in zip(a, b, strict=True)]


def run_ab(
    policy: SimPolicy,
    *,
    store_a: StoreConfig,
    store_b: StoreConfig,
    config: SimulationConfig,
    names: tuple[str, str] = ("A", "B"),
    truth: tuple[list[VisitRecord], list[VisitRecord]] | None = None,
) -> ABExperiment:
    """Run (or reuse ``truth``) the ground-truth visits and ``policy``'s visits, then compare their effects.

    The simulator's effects count the intents whose visits to both stores completed.
    """
    truth = truth if truth is not None else visit_pair(ShopperPolicy(0), store_a, store_b, config)
    before = _served(policy)
    simulated = visit_pair(policy, store_a, store_b, config)
    after = _served(policy)
    served = None
    if before is not None and after is not None:
        served = (after[0] - before[0], after[1] - before[1])
    boot = {"n_boot": config.n_boot, "seed": config.seed}
    sim_a, sim_b = ([summarize(r.session) for r in side] for side in simulated)
    tru_a, tru_b = ([summarize(r.session) for r in side] for side in truth)
    keep = completed_pairs(*simulated)
    comparisons = compare_ab((sim_a, sim_b), (tru_a, tru_b), keep=keep, **boot)
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
        simulated_effects={e: c.simulated for e, c in comparisons.items()},
        truth_effects={e: c.truth for e, c in comparisons.items()},
        comparisons=comparisons,
        fidelity=(fidelity[0], fidelity[1]),
        parse_rate=sum(keep) / len(keep),
        served=served,
    )


def _served(policy: SimPolicy) -> tuple[int, int] | None:
    """A served simulator's (requests, unanswered) so far; None for any other simulator."""
    return policy.served_requests() if isinstance(policy, LLMSimPolicy) else None


def report_markdown(experiment: ABExperiment) -> str:
    """The experiment as a Markdown table: each effect for the simulator and the ground truth, with intervals."""
    n = len(experiment.simulated[0])
    title = f"A/B: {experiment.variant_a} -> {experiment.variant_b}, policy {experiment.policy}"
    unanswered = ""
    if experiment.served is not None:
        asked, failed = experiment.served
        unanswered = (
            f" The server left {failed} of {asked} requests unanswered (no answer after every "
            "retry: a transport failure, not the model's output), each read as an unparsed "
            "output."
        )
    lines = [
        f"# {heading(title)}",
        "",
        f"{n} visits per store, the same intents on both sides; effects are B minus A with 95% "
        f"paired-bootstrap intervals. Parse rate {experiment.parse_rate:.2f}: the simulator's "
        f"effects count the intents whose visits to both stores parsed to the end.{unanswered} "
        "A simulator agrees where the truth is significant by its sign, elsewhere only by "
        "predicting no effect with an interval that holds the truth's.",
        "",
        "| effect | simulator | ground truth | error (sim - truth) | agrees | truth significant "
        "| truth in sim CI |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, c in experiment.comparisons.items():
        sim, tru, err = c.simulated, c.truth, c.error
        cells = (
            _with_ci(sim.value, sim.ci, _undefined(name, experiment.parse_rate)),
            _with_ci(tru.value, tru.ci, _undefined(name, 1.0)),
            _with_ci(err.value, err.ci, "n/a (an effect is n/a)"),
        )
        lines.append(
            f"| {name} | {' | '.join(cells)} | {'yes' if c.agrees else 'no'} "
            f"| {'yes' if c.truth_significant else 'no'} | {'yes' if c.truth_in_ci else 'no'} |"
        )
    agreed = sum(c.agrees for c in experiment.comparisons.values())
    fa, fb = experiment.fidelity
    lines += [
        "",
        f"Agrees on {agreed}/{len(experiment.comparisons)} effects.",
        f"Fidelity against the ground truth: AUC {fa.auc.value:.3f} in {experiment.variant_a}, "
        f"{fb.auc.value:.3f} in {experiment.variant_b} (0.5 = indistinguishable).",
        "",
    ]
    return "\n".join(lines)


def _undefined(effect: str, parse_rate: float) -> str:
    """What an undefined effect's cell says: ``n/a`` and why it could not be measured."""
    if parse_rate == 0:
        return "n/a (no visit pair completed)"
    if effect == "basket_value":  # the mean order total of the visits that bought
        return "n/a (no order in one store)"
    return "n/a (undefined)"


def _with_ci(value: float, ci: tuple[float, float], undefined: str = "n/a") -> str:
    if not math.isfinite(value):
        return undefined
    lo, hi = (f"{x:+.3f}" if math.isfinite(x) else "n/a" for x in ci)
    return f"{value:+.3f} [{lo}, {hi}]"


__all__ = ["ABExperiment", "completed_pairs", "report_markdown", "run_ab", "visit_pair"]
