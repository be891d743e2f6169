"""The verifiers taskset ``rewardgym-household``: verifiers imports this module by the id, and reads ``__all__``;
``load_environment`` is its Environments Hub entry.

A thin re-export of :mod:`rewardgym.integrations.verifiers_household` (needs ``rewardgym[verifiers]``).
"""

from rewardgym.integrations.verifiers import environment_loader
from rewardgym.integrations.verifiers_household import ChatHarness, HouseholdEnv, HouseholdTaskset

load_environment = environment_loader("rewardgym-household")

__all__ = ["ChatHarness", "HouseholdEnv", "HouseholdTaskset", "load_environment"]
