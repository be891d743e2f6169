"""Learned-simulator visits per second: every open visit of every store in one generation per turn, vs one at a time.

Reads top to bottom: build the shop model of ``bench fidelity --preset quick`` (untrained, on a
small synthetic corpus; or load ``--model``), then let it visit the base store and the
variants with the same held-out intents twice: one visit at a time (one prompt per
generation, store after store), and all stores' visits together (one batched generation per
turn over every open visit; a visit that ends leaves the batch). Prints both rates, their
ratio, the outputs per second, and, for greedy decoding, whether the two runs gave the
same visits.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import tyro

from rewardgym.agents.llm.config import PromptConfig, SamplingConfig
from rewardgym.agents.simulation import LLMSimPolicy, SimulationConfig, visit_stores
from rewardgym.agents.simulation.visits import VisitRecord
from rewardgym.envs.shopping.live.env import ShopStoreEnv
from rewardgym.envs.shopping.synthetic.config import StoreConfig
from rewardgym.envs.shopping.synthetic.variants import VariantName, store_variant


@dataclass(frozen=True)
class PerfConfig:
    """What to measure."""

    model: str = ""
    """A model folder (e.g. a ``bench shop`` checkpoint); empty builds an untrained model of ``--size``."""
    size: Literal["quick", "tiny"] = "quick"
    """Model built when ``--model`` is empty, with its preset's prompt and sampling: ``quick`` is the shop model of ``bench fidelity --preset quick`` (width 128, 4 layers), ``tiny`` the shop tiny preset's."""
    visits: int = 8
    """Visits per store, the same held-out intents in every store."""
    variants: tuple[VariantName, ...] = ("price-up-20", "half-results")
    """Store variants visited besides the base store."""
    temperature: float = 0.6
    """Sampling temperature of the learned rows (0: greedy, and both runs must then give the same visits)."""
    max_steps: int = 10
    """Steps per visit at most, the given first step included."""
    end_on_unparsed: bool = False
    """End a visit at its first output that does not parse, as ``bench fidelity`` does; off by default because an untrained model's outputs never parse, which would make every visit one turn long."""
    threads: int = 1
    """Torch threads."""


class Counted:
    """A simulator that counts the outputs it gives and the policy calls (turns) it gets."""

    def __init__(self, sim: LLMSimPolicy) -> None:
        self.sim = sim
        self.name, self.context = sim.name, sim.context
        self.prompts = 0
        self.calls = 0

    def start(self, slot: int, env: ShopStoreEnv) -> None:
        """Nothing per visit."""

    def act(self, slots: Sequence[int], observations: Sequence[dict[str, Any]]) -> list[str]:
        """The simulator's outputs, counted."""
        self.prompts += len(observations)
        self.calls += 1
        return self.sim.act(slots, observations)


def _model(config: PerfConfig, root: Path) -> tuple[Path, PromptConfig, SamplingConfig]:
    from rewardgym.benchmarks.fidelity_config import preset
    from rewardgym.benchmarks.shop_config import preset as shop_preset

    shop = preset("quick").shop if config.size == "quick" else shop_preset("tiny")
    if config.model:
        return Path(config.model), shop.prompt, shop.sampling
    from rewardgym.agents.llm.model import create_default_model
    from rewardgym.envs.shopping.data import build_synthetic_store
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    sessions = shop.default_model.tokenizer_sessions
    store = build_synthetic_store(root / "store", config=SyntheticShopperConfig(sessions=sessions))
    path = create_default_model(root / "model", store, range(sessions), shop.default_model)
    return path, shop.prompt, shop.sampling


def _visits(
    sim: LLMSimPolicy, stores: Mapping[str, StoreConfig], config: SimulationConfig
) -> tuple[dict[str, list[VisitRecord]], float, Counted]:
    counted = Counted(sim)
    sim.policy.reset_seed()
    start = time.perf_counter()
    records = visit_stores(counted, stores, config)
    return records, time.perf_counter() - start, counted


def run(config: PerfConfig) -> dict[str, float]:
    """Measure and print both modes; returns the figures."""
    from rewardgym.runtime import torch_threads

    with torch_threads(config.threads):
        return _measure(config)


def _measure(config: PerfConfig) -> dict[str, float]:
    stores: dict[str, StoreConfig] = {
        name: store_variant(name) for name in ("base", *config.variants)
    }
    with tempfile.TemporaryDirectory() as tmp:
        path, prompt, sampling = _model(config, Path(tmp))
        sampling = replace(sampling, temperature=config.temperature)
        sim = LLMSimPolicy.from_path(path, prompt=prompt, sampling=sampling)
    visit = SimulationConfig(
        visits=config.visits,
        opening="first_step",
        max_steps=config.max_steps,
        end_on_unparsed=config.end_on_unparsed,
        batch_size=1,
    )
    # Warm up the model and the tokenizer once, so that neither run pays the first call.
    visit_stores(sim, {"base": stores["base"]}, replace(visit, visits=2))
    alone, t_alone, n_alone = _visits(LLMSimPolicy(sim.policy, sim.name), stores, visit)
    together, t_together, n_together = _visits(
        LLMSimPolicy(sim.policy, sim.name), stores, replace(visit, batch_size=len(stores) * 1024)
    )
    total = config.visits * len(stores)
    figures = {
        "visits": float(total),
        "one_at_a_time_vps": total / t_alone,
        "together_vps": total / t_together,
        "ratio": t_alone / t_together,
        "one_at_a_time_ops": n_alone.prompts / t_alone,
        "together_ops": n_together.prompts / t_together,
    }
    print(
        f"Learned-simulator visits, {total} visits ({config.visits} x {len(stores)} stores), "
        f"model {config.model or config.size}, temperature {config.temperature}, "
        f"{sampling.max_new_tokens} new tokens at most, generation batch {sampling.batch_size}:"
    )
    print(
        f"  one visit at a time        : {figures['one_at_a_time_vps']:7.2f} visits/s "
        f"({n_alone.prompts} outputs in {n_alone.calls} calls, "
        f"{figures['one_at_a_time_ops']:.1f} outputs/s)"
    )
    print(
        f"  every store's visits at once: {figures['together_vps']:7.2f} visits/s "
        f"({n_together.prompts} outputs in {n_together.calls} calls, "
        f"{figures['together_ops']:.1f} outputs/s)"
    )
    print(f"  ratio together/one at a time: {figures['ratio']:.1f}x")
    if config.temperature == 0:
        same = all(
            [(r.intent, r.session, r.agent_steps) for r in alone[name]]
            == [(r.intent, r.session, r.agent_steps) for r in together[name]]
            for name in stores
        )
        figures["identical"] = float(same)
        print(f"  greedy visits identical in both runs: {'yes' if same else 'NO'}")
    return figures


if __name__ == "__main__":
    run(tyro.cli(PerfConfig, description=__doc__))
