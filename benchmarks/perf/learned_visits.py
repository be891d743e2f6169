"""Learned-simulator visits per second: every open visit of every store in one generation per turn, vs one at a time.

Reads top to bottom: build the shop model of ``bench fidelity --preset quick`` (untrained, on a
small synthetic corpus; or load ``--model``), then let it visit the base store and the
variants with the same held-out intents twice: one visit at a time (one prompt per
generation, store after store), and all stores' visits together (one batched generation per
turn over every open visit; a visit that ends leaves the batch). Prints both rates (per
second of wall time and of this process's CPU time, which other jobs on the machine disturb
less), their ratio, and, for greedy decoding, whether both runs gave the same outputs. Then
where one turn's time goes: the prompts of every visit's third observation generated in one
policy call, timed in CPU seconds per output, whole and split into prefill (a one-token
generation of the same batches), the constrained mask (:class:`GrammarMask`'s calls) and the
rest, decoding (issue 43, item 1).

An untrained model's outputs never parse, so by default (``--drive shopper``) the model
answers every open visit each turn (the same prompts and generations a learned row pays
for) while a second ground-truth shopper (seed 1) chooses the actions: the visits then last
as long as a faithful simulator's (a few steps to the cap, about 9 on average), which is what
makes batching over visits that end at different times matter. ``--drive model`` lets the
model's own outputs act (for a trained model).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal
from unittest import mock

import tyro

from rewardgym.agents.llm.config import Decoding, PromptConfig, SamplingConfig
from rewardgym.agents.llm.constrained import GrammarMask
from rewardgym.agents.simulation import LLMSimPolicy, ShopperPolicy, SimulationConfig, visit_stores
from rewardgym.bounds import AT_LEAST_1, NON_NEGATIVE, Range, check_fields
from rewardgym.envs.shopping.live.env import ShopStoreEnv
from rewardgym.envs.shopping.synthetic.config import StoreConfig
from rewardgym.envs.shopping.synthetic.variants import VariantName, store_variant


@dataclass(frozen=True)
class Config:
    """What to measure."""

    model: str = ""
    """A model folder (e.g. a ``bench shop`` checkpoint); empty builds an untrained model of ``--size``."""
    size: Literal["quick", "tiny"] = "quick"
    """Preset whose prompt and sampling settings are used, and whose model is built when ``--model`` is empty: ``quick`` is the shop model of ``bench fidelity --preset quick`` (bench shop's quick model; perf-learned-visits.md was recorded with its earlier width-128 one), ``tiny`` the shop tiny preset's."""
    visits: Annotated[int, AT_LEAST_1] = 6
    """Visits per store, the same held-out intents in every store."""
    variants: tuple[VariantName, ...] = ("price-up-20", "half-results")
    """Store variants visited besides the base store."""
    temperature: Annotated[float, NON_NEGATIVE] = 0.6
    """Sampling temperature (0: greedy, and both runs must then give the same outputs)."""
    decoding: Decoding = "constrained"
    """How the model decodes: constrained to each page's actions (``bench fidelity``'s default) or free."""
    drive: Literal["shopper", "model"] = "shopper"
    """Who chooses the actions: ``shopper`` (a ground-truth shopper with seed 1, the model answering every turn too) or ``model`` (its own outputs, as in ``bench fidelity``)."""
    max_steps: Annotated[int, Range(ge=2)] = 20
    """Steps per visit at most, the given first step included (``bench fidelity``'s cap)."""
    threads: Annotated[int, AT_LEAST_1] = 1
    """Torch threads."""

    def __post_init__(self) -> None:
        """Refuse numbers outside their range before any work."""
        check_fields(self)


class Counted:
    """The model answering every open visit each turn; the actions are its own or the pacing shopper's."""

    def __init__(self, sim: LLMSimPolicy, pace: ShopperPolicy | None) -> None:
        self.sim, self.pace = sim, pace
        self.name, self.context = sim.name, sim.context
        self.outputs = 0
        self.calls = 0
        self.seen: dict[str, set[str]] = {}

    def start(self, slot: int, env: ShopStoreEnv) -> None:
        """Let the pacing shopper meet the visit."""
        if self.pace is not None:
            self.pace.start(slot, env)

    def act(self, slots: Sequence[int], observations: Sequence[dict[str, Any]]) -> list[str]:
        """The model's outputs (counted and recorded), or the pacing shopper's choices."""
        outputs = self.sim.act(slots, observations)
        self.outputs += len(outputs)
        self.calls += 1
        for observation, output in zip(observations, outputs, strict=True):
            self.seen.setdefault(self.sim.policy.prompts(observation), set()).add(output)
        return outputs if self.pace is None else self.pace.act(slots, observations)


def _model(config: Config, root: Path) -> tuple[Path, PromptConfig, SamplingConfig]:
    from rewardgym.benchmarks.fidelity.config import preset
    from rewardgym.benchmarks.shop.config import preset as shop_preset

    shop = preset("quick").shop if config.size == "quick" else shop_preset("tiny")
    if config.model:
        return Path(config.model), shop.prompt, shop.sampling
    from rewardgym.agents.llm.model import create_default_model
    from rewardgym.envs.shopping.session_sources import build_synthetic_log
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    sessions = shop.default_model.tokenizer_sessions
    store = build_synthetic_log(root / "store", config=SyntheticShopperConfig(sessions=sessions))
    path = create_default_model(root / "model", store, range(sessions), shop.default_model)
    return path, shop.prompt, shop.sampling


def _visits(
    config: Config, sim: LLMSimPolicy, stores: Mapping[str, StoreConfig], batch: int
) -> tuple[Counted, float, float]:
    counted = Counted(
        LLMSimPolicy(sim.policy, sim.name), ShopperPolicy(1) if config.drive == "shopper" else None
    )
    visit = SimulationConfig(
        visits=config.visits, opening="first_step", max_steps=config.max_steps, batch_size=batch
    )
    sim.policy.reset_seed()
    wall, cpu = time.perf_counter(), time.process_time()
    visit_stores(counted, stores, visit)
    return counted, time.perf_counter() - wall, time.process_time() - cpu


def run(config: Config) -> dict[str, float]:
    """Measure and print both modes; returns the figures."""
    from rewardgym.threads import torch_threads

    with torch_threads(config.threads):
        return _measure(config)


def _measure(config: Config) -> dict[str, float]:
    stores: dict[str, StoreConfig] = {
        name: store_variant(name) for name in ("base", *config.variants)
    }
    with tempfile.TemporaryDirectory() as tmp:
        path, prompt, sampling = _model(config, Path(tmp))
        sampling = replace(sampling, temperature=config.temperature, decoding=config.decoding)
        sim = LLMSimPolicy.from_path(path, prompt=prompt, sampling=sampling)
    # Warm up the model and the tokenizer once, so that neither run pays the first call.
    sim.act([0], [_first_observation(stores["base"], sim)])
    total = config.visits * len(stores)
    alone, wall_alone, cpu_alone = _visits(config, sim, stores, 1)
    together, wall_together, cpu_together = _visits(config, sim, stores, total)
    figures = {
        "visits": float(total),
        "one_at_a_time_vps": total / wall_alone,
        "together_vps": total / wall_together,
        "ratio": wall_alone / wall_together,
        "one_at_a_time_cpu_vps": total / cpu_alone,
        "together_cpu_vps": total / cpu_together,
        "cpu_ratio": cpu_alone / cpu_together,
        "outputs_per_visit": together.outputs / total,
    }
    print(
        f"Learned-simulator visits: {total} visits ({config.visits} x {len(stores)} stores), "
        f"model {config.model or config.size}, temperature {config.temperature}, actions by "
        f"the {config.drive}, {sampling.decoding} decoding, {sampling.max_new_tokens} new tokens "
        f"at most, generation batch "
        f"{sampling.batch_size}, {figures['outputs_per_visit']:.1f} model outputs per visit:"
    )
    for label, counted, wall, cpu in (
        ("one visit at a time          ", alone, wall_alone, cpu_alone),
        ("every store's visits together", together, wall_together, cpu_together),
    ):
        print(
            f"  {label}: {total / wall:7.2f} visits/s wall, {total / cpu:7.2f} per CPU second "
            f"({counted.outputs} outputs in {counted.calls} policy calls, "
            f"{counted.outputs / wall:.1f} outputs/s wall)"
        )
    print(
        f"  ratio together/one at a time: {figures['ratio']:.1f}x wall, "
        f"{figures['cpu_ratio']:.1f}x CPU time"
    )
    if config.temperature == 0:
        same = alone.seen == together.seen and all(len(v) == 1 for v in alone.seen.values())
        figures["identical"] = float(same)
        print(f"  greedy outputs identical in both runs: {'yes' if same else 'NO'}")
    figures.update(turn_phases(sim, stores, config))
    return figures


def _third_observations(
    stores: Mapping[str, StoreConfig], sim: LLMSimPolicy, config: Config
) -> list[dict[str, Any]]:
    """Each visit's observation after two steps of the pacing shopper (or its last, if shorter)."""
    found = []
    for store in stores.values():
        for intent in SimulationConfig(visits=config.visits).intents():
            env = _store_env(store, sim)
            observation, _ = env.reset(options={"intent": intent})
            for _ in range(2):
                observation, _, terminated, truncated, _ = env.step(env.truth_output())
                if terminated or truncated:
                    break
            found.append(observation)
    return found


def turn_phases(
    sim: LLMSimPolicy, stores: Mapping[str, StoreConfig], config: Config
) -> dict[str, float]:
    """CPU seconds per output of one policy call over every visit's third observation, by phase."""
    import torch

    from rewardgym.agents.llm.generation import generate
    from rewardgym.agents.llm.model import bf16_available
    from rewardgym.agents.llm.policy import LLMPolicy, generation_config

    policy = sim.policy
    assert isinstance(policy, LLMPolicy)
    observations = _third_observations(stores, sim, config)
    prompts = [policy.prompts(o) for o in observations]
    actions = policy.page_actions(observations) if policy.sampling.decoding != "free" else None
    masked = [0.0]
    original = GrammarMask.__call__

    def timed(mask: GrammarMask, input_ids: Any, scores: Any) -> Any:
        start = time.process_time()
        try:
            return original(mask, input_ids, scores)
        finally:
            masked[0] += time.process_time() - start

    policy.reset_seed()
    cpu = time.process_time()
    with mock.patch.object(GrammarMask, "__call__", timed):
        policy.complete(prompts, actions)
    whole = time.process_time() - cpu
    one = generation_config(policy.tokenizer, 0.0, 1.0, 1, cache="static")
    encoded = policy.tokenizer(prompts, add_special_tokens=False)["input_ids"]
    order = sorted(range(len(prompts)), key=lambda i: len(encoded[i]))
    size = policy.sampling.batch_size
    cpu = time.process_time()
    fast = policy.sampling.bf16 and bf16_available()
    for start in range(0, len(order), size):
        chunk = [encoded[i] for i in order[start : start + size]]
        with torch.autocast(policy.model.device.type, dtype=torch.bfloat16, enabled=fast):
            generate(policy.model, policy.tokenizer, chunk, one)
    prefill = time.process_time() - cpu
    n = len(prompts)
    tokens = sum(len(e) for e in encoded) / n
    split = {
        "turn_cpu_per_output": whole / n,
        "prefill_share": prefill / whole,
        "mask_share": masked[0] / whole,
        "decode_share": max(0.0, whole - prefill - masked[0]) / whole,
    }
    print(
        f"One turn over {n} visits' third observations ({tokens:.0f} prompt tokens on average, "
        f"{policy.sampling.decoding} decoding): {1000 * split['turn_cpu_per_output']:.1f} ms of "
        f"CPU per output; prefill {100 * split['prefill_share']:.0f}%, decoding "
        f"{100 * split['decode_share']:.0f}%, constrained mask {100 * split['mask_share']:.0f}%"
    )
    return split


def _store_env(store: StoreConfig, sim: LLMSimPolicy) -> ShopStoreEnv:
    """A live store env showing ``store`` with ``sim``'s context settings, the first step given."""
    o = sim.context
    return ShopStoreEnv(
        store=store,
        opening="first_step",
        context=o.context,
        max_context_chars=o.max_context_chars,
        max_context_tokens=o.max_context_tokens,
        count_tokens=o.count_tokens,
    )


def _first_observation(store: StoreConfig, sim: LLMSimPolicy) -> dict[str, Any]:
    """The first observation of a held-out visit to ``store`` with ``sim``'s context settings."""
    env = _store_env(store, sim)
    observation, _ = env.reset(options={"intent": SimulationConfig().first_intent})
    return observation


if __name__ == "__main__":
    run(tyro.cli(Config, description=__doc__))
