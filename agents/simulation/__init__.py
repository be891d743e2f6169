"""Shopper simulators visiting the live store ``ShopStore-v0``: policies, visits, and counterfactual A/B tests."""

from __future__ import annotations

from rewardgym.agents.simulation.ab import (
    EFFECTS,
    Effect,
    ab_effects,
    agreement,
    compare_ab,
    compare_effect,
)
from rewardgym.agents.simulation.config import ContextOptions, SimulationConfig
from rewardgym.agents.simulation.policies import (
    BaselinePolicy,
    LLMSimPolicy,
    ShopperPolicy,
    SimPolicy,
    resolve_policy,
)
from rewardgym.agents.simulation.visits import VisitRecord, run_visits, visit_stores

__all__ = [
    "EFFECTS",
    "BaselinePolicy",
    "ContextOptions",
    "Effect",
    "LLMSimPolicy",
    "ShopperPolicy",
    "SimPolicy",
    "SimulationConfig",
    "VisitRecord",
    "ab_effects",
    "agreement",
    "compare_ab",
    "compare_effect",
    "resolve_policy",
    "run_visits",
    "visit_stores",
]
