"""Simple reference policies that need no training or only counting."""

from __future__ import annotations

from rewardgym.agents.baselines.shop import (
    FirstElementAgent,
    FrequencyAgent,
    RandomShopAgent,
    ShopPolicy,
    TerminateAgent,
)

__all__ = ["FirstElementAgent", "FrequencyAgent", "RandomShopAgent", "ShopPolicy", "TerminateAgent"]
