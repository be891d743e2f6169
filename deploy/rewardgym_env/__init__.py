"""rewardgym as an OpenEnv environment: the typed client and its action and observation types."""

from rewardgym.integrations.openenv_client import RewardgymClient, TextAction, TextObservation

__all__ = ["RewardgymClient", "TextAction", "TextObservation"]
