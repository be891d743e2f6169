"""The verifiers taskset ``rewardgym-store``: verifiers imports this module by the id, and reads ``__all__``.

A thin re-export of :mod:`rewardgym.integrations.verifiers_store` (needs ``rewardgym[verifiers]``).
"""

from rewardgym.integrations.verifiers_store import ChatHarness, StoreEnv, StoreTaskset

__all__ = ["ChatHarness", "StoreEnv", "StoreTaskset"]
