"""The verifiers taskset ``rewardgym-virtualhome``: verifiers imports this module by the id, and reads ``__all__``;
``load_environment`` is its Environments Hub entry.

A thin re-export of :mod:`rewardgym.integrations.verifiers_household` (needs ``rewardgym[verifiers]``
and the ``virtualhome_eval`` package).
"""

from rewardgym.integrations.verifiers import environment_loader
from rewardgym.integrations.verifiers_household import ChatHarness, HouseholdEnv, VirtualHomeTaskset

load_environment = environment_loader("rewardgym-virtualhome")

__all__ = ["ChatHarness", "HouseholdEnv", "VirtualHomeTaskset", "load_environment"]
