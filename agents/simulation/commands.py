"""``rewardgym simulate ab``: a counterfactual A/B test of a shopper simulator against the ground-truth shopper."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import tyro

from rewardgym.agents.llm.served import ServedConfig, check_cache_outside
from rewardgym.agents.simulation.config import SimulationConfig
from rewardgym.bounds import undefined_as_null
from rewardgym.envs.shopping.synthetic.variants import VARIANT_NAMES, VariantName

OUTPUT_KIND = "simulate-ab"
"""The kind of a ``simulate ab`` output directory (its ``.rewardgym-output.json`` marker)."""


def check_policy(spec: str) -> None:
    """Refuse a ``--policy`` that names no simulator, listing the valid ones (nothing is loaded)."""
    from rewardgym.agents.simulation.policies import BASELINE_NAMES

    name, colon, seed = spec.partition(":")
    if name == "shopper" and (not colon or seed.isdigit()):
        return
    if spec in BASELINE_NAMES:
        return
    if Path(spec).is_dir() and (Path(spec) / "config.json").is_file():
        return
    from rewardgym.agents.llm.served import is_served, parse_served

    if is_served(spec):
        parse_served(spec)
        return
    raise ValueError(
        f"--policy {spec!r}: use shopper, shopper:K (K a seed, e.g. shopper:2), one of "
        f"{', '.join(BASELINE_NAMES)}, a model folder (one holding config.json), or a model "
        "served at an OpenAI-compatible URL, openai:URL[#model]"
    )


@dataclass(frozen=True)
class SimulateAB:
    """A simulator and the ground-truth shopper visit store variants A and B with the same intents; compare the effects.

    Writes results.json (each effect of B vs A, simulator and ground truth, with 95%
    intervals, whether the direction agrees, and both sides' fidelity), report.md and the
    visits (visits_{sim,truth}_{a,b}.jsonl) into --out.
    """

    out: Path
    """Output directory (new or empty, or an earlier simulate ab output with --overwrite)."""
    policy: str = "shopper:1"
    """shopper:K (the ground-truth shopper with seed K), random, always-terminate, first-element, frequency, a model folder, or openai:URL[#model] (a model served by vLLM or transformers serve; settings under --served.*)."""
    store_a: VariantName = "base"
    """The control store (a named variant of the replay corpus's store)."""
    store_b: VariantName = "price-up-20"
    """The changed store."""
    overwrite: bool = False
    """Replace an earlier simulate ab output in --out."""
    simulation: Annotated[SimulationConfig, tyro.conf.arg(name="")] = field(
        default_factory=SimulationConfig
    )
    served: ServedConfig = field(default_factory=ServedConfig)
    """How an openai:URL policy is asked (key variable, concurrency, timeouts, cache)."""

    def __post_init__(self) -> None:
        """Refuse a policy or store variant that names nothing, or a cache inside --out."""
        check_policy(self.policy)
        check_cache_outside(self.served.cache, self.out)
        for option, name in (("--store-a", self.store_a), ("--store-b", self.store_b)):
            if name not in VARIANT_NAMES:
                raise ValueError(
                    f"{option} {name!r}: no such store variant; choose from "
                    f"{', '.join(VARIANT_NAMES)}"
                )

    def run(self) -> None:
        """Check --out, run both sides in both stores and write the report."""
        from rich.console import Console

        from rewardgym.agents.simulation.experiment import report_markdown, run_ab
        from rewardgym.agents.simulation.policies import resolve_policy
        from rewardgym.agents.simulation.visits import write_visits
        from rewardgym.atomic import write_atomic, write_json_atomic
        from rewardgym.envs.shopping.synthetic.variants import store_variant
        from rewardgym.outputs import atomic_output, prepare_output

        # Before the policy loads (a model folder takes seconds): the user's files are refused.
        prepare_output(self.out, OUTPUT_KIND, overwrite=self.overwrite)
        start = time.perf_counter()
        store_a, store_b = store_variant(self.store_a), store_variant(self.store_b)
        policy = resolve_policy(self.policy, seed=self.simulation.seed, served=self.served)
        with atomic_output(self.out, OUTPUT_KIND, overwrite=self.overwrite) as tmp:
            experiment = run_ab(
                policy,
                store_a=store_a,
                store_b=store_b,
                config=self.simulation,
                names=(self.store_a, self.store_b),
            )
            summary = experiment.summary()
            summary["stores"] = {
                self.store_a: dataclasses.asdict(store_a),
                self.store_b: dataclasses.asdict(store_b),
            }
            summary["config"] = dataclasses.asdict(self.simulation)
            summary["seconds"] = round(time.perf_counter() - start, 1)
            write_json_atomic(tmp / "results.json", undefined_as_null(summary))
            report = report_markdown(experiment)
            write_atomic(tmp / "report.md", report)
            for side, pair in (("sim", experiment.simulated), ("truth", experiment.truth)):
                for letter, records in zip("ab", pair, strict=True):
                    write_visits(tmp / f"visits_{side}_{letter}.jsonl", records)
        Console().print(report)
        Console().print(f"wrote {self.out} in {time.perf_counter() - start:.1f} s")


__all__ = ["OUTPUT_KIND", "SimulateAB", "check_policy"]
