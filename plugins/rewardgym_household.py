"""The verifiers taskset ``rewardgym-household``: verifiers imports this module by the id, and reads ``__all__``.

A thin re-export of :mod:`rewardgym.integrations.verifiers_household` (needs ``rewardgym[verifiers]``).
"""

from rewardgym.integrations.verifiers_household import ChatHarness, HouseholdEnv, HouseholdTaskset

__all__ = ["ChatHarness", "HouseholdEnv", "HouseholdTaskset"]
