"""The verifiers taskset ``rewardgym-shop``: verifiers imports this module by the id, and reads ``__all__``;
``load_environment`` is its Environments Hub entry.

A thin re-export of :mod:`rewardgym.integrations.verifiers` (needs ``rewardgym[verifiers]``).
"""

from rewardgym.integrations.verifiers import ChatHarness, ShopEnv, ShopTaskset, environment_loader

load_environment = environment_loader("rewardgym-shop")

__all__ = ["ChatHarness", "ShopEnv", "ShopTaskset", "load_environment"]
