"""The synthetic store as a live site: ``rewardgym/ShopStore-v0``, where shopper simulators act and the store reacts."""

from __future__ import annotations

from rewardgym.envs.shopping.live.env import Opening, ShopStoreEnv

__all__ = ["Opening", "ShopStoreEnv"]
