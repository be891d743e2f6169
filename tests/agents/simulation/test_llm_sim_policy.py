"""A model folder as a shopper simulator: ``resolve_policy(PATH)`` loads an LLMPolicy and visits the store.

Greedy visits stepped together (every store's, one batched generation per turn) equal the same
visits one at a time with one prompt per generation.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewardgym.agents.llm.config import SamplingConfig
from rewardgym.agents.llm.policy import LLMPolicy
from rewardgym.agents.simulation import (
    LLMSimPolicy,
    SimulationConfig,
    resolve_policy,
    run_visits,
    visit_stores,
)
from rewardgym.envs.shopping.synthetic import StoreConfig, SyntheticShopperConfig, store_variant
from rewardgym.envs.shopping.synthetic.variants import VARIANT_NAMES


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rewardgym.agents.llm.model import create_default_model
    from rewardgym.benchmarks.shop.config import preset
    from rewardgym.envs.shopping.session_sources import build_synthetic_log
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    root = tmp_path_factory.mktemp("sim-llm")
    store = build_synthetic_log(root / "store", config=SyntheticShopperConfig(sessions=20))
    return create_default_model(root / "model", store, list(range(20)), preset("tiny").model)


def test_a_model_folder_visits_the_store(tiny_model: Path) -> None:
    policy = resolve_policy(str(tiny_model))
    assert isinstance(policy, LLMSimPolicy) and policy.name == "llm/model"
    config = SimulationConfig(visits=2, batch_size=2)
    # An untrained model rarely terminates: four steps per visit keep the test short.
    records = run_visits(policy, StoreConfig(), config, shopper=SyntheticShopperConfig(max_steps=4))
    assert [r.intent for r in records] == list(config.intents())
    for record in records:
        assert 1 <= record.agent_steps <= 3 and record.matches <= record.agent_steps
        assert record.unparsed + record.not_applied <= record.agent_steps
        assert len(record.session.steps) >= 1


class Recorded:
    """An LLM simulator that records each prompt and the output it got; ``one_prompt`` asks one at a time."""

    def __init__(self, sim: LLMSimPolicy, *, one_prompt: bool) -> None:
        self.sim, self.one_prompt = sim, one_prompt
        self.name, self.context = sim.name, sim.context
        self.seen: dict[str, set[str]] = {}
        self.calls: list[int] = []

    def start(self, slot, env) -> None:
        pass

    def act(self, slots, observations):
        llm = self.sim.policy
        prompts = [llm.prompts(o) for o in observations]
        if self.one_prompt:
            outputs = [llm.complete([p])[0] for p in prompts]
        else:
            outputs = self.sim.act(slots, observations)
        self.calls.append(len(prompts))
        for prompt, output in zip(prompts, outputs, strict=True):
            self.seen.setdefault(prompt, set()).add(output)
        return outputs


@pytest.mark.parametrize("end_on_unparsed", [True, False])
def test_greedy_visits_together_equal_visits_one_at_a_time(
    tiny_model: Path, end_on_unparsed: bool, one_at_a_time, visit_tuple
) -> None:
    sampling = SamplingConfig(temperature=0.0, max_new_tokens=16, batch_size=4, bf16=False)
    stores = {"base": StoreConfig(), "half": store_variant("half-results")}
    config = SimulationConfig(
        visits=3,
        batch_size=6,
        opening="first_step",
        max_steps=5,
        max_idle_steps=3,
        end_on_unparsed=end_on_unparsed,
    )
    llm = LLMPolicy.from_path(tiny_model, sampling=sampling, cache="static")
    torch.manual_seed(0)
    with torch.no_grad():  # larger random weights: outputs that differ from prompt to prompt
        for weight in llm.model.parameters():
            weight.normal_(0.0, 0.5)
    together = Recorded(LLMSimPolicy(llm, "together"), one_prompt=False)
    batched = visit_stores(together, stores, config)
    alone = Recorded(LLMSimPolicy(llm, "alone"), one_prompt=True)
    reference = one_at_a_time(alone, stores, config)
    for name in stores:
        assert [visit_tuple(r) for r in batched[name]] == reference[name], name
    assert together.seen == alone.seen, "the same prompts, each with the same single completion"
    assert all(len(outputs) == 1 for outputs in together.seen.values())
    assert len({o for outputs in together.seen.values() for o in outputs}) > 1
    assert together.calls[0] == 6 and set(alone.calls) == {1}, "every open visit in one call"
    dynamic = LLMPolicy(llm.model, llm.tokenizer, sampling=sampling)  # a cache grown per token
    prompts = sorted(together.seen)
    assert dynamic.complete(prompts) == [next(iter(together.seen[p])) for p in prompts]


@pytest.fixture(scope="module")
def constrained_sim(tiny_model: Path) -> LLMSimPolicy:
    """The untrained tiny model as a simulator, decoding constrained (``from_path``'s default)."""
    sim = LLMSimPolicy.from_path(tiny_model)
    assert sim.policy.sampling.decoding == "constrained"
    return sim


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(VARIANT_NAMES),
    first_intent=st.integers(1_000_000, 1_000_000 + 10_000),
)
def test_a_constrained_simulator_parses_at_every_step_of_every_store(
    constrained_sim: LLMSimPolicy, variant: str, first_intent: int
) -> None:
    config = SimulationConfig(visits=2, batch_size=2, first_intent=first_intent, max_steps=5)
    visits = visit_stores(constrained_sim, {variant: store_variant(variant)}, config)[variant]
    for record in visits:
        # Every output parsed: the visit ended by terminate or the step cap, never by a failure.
        assert record.unparsed == 0 and not record.failed
        assert record.agent_steps >= 1
