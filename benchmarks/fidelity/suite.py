"""``rewardgym bench fidelity``: how faithful are shopper simulators on a live store, and do they predict A/B effects?

Reads top to bottom: the ground-truth shopper (seed 0) visits the base store and every store
variant with the same held-out intents; then every simulator does the same: the
ground-truth shopper with other seeds (the noise floor), the baselines, and the learned
simulators (the shop suite's SFT and Shop-R1 models, trained through the shop suite's own
code or reused from a ``bench shop`` output, plus the model trained with multi-turn GRPO on
the live store). Each simulator gets one ``fidelity`` row (its base-store visits against the
ground truth's on the same intents: every divergence of
:mod:`rewardgym.agents.evaluation.fidelity` with 95% intervals, and the classifier AUC) and
one ``ab`` row per variant (its conversion, basket and length effects against the ground
truth's, the effect-size error with its interval, and whether it agrees by the rules of
:mod:`rewardgym.agents.simulation.ab`; a visit whose output does not parse ends as failed and
counts in the parse rate, not in the effects), and one ``field`` row per effect scoring its
effects over all the variants in the field's terms
(:mod:`rewardgym.agents.evaluation.effect_metrics`: directional alignment, Pearson and
Spearman correlation, mean absolute error, each with an interval over intents). The learned
rows visit only the first ``llm_visits`` intents, so when there are any, the noise-floor and
baseline rows' field rows are scored a second time on those intents (``field_learned_intents``)
and shown beside the learned rows, and each learned row's field scores minus each noise-floor
row's on those intents, with paired intervals (``learned_minus_floor``). Writes
``results.json``, ``results.md``, ``fidelity.png`` and ``ab.png`` under ``out``.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import tyro
from rich.console import Console

from rewardgym.agents.evaluation.effect_metrics import (
    FIELD_METRICS,
    FieldScores,
    paired_difference,
)
from rewardgym.agents.evaluation.fidelity import session_fidelity, summarize
from rewardgym.agents.simulation.ab import EffectComparison, compare_changes
from rewardgym.agents.simulation.config import SimulationConfig
from rewardgym.agents.simulation.experiment import completed_pairs
from rewardgym.agents.simulation.policies import (
    BaselinePolicy,
    ShopperPolicy,
    SimPolicy,
    resolve_policy,
)
from rewardgym.agents.simulation.visits import VisitRecord, visit_stores
from rewardgym.benchmarks.fidelity.config import FidelityBenchConfig, PresetName, preset
from rewardgym.benchmarks.fidelity.report import (
    ab_row,
    fidelity_row,
    field_row,
    plot,
    render_tables,
)
from rewardgym.bounds import undefined_as_null
from rewardgym.envs.shopping.synthetic.config import StoreConfig
from rewardgym.envs.shopping.synthetic.variants import store_variant

OUTPUT_KIND = "bench-fidelity"


class Suite:
    """One ``bench fidelity`` run: the ground truth's visits (made once) and every simulator's rows."""

    def __init__(self, config: FidelityBenchConfig, progress: bool) -> None:
        self.config = config
        self.progress = progress
        self.console = Console()
        self.stores: dict[str, StoreConfig] = {
            name: store_variant(name) for name in ("base", *config.variants)
        }
        self.truth: dict[str, list[VisitRecord]] = {}
        self.fidelity: list[dict[str, Any]] = []
        self.ab: list[dict[str, Any]] = []
        self.field: list[dict[str, Any]] = []
        self.field_learned_intents: list[dict[str, Any]] = []
        self.scores: dict[tuple[str, str, int], dict[str, FieldScores]] = {}
        """Each (policy, kind, visits)'s field scores with their draws, for the paired rows."""
        self.timings: dict[str, float] = {}

    def simulation(self, visits: int) -> SimulationConfig:
        """The visits' settings: held-out intents, the first step given, the suite's bootstrap."""
        c = self.config
        return SimulationConfig(
            visits=visits,
            first_intent=c.first_intent,
            opening="first_step",
            n_boot=c.n_boot,
            seed=c.seed,
            batch_size=c.batch_size,
            max_steps=c.max_steps,
        )

    def visit_all(self, policy: SimPolicy, visits: int) -> dict[str, list[VisitRecord]]:
        """``policy``'s visits to every store, with the same intents, all stores' visits stepped together."""
        sim = self.simulation(visits)
        return visit_stores(policy, self.stores, sim, progress=self.progress, desc=policy.name)

    def ground_truth(self) -> None:
        """The ground-truth shopper's visits to every store (the reference of every row)."""
        start = time.perf_counter()
        self.truth = self.visit_all(ShopperPolicy(0), self.config.visits)
        self.timings["truth"] = time.perf_counter() - start

    def score(
        self, policy: SimPolicy, kind: str, visits: int, *, also_first: int | None = None
    ) -> None:
        """Visit every store with ``policy`` and add its fidelity row, A/B rows and field rows.

        With ``also_first`` (fewer than ``visits``), its effects are scored a second time on the
        first ``also_first`` intents only (the learned rows' intents), into
        ``field_learned_intents``, so that its intervals compare like for like with theirs.
        """
        start = time.perf_counter()
        mine = self.visit_all(policy, visits)
        boot = {"n_boot": self.config.n_boot, "seed": self.config.seed}
        truth = {name: records[:visits] for name, records in self.truth.items()}
        report = session_fidelity(
            [r.session for r in mine["base"]],
            [r.session for r in truth["base"]],
            paired=True,
            **boot,
        )
        self.fidelity.append(fidelity_row(policy.name, kind, report, mine["base"]))
        keep, per_variant, rows = self.effects(policy.name, kind, mine, visits)
        for variant in self.config.variants:
            self.ab.append(ab_row(policy.name, kind, variant, keep[variant], per_variant[variant]))
        self.field += rows
        if also_first is not None and also_first < visits:
            self.field_learned_intents += self.effects(policy.name, kind, mine, also_first)[2]
        seconds = time.perf_counter() - start
        self.timings[policy.name] = seconds
        row = self.fidelity[-1]
        self.console.print(
            f"{policy.name}: AUC {row['auc']:.3f}, exact {row['exact_match']:.2f}, "
            f"parsed {row['parse_rate']:.2f} of visits, "
            f"{visits} visits x {len(self.stores)} stores in {seconds:.0f} s"
        )

    def effects(
        self, policy: str, kind: str, mine: dict[str, list[VisitRecord]], visits: int
    ) -> tuple[dict[str, list[bool]], dict[str, dict[str, EffectComparison]], list[dict[str, Any]]]:
        """The store changes' effects of ``mine``'s first ``visits`` intents against the ground truth's on the same intents.

        Returns the completed pairs per change, each change's comparisons, and the ``field`` rows.
        """
        mine = {name: records[:visits] for name, records in mine.items()}
        summaries = {name: [summarize(r.session) for r in rs] for name, rs in mine.items()}
        truths = {
            name: [summarize(r.session) for r in rs[:visits]] for name, rs in self.truth.items()
        }
        variants = self.config.variants
        keep: dict[str, list[bool]] = {v: completed_pairs(mine["base"], mine[v]) for v in variants}
        per_variant, scores = compare_changes(
            summaries, truths, variants, keep=keep, n_boot=self.config.n_boot, seed=self.config.seed
        )
        self.scores[(policy, kind, visits)] = scores
        rows = [
            field_row(
                policy,
                kind,
                effect,
                effect_scores,
                sum(per_variant[v][effect].agrees for v in variants),
                visits,
            )
            for effect, effect_scores in scores.items()
        ]
        return keep, per_variant, rows

    def learned_minus_floor(self) -> list[dict[str, Any]]:
        """Each learned row's field scores minus each noise-floor row's on the same intents, paired.

        Both were scored on the same first ``visits`` intents with the same bootstrap seed, so
        they share every resample (:func:`~rewardgym.agents.evaluation.effect_metrics.paired_difference`).
        """
        rows = []
        for (policy, kind, visits), scores in self.scores.items():
            if kind != "learned":
                continue
            for (floor, floor_kind, floor_visits), floor_scores in self.scores.items():
                if floor_kind != "noise floor" or floor_visits != visits:
                    continue
                for effect, mine in scores.items():
                    row: dict[str, Any] = {
                        "policy": policy,
                        "floor": floor,
                        "visits": visits,
                        "effect": effect,
                    }
                    for metric in FIELD_METRICS:
                        diff = paired_difference(mine, floor_scores[effect], metric)
                        row[metric], row[f"{metric}_ci"] = diff.value, list(diff.ci)
                    rows.append(row)
        return rows


def smoke_banner(config: FidelityBenchConfig) -> str:
    """The banner of a preset whose learned simulators are trained by a smoke-test shop preset."""
    if not (config.shop.smoke_test and (config.shop_rows or config.live_grpo)):
        return ""
    return (
        f"> **SMOKE TEST for the learned rows.** Preset `{config.name}` trains its learned "
        f"simulators (kind `learned`) with bench shop's `{config.shop.name}` preset, seconds of "
        "training, so those rows check the plumbing and are not results; the ground-truth, "
        f"noise-floor and baseline rows are measured, on {config.visits} visits per store."
    )


def run_bench_fidelity(
    config: FidelityBenchConfig,
    out: str | Path,
    *,
    overwrite: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Run the suite, write its files under ``out`` (atomically, refusing a directory it did not write)."""
    from rewardgym.atomic import write_atomic, write_json_atomic
    from rewardgym.benchmarks.provenance import run_provenance
    from rewardgym.benchmarks.repro import table_digests
    from rewardgym.outputs import atomic_output

    wall = time.perf_counter()
    suite = Suite(config, progress)
    with atomic_output(out, OUTPUT_KIND, overwrite=overwrite) as tmp:
        suite.ground_truth()
        learned_rows = bool(config.shop_rows or config.live_grpo or config.served)
        also_first = config.llm_visits if learned_rows else None
        for seed in config.noise_seeds:
            suite.score(ShopperPolicy(seed), "noise floor", config.visits, also_first=also_first)
        for name in config.baselines:
            policy = resolve_policy(name)
            assert isinstance(policy, BaselinePolicy)
            suite.score(policy, "baseline", config.visits, also_first=also_first)
        if config.shop_rows or config.live_grpo:
            from rewardgym.benchmarks.fidelity.models import learned_simulators

            start = time.perf_counter()
            learned = learned_simulators(config, tmp / "models", progress=progress)
            suite.timings["training"] = time.perf_counter() - start
            for policy in learned:
                suite.score(policy, "learned", config.llm_visits)
        for spec in config.served:
            served = resolve_policy(
                spec, seed=config.seed, served=config.served_client, progress=progress
            )
            suite.score(served, "learned", config.llm_visits)
        seconds = time.perf_counter() - wall
        paired = suite.learned_minus_floor()
        results = {
            "meta": {
                "suite": "fidelity",
                "preset": config.name,
                "config": dataclasses.asdict(config),
                "stores": {k: dataclasses.asdict(v) for k, v in suite.stores.items()},
                "wall_seconds": seconds,
                "phase_seconds": suite.timings,
                "smoke_test": bool(smoke_banner(config)),
                **run_provenance(),
            },
            "fidelity": suite.fidelity,
            "ab": suite.ab,
            "field": suite.field,
            "field_learned_intents": suite.field_learned_intents,
            "learned_minus_floor": paired,
        }
        tables = render_tables(
            suite.fidelity,
            suite.ab,
            suite.field,
            suite.field_learned_intents,
            paired,
        )
        if smoke_banner(config):
            tables = f"{smoke_banner(config)}\n\n{tables}\n\n{smoke_banner(config)}"
        results["meta"]["table_digests"] = table_digests(tables)  # type: ignore[index]
        write_json_atomic(tmp / "results.json", undefined_as_null(results))
        write_atomic(tmp / "results.md", f"# bench fidelity ({config.name})\n\n{tables}\n")
        plot(suite.fidelity, suite.ab, tmp)
    suite.console.print(f"\n{tables}\n", markup=False, soft_wrap=True)
    suite.console.print(
        f"bench fidelity ({config.name}): {seconds / 60:.1f} min; results in {out}/"
    )
    return results


@dataclass(frozen=True)
class BenchFidelity:
    """Fidelity and A/B tables of shopper simulators on the live store, against the ground-truth shopper."""

    config: Annotated[FidelityBenchConfig, tyro.conf.arg(name="")] = field(
        default_factory=FidelityBenchConfig
    )
    preset: PresetName = "demo"
    """Named defaults for every option below: demo (the ground truth, its noise floor and the
    baselines on every store change; recorded in docs/results/fidelity-demo.md), tiny (tests), quick (with
    the learned simulators; see docs/live_store.md for its measured time), paper (GPU)."""
    out: Path = Path("results/fidelity")
    """Output directory (new or empty, or an earlier bench fidelity output with --overwrite)."""
    overwrite: bool = False
    """Replace an earlier bench fidelity output in --out."""

    def run(self) -> None:
        """Check --out, run the suite and write its files."""
        from rewardgym.outputs import prepare_output

        prepare_output(self.out, OUTPUT_KIND, overwrite=self.overwrite)  # before any work
        run_bench_fidelity(self.config, self.out, overwrite=self.overwrite)


if __name__ == "__main__":
    args = tyro.cli(
        BenchFidelity, description=__doc__, default=BenchFidelity(config=preset("quick"))
    )
    args.run()


__all__ = ["BenchFidelity", "Suite", "run_bench_fidelity", "smoke_banner"]
