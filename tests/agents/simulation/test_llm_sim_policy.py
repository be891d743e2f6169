"""A model folder as a shopper simulator: ``resolve_policy(PATH)`` loads an LLMPolicy and visits the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardgym.agents.simulation import LLMSimPolicy, SimulationConfig, resolve_policy, run_visits
from rewardgym.envs.shopping.synthetic import StoreConfig, SyntheticShopperConfig


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rewardgym.agents.llm.model import create_default_model
    from rewardgym.benchmarks.shop_config import preset
    from rewardgym.envs.shopping.data import build_synthetic_store
    from rewardgym.envs.shopping.synthetic import SyntheticShopperConfig

    root = tmp_path_factory.mktemp("sim-llm")
    store = build_synthetic_store(root / "store", config=SyntheticShopperConfig(sessions=20))
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
