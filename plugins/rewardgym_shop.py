"""The verifiers taskset ``rewardgym-shop``: verifiers imports this module by the id, and reads ``__all__``.

A thin re-export of :mod:`rewardgym.integrations.verifiers` (needs ``rewardgym[verifiers]``).
"""

from rewardgym.integrations.verifiers import ChatHarness, ShopEnv, ShopTaskset

__all__ = ["ChatHarness", "ShopEnv", "ShopTaskset"]
