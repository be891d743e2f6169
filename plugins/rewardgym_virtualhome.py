"""The verifiers taskset ``rewardgym-virtualhome``: verifiers imports this module by the id, and reads ``__all__``.

A thin re-export of :mod:`rewardgym.integrations.verifiers_household` (needs ``rewardgym[verifiers]``
and the ``virtualhome_eval`` package).
"""

from rewardgym.integrations.verifiers_household import ChatHarness, HouseholdEnv, VirtualHomeTaskset

__all__ = ["ChatHarness", "HouseholdEnv", "VirtualHomeTaskset"]
