"""The verifiers taskset ``rewardgym-store``: verifiers imports this module by the id, and reads ``__all__``;
``load_environment`` is its Environments Hub entry.

A thin re-export of :mod:`rewardgym.integrations.verifiers_store` (needs ``rewardgym[verifiers]``).
"""

from rewardgym.integrations.verifiers import environment_loader
from rewardgym.integrations.verifiers_store import ChatHarness, StoreEnv, StoreTaskset

load_environment = environment_loader("rewardgym-store")

__all__ = ["ChatHarness", "StoreEnv", "StoreTaskset", "load_environment"]
